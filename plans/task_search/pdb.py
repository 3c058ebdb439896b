"""One projection pattern database: exact goal distances in the task projected on a pattern.

The projection keeps the pattern's variables and drops the rest from every precondition, effect
and goal. Abstract states are numbered in mixed radix over the pattern (`index`); an action
that changes a pattern variable becomes an abstract action (duplicates keep the least cost),
and its transitions are enumerated with numpy: the variables it fixes add a constant, the free
ones a range, so each action costs time in proportion to the states it applies in. Distances
come from a backward Dijkstra from every abstract goal state, vectorised layer by layer of
distance (0-cost transitions are closed within a layer). The projection may hold states the
task never reaches; the distances stay lower bounds on the task's (admissible).

Built under a cost function (one cost per task action), it also gives that function's
saturated costs: the least cost each action needs for the distances to stay what they are
(max of h(s) - h(t) over its transitions), so the next database can use the remainder
(saturated cost partitioning; the sum of the databases stays admissible).
"""
from __future__ import annotations

from math import prod
from typing import Callable, Sequence

import numpy as np

from puzzleplan.models.task.ir import Fact, Task
from puzzleplan.plans.task_search.packing import Packing
from puzzleplan.plans.task_search.space import DEAD_END

_INF = np.int64(DEAD_END)


class Projection:
    """The abstract actions of a task projected on `pattern` (sorted variable indices)."""

    def __init__(self, task: Task, pattern: Sequence[int]) -> None:
        self.pattern = tuple(sorted(pattern))
        sizes = task.sizes
        self.sizes = tuple(sizes[v] for v in self.pattern)
        self.radices = tuple(prod(self.sizes[:i]) for i in range(len(self.sizes)))
        self.size = prod(self.sizes)
        self.dtype = np.int32 if self.size < 2**31 else np.int64   # abstract state indices
        where = {v: i for i, v in enumerate(self.pattern)}
        found: dict[tuple[tuple[Fact, ...], tuple[Fact, ...]], list[int]] = {}
        for i, a in enumerate(task.actions):
            pre = tuple((where[v], x) for v, x in a.pre if v in where)
            eff = tuple((where[v], x) for v, x in a.eff if v in where)
            fixed = dict(pre)
            if all(fixed.get(v) == x for v, x in eff):
                continue                    # changes nothing in the pattern: a self-loop
            found.setdefault((pre, eff), []).append(i)
        self.abstract = tuple(found)                     # (pre, eff) over pattern positions
        self.members = tuple(tuple(m) for m in found.values())   # task actions of each
        self.goal = tuple((where[v], x) for v, x in task.goal if v in where)

    def transitions_estimate(self) -> int:
        """How many transitions `transitions` will enumerate (before self-loops are dropped)."""
        return sum(self.size // prod(self.sizes[p] for p, _ in pre) for pre, _ in self.abstract) + self.size

    def states(self, fixed: dict[int, int], eff: dict[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(indices of the states matching `fixed`, their images under effects `eff`)."""
        eff = eff or {}
        src = np.zeros(1, dtype=self.dtype)
        dst = np.zeros(1, dtype=self.dtype)
        for p, (size, radix) in enumerate(zip(self.sizes, self.radices)):
            if p in fixed:
                src += fixed[p] * radix
                dst += eff.get(p, fixed[p]) * radix
                continue
            values = np.arange(size, dtype=self.dtype) * radix
            after = np.full(size, eff[p] * radix, dtype=self.dtype) if p in eff else values
            src = (src[:, None] + values).ravel()
            dst = (dst[:, None] + after).ravel()
        return src, dst


def build(projection: Projection, costs: np.ndarray, poll: Callable[[], None]) -> tuple[np.ndarray, np.ndarray]:
    """(distance of every abstract state, saturated cost of every task action) under `costs`.

    Unreachable-from-goal states get DEAD_END. `poll` is called between steps (it may raise)."""
    src_parts, dst_parts, id_parts = [], [], []
    abstract_cost = np.array([costs[list(m)].min() for m in projection.members], dtype=np.int64)
    for j, (pre, eff) in enumerate(projection.abstract):
        src, dst = projection.states(dict(pre), dict(eff))
        moved = src != dst
        src_parts.append(src[moved])
        dst_parts.append(dst[moved])
        id_parts.append(np.full(int(moved.sum()), j, dtype=np.int32))
        if j % 64 == 63:
            poll()
    empty = np.zeros(0, dtype=projection.dtype)
    src = np.concatenate(src_parts) if src_parts else empty
    dst = np.concatenate(dst_parts) if dst_parts else empty
    ids = np.concatenate(id_parts) if id_parts else empty.astype(np.int32)
    del src_parts, dst_parts, id_parts
    cost = abstract_cost[ids]
    goals, _ = projection.states(dict(projection.goal))
    dist = _backward_dijkstra(projection.size, src, dst, cost, goals, poll)
    alive = dist[src] < _INF
    gain = np.full(len(projection.abstract), 0, dtype=np.int64)
    np.maximum.at(gain, ids[alive], dist[src[alive]] - dist[dst[alive]])
    saturated = np.zeros(len(costs), dtype=np.int64)
    for j, members in enumerate(projection.members):
        saturated[list(members)] = gain[j]
    return dist, saturated


def _backward_dijkstra(n: int, src: np.ndarray, dst: np.ndarray, cost: np.ndarray, goals: np.ndarray,
                       poll: Callable[[], None]) -> np.ndarray:
    """Least cost from every state to a goal state over transitions src -> dst (costs >= 0)."""
    order = np.argsort(dst, kind="stable")
    back_src, back_cost = src[order], cost[order]
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(dst, minlength=n), out=starts[1:])
    dist = np.full(n, _INF, dtype=np.int64)
    done = np.zeros(n, dtype=bool)
    dist[goals] = 0
    d = np.int64(0)
    frontier = np.unique(goals)
    while True:
        while frontier.size:                 # the states at distance d, closed under 0-cost moves
            done[frontier] = True
            edges = _edges_into(starts, frontier)
            pred, c = back_src[edges], back_cost[edges]
            free = c == 0
            paid = ~free
            np.minimum.at(dist, pred[paid], d + c[paid])
            pred = pred[free]
            pred = pred[~done[pred]]
            dist[pred] = d
            frontier = np.unique(pred)
        poll()
        open_ = ~done & (dist < _INF)
        if not open_.any():
            return dist
        d = dist[open_].min()
        frontier = np.flatnonzero(open_ & (dist == d))


def _edges_into(starts: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Positions (in the dst-sorted order) of every transition into `nodes`."""
    first = starts[nodes]
    counts = starts[nodes + 1] - first
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(first - np.cumsum(counts) + counts, counts)
    return offsets + np.arange(total, dtype=np.int64)


class PatternDatabase:
    """A built database as a function of packed states: h(key) = distances[index of key]."""

    def __init__(self, projection: Projection, distances: np.ndarray, packing: Packing) -> None:
        self.pattern = projection.pattern
        self.parts = tuple((packing.shifts[v], packing.masks[v], r)
                           for v, r in zip(projection.pattern, projection.radices))
        self.table: list[int] = distances.tolist()

    def __call__(self, key: int) -> int:
        index = 0
        for shift, mask, radix in self.parts:
            index += (key >> shift & mask) * radix
        return self.table[index]
