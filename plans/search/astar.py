"""A*: optimal with the model's admissible heuristic (ties broken toward deeper nodes)."""
from __future__ import annotations

import heapq
import itertools
from typing import Any

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import count
from puzzleplan.plans.search.common import POLL_EVERY, finish, trace_back


def run(model: Any, request: Request, ctx: SearchContext) -> Result:
    start = model.initial()
    cap = request.max_moves
    tie = itertools.count()
    h0 = model.h(start)
    open_list: list[tuple[int, int, int, Any]] = [(h0, 0, next(tie), start)]
    g_of: dict[Any, int] = {start: 0}
    parents: dict[Any, Any] = {start: None}
    closed: set[Any] = set()
    stats = ctx.stats
    stats.states = 1
    ctx.phase = "astar"
    pruned_by_cap = False
    while open_list:
        f, neg_g, _, state = heapq.heappop(open_list)
        if state in closed:
            continue
        g = -neg_g
        if model.is_goal(state):
            return finish(ctx, "astar", model, Status.OPTIMAL, trace_back(parents, state), g)
        closed.add(state)
        stats.nodes += 1
        stats.depth = max(stats.depth, g)
        if stats.nodes % POLL_EVERY == 0:
            ctx.poll()
        for action, child in model.successors(state):
            stats.generated += 1
            cg = g + 1
            if cg >= g_of.get(child, cg + 1):
                continue
            closed.discard(child)  # reopen: keeps A* optimal even if h is not consistent
            ch = model.h(child)
            if cap is not None and cg + ch > cap:
                pruned_by_cap = True
                continue
            g_of[child] = cg
            parents[child] = (state, action)
            stats.states = len(g_of)
            heapq.heappush(open_list, (cg + ch, -cg, next(tie), child))
    if pruned_by_cap:
        return finish(ctx, "astar", model, Status.NO_PLAN_WITHIN_CAP, lower_bound=cap + 1,
                      message=f"no plan within {count(cap, 'move')}")
    return finish(ctx, "astar", model, Status.UNSOLVABLE,
                  message=f"all {len(closed)} reachable states explored, none is a goal")
