"""Sokoban's static analysis: push and walk distances, dead squares, the matching bound and the
freeze test, built once per level from its cells (level.py's numbering and steps).

The model's heuristic and pruning read these tables (see model.py for what each proves); the
SAT and CP-SAT encodings read the distances and dead squares through the model. The matchings
already solved are remembered here, in the `Analysis` object the model is handed, never on the
model itself (models are immutable).
"""
from __future__ import annotations

from collections import deque
from typing import Sequence

from puzzleplan.models.sokoban.level import bits

INF = 1 << 30               # the distance of a cell from which the target cannot be reached
CACHE_LIMIT = 1_000_000     # matchings remembered before the memo starts over


def pull_distances(nbr: Sequence[Sequence[int]], goal: int) -> list[int]:
    """Fewest pushes from each cell to `goal` for a lone box (reverse search over pulls: a box
    at b can be pulled to b+d when b+d and b+2d are floor)."""
    dist = [INF] * len(nbr)
    dist[goal] = 0
    queue = deque([goal])
    while queue:
        b = queue.popleft()
        for d in range(4):
            a = nbr[b][d]            # a box on a reaches b by a push toward b...
            if a < 0:
                continue
            behind = nbr[a][d]       # ...from a player standing beyond a
            if behind < 0 or dist[a] < INF:
                continue
            dist[a] = dist[b] + 1
            queue.append(a)
    return dist


def walk_distances(nbr: Sequence[Sequence[int]], target: int) -> list[int]:
    """Fewest steps from each cell to `target` on the empty level (walls only)."""
    dist = [INF] * len(nbr)
    dist[target] = 0
    queue = deque([target])
    while queue:
        c = queue.popleft()
        for n in nbr[c]:
            if n >= 0 and dist[n] >= INF:
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist


class Analysis:
    """The tables of one level's cells and goals, and a memo of the matchings solved.

    goal_dist[g][c]  push distance of a box on cell c to the g-th goal (INF: never)
    dead[c]          no goal is reachable from c by pushes (a box there is lost)
    """

    def __init__(self, nbr: Sequence[Sequence[int]], goal_cells: Sequence[int]) -> None:
        self.nbr = nbr
        self.goal_cells = tuple(goal_cells)
        self.goals = sum(1 << g for g in self.goal_cells)
        self.goal_dist = tuple(pull_distances(nbr, g) for g in self.goal_cells)
        self.dead = tuple(all(d[c] >= INF for d in self.goal_dist) for c in range(len(nbr)))
        self._matchings: dict[int, int | None] = {}

    def matching(self, boxes: int) -> int | None:
        """Minimum total push distance over perfect matchings of boxes to goals (None: no matching)."""
        cache = self._matchings
        if boxes in cache:
            return cache[boxes]
        cells = bits(boxes)
        value: int | None
        if len(cells) != len(self.goal_cells):
            value = None
        elif len(cells) == 1:
            d = self.goal_dist[0][cells[0]]
            value = None if d >= INF else d
        else:
            from ortools.graph.python import linear_sum_assignment
            tails: list[int] = []
            heads: list[int] = []
            costs: list[int] = []
            value = 0
            for i, b in enumerate(cells):
                found = False
                for j, dist in enumerate(self.goal_dist):
                    d = dist[b]
                    if d < INF:
                        tails.append(i)
                        heads.append(j)
                        costs.append(d)
                        found = True
                if not found:
                    value = None
                    break
            if value is not None:
                solver = linear_sum_assignment.SimpleLinearSumAssignment()
                solver.add_arcs_with_cost(tails, heads, costs)
                if solver.solve() == solver.OPTIMAL:
                    value = solver.optimal_cost()
                else:
                    value = None
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        cache[boxes] = value
        return value

    def frozen(self, b: int, boxes: int, chain: set[int]) -> list[int] | None:
        """The boxes of a frozen group holding box `b` still (boxes on `chain` count as walls), or None."""
        chain.add(b)
        group = [b]
        nbr, dead = self.nbr, self.dead
        try:
            for d1, d2 in ((0, 1), (2, 3)):
                a, c = nbr[b][d1], nbr[b][d2]
                if a < 0 or c < 0 or (dead[a] and dead[c]):
                    continue
                blocked = False
                for n in (a, c):
                    if boxes >> n & 1:
                        if n in chain:
                            blocked = True
                            break
                        sub = self.frozen(n, boxes, chain)
                        if sub is not None:
                            group += sub
                            blocked = True
                            break
                if not blocked:
                    return None
            return group
        finally:
            chain.discard(b)

    def frozen_off_goal(self, boxes: int, b: int) -> int | None:
        """A box off a goal in a frozen group holding box b (None: there is no such group)."""
        group = self.frozen(b, boxes, set())
        return None if group is None else next((g for g in group if not self.goals >> g & 1), None)

    def freeze_deadlock(self, boxes: int, b: int) -> bool:
        """Box b is in a frozen group with a box off a goal."""
        return self.frozen_off_goal(boxes, b) is not None

    def push_ok(self, boxes: int, k: int) -> bool:
        """Pruning after a push that put a box on cell k (boxes: the new box set)."""
        if self.dead[k]:
            return False
        if self.freeze_deadlock(boxes, k):
            return False
        return self.matching(boxes) is not None

