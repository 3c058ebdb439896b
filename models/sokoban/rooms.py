"""The goal-room table: which arrangements of the boxes near the goals can still be completed,
whatever the boxes further out do. A deadlock table over a region R that holds every goal.

R is the goals and the nearest cells a box can stand on (not dead), grown breadth-first from the
goals up to MAX_CELLS cells (no table when the goals alone are more). The abstraction forgets
every box outside R, and where outside R the player is:

- a state is the boxes in R (a bit pattern) and the player's cell in R, or OUT (anywhere else);
- the player walks over the cells of R free of boxes; OUT joins every cell of R next to a floor
  cell outside R (its doors);
- a push of a box in R by a player on a cell it reaches (OUT for one outside R), onto a floor
  cell that is not dead: onto a cell of R the box moves, onto one outside it leaves R and is
  forgotten; the player then stands on the box's old cell;
- an entry, while fewer boxes than the level has are in R: a box on a floor cell o outside R
  (not dead) is pushed into a free cell of R next to it, by a player on the cell beyond o (OUT
  when that is outside R too); the player then stands on o (OUT).

Why a position whose abstract state cannot reach the pattern of the goals is dead: every real
push is one of these abstract moves, or changes nothing in the abstraction (boxes moved outside
R); every real walk is an abstract walk (a walk across the floor outside R leaves R by a door
and comes back by one, and boxes outside R only block more); and every goal lies in R, with as
many boxes as goals. So a real solution maps onto an abstract one, and where there is none the
position is dead, under either metric; pruning it keeps every optimum, as the other deadlock
tables do. Microban 153 is the case it was made for: its ten goals are a one-wide dead end
filled from below and a 2 x 2 block in front of it, and A* parks boxes in the block (the
matching counts them as home) in orders that can never be completed.

    ok[pattern, q]   1 when the abstract state (pattern, the player on R's q-th cell, or OUT
                     for q = len(R)) can still reach the goals' pattern (1 for unused entries)
    bit[c]           1 << (c's place in R), 0 for a cell outside R
    place[c]         c's place in R, or len(R) (OUT)

Built by a backward breadth-first pass from the goals' pattern over the abstract graph's
reversed edges (`_build`, compiled).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
from numba import njit

MAX_CELLS = 16      # 2 ** 16 patterns x 17 player places: 1.1 MB a table
OPPOSITE = np.array([1, 0, 3, 2], dtype=np.int64)   # level.py's directions: up, down, left, right


@dataclass(frozen=True)
class GoalRoom:
    """The table and the two per-cell arrays the kernels read (see the module docstring)."""

    ok: np.ndarray      # uint8 [2 ** K, K + 1]
    bit: np.ndarray     # int64 [n]
    place: np.ndarray   # int64 [n]
    cells: tuple[int, ...]


def region(nbr: np.ndarray, goal_cells: np.ndarray, dead: np.ndarray, limit: int = MAX_CELLS) -> list[int] | None:
    """R: the goals, then the cells that are not dead in breadth-first order from them (nearest
    first, lower cell numbers first among equals), up to `limit`; None when the goals alone are more."""
    goals = sorted(int(g) for g in goal_cells)
    if not goals or len(goals) > limit:
        return None
    cells = list(goals)
    seen = set(goals)
    frontier = deque(goals)
    while frontier and len(cells) < limit:
        c = frontier.popleft()
        for d in range(4):
            x = int(nbr[c, d])
            if x >= 0 and x not in seen:
                seen.add(x)
                frontier.append(x)
                if not dead[x] and len(cells) < limit:
                    cells.append(x)
    return cells


def build(nbr: np.ndarray, goal_cells: np.ndarray, dead: np.ndarray, boxes: int,
          limit: int = MAX_CELLS) -> GoalRoom | None:
    """The goal-room table of a level with `boxes` boxes, or None when its goals are more than
    `limit` or fewer than four (the two- and three-box tables see those whole)."""
    if len(goal_cells) < 4:
        return None
    cells = region(nbr, goal_cells, dead, limit)
    if cells is None:
        return None
    n = nbr.shape[0]
    k = len(cells)
    place = np.full(n, k, dtype=np.int64)
    place[cells] = np.arange(k)
    bit = np.zeros(n, dtype=np.int64)
    bit[cells] = 1 << np.arange(k, dtype=np.int64)
    goal_pattern = int(sum(1 << int(place[g]) for g in goal_cells))
    door = np.array([any(nbr[c, d] >= 0 and place[nbr[c, d]] == k for d in range(4)) for c in cells], np.uint8)
    entries = _entries(nbr, place, dead, cells)
    ok = _build(nbr.astype(np.int64), place, dead.astype(np.uint8), np.array(cells, np.int64), door, entries,
                np.int64(goal_pattern), np.int64(boxes))
    return GoalRoom(ok, bit, place, tuple(cells))


def _entries(nbr: np.ndarray, place: np.ndarray, dead: np.ndarray, cells: list[int]) -> np.ndarray:
    """(t, player cell) of each entry: a box on the floor cell o outside R, not dead, pushed into
    R's cell t by a player on the floor cell beyond o; int64 [e, 2] (places: t's in R)."""
    k = len(cells)
    rows = []
    for i, t in enumerate(cells):
        for d in range(4):
            o = int(nbr[t, OPPOSITE[d]])
            if o < 0 or place[o] != k or dead[o]:
                continue
            p = int(nbr[o, OPPOSITE[d]])
            if p >= 0:
                rows.append((i, p))
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


@njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def _components(pattern, k, nbr, place, cells, door, rep, queue):
    """rep[q]: the least place (OUT = k last) the player on place q reaches, -1 on a box."""
    for q in range(k + 1):
        rep[q] = -1
    for q in range(k + 1):
        if rep[q] >= 0 or (q < k and (pattern >> q) & 1):
            continue
        head, tail = 0, 1
        queue[0] = q
        rep[q] = q
        low = q
        while head < tail:
            x = queue[head]
            head += 1
            if x == k:
                for i in range(k):
                    if door[i] and not (pattern >> i) & 1 and rep[i] < 0:
                        rep[i] = q
                        queue[tail] = i
                        tail += 1
                        low = min(low, i)
                continue
            for d in range(4):
                y = nbr[cells[x], d]
                if y < 0:
                    continue
                z = place[y]
                if z < k and (pattern >> z) & 1:
                    continue
                if rep[z] < 0:
                    rep[z] = q
                    queue[tail] = z
                    tail += 1
                    low = min(low, z)
        for i in range(tail):
            rep[queue[i]] = low


@njit(cache=True)
def _successors(pattern, r, k, nbr, place, dead, cells, entries, boxes, reps, out):
    """The abstract states (node numbers pattern * (k + 1) + rep) one push leads to from the
    state of `pattern` whose player is in the component `r`; how many, written to `out`."""
    count = 0
    row = reps[pattern]
    for i in range(k):
        if not (pattern >> i) & 1:
            continue
        b = cells[i]
        for d in range(4):
            pc = nbr[b, d ^ 1]
            t = nbr[b, d]
            if pc < 0 or t < 0 or dead[t]:
                continue
            pp = place[pc]
            if (pp < k and (pattern >> pp) & 1) or row[pp] != r:
                continue
            tp = place[t]
            if tp < k:
                if (pattern >> tp) & 1:
                    continue
                after = (pattern ^ (1 << i)) | (1 << tp)
            else:
                after = pattern ^ (1 << i)
            out[count] = after * (k + 1) + reps[after, i]
            count += 1
    if _popcount(pattern) < boxes:
        for e in range(entries.shape[0]):
            tp = entries[e, 0]
            pp = place[entries[e, 1]]
            if (pattern >> tp) & 1 or (pp < k and (pattern >> pp) & 1) or row[pp] != r:
                continue
            after = pattern | (1 << tp)
            out[count] = after * (k + 1) + reps[after, k]
            count += 1
    return count


@njit(cache=True)
def _edge_pass(k, nbr, place, dead, cells, entries, boxes, reps, out, count_only, indegree, fill, pred):
    """One pass over every abstract state's edges: count each target's predecessors into
    indegree[target + 1] (count_only), else write them into pred at fill[target] onwards."""
    width = k + 1
    for pattern in range(1 << k):
        if _popcount(pattern) > boxes:
            continue
        for r in range(width):
            if reps[pattern, r] != r:
                continue
            c = _successors(pattern, r, k, nbr, place, dead, cells, entries, boxes, reps, out)
            for e in range(c):
                v = out[e]
                if count_only:
                    indegree[v + 1] += 1
                else:
                    pred[fill[v]] = pattern * width + r
                    fill[v] += 1


@njit(cache=True)
def _build(nbr, place, dead, cells, door, entries, goal_pattern, boxes):
    k = cells.shape[0]
    npat = 1 << k
    width = k + 1
    reps = np.full((npat, width), -1, np.int8)
    queue = np.zeros(width, np.int64)
    rep = np.zeros(width, np.int64)
    for pattern in range(npat):
        if _popcount(pattern) <= boxes:
            _components(pattern, k, nbr, place, cells, door, rep, queue)
            for q in range(width):
                reps[pattern, q] = rep[q]
    out = np.zeros(4 * k + entries.shape[0] + 1, np.int64)
    indegree = np.zeros(npat * width + 1, np.int64)
    empty = np.zeros(1, np.int64)
    _edge_pass(k, nbr, place, dead, cells, entries, boxes, reps, out, True, indegree, empty, empty)
    start = np.cumsum(indegree)             # predecessors of node v: pred[start[v]:start[v + 1]]
    pred = np.zeros(start[-1], np.int64)
    _edge_pass(k, nbr, place, dead, cells, entries, boxes, reps, out, False, indegree, start[:-1].copy(), pred)
    good = np.zeros(npat * width, np.uint8)
    todo = np.zeros(npat * width, np.int64)
    tail = 0
    for r in range(width):
        if reps[goal_pattern, r] == r:
            good[goal_pattern * width + r] = 1
            todo[tail] = goal_pattern * width + r
            tail += 1
    head = 0
    while head < tail:
        v = todo[head]
        head += 1
        for x in range(start[v], start[v + 1]):
            u = pred[x]
            if not good[u]:
                good[u] = 1
                todo[tail] = u
                tail += 1
    ok = np.ones((npat, width), np.uint8)
    for pattern in range(npat):
        if _popcount(pattern) > boxes:
            continue
        for q in range(width):
            r = reps[pattern, q]
            if r >= 0:
                ok[pattern, q] = good[pattern * width + r]
    return ok
