"""A table learnt from triples of boxes: which three-box positions can still be solved.

`solvable(table, a, b, c, p)` (a < b < c) is 1 when three boxes on a, b and c, the player on p,
all other boxes taken away, can be pushed onto three goals; 0 is a deadlock of those three
boxes. The table keeps one bit per player cell: table[a, b, c, p >> 6] bit p & 63, so a level of
at most 64 cells needs n^3 words (1.7 MB for Microban 144's 60 cells; 93's 65 cells need two
words a triple, 4.4 MB): an eighth of a byte per entry, which stays in the processor's cache
far better. It is
found backwards, as pairs.py's table: every position with the three boxes on goals, then every
position a pull (the reverse of a push) or a step of the player leads to from one found. A
position is solvable exactly when it is found, so the table is exact for three boxes.

Why a 0 proves the whole position dead (the projection argument of pairs.py): in any solution
keep only the pushes of those three boxes; with the other boxes gone every walk is still
possible and every kept push still lands on a free cell, so the three boxes would reach goals
from there. pairs.py already catches every two-box deadlock; this catches the deadlocks that
need a third box, such as two boxes side by side in a corridor with a third at its mouth.

The table has n^3 * ceil(n / 64) words (only the sorted triples are used), so it is built for
levels of at most MAX_CELLS cells. The search looks up only triples whose other two boxes lie near the
pushed one (`near`), where a new three-box deadlock is most likely and the lookups stay cheap.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from puzzleplan.models.sokoban.analysis import walk_distances

MAX_CELLS = 100             # 100^3 * 2 words = 16 MB; the search queue of the build n^4 / 6 ints = 67 MB
NEAR = 3


def build(nbr: np.ndarray, goal_cells: np.ndarray) -> np.ndarray | None:
    """The table, or None when the level is too large for it or has fewer than three goals."""
    n = nbr.shape[0]
    if n > MAX_CELLS or len(goal_cells) < 3:
        return None
    return _solvable(nbr.astype(np.int32), goal_cells.astype(np.int32))


def near(nbr: np.ndarray, radius: int = NEAR) -> np.ndarray:
    """near[a, b] = 1 when b lies within `radius` steps of a on the floor (walls only)."""
    steps = np.array([walk_distances(nbr, a) for a in range(nbr.shape[0])])
    return (steps <= radius).astype(np.uint8)


@njit(cache=True)
def sort3(a, b, c):
    """a, b, c in increasing order."""
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return a, b, c


@njit(cache=True)
def solvable(table, a, b, c, p):
    """1 when boxes on a < b < c alone, the player on p, can be solved; else 0."""
    return (table[a, b, c, p >> 6] >> np.uint64(p & 63)) & np.uint64(1)


@njit(cache=True)
def _mark(table, a, b, c, p):
    table[a, b, c, p >> 6] |= np.uint64(1) << np.uint64(p & 63)


@njit(cache=True)
def _solvable(nbr, goal_cells):
    n = nbr.shape[0]
    table = np.zeros((n, n, n, (n + 63) // 64), np.uint64)
    queue = np.empty(n * n * n * n // 6 + n * n * n + 16, np.int32)
    tail = 0
    ng = goal_cells.shape[0]
    for i in range(ng):
        for j in range(i + 1, ng):
            for k in range(j + 1, ng):
                a, b, c = sort3(goal_cells[i], goal_cells[j], goal_cells[k])
                for p in range(n):
                    if p != a and p != b and p != c:
                        _mark(table, a, b, c, p)
                        queue[tail] = ((a * n + b) * n + c) * n + p
                        tail += 1
    head = 0
    while head < tail:
        code = queue[head]
        head += 1
        p = code % n
        code //= n
        c = code % n
        code //= n
        b = code % n
        a = code // n
        for d in range(4):
            x = nbr[p, d]
            if x < 0:
                continue
            if x != a and x != b and x != c:
                if solvable(table, a, b, c, x) == 0:     # a step of the player (steps go both ways)
                    _mark(table, a, b, c, x)
                    queue[tail] = ((a * n + b) * n + c) * n + x
                    tail += 1
                continue
            y = nbr[p, d ^ 1]                       # pull the box on x onto p, the player stepping to y
            if y < 0 or y == a or y == b or y == c:
                continue
            if x == a:
                na, nb_, nc = sort3(p, b, c)
            elif x == b:
                na, nb_, nc = sort3(a, p, c)
            else:
                na, nb_, nc = sort3(a, b, p)
            if solvable(table, na, nb_, nc, y) == 0:
                _mark(table, na, nb_, nc, y)
                queue[tail] = ((na * n + nb_) * n + nc) * n + y
                tail += 1
    return table
