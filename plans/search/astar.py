"""A*: optimal with the model's admissible heuristic (ties broken toward deeper nodes).

The loop is `plans.search.best_first` with the `ASTAR` ordering: f = g + h, a state reached
shallower after its expansion is reopened (optimal even when h is not consistent).
"""
from __future__ import annotations

from puzzleplan.plans.search.common import unit_cost_reason
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Model
from puzzleplan.plans.core.types import Request, Result
from puzzleplan.plans.search.best_first import ASTAR, best_first


def supports(model: Model) -> str | None:
    """A* runs on every model whose moves cost 1 (without a heuristic, h = 0: breadth-first order)."""
    return unit_cost_reason(model)


def run(model: Model, request: Request, ctx: SearchContext) -> Result:
    return best_first(model, request, ctx, ASTAR)
