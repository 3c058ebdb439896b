"""Depth-first search: any plan within the cap (the seeds' DFS), fast rather than short.

With a cap it is a single bounded pass (g + h <= cap, children tried best-h first, the
seed's pruning); exhausting it proves there is no plan within the cap. Without a cap it is a
graph DFS with a visited set, complete on finite spaces.
"""
from __future__ import annotations

from typing import Any

from ..context import SearchContext
from ..types import Request, Result, Status
from .common import POLL_EVERY, finish
from .depth_first import searcher_for


def run(model: Any, request: Request, ctx: SearchContext) -> Result:
    cap = request.max_moves
    ctx.phase = "dfs"
    if cap is None:
        return _graph_dfs(model, ctx)
    searcher = searcher_for(model, ctx, request.options)
    ctx.stats.depth = cap
    actions, _ = searcher.bounded(cap, ctx, ordered=True)
    if actions is not None:
        return finish(ctx, "dfs", model, Status.SOLVED, actions)
    return finish(ctx, "dfs", model, Status.NO_PLAN_WITHIN_CAP, lower_bound=cap + 1,
                  message=f"no plan within {cap} moves (bounded search exhausted)")


def _graph_dfs(model: Any, ctx: SearchContext) -> Result:
    start = model.initial()
    if model.is_goal(start):
        return finish(ctx, "dfs", model, Status.SOLVED, [])
    stats = ctx.stats
    seen = {start}
    stats.states = 1
    actions: list[Any] = []
    stack = [iter(list(model.successors(start)))]
    stats.nodes = 1
    while stack:
        step = next(stack[-1], None)
        if step is None:
            stack.pop()
            if actions:
                actions.pop()
            continue
        action, child = step
        stats.generated += 1
        if child in seen:
            continue
        if model.is_goal(child):
            return finish(ctx, "dfs", model, Status.SOLVED, actions + [action])
        seen.add(child)
        stats.states += 1
        stats.nodes += 1
        stats.depth = max(stats.depth, len(stack))
        if stats.nodes % POLL_EVERY == 0:
            ctx.poll()
        actions.append(action)
        stack.append(iter(list(model.successors(child))))
    return finish(ctx, "dfs", model, Status.UNSOLVABLE,
                  message=f"all {stats.states} reachable states explored, none is a goal")
