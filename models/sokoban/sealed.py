"""Boxes frozen on goals at the start, turned into walls before the push engine searches.

A box on a goal whose frozen group (analysis.py's freeze test) has every box on a goal can never be
pushed in any solution: no box of the group can move before another of it has, except onto a
dead cell, from which no box reaches a goal again. So those boxes are walls for good, and the
level with them drawn as walls has exactly the same solutions (their cells are never entered:
the player cannot walk onto a box that stays, nor push one that stays). The push engine then
searches the smaller level: fewer boxes in every matching and state, and push distances, dead
cells and pair deadlocks that know those cells are blocked (Microban 144: its 2 x 2 block of
boxes on goals, 16 boxes -> 12). The plan found is mapped back cell by cell onto the level as
given, whose checker replays it.

Only the start is looked at: boxes that freeze on goals later stay boxes (the engine's tables
are built once per level).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from puzzleplan.models.base import ModelError
from puzzleplan.models.sokoban.level import bits

if TYPE_CHECKING:
    from puzzleplan.models.sokoban.model import Sokoban


def sealed_cells(model: "Sokoban") -> list[int]:
    """The cells of the start's boxes frozen on goals for good (model's numbering), by the
    model's own freeze test (analysis.py, on its pull-distance dead cells)."""
    analysis, boxes = model.analysis, model.start_boxes
    sealed = []
    for b in bits(boxes):
        group = analysis.frozen(b, boxes, set()) if analysis.goals >> b & 1 else None
        if group is not None and all(analysis.goals >> g & 1 for g in group):
            sealed.append(b)
    return sealed


def without_sealed(model: "Sokoban") -> tuple["Sokoban", np.ndarray | None]:
    """The level with its sealed boxes drawn as walls, and each of its cells' number in `model`.
    None and `model` itself when there is nothing to seal, when every box is sealed, or when
    the new walls shut the player out of its goal, a box off a goal or an empty goal (the
    player's area shrinks: what lies behind sealed boxes is out of reach for good): then no
    plan exists, which the search of `model` as it is finds."""
    sealed = sealed_cells(model)
    if not sealed or len(sealed) == len(model.goal_cells):     # nothing, or every box: solved already
        return model, None
    spots = {model.cells[c] for c in sealed}
    if model.player_goal in spots:
        return model, None
    rows = [list(row) for row in model.level.grid]
    for r, c in spots:
        rows[r][c] = "#"
    try:
        inner = type(model)(["".join(row) for row in rows], player_goal=model.player_goal, metric=model.metric,
                            name=model.name, max_moves=model.max_moves, prune=model.prune).seal()
    except ModelError:          # the new walls cut the player off from its goal
        return model, None
    if inner.unsolvable_reason() is not None:
        return model, None      # they cut it off from a box off a goal or an empty goal
    return inner, np.array([model.index[cell] for cell in inner.cells], np.int64)
