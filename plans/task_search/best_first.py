"""A* by cost over a packed task (uniform-cost search when h is 0).

The queue holds (f, h, key) with f = g + h, ties toward smaller h (deeper nodes). One table
maps each stored state to (parent, action, g, h): a state reached cheaper later is updated and
queued again, and a popped entry whose g is no longer the state's best is skipped, so states
are reopened and the search stays optimal with 0-cost actions and with an admissible h that is
not consistent. The first goal popped is cheapest. States whose h proves a dead end, or whose
g + h exceeds the cap, are stored (so h is not computed again) but never queued.
"""
from __future__ import annotations

import heapq
from typing import Callable

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Status
from puzzleplan.plans.search.common import POLL_EVERY
from puzzleplan.plans.task_search.space import DEAD_END, Outcome, Space, path_to


def astar(space: Space, h: Callable[[int], int], cap: int | None, ctx: SearchContext,
          poll_every: int = POLL_EVERY) -> Outcome:
    """A cheapest plan, or a proof that none exists (within the cap); h must be admissible.
    `ctx.poll()` runs every `poll_every` expansions (fewer for a costly h)."""
    start = space.start
    h0 = h(start)
    if h0 >= DEAD_END:
        return Outcome(Status.UNSOLVABLE, message="the heuristic proves the goal unreachable from the start")
    limit = DEAD_END if cap is None else cap
    if h0 > limit:
        return Outcome(Status.NO_PLAN_WITHIN_CAP, lower_bound=h0, message=f"no plan within cost {cap}")
    succ, costs, gm, gv = space.successors, space.costs, space.goal_mask, space.goal_value
    best: dict[int, tuple[int | None, int, int, int]] = {start: (None, -1, 0, h0)}
    queue = [(h0, h0, start)]
    over_cap = DEAD_END     # least f pruned by the cap: a lower bound when the search ends without a plan
    bound = 0
    stats = ctx.stats
    stats.states = 1
    pop, push = heapq.heappop, heapq.heappush
    while queue:
        f, hv, key = pop(queue)
        g = f - hv
        if g > best[key][2]:
            continue                      # a stale entry: the state was reached cheaper since
        if f > bound:
            bound = ctx.lower_bound = f   # admissible h: no plan is cheaper than the least f queued
        if key & gm == gv:
            stats.states = len(best)
            return Outcome(Status.OPTIMAL, path_to(best, key), g)
        stats.nodes += 1
        if g > stats.depth:
            stats.depth = g
        if stats.nodes % poll_every == 0:
            stats.states = len(best)
            ctx.poll()
        for action, child in succ(key):
            stats.generated += 1
            cg = g + costs[action]
            known = best.get(child)
            if known is None:
                ch = h(child)
            elif cg >= known[2]:
                continue
            else:
                ch = known[3]
            best[child] = (key, action, cg, ch)
            if ch >= DEAD_END:
                continue
            cf = cg + ch
            if cf > limit:
                if cf < over_cap:
                    over_cap = cf
                continue
            push(queue, (cf, ch, child))
    stats.states = len(best)
    if over_cap < DEAD_END:
        return Outcome(Status.NO_PLAN_WITHIN_CAP, lower_bound=over_cap, message=f"no plan within cost {cap}")
    return Outcome(Status.UNSOLVABLE, message=f"all {len(best):,} states the heuristic allows explored, none is a goal")
