"""A model over a planning task: what the rules and PDDL families load into.

`TaskModel` wraps a `Task` in the model protocol, so every engine runs on it: states are the
task's value tuples, actions its grounded `Action`s, move names the actions' names, and a plan's
cost the sum of its action costs. It is its own compilation (`compiled_task`). Families built
on it (rules, pddl) set `family` and, where they know better, `render`.

Action costs: the unit-cost engines (bfs, astar, idastar, dfs, greedy, pbfs) count moves, so
they run only where every action costs 1 (`unit_cost`); the generic task engines search by
cost and run on every task.
"""
from __future__ import annotations

from typing import Any, ClassVar, Iterator, Sequence

from puzzleplan.models.base import ModelBase
from puzzleplan.models.task.ir import Action, Compiled, State, Task


def _same(state: Any) -> Any:
    return tuple(state)


class TaskModel(ModelBase):
    """One planning task as a model (immutable once built)."""

    family: ClassVar[str] = "task"
    default_engine: ClassVar[str] = "task-astar"

    def __init__(self, task: Task, name: str = "", metric: str = "step", max_moves: int | None = None,
                 expect: dict[str, Any] | None = None, description: str = "") -> None:
        self.task = task
        self.name = name or task.name
        self.metric = metric
        self.max_moves = max_moves
        self.expect = dict(expect or {})
        self.description = description
        self.unit_cost = task.unit_cost

    # -- the rules ------------------------------------------------------------------------------
    def initial(self) -> State:
        return self.task.init

    def is_goal(self, state: State) -> bool:
        return self.task.is_goal(state)

    def successors(self, state: State) -> Iterator[tuple[Action, State]]:
        return self.task.successors(state)

    def plan_moves(self, actions: Sequence[Action]) -> list[str]:
        return [a.name for a in actions]

    def unsolvable_reason(self) -> str | None:
        """A goal fact out of reach even if no action undid anything (the delete relaxation)."""
        from puzzleplan.models.task.relaxed import unreachable_goal
        fact = unreachable_goal(self.task)
        if fact is None:
            return None
        return (f"no plan reaches the goal's {self.task.fact_name(fact)}, not even if no action ever undid "
                "anything (delete relaxation)")

    def plan_cost(self, actions: Sequence[Action]) -> int:
        return self.task.plan_cost(actions)

    def compiled_task(self, _model: Any = None) -> Compiled:
        return Compiled(self.task, _same, _same)

    # -- showing it -----------------------------------------------------------------------------
    def render(self, state: State) -> str:
        """The state as `variable = value` lines (families with a picture override this)."""
        width = max((len(v.name) for v in self.task.variables), default=0)
        return "\n".join(f"{v.name:<{width}} = {v.values[x]}" for v, x in zip(self.task.variables, state))
