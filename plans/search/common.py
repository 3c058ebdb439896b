"""Small helpers shared by the native engines."""
from __future__ import annotations

from typing import Any, Sequence

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Plan, Result, Status

POLL_EVERY = 4096  # nodes between limit checks in the Python loops


def finish(ctx: SearchContext, engine: str, model: Any, status: Status, actions: Sequence[Any] | None = None,
           lower_bound: int | None = None, message: str = "") -> Result:
    """Build a Result, turning an action path into the model's move strings."""
    plan = None
    if actions is not None:
        moves = model.plan_moves(list(actions))
        cost_of = getattr(model, "plan_cost", None)
        plan = Plan.of(moves, cost_of(list(actions)) if cost_of else len(actions))
    stats = ctx.finish()
    if "setup_seconds" in stats.extra:
        stats.extra["search_seconds"] = round(stats.seconds - stats.extra["setup_seconds"], 6)
    return Result(status, engine, plan, lower_bound, stats, message)


def trace_back(parents: dict[Any, Any], state: Any) -> list[Any]:
    """Actions from the root to `state` through a {state: (parent, action)} map (root -> None)."""
    actions = []
    link = parents[state]
    while link is not None:
        state, action = link
        actions.append(action)
        link = parents[state]
    actions.reverse()
    return actions


def unit_cost_reason(model: Any) -> str | None:
    """None when every move costs 1 (what the move-counting engines assume), else why not.

    A model says otherwise with `unit_cost = False` (a task with action costs: rules files with
    costs, PDDL with action costs); the task engines search by cost instead."""
    if getattr(model, "unit_cost", True) is False:
        counted = "step" in getattr(type(model), "metrics", ()) and getattr(model, "metric", "step") != "step"
        return ("its actions have costs other than 1, and this engine counts moves (use task-astar, task-bfs or "
                "task-idastar" + (", or --metric step to count moves" if counted else "") + ")")
    return None
