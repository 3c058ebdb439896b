"""Entry points of the task engines: `task-bfs`, `task-astar`, `task-idastar`.

Each compiles the model (`compiled(model)`, remembered per model), packs the task, builds the
heuristic the request names (`options["heuristic"]`: blind, hmax or pdb; default pdb) and runs
its loop with `request.max_moves` as a cap on plan cost. Plans are the actions' names, so the
family's own checker replays them; their cost is the sum of the action costs.
"""
from __future__ import annotations

import time
from typing import Any, Callable, Sequence

from puzzleplan.models.task.compile import compiled
from puzzleplan.models.task.compile import supports as compiles
from puzzleplan.models.task.ir import Action, Task
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Request, Result
from puzzleplan.plans.search.common import finish
from puzzleplan.plans.task_search.best_first import astar
from puzzleplan.plans.task_search.breadth import breadth_first
from puzzleplan.plans.task_search.depth_first import idastar
from puzzleplan.plans.task_search.heuristics import Heuristic, make
from puzzleplan.plans.task_search.space import DEAD_END, Outcome, Space


class TaskPlans:
    """What `finish` asks of a model, for plans of task actions: their names and summed costs."""

    def __init__(self, task: Task) -> None:
        self.task = task

    def plan_moves(self, actions: Sequence[Action]) -> list[str]:
        return [a.name for a in actions]

    def plan_cost(self, actions: Sequence[Action]) -> int:
        return self.task.plan_cost(actions)


def supports(model: Any) -> str | None:
    """None when the model compiles to a planning task, else why not."""
    return compiles(model)


def run_bfs(model: Any, request: Request, ctx: SearchContext) -> Result:
    """Breadth-first on unit-cost tasks; uniform-cost (Dijkstra) when some action costs otherwise."""
    def loop(space: Space, heuristic: Heuristic, cap: int | None) -> Outcome:
        if space.unit_cost:
            return breadth_first(space, cap, ctx)
        return astar(space, heuristic.h, cap, ctx, heuristic.poll_every)
    return _run("task-bfs", model, request, ctx, loop, "blind")


def run_astar(model: Any, request: Request, ctx: SearchContext) -> Result:
    """A* by cost with the requested heuristic."""
    return _run("task-astar", model, request, ctx,
                lambda space, heuristic, cap: astar(space, heuristic.h, cap, ctx, heuristic.poll_every))


def run_idastar(model: Any, request: Request, ctx: SearchContext) -> Result:
    """IDA* by cost with the requested heuristic."""
    return _run("task-idastar", model, request, ctx,
                lambda space, heuristic, cap: idastar(space, heuristic.h, cap, ctx, heuristic.poll_every))


def _run(engine: str, model: Any, request: Request, ctx: SearchContext,
         loop: Callable[[Space, Heuristic, int | None], Outcome], heuristic: str | None = None) -> Result:
    started = time.monotonic()
    ctx.phase = engine
    task = compiled(model).task
    space = Space(task)
    chosen = make(heuristic or request.options.get("heuristic"), space, ctx)
    start_h = chosen.h(space.start)
    extra = ctx.stats.extra
    extra.update(heuristic=chosen.name, h_start=None if start_h >= DEAD_END else start_h, **chosen.info)
    extra["setup_seconds"] = round(time.monotonic() - started, 6)
    ctx.lower_bound = 0 if start_h >= DEAD_END else start_h
    ctx.phase = engine
    outcome = loop(space, chosen, request.max_moves)
    actions = None if outcome.actions is None else [task.actions[i] for i in outcome.actions]
    return finish(ctx, engine, TaskPlans(task), outcome.status, actions, outcome.lower_bound, outcome.message)
