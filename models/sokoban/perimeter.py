"""The perimeter: exact pushes to go of the positions near the goal, found backwards by pulls.

A breadth-first search from the solved positions (every box on a goal, the player in each of
the areas the boxes leave it) over *pulls*: the player stands next to a box, steps away from
it onto a free cell, and the box follows into the cell the player left. A pull undoes exactly
one push (the push from the player's new cell, moving the box back), so the search's layer of
a position (boxes, player normalised to the lowest cell it can reach) is its fewest pushes to
a solved position, d. The search stops at a budget of states; the last layer it finished, K,
is the perimeter's depth: every position with d <= K is stored with its d, so a position not
stored has d > K.

The bound P(s) = d(s) when stored, else K + 1, is admissible (d is the distance itself) and
consistent (one push changes d by at most 1, and the cap at K + 1 keeps that), so the search
takes max(matching, P), still consistent (kernel_search.py reads it for each new child). It
cuts what the matching cannot see near the goal: a position with a small matching that is
not within K pushes of the goal (most of the positions A* expands on the hard levels are
dead, README's "Where the nodes go") gets K + 1. This is perimeter search (Dillenburg and
Nelson; Manzini's BIDA*), a bidirectional search whose backward half is exhaustive.

When the backward search runs dry, every position that can be solved is stored (K = BIG):
positions not stored are dead, and P is the exact distance.

The moves perimeter (`moves=True`, for the search under the moves metric) is the same search
one move at a time: a position keeps the player's exact cell (as that search keys its states),
and its predecessors are the player's step onto a free neighbour and the pull, so its layer is
the fewest moves to a solved position (the player's goal cell alone when the level names one).
Its bound is consistent for the same reason, and the search takes max(matching + walk, P).
It reaches far deeper in moves than the pushes perimeter does in pushes, since a move changes
little: 5.8 M positions hold every one within 57 of Microban 93's 91 moves (2026-11-24).

The tables match the search's (kernel_search.find and `entry`, Zobrist keys of lv), unfolded
by symmetry: a symmetry of the level maps solved positions onto solved positions, so d does
not change under it, and the search looks up its children as made, before folding.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import njit

from puzzleplan.models.sokoban.kernel_rules import BIG, lowest_reached, walk, with_box_moved
from puzzleplan.models.sokoban.kernel_search import entry, find, grown, rehash

# ctr of `grow`
G_COUNT, G_NEXT = 0, 1
# `grow`'s return codes
MORE, FULL, DRY = 0, 1, 2
STATE_BYTES = 30            # a state's bytes besides its boxes: player, key, distance, two table slots


@njit(cache=True)
def _walk_space(n):
    """Work space of a walk over n cells: occupied, seen (stamps), distances, queue."""
    return np.zeros(n, np.uint8), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)


@njit(cache=True)
def _add(table, boxes, player, keys, dist, ctr, child, p, key, d):
    """Store the position (child, p) with hash `key` at distance d, unless it is stored."""
    slot = find(table, boxes, key, child, p)
    if slot >= 0:
        return
    j = ctr[G_COUNT]
    table[-slot - 1] = entry(key, p, j)
    boxes[j, :] = child
    player[j] = p
    keys[j] = key
    dist[j] = d
    ctr[G_COUNT] = j + 1


@njit(cache=True)
def _stop(ctr, done, budget, most, cap, room):
    """Why `grow` stops before its next state (MORE, FULL, DRY), or -1 to go on; `room`: the
    most states one expansion can store."""
    if ctr[G_NEXT] >= ctr[G_COUNT]:
        return DRY
    if done >= budget or ctr[G_COUNT] >= most:
        return MORE
    if ctr[G_COUNT] + room > cap:
        return FULL
    return -1


@njit(cache=True)
def seed(nbr, goal_cells, exact, pgoal, zbox, zplayer, boxes, player, keys, dist, table, ctr):
    """Store the solved positions: the boxes on the goals, the player in each area they leave
    (normalised), or with `exact` (the moves perimeter) on each free cell, or on `pgoal` alone
    when the level names the player's goal cell (>= 0)."""
    n = nbr.shape[0]
    nb = goal_cells.shape[0]
    occ, seen, dq, queue = _walk_space(n)
    child = np.sort(goal_cells.astype(np.int16))
    hb = np.uint64(0)
    for i in range(nb):
        occ[child[i]] = 1
        hb ^= zbox[child[i]]
    ctr[G_COUNT] = 0
    ctr[G_NEXT] = 0
    stamp = 0
    for c in range(n):
        if occ[c] or seen[c] > 0:
            continue
        if exact:
            pc = c
            if pgoal >= 0 and c != pgoal:
                continue
        else:
            stamp += 1
            pc = lowest_reached(queue, walk(nbr, occ, c, seen, stamp, dq, queue))
        _add(table, boxes, player, keys, dist, ctr, child, pc, hb ^ zplayer[pc], 0)


