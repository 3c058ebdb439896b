"""A user family's Python class as a planning task, by enumerating its reachable states.

A class states its rules as code (`successors`), not declaratively, so the only faithful task is
the explicit one: variable `state` whose values are the reachable states (breadth-first from the
start through the class's own `successors`), one action per transition (named by the class's
move name), and a variable `at-goal` that each transition sets to whether it lands on a goal
(a goal may be many states; a SAS+ goal is one partial assignment). That gives user families the
generic encodings, the PDDL export and the generic checker — within `MAX_STATES` reachable
states and `MAX_TRANSITIONS` moves; beyond that the task would be larger than the puzzle's
whole search, and compiling says so. (For rules as data, use `puzzle: rules`.)
"""
from __future__ import annotations

from collections import deque
from typing import Any

from puzzleplan.models.base import shorten
from puzzleplan.models.task.checkpoints import checkpoint
from puzzleplan.models.task.ir import Compiled, NotCompilable, Task, Variable, action

MAX_STATES = 100_000
MAX_TRANSITIONS = 500_000


def enumerate_task(model: Any) -> Compiled:
    start = model.initial()
    index: dict[Any, int] = {start: 0}
    states = [start]
    edges: list[tuple[int, str, int]] = []
    queue = deque([start])
    while queue:
        state = queue.popleft()
        i = index[state]
        if i % 64 == 0:
            checkpoint()
        for move, child in model.successors(state):
            j = index.get(child)
            if j is None:
                if len(states) >= MAX_STATES:
                    raise NotCompilable(f"the {model.family} class reaches more than {MAX_STATES:,} states: too many "
                                        "to enumerate as a task (state the rules as `puzzle: rules` instead)")
                j = index[child] = len(states)
                states.append(child)
                queue.append(child)
            edges.append((i, model.plan_moves([move])[0], j))
            if len(edges) > MAX_TRANSITIONS:
                raise NotCompilable(f"the {model.family} class has more than {MAX_TRANSITIONS:,} moves among its "
                                    "reachable states: too many to enumerate as a task")
    goal = [model.is_goal(s) for s in states]
    names = tuple(f"s{k}:{shorten(str(s), 30)}" for k, s in enumerate(states))
    variables = (Variable("state", names), Variable("at-goal", ("no", "yes")))
    actions = tuple(action(name, {0: i}, {0: j, 1: int(goal[j])}) for i, name, j in edges)
    task = Task(model.name or model.family, variables, (0, int(goal[0])), ((1, 1),), actions,
                metric=model.metric, family=model.family)
    return Compiled(task, lambda s: (index[s], int(model.is_goal(s))), lambda values: states[values[0]])
