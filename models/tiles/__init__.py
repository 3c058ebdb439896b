"""Sliding tiles with repeated faces: the family package.

Modules, bottom up: `board` (the vocabulary: cells, neighbours, directions, Manhattan distance,
parity; imports nothing of the package), `notation` (reading and writing files: data, not
models), `pdb_patterns` / `pdb_memory` / `pdb_rank` / `pdb_build` / `pdb_cache` and the driver
`pdb` (pattern databases), `heuristic_kernels` + `heuristic_tables` (the lower bound),
`ida_kernel` + `searcher` (the compiled IDA*), `packed` (uint64 states for the array BFS), and
`model` on top. The independent plan checker is `puzzleplan.plans.check.tiles`, apart on purpose.
"""
from puzzleplan.models.family import Family

SAMPLE = """\
puzzle: tiles
name: a 2x3 board
start: |
  1 2 3
  4 _ 5
goal: |
  1 2 3
  4 5 _
"""

# A 3x3 board far enough from its goal that IDA* runs its kernel with tables and without.
WARM_UP = """\
puzzle: tiles
name: warm-up
start: |
  8 6 7
  2 5 4
  3 _ 1
goal: |
  1 2 3
  4 5 6
  7 8 _
"""

FAMILY = Family(
    name="tiles",
    model="puzzleplan.models.tiles.model:TilesPuzzle",
    summary="sliding tiles, any rows x cols, faces may repeat",
    metrics=("step",),
    checker="puzzleplan.plans.check.tiles:replay",
    tokens="puzzleplan.plans.check.tiles:tokens",
    notations=("grid", "korf", "yaml"),
    collections={".korf": "puzzleplan.models.tiles.korf_lines:load_collection",
                 ".txt": "puzzleplan.models.tiles.korf_lines:load_collection"},   # when its lines are Korf's
    encodings={
        "tiles-moves": "puzzleplan.encoders.sat.tiles:TilesMoves",
        "tiles-dirs": "puzzleplan.encoders.sat.tiles:TilesDirections",
        "tiles-h": "puzzleplan.encoders.sat.tiles_h:TilesHeuristic",
        "tiles-pdb": "puzzleplan.encoders.sat.tiles_pdb:TilesPatternBound",
        "cp-tiles-table": "puzzleplan.encoders.cpsat.tiles:TilesTable",
        "cp-tiles-bool": "puzzleplan.encoders.cpsat.tiles:TilesBool",
    },
    sample="puzzleplan.models.tiles:SAMPLE",
    heuristics=("manhattan", "pdb"),
    kernels=("puzzleplan.models.tiles.ida_kernel", "puzzleplan.models.tiles.heuristic_kernels"),
    table_kernels=("puzzleplan.models.tiles.pdb_rank", "puzzleplan.models.tiles.pdb_build"),
    warm_up="puzzleplan.models.tiles:WARM_UP",
    pattern_databases="puzzleplan.models.tiles.pdb",
    task="puzzleplan.models.tiles.task:compile_task",
    picture="puzzleplan.models.tiles.picture:draw",
)