@njit(cache=True)
def grow_exact(nbr, zbox, zplayer, boxes, player, keys, dist, table, ctr, budget, most):
    """`grow` for the moves perimeter: breadth-first over single moves undone, each a step of
    the player onto a free cell or a pull (the step away from a box, which follows); every
    move is undone by exactly one of them, so a position's layer is its fewest moves to a
    solved position."""
    n = nbr.shape[0]
    nb = boxes.shape[1]
    occ = np.zeros(n, np.uint8)
    child = np.zeros(nb, np.int16)
    done = 0
    while True:
        code = _stop(ctr, done, budget, most, boxes.shape[0], 8)
        if code >= 0:
            return code
        s = ctr[G_NEXT]
        for i in range(nb):
            occ[boxes[s, i]] = 1
        p = player[s]
        for d in range(4):
            r = nbr[p, d]                   # where the player steps to
            if r < 0 or occ[r]:
                continue
            key = keys[s] ^ zplayer[p] ^ zplayer[r]
            child[:] = boxes[s]
            _add(table, boxes, player, keys, dist, ctr, child, r, key, dist[s] + 1)
            q = nbr[p, d ^ 1]               # a box behind the player follows it onto p
            if q >= 0 and occ[q]:
                for i in range(nb):
                    if boxes[s, i] == q:
                        with_box_moved(boxes[s], i, p, child)
                        break
                _add(table, boxes, player, keys, dist, ctr, child, r, key ^ zbox[q] ^ zbox[p], dist[s] + 1)
        for i in range(nb):
            occ[boxes[s, i]] = 0
        ctr[G_NEXT] = s + 1
        done += 1


@njit(cache=True)
def grow(nbr, zbox, zplayer, boxes, player, keys, dist, table, ctr, budget, most):
    """Expand up to `budget` states in breadth-first order (ctr[G_NEXT] on), stopping once
    `most` are stored; MORE when either stops it, FULL when the arrays have no room for
    another state's pulls, DRY when every state is expanded."""
    n = nbr.shape[0]
    nb = boxes.shape[1]
    occ, seen, dq, queue = _walk_space(n)
    seen2, queue2 = np.zeros(n, np.int64), np.zeros(n, np.int64)
    child = np.zeros(nb, np.int16)
    stamp = 0
    stamp2 = 0
    done = 0
    while True:
        code = _stop(ctr, done, budget, most, boxes.shape[0], 4 * nb)
        if code >= 0:
            return code
        s = ctr[G_NEXT]
        for i in range(nb):
            occ[boxes[s, i]] = 1
        stamp += 1
        walk(nbr, occ, player[s], seen, stamp, dq, queue)
        for i in range(nb):
            b = boxes[s, i]
            for d in range(4):
                q = nbr[b, d ^ 1]           # the player's cell, next to the box
                if q < 0 or seen[q] != stamp:
                    continue
                r = nbr[q, d ^ 1]           # where the player steps back to
                if r < 0 or occ[r]:
                    continue
                # pull: the box on b follows the player from q to r
                with_box_moved(boxes[s], i, q, child)
                occ[b] = 0
                occ[q] = 1
                stamp2 += 1
                pc = lowest_reached(queue2, walk(nbr, occ, r, seen2, stamp2, dq, queue2))
                occ[q] = 0
                occ[b] = 1
                key = keys[s] ^ zbox[b] ^ zbox[q] ^ zplayer[player[s]] ^ zplayer[pc]
                _add(table, boxes, player, keys, dist, ctr, child, pc, key, dist[s] + 1)
        for i in range(nb):
            occ[boxes[s, i]] = 0
        ctr[G_NEXT] = s + 1
        done += 1


