"""Sokoban's vocabulary: the XSB characters, the four steps, the Level data, and the one
statement of how the player moves.

A leaf: this module imports nothing of puzzleplan. The notations, the model, its static
analysis and the encodings read the rules here. Only the plan checker (plans/check/sokoban.py)
states them again, on purpose: it must not trust this module.

XSB: `#` wall, ` `/`-`/`_` floor, `$` box, `.` goal, `*` box on a goal, `@` player, `+` player on
a goal. Steps: d = 0..3 is up, down, left, right (DIRS "udlr", DELTAS in (drow, dcol)); a walk
is written in lowercase, a push in uppercase (LURD). Cells are the floor cells the player's
walls enclose (`Level.region`), numbered in row-major order; `neighbours` gives each cell's
neighbour in each direction (-1: a wall), and a set of boxes is a bitset over those numbers.
The move rule (`steps`, over `step_table`): the player steps onto a free neighbouring cell (a
walk), or onto a box whose cell beyond, in the same direction, is a free floor cell: the box
moves there (a push).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from puzzleplan.models.base import bits  # noqa: F401  (the package's modules take it from here)

WALL = "#"
FLOORS = " -_"
BOX, GOAL, BOX_ON_GOAL, PLAYER, PLAYER_ON_GOAL = "$", ".", "*", "@", "+"
XSB_CHARS = set(WALL + FLOORS + BOX + GOAL + BOX_ON_GOAL + PLAYER + PLAYER_ON_GOAL)
MAX_SIDE = 64
METRICS = ("moves", "pushes")

DIRS = "udlr"                                   # the four steps, indexed by d
DELTAS = ((-1, 0), (1, 0), (0, -1), (0, 1))     # (drow, dcol) of each step
OPPOSITE = (1, 0, 3, 2)
WALK = tuple(DIRS)                              # the letter of a walk in direction d
PUSH = tuple(DIRS.upper())                      # the letter of a push in direction d


@dataclass(frozen=True)
class Level:
    """A validated level: the start position as a padded grid in canonical XSB, and its cells.

    `grid` rows all have `width` characters and use `#`, `$`, `.`, `*`, `@`, `+` and ' ' for
    every floor (outside floor too). `region` lists the cells the player's walls enclose, in
    row-major order (the model's cell numbering). `boxes` and `goals` are those inside the
    region; outside it, `sealed` lists the boxes on goals (they never move and stay solved) and
    `stray` the boxes off goals and the empty goals, as ("box" | "goal", cell): with any of
    those the level cannot be solved. Cells are (row, col), 0-based.
    """

    grid: tuple[str, ...]
    height: int
    width: int
    player: tuple[int, int]
    boxes: tuple[tuple[int, int], ...]
    goals: tuple[tuple[int, int], ...]
    region: tuple[tuple[int, int], ...]
    sealed: tuple[tuple[int, int], ...] = ()
    stray: tuple[tuple[str, tuple[int, int]], ...] = ()


def neighbours(cells: Sequence[tuple[int, int]]) -> tuple[tuple[int, ...], ...]:
    """nbr[i][d]: the number of the cell next to cell number i in direction d, -1 if none."""
    index = {cell: i for i, cell in enumerate(cells)}
    return tuple(tuple(index.get((r + dr, c + dc), -1) for dr, dc in DELTAS) for r, c in cells)


def step_table(nbr: Sequence[Sequence[int]]) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """ahead[p]: (d, j, k) for each direction d with a floor cell j next to cell p, k being the
    cell beyond j in that direction (-1: a wall). The input of `steps`, built once per level."""
    return tuple(tuple((d, j, nbr[j][d]) for d, j in enumerate(row) if j >= 0) for row in nbr)


def steps(ahead: Sequence[Sequence[tuple[int, int, int]]], p: int, boxes: int) -> list[tuple[int, int, int]]:
    """Every legal step of the player on cell p among `boxes` (a bitset), in direction order:
    (direction, the cell stepped onto, the cell the box there is pushed onto or -1 for a walk).
    `ahead` is the level's `step_table`."""
    out = []
    for d, j, k in ahead[p]:
        if boxes >> j & 1:
            if k < 0 or boxes >> k & 1:
                continue                   # a push against a wall or another box
            out.append((d, j, k))
        else:
            out.append((d, j, -1))
    return out
