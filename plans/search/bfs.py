"""Breadth-first search: optimal in unit-cost metrics, and a proof of unsolvability on finite spaces.

Families whose states pack into 64 bits (Rush Hour, small tiles boards) are searched a layer at
a time over arrays (`layered`); the others through the model's `successors` with a dict of parents.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import count
from puzzleplan.plans.search.common import POLL_EVERY, finish, trace_back
from puzzleplan.plans.search.layered import Layer, PackedSpace, next_layer, packed_space, trace, worker_pool


def run(model: Any, request: Request, ctx: SearchContext) -> Result:
    """Layer by layer from the start; the goal test is applied when a state is generated."""
    start = model.initial()
    if model.is_goal(start):
        return finish(ctx, "bfs", model, Status.OPTIMAL, [], 0)
    space = packed_space(model) if request.options.get("native", True) else None
    if space is not None:
        return run_packed(model, space, request, ctx)
    cap = request.max_moves
    parents: dict[Any, Any] = {start: None}
    layer = [start]
    stats = ctx.stats
    stats.states = 1
    depth = 0
    ctx.phase = "bfs"
    while layer:
        if cap is not None and depth >= cap:
            return _over_cap(ctx, model, cap, depth)
        depth += 1
        stats.depth = depth
        nxt = []
        for state in layer:
            stats.nodes += 1
            if stats.nodes % POLL_EVERY == 0:
                ctx.poll()
            for action, child in model.successors(state):
                stats.generated += 1
                if child in parents:
                    continue
                parents[child] = (state, action)
                stats.states += 1
                if model.is_goal(child):
                    return finish(ctx, "bfs", model, Status.OPTIMAL, trace_back(parents, child), depth)
                nxt.append(child)
        layer = nxt
    return _exhausted(ctx, model)


def run_packed(model: Any, space: PackedSpace, request: Request, ctx: SearchContext, engine: str = "bfs",
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


def _over_cap(ctx: SearchContext, model: Any, cap: int, depth: int, engine: str = "bfs") -> Result:
    return finish(ctx, engine, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=depth + 1,
                  message=f"no plan within {count(cap, 'move')}")


def _exhausted(ctx: SearchContext, model: Any, engine: str = "bfs") -> Result:
    return finish(ctx, engine, model, Status.UNSOLVABLE,
                  message=f"all {ctx.stats.states} reachable states explored, none is a goal")
