"""Sokoban deadlock knowledge for the encodings (SAT and CP-SAT, both metrics): read off the
model's public tables once, stated as box sets no solving plan ever shows, and push costs.

- Dead squares (`model.dead`): the encodings give such cells no box variable at all.
- Frozen patterns (`frozen_patterns`): sets of box cells in a 2x2, 2x3 or 3x2 window that,
  with only the walls around them, freeze each other and leave a box off a goal. A box is
  blocked on an axis when a wall is on either side of it, dead squares are on both sides (a push
  either way would land it on one), or a box of the set that is blocked itself is on either
  side; the set is frozen when, by the greatest fixpoint of that rule, every box of a subset is
  blocked on both axes. None of them can move first, so none ever moves; more boxes around only
  block more. So a state holding such a set (any step, any plan) can never be solved: one
  clause per pattern and step, sound for every plan, not only the shortest.
- Push waste (`push_waste`): with near(c) the push distance from c to its nearest goal on the
  empty level, a push of the box on j to k changes near by near(k) - near(j) >= -1 (the pull
  search that made the distances takes exactly this push back). The sum of near over the boxes
  bounds the pushes left; writing waste = 1 + near(k) - near(j) >= 0 for a push (1 for a walk
  under the moves metric), "the near-sum at step t is <= T - t" for every t is the same as
  "the total waste of the plan is <= T - near-sum at the start", one budget per horizon.
"""
from __future__ import annotations

from itertools import combinations
from typing import Any, Sequence

from puzzleplan.models.sokoban.analysis import INF
from puzzleplan.models.sokoban.level import OPPOSITE

WINDOWS = ((2, 2), (2, 3), (3, 2))   # (rows, cols) of the windows searched for frozen sets
MAX_PATTERN = 4                      # boxes in one pattern at most


def nearest_goal(model: Any) -> list[int]:
    """Each cell's push distance to its nearest goal on the empty level (INF: none)."""
    return [min((d[c] for d in model.goal_dist), default=INF) for c in range(model.ncells)]


def _blocked_axis(nbr: Sequence[Sequence[int]], dead: Sequence[bool], b: int, axis: tuple[int, int],
                  frozen: set[int]) -> bool:
    a, c = nbr[b][axis[0]], nbr[b][axis[1]]
    if a < 0 or c < 0:
        return True
    if dead[a] and dead[c]:
        return True
    return a in frozen or c in frozen


def frozen_subset(nbr: Sequence[Sequence[int]], dead: Sequence[bool], boxes: set[int]) -> set[int]:
    """The boxes of `boxes` frozen by walls, dead squares and each other (greatest fixpoint)."""
    frozen = set(boxes)
    changed = True
    while changed:
        changed = False
        for b in list(frozen):
            if not all(_blocked_axis(nbr, dead, b, axis, frozen) for axis in ((0, 1), (2, 3))):
                frozen.discard(b)
                changed = True
    return frozen


def frozen_patterns(model: Any, boxable: Sequence[bool]) -> list[tuple[int, ...]]:
    """Minimal sets of box cells (at most as many as there are boxes) that are frozen with a box
    off a goal; a single box never appears (dead squares cover the lone-box cases)."""
    nbr, dead = model.nbr, model.dead
    goals = set(model.goal_cells)
    most = min(MAX_PATTERN, bin(model.start_boxes).count("1"))
    found: set[tuple[int, ...]] = set()
    for r0, c0 in model.cells:
        for rows, cols in WINDOWS:
            window = [model.index[(r0 + dr, c0 + dc)] for dr in range(rows) for dc in range(cols)
                      if (r0 + dr, c0 + dc) in model.index]
            cells = [c for c in window if boxable[c]]
            for size in range(2, min(most, len(cells)) + 1):
                for subset in combinations(cells, size):
                    frozen = frozen_subset(nbr, dead, set(subset))
                    if frozen and not frozen <= goals:
                        found.add(tuple(sorted(frozen)))
    minimal = sorted(found, key=len)
    out: list[tuple[int, ...]] = []
    for pattern in minimal:
        if not any(set(kept) <= set(pattern) for kept in out):
            out.append(pattern)
    return out


def push_waste(model: Any, near: Sequence[int], j: int, d: int) -> int | None:
    """The waste of pushing the box on j in direction d (None: the push is never in a solving
    plan, or impossible: no floor behind, or the box would land on a wall or dead square)."""
    k = model.nbr[j][d]
    behind = model.nbr[j][OPPOSITE[d]]
    if k < 0 or behind < 0 or near[k] >= INF or near[j] >= INF:
        return None
    return 1 + near[k] - near[j]


def start_near_sum(model: Any, near: Sequence[int]) -> int | None:
    """The near-sum of the start boxes (None when a box starts on a dead square)."""
    total = 0
    c, boxes = 0, model.start_boxes
    while boxes:
        if boxes & 1:
            if near[c] >= INF:
                return None
            total += near[c]
        boxes >>= 1
        c += 1
    return total
