"""Greedy best-first search on h: a plan fast, not a short one.

Under a cap it keeps the best depth of each state and reopens a state reached shallower, so
exhausting the queue is a proof that no plan within the cap exists.
"""
from __future__ import annotations

import heapq
import itertools
from typing import Any

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.search.common import POLL_EVERY, finish, trace_back


def run(model: Any, request: Request, ctx: SearchContext) -> Result:
    cap = request.max_moves
    start = model.initial()
    tie = itertools.count()
    queue = [(model.h(start), next(tie), start)]
    g_of = {start: 0}
    parents: dict[Any, Any] = {start: None}
    stats = ctx.stats
    ctx.phase = "greedy"
    pruned = False
    while queue:
        _, _, state = heapq.heappop(queue)
        g = g_of[state]
        if model.is_goal(state):
            return finish(ctx, "greedy", model, Status.SOLVED, trace_back(parents, state))
        stats.nodes += 1
        if stats.nodes % POLL_EVERY == 0:
            ctx.poll()
        for action, child in model.successors(state):
            stats.generated += 1
            cg = g + 1
            if cg >= g_of.get(child, cg + 1):
                continue
            h = model.h(child)
            if cap is not None and cg + h > cap:
                pruned = True
                continue
            g_of[child] = cg
            parents[child] = (state, action)
            stats.states = len(g_of)
            heapq.heappush(queue, (h, next(tie), child))
    if pruned:
        return finish(ctx, "greedy", model, Status.NO_PLAN_WITHIN_CAP, lower_bound=cap + 1,
                      message=f"no plan within {cap} moves")
    return finish(ctx, "greedy", model, Status.UNSOLVABLE,
                  message=f"all {len(g_of)} reachable states explored, none is a goal")
