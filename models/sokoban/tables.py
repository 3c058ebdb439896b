"""The push engine's level tables: numpy arrays built once per level from the model's cells.

    nbr[c, d]        the cell next to c in direction d (level.py's numbering and steps), -1: a wall
    goal[c]          1 on a goal cell
    side[b, c]       which side of a lone box on b the cell c lies on: the cells of the floor
                     without b fall into at most four connected parts, one per neighbour of b;
                     a part is named by the lowest direction d whose neighbour nbr[b, d] lies in
                     it (-1 for c == b). A player on c can walk to exactly the cells of its side.
    pdist[g, b, s]   fewest pushes of a lone box on b, the player on side s of it, to the g-th
                     goal, walls being the only other obstacle (INF: never). Unlike the pull
                     distances of analysis.py this knows where the player stands: a box in a
                     corridor the player cannot get behind is dead from that side.
    dead[c]          no goal is reachable from c whatever side the player is on
    dead_end[c, d]   1 when c and every floor cell beyond it in direction d have walls on both
                     sides across d, and c has at least one such cell beyond it: a dead-end
                     corridor that a box on c could only be pushed deeper into
                     (kernel_rules.forced_push)
    zbox, zplayer    random 64-bit keys per cell (Zobrist hashing of states)
    pairs[a, b, p]   the two-box distance table of pairs.py: fewest pushes of boxes on a and b
                     alone, the player on p, to two goals (pairs.UNSOLVED: a deadlock; a
                     1 x 1 x 1 zero array when the level is too large for it or has one box)
    triples[a, b, c, w]  the three-box table of triples.py (triples.solvable reads it): bit p of
                     word w tells whether boxes on a < b < c alone, the player on 64 * w + p,
                     can be solved (a 1 x 1 x 1 x 1 array when it is not built)
    near[a, b]       1 when b lies within triples.NEAR steps of a (1 x 1 with no triple table)
    room_ok, room_bit, room_place   the goal-room table of rooms.py (1 x 1, 1, 1 when not built)

Why pdist bounds the pushes left, and stays consistent: until a box is first pushed, the player
walks the floor around it without ever crossing its cell, so it stays on the same side of it;
other boxes only take cells away. A push moves one box by one cell and its pdist by at most 1
(the pushed box's new entry is a successor of its old one in the lone-box graph) and leaves
every other box's side unchanged (the player walked there around it). Summed over a matching of
boxes to distinct goals, the minimum is a consistent lower bound on the pushes left.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from puzzleplan.models.sokoban.pairs import build as pair_table
from puzzleplan.models.sokoban.rooms import build as room_table
from puzzleplan.models.sokoban.triples import build as triple_table, near

if TYPE_CHECKING:
    from puzzleplan.models.sokoban.model import Sokoban

INF = 30000                 # pdist of a box that can never reach that goal
OPPOSITE = (1, 0, 3, 2)


@dataclass(frozen=True)
class Tables:
    """The arrays above, plus the goal cells in order (the columns of the matching)."""

    nbr: np.ndarray         # int32 [n, 4]
    goal: np.ndarray        # uint8 [n]
    goal_cells: np.ndarray  # int32 [g]
    side: np.ndarray        # int8  [n, n]
    pdist: np.ndarray       # int32 [g, n, 4]
    dead: np.ndarray        # uint8 [n]
    dead_end: np.ndarray    # uint8 [n, 4]
    zbox: np.ndarray        # uint64 [n]
    zplayer: np.ndarray     # uint64 [n]
    pairs: np.ndarray       # uint8 [n, n, n] or [1, 1, 1]
    triples: np.ndarray     # uint64 [n, n, n, ceil(n / 64)] or [1, 1, 1, 1]
    near: np.ndarray        # uint8 [n, n] or [1, 1]
    room_ok: np.ndarray     # uint8 [2 ** K, K + 1] or [1, 1]
    room_bit: np.ndarray    # int64 [n] or [1]
    room_place: np.ndarray  # int64 [n] or [1]

    @property
    def ncells(self) -> int:
        return int(self.nbr.shape[0])

    def as_tuple(self) -> tuple[np.ndarray, ...]:
        """The arrays in the order the kernels take them."""
        return (self.nbr, self.goal, self.goal_cells, self.side, self.pdist, self.dead, self.zbox, self.zplayer,
                self.pairs, self.dead_end, self.triples, self.near, self.room_ok, self.room_bit, self.room_place)


def build(model: "Sokoban", seed: int = 20240515, pairs: bool = True, triples: bool = True,
          rooms: bool = True) -> Tables:
    """The tables of `model`'s level (cells inside the player's walls, as the model numbers them);
    `pairs` False leaves the two-box table out, `triples` False the three-box one, `rooms`
    False the goal-room table."""
    n = model.ncells
    nbr = np.array(model.nbr, dtype=np.int32).reshape(n, 4)
    goal = np.zeros(n, dtype=np.uint8)
    goal_cells = np.array(model.goal_cells, dtype=np.int32)
    goal[goal_cells] = 1
    side = sides(nbr)
    pdist = np.stack([push_distances(nbr, side, int(g)) for g in goal_cells]) if len(goal_cells) else \
        np.zeros((0, n, 4), dtype=np.int32)
    dead = (pdist.min(axis=(0, 2)) >= INF).astype(np.uint8) if len(goal_cells) else np.ones(n, dtype=np.uint8)
    rng = np.random.default_rng(seed)
    zbox = rng.integers(1, 2 ** 63 - 1, size=n, dtype=np.int64).astype(np.uint64)
    zplayer = rng.integers(1, 2 ** 63 - 1, size=n, dtype=np.int64).astype(np.uint64)
    table = pair_table(nbr, goal_cells) if pairs else None
    if table is None:
        table = np.zeros((1, 1, 1), np.uint8)
    solvable = triple_table(nbr, goal_cells) if triples else None
    if solvable is None:
        solvable, close = np.zeros((1, 1, 1, 1), np.uint64), np.zeros((1, 1), np.uint8)
    else:
        close = near(nbr)
    room = room_table(nbr, goal_cells, dead, len(goal_cells)) if rooms else None
    room_arrays = (room.ok, room.bit, room.place) if room is not None else \
        (np.ones((1, 1), np.uint8), np.zeros(1, np.int64), np.zeros(1, np.int64))
    return Tables(nbr, goal, goal_cells, side, pdist, dead, dead_ends(nbr), zbox, zplayer, table, solvable, close,
                  *room_arrays)


def dead_ends(nbr: np.ndarray) -> np.ndarray:
    """dead_end[c, d] (above): walk from c towards d while each cell has walls across d."""
    n = nbr.shape[0]
    out = np.zeros((n, 4), dtype=np.uint8)
    for c in range(n):
        for d in range(4):
            across = (2, 3) if d < 2 else (0, 1)
            x, cells = c, 0
            while x >= 0 and all(nbr[x, a] < 0 for a in across):
                x = int(nbr[x, d])
                cells += 1
            out[c, d] = x < 0 and cells >= 2       # the walk ran into the wall past c
    return out


def sides(nbr: np.ndarray) -> np.ndarray:
    """side[b, c]: the part of the floor without b that holds c, named by its lowest direction."""
    n = nbr.shape[0]
    out = np.full((n, n), -1, dtype=np.int8)
    adj = [[int(x) for x in row if x >= 0] for row in nbr]
    for b in range(n):
        row = out[b]
        for d in range(4):
            start = int(nbr[b, d])
            if start < 0 or row[start] >= 0:
                continue
            row[start] = d
            queue = deque([start])
            while queue:
                c = queue.popleft()
                for x in adj[c]:
                    if x != b and row[x] < 0:
                        row[x] = d
                        queue.append(x)
    return out


def push_distances(nbr: np.ndarray, side: np.ndarray, goal: int) -> np.ndarray:
    """dist[b, s]: fewest pushes of a lone box from b, the player on side s, to `goal`
    (a backward search over pulls; a box on the goal is done from any side)."""
    n = nbr.shape[0]
    dist = np.full((n, 4), INF, dtype=np.int32)
    queue: deque[tuple[int, int]] = deque()
    for s in range(4):
        if nbr[goal, s] >= 0 and side[goal, nbr[goal, s]] == s:
            dist[goal, s] = 0
            queue.append((goal, s))
    while queue:
        t, s = queue.popleft()
        for e in range(4):          # the box came to t by a push in direction e, from b
            b = int(nbr[t, OPPOSITE[e]])
            if b < 0 or side[t, b] != s:
                continue
            q = int(nbr[b, OPPOSITE[e]])    # where the player stood for that push
            if q < 0:
                continue
            s0 = int(side[b, q])
            if dist[b, s0] >= INF:
                dist[b, s0] = dist[t, s] + 1
                queue.append((b, s0))
    return dist
