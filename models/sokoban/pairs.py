"""A table learnt from pairs of boxes: the fewest pushes that solve each two-box position.

dist[a, b, p] is the fewest pushes that bring two boxes on a and b, the player on p, all other
boxes taken away, onto two goals (capped at CAP; UNSOLVED: never). It is found backwards by
pulls (cost 1) and walks (cost 0), layer by layer, from every position with both boxes on goals
(numba; n^3 bytes, so it is built for levels of at most MAX_CELLS cells).

Why it bounds the whole position (the projection argument): take any solution of it and keep
only the pushes of those two boxes. With the other boxes gone every walk is still possible and
every kept push still lands on a free cell, so the two boxes reach two goals in as many pushes
as the solution gives them: at least dist[a, b, p]. Hence UNSOLVED proves a deadlock, and over
boxes split into disjoint pairs (and single boxes), the pairs' dist plus the singles' own push
distances is a lower bound on the pushes left (kernel_rules.pair_bound): no push is counted
twice. A capped entry only lowers the bound.
"""
from __future__ import annotations

import numpy as np
from numba import njit

MAX_CELLS = 160             # 160^3 bytes = 4 MB
UNSOLVED = 255
CAP = 254


def build(nbr: np.ndarray, goal_cells: np.ndarray) -> np.ndarray | None:
    """The table, or None when the level is too large for it or has fewer than two goals."""
    n = nbr.shape[0]
    if n > MAX_CELLS or len(goal_cells) < 2:
        return None
    return _pair_distances(nbr, goal_cells)


@njit(cache=True)
def _pair_distances(nbr, goal_cells):
    n = nbr.shape[0]
    dist = np.full((n, n, n), UNSOLVED, np.uint8)
    cur = np.empty(2 * n * n * n, np.int32)
    nxt = np.empty(2 * n * n * n, np.int32)
    tail = 0
    for gi in range(goal_cells.shape[0]):
        for gj in range(gi + 1, goal_cells.shape[0]):
            a, b = goal_cells[gi], goal_cells[gj]
            for p in range(n):
                if p != a and p != b:
                    dist[a, b, p] = 0
                    dist[b, a, p] = 0
                    cur[tail] = (a * n + b) * n + p
                    tail += 1
    layer = 0
    while tail > 0:
        head = 0
        ntail = 0
        here = min(layer, CAP)              # beyond the cap every entry is CAP: still a bound
        pulled = min(layer + 1, CAP)
        while head < tail:
            code = cur[head]
            head += 1
            p = code % n
            ab = code // n
            a = ab // n
            b = ab % n
            if dist[a, b, p] != here:
                continue                    # queued by a pull, then reached by a walk sooner
            for d in range(4):
                x = nbr[p, d]
                if x < 0:
                    continue
                if x != a and x != b:
                    if dist[a, b, x] > here:    # a walk (walks go both ways, cost nothing)
                        dist[a, b, x] = here
                        dist[b, a, x] = here
                        cur[tail] = (a * n + b) * n + x
                        tail += 1
                    continue
                # x holds a box: pull it onto p, the player stepping back to y
                y = nbr[p, d ^ 1]
                other = b if x == a else a
                if y < 0 or y == other:
                    continue
                if dist[p, other, y] == UNSOLVED:
                    dist[p, other, y] = pulled
                    dist[other, p, y] = pulled
                    nxt[ntail] = (p * n + other) * n + y
                    ntail += 1
        cur, nxt = nxt, cur
        tail = ntail
        layer += 1
    return dist

