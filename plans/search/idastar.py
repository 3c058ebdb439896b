"""IDA*: iterative deepening on f = g + h; optimal with an admissible h. The tiles kernel keeps
memory linear in depth; the generic pass keeps tables of up to 1M states (depth_first.py), which
count as stored states (so `--max-states` bounds them)."""
from __future__ import annotations

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Model
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import bound_words, cap_words
from puzzleplan.plans.search.common import finish, unit_cost_reason
from puzzleplan.plans.search.depth_first import searcher_for


def supports(model: Model) -> str | None:
    """IDA* runs on every unit-cost model: the family's compiled searcher where it has one, else the
    generic one (without a heuristic it is iterative deepening)."""
    return unit_cost_reason(model)


def run(model: Model, request: Request, ctx: SearchContext) -> Result:
    searcher = searcher_for(model, ctx, request.options)
    cap = request.max_moves
    bound = searcher.h0
    ctx.stats.extra["iterations"] = 0
    while True:
        ctx.lower_bound = bound
        if cap is not None and bound > cap:
            return finish(ctx, "idastar", model, Status.NO_PLAN_WITHIN_CAP, lower_bound=bound,
                          message=f"no plan within {cap_words(model, cap)}: {bound_words(model, bound)}")
        ctx.phase = "idastar"   # the display shows the bound (ctx.lower_bound)
        ctx.stats.depth = bound
        ctx.stats.extra["iterations"] += 1
        actions, next_bound = searcher.bounded(bound, ctx)
        if actions is not None:
            return finish(ctx, "idastar", model, Status.OPTIMAL, actions, len(actions))
        if next_bound is None:
            return finish(ctx, "idastar", model, Status.UNSOLVABLE,
                          message="every reachable state explored without reaching a goal")
        bound = next_bound
