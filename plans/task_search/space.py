"""A task as the search loops see it: packed start, goal test, successors, costs, outcomes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from puzzleplan.models.task.ir import Task
from puzzleplan.plans.core.types import Status
from puzzleplan.plans.task_search.packing import Packing
from puzzleplan.plans.task_search.successors import Successors

DEAD_END = 1 << 62   # a heuristic value meaning "no plan from here" (larger than any plan cost)


class Space:
    """The packed form of one task."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.packing = Packing(task.sizes)
        self.successors = Successors(task, self.packing)
        self.costs = self.successors.costs
        self.start = self.packing.pack(task.init)
        self.goal_mask, self.goal_value = self.packing.partial(task.goal)
        self.unit_cost = task.unit_cost

    def is_goal(self, key: int) -> bool:
        return key & self.goal_mask == self.goal_value


@dataclass(frozen=True)
class Outcome:
    """How a loop ended: a status, the plan as action indices, a proved lower bound, why."""

    status: Status
    actions: tuple[int, ...] | None = None
    lower_bound: int | None = None
    message: str = ""


def path_to(parents: dict[int, Any], key: int) -> tuple[int, ...]:
    """Action indices from the root to `key` through {key: (parent key, action, ...)}; the root's
    entry is None or has parent None."""
    out = []
    link = parents[key]
    while link is not None and link[0] is not None:
        out.append(link[1])
        link = parents[link[0]]
    out.reverse()
    return tuple(out)
