"""Rush Hour: the family package.

Modules, bottom up: `board` (the vocabulary: vehicles, cells, exits, the move rule; imports
nothing of the package), `notation` (grid, vehicle-list and typed-grid readers returning data,
and writers), `presolve` (the geometry the encodings share), `packed` (uint64 states for the
array BFS), `planning` (Bird's planning search, seed 001: an engine of this family alone), and
`model` on top (moves under the step and slide metrics, goal, heuristic).
The independent plan checker is `puzzleplan.plans.check.rush_hour`, apart on purpose.
"""
from puzzleplan.models.family import Family

SAMPLE = """\
puzzle: rush-hour
name: a 4x4 board
board: |
  ..B.
  AAB.
  ....
  .CC.
"""

FAMILY = Family(
    name="rush-hour",
    model="puzzleplan.models.rush_hour.model:RushHour",
    summary="Rush Hour, any board size, vehicles of any length, walls",
    metrics=("step", "slide"),
    checker="puzzleplan.plans.check.rush_hour:replay",
    tokens="puzzleplan.plans.check.rush_hour:tokens",
    notations=("grid", "vehicles", "yaml", "seed-003", "cells"),
    encodings={
        "rh-order": "puzzleplan.encoders.sat.rush_hour:RushHourOrder",
        "rh-onehot": "puzzleplan.encoders.sat.rush_hour:RushHourOneHot",
        "cp-rh-int": "puzzleplan.encoders.cpsat.rush_hour:RushHourInt",
        "cp-rh-bool": "puzzleplan.encoders.cpsat.rush_hour:RushHourBool",
    },
    engines={"plan": "puzzleplan.models.rush_hour.planning"},
    collections={".txt": "puzzleplan.models.rush_hour.database:load_collection"},
    sample="puzzleplan.models.rush_hour:SAMPLE",
    task="puzzleplan.models.rush_hour.task:compile_task",
    picture="puzzleplan.models.rush_hour.picture:draw",
)
