"""Breadth-first search: optimal in unit-cost metrics, and a proof of unsolvability on finite spaces."""
from __future__ import annotations

from typing import Any

from ..context import SearchContext
from ..types import Request, Result, Status
from .common import POLL_EVERY, finish, trace_back


def run(model: Any, request: Request, ctx: SearchContext) -> Result:
    """Layer by layer from the start; the goal test is applied when a state is generated."""
    start = model.initial()
    cap = request.max_moves
    if model.is_goal(start):
        return finish(ctx, "bfs", model, Status.OPTIMAL, [], 0)
    parents: dict[Any, Any] = {start: None}
    layer = [start]
    stats = ctx.stats
    stats.states = 1
    depth = 0
    ctx.phase = "bfs"
    while layer:
        if cap is not None and depth >= cap:
            return finish(ctx, "bfs", model, Status.NO_PLAN_WITHIN_CAP, lower_bound=depth + 1,
                          message=f"no plan within {cap} moves")
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
    return finish(ctx, "bfs", model, Status.UNSOLVABLE, message=f"all {stats.states} reachable states explored, none is a goal")
