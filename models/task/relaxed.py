"""The delete relaxation: when each fact and action is first reached if no action ever undid a
fact (the relaxed planning graph's levels). A goal fact it never reaches is out of reach of every
plan, so the task is unsolvable before any search (`TaskModel.unsolvable_reason`); SAT and
CP-SAT engines, which otherwise grow their horizon to its cap, learn it at once. The generic
encodings read the levels for their distance cuts (encoders/sas_analysis.py).
"""
from __future__ import annotations

from puzzleplan.models.task.checkpoints import checkpoint
from puzzleplan.models.task.ir import Fact, Task

INF = 1 << 30   # the level of a fact or action never reached


def unreachable_goal(task: Task) -> Fact | None:
    """A goal fact no action sequence reaches even without deletes, None when there is none."""
    fact_level, _ = relaxed_levels(task)
    return next(((v, x) for v, x in task.goal if fact_level[v][x] == INF), None)


def relaxed_levels(task: Task) -> tuple[list[list[int]], list[int]]:
    """First step of each fact and each action in the relaxed planning graph (INF: never)."""
    fact_level = [[INF] * n for n in task.sizes]
    action_level = [INF] * len(task.actions)
    missing = [len(a.pre) for a in task.actions]
    waiting: dict[tuple[int, int], list[int]] = {}
    for i, a in enumerate(task.actions):
        for fact in a.pre:
            waiting.setdefault(fact, []).append(i)
    current = list(enumerate(task.init))
    for v, x in current:
        fact_level[v][x] = 0
    ready = [i for i, a in enumerate(task.actions) if not a.pre]
    level = 0
    while True:
        for fact in current:
            for i in waiting.get(fact, ()):
                missing[i] -= 1
                if missing[i] == 0:
                    ready.append(i)
        checkpoint()
        new: list[tuple[int, int]] = []
        for i in ready:
            action_level[i] = level
            for v, x in task.actions[i].eff:
                if fact_level[v][x] == INF:
                    fact_level[v][x] = level + 1
                    new.append((v, x))
        if not new:
            return fact_level, action_level
        ready, current, level = [], new, level + 1
