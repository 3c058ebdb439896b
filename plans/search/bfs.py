"""Breadth-first search: optimal in unit-cost metrics, and a proof of unsolvability on finite spaces.

Families whose states pack into 64 bits (Rush Hour, small tiles boards) are searched a layer at
a time over arrays (`layered`); the others through the model's `successors` with a dict of parents.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Action, Model, PackedSpace, State
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import all_explored, cap_words
from puzzleplan.plans.search.breadth_first import CAPPED, STOPPED, Stop, sweep
from puzzleplan.plans.search.common import finish, trace_back, unit_cost_reason
from puzzleplan.plans.search.layered import Layer, next_layer, packed_space, trace, worker_pool


def supports(model: Model) -> str | None:
    """Breadth-first search runs on every unit-cost model (packed states take the array path)."""
    return unit_cost_reason(model)


def run(model: Model, request: Request, ctx: SearchContext) -> Result:
    """Layer by layer from the start; the goal test is applied when a state is generated."""
    start = model.initial()
    if model.is_goal(start):
        return finish(ctx, "bfs", model, Status.OPTIMAL, [], 0)
    space = packed_space(model) if request.options.get("native", True) else None
    if space is not None:
        return run_packed(model, space, request, ctx)
    cap = request.max_moves
    parents: dict[State, Any] = {start: None}
    stats = ctx.stats
    stats.states = 1
    ctx.phase = "bfs"
    is_goal = model.is_goal

    def proved(layer: list[State], depth: int) -> bool:
        ctx.lower_bound = depth + 1   # every state within `depth` moves was goal-tested
        return False

    def visit(state: State, action: Action, child: State, depth: int) -> bool:
        if child in parents:
            return False
        parents[child] = (state, action)
        stats.states += 1
        if is_goal(child):
            raise Stop(child)
        return True

    end = sweep(model, ctx, [start], visit, cap=cap, table=parents, on_layer=proved)
    if end.ended == STOPPED:
        return finish(ctx, "bfs", model, Status.OPTIMAL, trace_back(parents, end.value), end.depth)
    if end.ended == CAPPED:
        assert cap is not None
        return _over_cap(ctx, model, cap, end.depth)
    return _exhausted(ctx, model)


def run_packed(model: Model, space: PackedSpace, request: Request, ctx: SearchContext, engine: str = "bfs",
               workers: int = 1) -> Result:
    """Breadth-first over the model's packed states (plans.search.layered), on `workers` threads."""
    if model.is_goal(model.initial()):
        return finish(ctx, engine, model, Status.OPTIMAL, [], 0)
    cap = request.max_moves
    layers = [Layer(np.array([space.pack(model.initial())], dtype=np.uint64))]
    stats = ctx.stats
    stats.states = 1
    stats.extra["kernel"] = "packed layers"
    ctx.phase = f"{engine} (packed)"
    with worker_pool(workers) as pool:
        while layers[-1].keys.size:
            depth = len(layers) - 1
            ctx.lower_bound = depth + 1   # every state within `depth` moves was goal-tested
            if cap is not None and depth >= cap:
                return _over_cap(ctx, model, cap, depth, engine)
            stats.depth = depth + 1
            layers.append(next_layer(space, layers, ctx, True, pool, workers))
            stats.states += layers[-1].keys.size
            goals = np.flatnonzero(space.goal_mask(layers[-1].keys))
            if goals.size:
                return finish(ctx, engine, model, Status.OPTIMAL, trace(space, layers, int(goals[0])), depth + 1)
            ctx.poll()  # the state cap counts the whole new layer
    return _exhausted(ctx, model, engine)


def _over_cap(ctx: SearchContext, model: Model, cap: int, depth: int, engine: str = "bfs") -> Result:
    return finish(ctx, engine, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=depth + 1,
                  message=f"no plan within {cap_words(model, cap)}")


def _exhausted(ctx: SearchContext, model: Model, engine: str = "bfs") -> Result:
    return finish(ctx, engine, model, Status.UNSOLVABLE,
                  message=all_explored(ctx.stats.states))
