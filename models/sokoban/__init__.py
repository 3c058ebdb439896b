"""Sokoban: the family package.

Modules, bottom up: `level` (the vocabulary: XSB characters, the four steps and their LURD
letters, the Level data; imports nothing of the package), `notation` (XSB levels and
collections read into data), `analysis` (dead squares, the matching bound and its cache),
`model` on top (moves and pushes metrics, deadlock pruning). The family's own engine `push`
(the default): `tables` (player-aware push distances, numpy), `kernel_rules` and `kernel_search`
(numba: walks, matching, freeze and PI-corral tests, the resumable A* loop; `prefetch`, a cache
hint for its table look-ups), `native` (the
driver: limits, pushes-then-moves, plans). The independent plan checker is
`puzzleplan.plans.check.sokoban`, apart on purpose.
"""
from puzzleplan.models.family import Family

SAMPLE = """\
puzzle: sokoban
name: one push
level: |
  #####
  #@$.#
  #####
"""

# Four boxes (the three-box table is built from three goals on, the goal-room table of rooms.py
# from four), a corral and a turn; solved under `native.warm_up_settings` (tiny arrays, the
# perimeter at once), every kernel compiles.
WARM_UP = """\
puzzle: sokoban
name: warm-up
level: |
  #######
  #     #
  # $$$ #
  #.#@  #
  #..$ .#
  #######
"""

FAMILY = Family(
    name="sokoban",
    model="puzzleplan.models.sokoban.model:Sokoban",
    summary="Sokoban, XSB levels and collections, moves and pushes metrics",
    metrics=("moves", "pushes"),
    checker="puzzleplan.plans.check.sokoban:replay",
    tokens="puzzleplan.plans.check.sokoban:tokens",
    notations=("xsb", "yaml"),
    encodings={
        "sok-onehot": "puzzleplan.encoders.sat.sokoban:SokobanOneHot",
        "cp-sok": "puzzleplan.encoders.cpsat.sokoban:SokobanCp",
        "sok-push": "puzzleplan.encoders.sat.sokoban_push:SokobanPushes",
        "sok-walk": "puzzleplan.encoders.sat.sokoban_walk:SokobanWalks",
        "cp-sok-push": "puzzleplan.encoders.cpsat.sokoban_push:SokobanPushesCp",
    },
    engines={"push": "puzzleplan.models.sokoban.native"},
    kernels=("puzzleplan.models.sokoban.kernel_rules", "puzzleplan.models.sokoban.kernel_search",
             "puzzleplan.models.sokoban.perimeter", "puzzleplan.models.sokoban.triples",
             "puzzleplan.models.sokoban.pairs", "puzzleplan.models.sokoban.rooms"),
    kernel_engines=("push",),
    warm_up="puzzleplan.models.sokoban:WARM_UP",
    warm_up_settings="puzzleplan.models.sokoban.native:warm_up_settings",
    collections={".xsb": "puzzleplan.models.sokoban.model:load_collection",
                 ".sok": "puzzleplan.models.sokoban.model:load_collection",
                 ".txt": "puzzleplan.models.sokoban.model:load_collection"},   # when its rows are XSB
    sample="puzzleplan.models.sokoban:SAMPLE",
    task="puzzleplan.models.sokoban.task:compile_task",
    picture="puzzleplan.models.sokoban.picture:draw",
)
