"""Sliding tiles as a planning task: one variable per cell holding a face (the blank included).

Action "the blank moves in direction d from cell a to cell b, where face f sits": pre cell a =
blank, cell b = f; eff cell a = f, cell b = blank; named by the direction (`U R D L`), as the
family's plans are. Repeated faces share one value, so identical tiles stay interchangeable.
The goal is the full goal layout. Mutexes: each face's count is fixed, and exactly one cell
holds the blank (that group is given to the encodings).
"""
from __future__ import annotations

from typing import Any

from puzzleplan.models.task.checkpoints import checkpoint
from puzzleplan.models.task.ir import Compiled, Task, Variable, action
from puzzleplan.models.tiles.board import BLANK_INDEX, DIRECTIONS


def compile_task(model: Any) -> Compiled:
    n, faces = model.n, model.faces
    values = tuple("blank" if i == BLANK_INDEX else f for i, f in enumerate(faces))
    cols = model.cols
    variables = tuple(Variable(f"cell-{c // cols + 1}-{c % cols + 1}", values) for c in range(n))
    actions = []
    for a in range(n):
        checkpoint()   # a 16x16 board grounds about 245,000 actions
        for d, b in enumerate(model.neighbours[a]):
            if b < 0:
                continue
            for f in range(1, len(faces)):
                actions.append(action(DIRECTIONS[d], {a: BLANK_INDEX, b: f}, {a: f, b: BLANK_INDEX}))
    task = Task(model.name or "tiles", variables, tuple(model.start), tuple(enumerate(model.goal)), tuple(actions),
                mutexes=(tuple((c, BLANK_INDEX) for c in range(n)),), metric=model.metric, family=model.family)
    return Compiled(task, lambda state: tuple(state), lambda values_: bytes(values_))
