"""A deadlock table learnt from pairs of boxes: which two-box positions can still be solved.

ok[a, b, p] is 1 when two boxes on a and b, the player on p, all other boxes taken away, can be
pushed onto two goals. It is found backwards, by pulls and walks from every position with both
boxes on goals (numba; n^3 bytes, so it is built for levels of at most MAX_CELLS cells).

Why a 0 proves a deadlock of the whole position: take any solution of it and keep only the
pushes of those two boxes. With the other boxes gone every walk is still possible and every kept
push still lands on a free cell, so the two boxes would reach goals: the pair would be solvable.
The table thus only drops positions without a solution, and no optimum changes.
"""
from __future__ import annotations

import numpy as np
from numba import njit

MAX_CELLS = 160             # 160^3 bytes = 4 MB


def build(nbr: np.ndarray, goal_cells: np.ndarray) -> np.ndarray | None:
    """The table, or None when the level is too large for it or has fewer than two goals."""
    n = nbr.shape[0]
    if n > MAX_CELLS or len(goal_cells) < 2:
        return None
    return _solvable_pairs(nbr, goal_cells)


@njit(cache=True)
def _solvable_pairs(nbr, goal_cells):
    n = nbr.shape[0]
    ok = np.zeros((n, n, n), np.uint8)
    queue = np.empty(n * n * n, np.int32)
    tail = 0
    for gi in range(goal_cells.shape[0]):
        for gj in range(gi + 1, goal_cells.shape[0]):
            a, b = goal_cells[gi], goal_cells[gj]
            for p in range(n):
                if p != a and p != b:
                    ok[a, b, p] = 1
                    ok[b, a, p] = 1
                    queue[tail] = (a * n + b) * n + p
                    tail += 1
    head = 0
    while head < tail:
        code = queue[head]
        head += 1
        p = code % n
        ab = code // n
        a = ab // n
        b = ab % n
        for d in range(4):
            x = nbr[p, d]
            if x < 0:
                continue
            if x != a and x != b:
                if ok[a, b, x] == 0:            # a walk (walks go both ways)
                    ok[a, b, x] = 1
                    ok[b, a, x] = 1
                    queue[tail] = (a * n + b) * n + x
                    tail += 1
                continue
            # x holds a box: pull it onto p, the player stepping back to y
            y = nbr[p, d ^ 1]
            other = b if x == a else a
            if y < 0 or y == other:
                continue
            if ok[p, other, y] == 0:
                ok[p, other, y] = 1
                ok[other, p, y] = 1
                queue[tail] = (p * n + other) * n + y
                tail += 1
    return ok
