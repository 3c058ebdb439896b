"""Best-first search over `model.successors`, with the queue's ordering as a parameter.

A* and greedy best-first are one loop: a priority queue keyed by an `Ordering` of (g, h), a
table of the best depth g of each stored state and its parent. A child is stored again when it
is reached shallower than before (so exhausting the queue under a cap proves that no plan
within the cap exists), and pruned when g + h exceeds the cap.

- `ASTAR`: key (g + h, -g), ties toward deeper nodes. A popped state already expanded is
  skipped; one reached shallower after its expansion is reopened, which keeps A* optimal even
  when h is admissible but not consistent. The first goal popped is optimal.
- `GREEDY`: key h alone. Every queue entry is expanded when popped, at the state's best depth
  so far (a state reached shallower has a second entry: it is expanded again from there).
  The first goal popped is a plan, not a short one.
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from typing import Any, Callable

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Model, State
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import all_explored, cap_words
from puzzleplan.plans.search.common import POLL_EVERY, finish, trace_back


@dataclass(frozen=True)
class Ordering:
    """How a best-first search orders its queue, and what its first goal proves."""

    engine: str                          # the engine's name in results
    key: Callable[[int, int], Any]       # (g, h) -> the queue key, smallest popped first
    skip_expanded: bool                  # pop an expanded state again only after it was reopened
    optimal: bool                        # the first goal popped is a shortest plan


ASTAR = Ordering("astar", lambda g, h: (g + h, -g), skip_expanded=True, optimal=True)
GREEDY = Ordering("greedy", lambda g, h: h, skip_expanded=False, optimal=False)


def best_first(model: Model, request: Request, ctx: SearchContext, order: Ordering) -> Result:
    """Search `model` in `order` under the request's cap; a checked-in-solve plan or a proof."""
    engine, key = order.engine, order.key
    cap = request.max_moves
    start = model.initial()
    tie = itertools.count()
    queue: list[tuple[Any, int, State]] = [(key(0, model.h(start)), next(tie), start)]
    g_of: dict[State, int] = {start: 0}
    parents: dict[State, Any] = {start: None}
    expanded: set[State] = set()
    skip_expanded = order.skip_expanded
    stats = ctx.stats
    stats.states = 1
    ctx.phase = engine
    pruned_by_cap = False
    next_poll = POLL_EVERY
    while queue:
        _, _, state = heapq.heappop(queue)
        if skip_expanded:
            if state in expanded:
                continue
            expanded.add(state)
        g = g_of[state]
        if model.is_goal(state):
            if order.optimal:
                return finish(ctx, engine, model, Status.OPTIMAL, trace_back(parents, state), g)
            return finish(ctx, engine, model, Status.SOLVED, trace_back(parents, state))
        stats.nodes += 1
        if g > stats.depth:
            stats.depth = g
        if stats.nodes + stats.generated >= next_poll:   # by work done: a state may have thousands of children
            next_poll = stats.nodes + stats.generated + POLL_EVERY
            ctx.poll()
        cg = g + 1
        for action, child in model.successors(state):
            stats.generated += 1
            if cg >= g_of.get(child, cg + 1):
                continue
            ch = model.h(child)
            if cap is not None and cg + ch > cap:
                pruned_by_cap = True
                continue
            if skip_expanded:
                expanded.discard(child)  # reopened: reached shallower than when it was expanded
            g_of[child] = cg
            parents[child] = (state, action)
            stats.states = len(g_of)
            heapq.heappush(queue, (key(cg, ch), next(tie), child))
    if pruned_by_cap:
        assert cap is not None
        return finish(ctx, engine, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=cap + 1,
                      message=f"no plan within {cap_words(model, cap)}")
    return finish(ctx, engine, model, Status.UNSOLVABLE,
                  message=all_explored(len(g_of)))
