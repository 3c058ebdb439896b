"""h^max: the cost of the costliest goal fact in the delete relaxation, each fact at its cheapest.

A fact (v, x) costs 0 when the state holds it; an action costs its cost plus its costliest
precondition; a fact costs the least over the actions that achieve it. The fixpoint is found by
rounds of Bellman-Ford relaxation over all actions at once (numpy): one round is a gather of
precondition costs, a max per action and a min per achieved fact (`minimum.reduceat` over
achievers sorted by fact). Admissible and consistent for non-negative costs, 0-cost actions
included; a goal fact no action chain reaches makes the state a dead end.
"""
from __future__ import annotations

import numpy as np

from puzzleplan.models.task.checkpoints import checkpoint
from puzzleplan.models.task.ir import Task
from puzzleplan.plans.task_search.packing import Packing
from puzzleplan.plans.task_search.space import DEAD_END

_INF = np.int64(DEAD_END)


class HMax:
    """h^max of a packed state (`DEAD_END` when a goal fact is unreachable in the relaxation)."""

    def __init__(self, task: Task, packing: Packing) -> None:
        self.packing = packing
        offsets = np.cumsum((0,) + task.sizes)
        self.offsets = offsets[:-1].tolist()
        nfacts = int(offsets[-1])
        true_fact = nfacts                     # a fact of cost 0 padding short precondition lists
        width = max((len(a.pre) for a in task.actions), default=0) or 1
        pre = np.full((len(task.actions), width), true_fact, dtype=np.int64)
        achievers: list[tuple[int, int]] = []   # (fact, action)
        for i, a in enumerate(task.actions):
            if i % 4096 == 0:
                checkpoint()
            for j, (v, x) in enumerate(a.pre):
                pre[i, j] = self.offsets[v] + x
            achievers += [(self.offsets[v] + x, i) for v, x in a.eff]
        self.pre = pre
        self.costs = np.array([a.cost for a in task.actions], dtype=np.int64)
        pairs = np.array(sorted(achievers), dtype=np.int64).reshape(-1, 2)
        self.achiever_actions = pairs[:, 1]
        self.achieved, self.starts = np.unique(pairs[:, 0], return_index=True)
        self.goal = np.array([self.offsets[v] + x for v, x in task.goal], dtype=np.int64)
        self.nfacts = nfacts

    def facts(self, key: int) -> np.ndarray:
        """Indices of the facts the packed state holds."""
        return np.array([o + (key >> s & m) for o, s, m in
                         zip(self.offsets, self.packing.shifts, self.packing.masks)], dtype=np.int64)

    def __call__(self, key: int) -> int:
        if not len(self.goal):
            return 0
        cost = np.full(self.nfacts + 1, _INF, dtype=np.int64)
        cost[self.facts(key)] = 0
        cost[self.nfacts] = 0
        achieved, starts = self.achieved, self.starts
        while True:
            checkpoint()   # a round over every action: on a large task one state's h takes seconds
            goal_cost = cost[self.goal].max()
            if goal_cost == 0:
                return 0
            action_cost = np.minimum(cost[self.pre].max(axis=1) + self.costs, _INF)
            if not len(achieved):
                break
            reached = np.minimum.reduceat(action_cost[self.achiever_actions], starts)
            current = cost[achieved]
            better = reached < current
            if not better.any():
                break
            cost[achieved[better]] = reached[better]
        goal_cost = int(cost[self.goal].max())
        return DEAD_END if goal_cost >= DEAD_END else goal_cost
