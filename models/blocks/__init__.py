"""Sliding-block puzzles (Klotski, 华容道): the family package.

Modules, bottom up: `board` (the vocabulary: shapes, classes of look-alike pieces, the move rule
under the step, slide and piece metrics; imports nothing of the package), `notation` (the YAML
reader and writer), `model` (canonical states, goal, heuristic) and `task` (the planning-task
IR). The independent plan checker is `puzzleplan.plans.check.blocks`, apart on purpose.
"""
from puzzleplan.models.family import Family

SAMPLE = """\
puzzle: blocks
name: a 3x3 slide
board: |
  AB.
  CD.
  ...
goal: {A: [2, 2]}
"""

FAMILY = Family(
    name="blocks",
    model="puzzleplan.models.blocks.model:Blocks",
    summary="sliding-block puzzles (Klotski): pieces of any shape, walls, step/slide/piece metrics",
    metrics=("step", "slide", "piece"),
    checker="puzzleplan.plans.check.blocks:replay",
    tokens="puzzleplan.plans.check.blocks:tokens",
    notations=("grid", "yaml"),
    encodings={
        "blocks-sat": "puzzleplan.encoders.sat.blocks:BlocksSat",
        "cp-blocks": "puzzleplan.encoders.cpsat.blocks:BlocksCp",
    },
    sample="puzzleplan.models.blocks:SAMPLE",
    task="puzzleplan.models.blocks.task:compile_task",
    picture="puzzleplan.models.blocks.picture:draw",
)