class Perimeter:
    """The positions within `depth` pushes (moves, for the moves perimeter) of a solved one,
    with their exact pushes (moves) to go.

    `table`, `boxes`, `dist` as the search reads them (kernel_search's `ref`); `depth` is K of
    the module's docstring (BIG when the backward search ran dry: every solvable position is
    stored); `states` how many; `seconds` the time spent building. `extend` goes on with the
    breadth-first search, so a search can grow its perimeter as it goes (perimeter search
    balanced against the forward search, as bidirectional searches are)."""

    def __init__(self, lv: tuple, goal_cells: Any, moves: bool = False, pgoal: int = -1) -> None:
        """`moves`: the moves perimeter (the player's exact cell, fewest moves to go) instead of
        the pushes one; `pgoal`: the player's goal cell (moves perimeter; -1: none)."""
        self.nbr, self.zbox, self.zplayer = lv[0], lv[6], lv[7]
        self._grow_kernel = grow_exact if moves else grow
        goal_cells = np.asarray(goal_cells, np.int16)
        nb = len(goal_cells)
        cap = 1 << 12
        self.boxes = np.zeros((cap, nb), np.int16)
        self.player = np.zeros(cap, np.int16)
        self.keys = np.zeros(cap, np.uint64)
        self.dist = np.zeros(cap, np.int32)
        self.table = np.full(2 * cap, -1, np.int64)
        self.ctr = np.zeros(2, np.int64)
        self.seconds = 0.0
        self.complete = False
        seed(self.nbr, goal_cells, moves, pgoal, self.zbox, self.zplayer, self.boxes, self.player, self.keys,
             self.dist, self.table, self.ctr)

    @property
    def states(self) -> int:
        return int(self.ctr[G_COUNT])

    def extend(self, states: int, poll: Any = None) -> None:
        """Go on breadth-first until at least `states` states are stored (or none is left to
        expand); `poll()` is called between slices (it raises to stop, as SearchContext.poll
        does on a limit; the perimeter stays usable, its depth that of the layers finished)."""
        started = time.monotonic()
        try:
            while not self.complete and self.states < states:
                code = self._grow_kernel(self.nbr, self.zbox, self.zplayer, self.boxes, self.player, self.keys,
                                         self.dist, self.table, self.ctr, 20_000, states)
                if code == DRY:
                    self.complete = True
                elif code == FULL:
                    self._grow(2 * len(self.player))
                if poll is not None:
                    poll()
        finally:
            self.seconds += time.monotonic() - started

    @property
    def depth(self) -> int:
        if self.complete:
            return int(BIG)
        # the states before G_NEXT are expanded, so every layer up to the next one's is complete
        return int(self.dist[int(self.ctr[G_NEXT])])

    def _grow(self, cap: int) -> None:
        for name in ("boxes", "player", "keys", "dist"):
            setattr(self, name, grown(getattr(self, name), cap))
        self.table = np.full(2 * cap, -1, np.int64)
        rehash(self.table, self.keys, self.player, self.states)

    def bound(self) -> int:
        """The bound of a position not stored: depth + 1 (BIG when complete: it is dead)."""
        return self.depth + 1 if self.depth < BIG else int(BIG)


def budget_states(nb: int, megabytes: float) -> int:
    """How many states of `nb` boxes fit in `megabytes` (the table counted too)."""
    return max(1, int(megabytes * 2 ** 20 // (2 * nb + STATE_BYTES)))
