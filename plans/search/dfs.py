"""Depth-first search: any plan within the cap (the seeds' DFS), fast rather than short.

With a cap, the search depends on the model:

- a compiled searcher (`model.native_searcher()`, tiles): one bounded pass of its kernel
  (g + h <= cap, children best-h first, the seed's pruning), a tree search without a table;
  fast on tiles (seed 002's safe, cap 59: 24 nodes). Exhausting it proves there is no plan
  within the cap.
- any other model: `GenericDepthFirst.within_cap`, a graph search with a table of the smallest
  depth each state was reached at (counted in `stats.states`, so --max-states and the memory
  limit apply; it polls the limits every few thousand nodes). A tree search is exponential
  where moves commute: on Rush Hour seed 000 it found no plan in 60 s; the table search
  expands each state at most twice (0.4 s).

Why the table search is complete under the cap: a state reached again at a depth >= its stored
depth is skipped, and rightly, since a plan through it within the cap has at most cap - depth
moves left from it, and the visit at the stored depth, with at least as many moves left,
searches those moves too. In full: every stored depth is the length of a real path and only
ever decreases, and every state is expanded at its final stored depth (when it is below the
cap). Suppose a plan s0 ... sk with k <= cap exists and the search ends without a plan. Take the
last si whose final depth d is <= i (s0 qualifies, at 0); i < k. Expanding si at d generated
s(i+1) at d + 1, and h is admissible, so d + 1 + h(s(i+1)) <= i + 1 + (k - i - 1) <= cap: the
child was not pruned, so it was returned as a goal, or it ends with a depth <= i + 1. Either
way a contradiction. So an exhausted search proves there is no plan within the cap
(NO_PLAN_WITHIN_CAP, lower bound cap + 1); when the cap cut nothing off, it explored every
reachable state and the instance is unsolvable. A family without `h` gets 0 (`ModelBase.h`,
the user-model wrapper), which is admissible.

Without a cap it is a graph DFS with a visited set, complete on finite spaces.
"""
from __future__ import annotations

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Action, Model
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import all_explored, cap_words, count
from puzzleplan.plans.search.common import POLL_EVERY, finish, unit_cost_reason
from puzzleplan.plans.search.depth_first import GenericDepthFirst, searcher_for


def supports(model: Model) -> str | None:
    """DFS runs on every unit-cost model (complete under a cap; a graph search with a visited set without)."""
    return unit_cost_reason(model)


def run(model: Model, request: Request, ctx: SearchContext) -> Result:
    cap = request.max_moves
    ctx.phase = "dfs"
    if cap is None:
        return _graph_dfs(model, ctx)
    searcher = searcher_for(model, ctx, request.options)
    if isinstance(searcher, GenericDepthFirst):
        actions, pruned = searcher.within_cap(cap, ctx)
        if actions is None and not pruned:
            return finish(ctx, "dfs", model, Status.UNSOLVABLE,
                          message=f"all {count(ctx.stats.states, 'reachable state')} explored, none is a goal")
    else:
        ctx.stats.depth = cap
        actions, _ = searcher.bounded(cap, ctx, ordered=True)
    if actions is not None:
        return finish(ctx, "dfs", model, Status.SOLVED, actions)
    return finish(ctx, "dfs", model, Status.NO_PLAN_WITHIN_CAP, lower_bound=cap + 1,
                  message=f"no plan within {cap_words(model, cap)} (bounded search exhausted)")


def _graph_dfs(model: Model, ctx: SearchContext) -> Result:
    start = model.initial()
    if model.is_goal(start):
        return finish(ctx, "dfs", model, Status.SOLVED, [])
    stats = ctx.stats
    seen = {start}
    stats.states = 1
    actions: list[Action] = []
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
                  message=all_explored(stats.states))
