"""The delete relaxation's reachability: which facts some action sequence could make true if no
action ever undid a fact. A goal fact outside that set is out of reach of every plan, so the
task is unsolvable before any search (`TaskModel.unsolvable_reason`); SAT and CP-SAT engines,
which otherwise grow their horizon to its cap, learn it at once.
"""
from __future__ import annotations

from collections import defaultdict

from puzzleplan.models.task.checkpoints import checkpoint
from puzzleplan.models.task.ir import Fact, Task

POLL_EVERY = 4096   # facts taken from the queue between limit checks


def unreachable_goal(task: Task) -> Fact | None:
    """A goal fact no action sequence reaches even without deletes, None when there is none.

    The counting fixpoint: an action fires when its last unreached precondition is reached,
    and adds its effects; each fact is queued once, each precondition counted down once."""
    reached: set[Fact] = set(enumerate(task.init))
    waiting: list[int] = []
    needing: dict[Fact, list[int]] = defaultdict(list)
    queue: list[Fact] = []
    for i, action in enumerate(task.actions):
        pre = set(action.pre)
        waiting.append(len(pre))
        for fact in pre:
            needing[fact].append(i)
        if not pre:
            queue += [f for f in action.eff if f not in reached]
            reached.update(action.eff)
    queue += list(enumerate(task.init))
    taken = 0
    while queue:
        fact = queue.pop()
        taken += 1
        if taken % POLL_EVERY == 0:
            checkpoint()
        for i in needing.pop(fact, ()):
            waiting[i] -= 1
            if waiting[i] == 0:
                for new in task.actions[i].eff:
                    if new not in reached:
                        reached.add(new)
                        queue.append(new)
    return next((fact for fact in task.goal if fact not in reached), None)
