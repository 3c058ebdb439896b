"""Greedy best-first search on h: a plan fast, not a short one.

The loop is `plans.search.best_first` with the `GREEDY` ordering. Under a cap it keeps the
best depth of each state and reopens a state reached shallower, so exhausting the queue is a
proof that no plan within the cap exists.
"""
from __future__ import annotations

from puzzleplan.plans.search.common import unit_cost_reason
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Model
from puzzleplan.plans.core.types import Request, Result
from puzzleplan.plans.search.best_first import GREEDY, best_first


def supports(model: Model) -> str | None:
    """Greedy runs on every unit-cost model (without a heuristic it is a breadth-first-like sweep)."""
    return unit_cost_reason(model)


def run(model: Model, request: Request, ctx: SearchContext) -> Result:
    return best_first(model, request, ctx, GREEDY)
