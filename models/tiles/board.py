"""The sliding-tiles vocabulary: the board's geometry, the blank's moves, the parity rule.

This is the one statement of these rules in the family: the model, the packed space, the
heuristic tables, the compiled kernels and the pattern databases read them from here (the plan
checker `puzzleplan.plans.check.tiles` is independent on purpose). It imports nothing of the
package.

Cells are numbered row by row: cell = row * cols + col. The blank moves in four directions,
indexed in the seed's digit order U R D L (0 1 2 3); a direction's opposite is (d + 2) % 4.
A state names each cell's face by an index; index 0 (`BLANK_INDEX`) is the blank, written `_`
(`BLANK`) in layouts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, Sequence

import numpy as np

BLANK = "_"                                  # the blank in layouts
BLANK_INDEX = 0                              # the blank's face index in states
DIRECTIONS = "URDL"                          # index = the seed's digit for that move
DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))  # (drow, dcol) of the blank, per direction
INVERSE = tuple((d + 2) % 4 for d in range(4))  # the opposite direction: (2, 3, 0, 1)
MAX_SIDE = 16                                # rows and columns a file may give


class Instance(Protocol):
    """What the accelerators (packed space, tables, kernels) read of a tiles model."""

    rows: int
    cols: int
    n: int
    start: bytes                             # a face index per cell
    goal: bytes
    faces: tuple[str, ...]                   # face names by index; faces[0] is the blank
    neighbours: tuple[tuple[int, ...], ...]  # [cell][direction] -> cell, or -1 off the board


@dataclass(frozen=True)
class Board:
    """A rows x cols grid of cells."""

    rows: int
    cols: int

    @property
    def n(self) -> int:
        return self.rows * self.cols

    def cell(self, row: int, col: int) -> int:
        return row * self.cols + col

    def row_col(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.cols)

    def step(self, cell: int, direction: int) -> int:
        """The cell next to `cell` in `direction`, or -1 off the board."""
        dr, dc = DELTAS[direction]
        r, c = divmod(cell, self.cols)
        r, c = r + dr, c + dc
        if 0 <= r < self.rows and 0 <= c < self.cols:
            return r * self.cols + c
        return -1

    def neighbours(self) -> tuple[tuple[int, ...], ...]:
        """[cell][direction] -> the neighbouring cell in directions U R D L, or -1."""
        return tuple(tuple(self.step(cell, d) for d in range(4)) for cell in range(self.n))

    def neighbour_array(self) -> np.ndarray:
        """`neighbours` as an [n, 4] int64 array (what the compiled code reads)."""
        return np.array(self.neighbours(), dtype=np.int64).reshape(self.n, 4)

    def distance(self, a: int, b: int) -> int:
        """Manhattan distance between two cells."""
        (ra, ca), (rb, cb) = divmod(a, self.cols), divmod(b, self.cols)
        return abs(ra - rb) + abs(ca - cb)

    def face_distances(self, layout: Sequence[int]) -> dict[int, list[int]]:
        """Face -> per cell, the Manhattan distance to the nearest cell holding that face in
        `layout` (faces may repeat: the nearest copy counts)."""
        where: dict[int, list[int]] = {}
        for c, f in enumerate(layout):
            where.setdefault(f, []).append(c)
        return {f: [min(self.distance(c, g) for g in targets) for c in range(self.n)] for f, targets in where.items()}

    def coordinates(self) -> tuple[np.ndarray, np.ndarray]:
        """Each cell's row and column, as two [n] int64 arrays."""
        cells = np.arange(self.n, dtype=np.int64)
        return cells // self.cols, cells % self.cols

    def distances(self) -> np.ndarray:
        """[n, n] int64 Manhattan distance between every two cells."""
        row, col = self.coordinates()
        return np.abs(row[:, None] - row[None, :]) + np.abs(col[:, None] - col[None, :])

    def lines(self) -> list[tuple[int, ...]]:
        """The cells of every row (top to bottom), then of every column (left to right)."""
        return [tuple(range(r * self.cols, (r + 1) * self.cols)) for r in range(self.rows)] + \
               [tuple(range(c, self.n, self.cols)) for c in range(self.cols)]

    def transpose(self, cell: int) -> int:
        """The cell mirrored on the main diagonal (square boards)."""
        r, c = divmod(cell, self.cols)
        return c * self.rows + r

    def edge_masks(self) -> tuple[int, int]:
        """Bit masks of the cells not in the first column and not in the last column: with them a
        set of cells as bits steps to its neighbours by shifts (1 left/right, `cols` up/down)."""
        not_first = not_last = 0
        for c in range(self.n):
            if c % self.cols != 0:
                not_first |= 1 << c
            if c % self.cols != self.cols - 1:
                not_last |= 1 << c
        return not_first, not_last


# -- parity -------------------------------------------------------------------------------------
def plan_parity(board: Board, start: bytes, goal: bytes) -> int:
    """Every move moves the blank one cell, so plan length parity = blank distance parity."""
    return board.distance(start.index(BLANK_INDEX), goal.index(BLANK_INDEX)) % 2


def permutation_is_odd(perm: list[int]) -> bool:
    seen = [False] * len(perm)
    transpositions = 0
    for i in range(len(perm)):
        length = 0
        while not seen[i]:
            seen[i] = True
            i = perm[i]
            length += 1
        if length:
            transpositions += length - 1
    return transpositions % 2 == 1


def arrangements(layout: bytes) -> int:
    """How many boards hold `layout`'s faces (blank included) in some order: the multinomial
    n! / (c1! c2! ...), an upper bound on the states reachable from it."""
    total = math.factorial(len(layout))
    for face in set(layout):
        total //= math.factorial(layout.count(face))
    return total


def has_repeated_faces(goal: bytes) -> bool:
    """Some tile face shows on more than one tile."""
    tiles = [f for f in goal if f != BLANK_INDEX]
    return len(set(tiles)) != len(tiles)


def parity_reason(board: Board, start: bytes, goal: bytes) -> str | None:
    """Permutation parity, generalised to repeated faces: a reason when no plan exists, else None.

    On a board with at least 2 rows and 2 columns the reachable layouts of labelled tiles are
    exactly those whose permutation parity equals the parity of the blank's displacement.
    With a repeated face, two identical tiles can swap labels, which flips the parity at no
    cost, so every layout with the same faces is reachable.
    """
    if has_repeated_faces(goal):
        return None
    perm = [0] * board.n
    goal_cell = {face: cell for cell, face in enumerate(goal)}
    for cell, face in enumerate(start):
        perm[cell] = goal_cell[face]
    odd = permutation_is_odd(perm)
    blank_odd = bool(plan_parity(board, start, goal))
    if odd != blank_odd:
        return ("permutation parity: the tiles' permutation from start to goal is "
                f"{'odd' if odd else 'even'} but the blank moves an "
                f"{'odd' if blank_odd else 'even'} distance, so no sequence of moves can do it")
    return None
