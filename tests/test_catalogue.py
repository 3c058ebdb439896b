"""Every engine against every catalogue case; every plan through the independent checker."""
from __future__ import annotations

import pytest

from catalogue import CASES, feasible
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.engines import OPTIMAL_ENGINES, names
from puzzleplan.plans.explore import explore
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Limits, Request, Status

ENGINES = names()  # every registered engine; each case runs those whose `supports` accepts it


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_engine_on_case(engine: str, case) -> None:
    reason = feasible(engine, case)
    if reason:
        pytest.skip(reason)
    run_engine_on_case(engine, case)


def run_engine_on_case(engine: str, case) -> None:
    """The catalogue's assertions for one engine on one case (also used for new families)."""
    model = case.model()
    result = solve(model, engine, Request(max_moves=model.max_moves, limits=Limits(time_limit=60)))
    if case.solvable is False:
        assert result.status is Status.UNSOLVABLE
        assert result.message
        return
    assert result.status in (Status.OPTIMAL, Status.SOLVED), result.message
    report = check_plan(model, list(result.plan.moves))
    assert report.valid, report.error
    if case.cap is not None:
        assert result.plan.cost <= case.cap
    if engine in OPTIMAL_ENGINES or engine in ("sat", "cpsat"):
        assert result.status is Status.OPTIMAL
        assert result.lower_bound == result.plan.cost
        if case.optimal is not None:
            assert result.plan.cost == case.optimal
    elif case.optimal is not None:
        assert result.plan.cost >= case.optimal


@pytest.mark.parametrize("case", [c for c in CASES if c.expect.get("valid_plans")], ids=lambda c: c.id)
def test_known_plans_are_valid(case) -> None:
    model = case.model()
    for plan in case.expect["valid_plans"]:
        report = check_plan(model, str(plan))
        assert report.valid, report.error


@pytest.mark.parametrize("case", [c for c in CASES if "reachable" in c.expect], ids=lambda c: c.id)
def test_explore_counts(case) -> None:
    out = explore(case.model())
    assert out.complete
    assert out.reachable == case.expect["reachable"]
    assert sum(out.per_depth) == out.reachable
    if "max_depth" in case.expect:
        assert out.max_depth == case.expect["max_depth"]
    if case.optimal is not None:
        assert out.goal_distance == case.optimal


@pytest.mark.parametrize("case", [c for c in CASES if c.optimal is not None], ids=lambda c: c.id)
def test_capped_below_optimum_has_no_plan(case) -> None:
    """A cap one below the optimum is proved impossible (family's optimal engine), not just 'not found'."""
    model = case.model()
    result = solve(model, model.default_engine, Request(max_moves=case.optimal - 1, limits=Limits(time_limit=60)))
    assert result.status is Status.NO_PLAN_WITHIN_CAP
    assert result.plan is None
