"""A plan under a cap, fast and safe: `--any` and capped `dfs` on every catalogue example.

Every plan goes through `solve`, which replays it with the independent checker (an invalid one
raises EngineBug). A cap one below the optimum must be proved impossible. The table DFS must
stay a graph search: on seed 000 it expands each state at most about twice (counted in nodes).
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from catalogue import CASES, EXAMPLES, Case, large_blocks
from puzzleplan.models import load
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.search.depth_first import GenericDepthFirst
from puzzleplan.plans.solve import default_engine, solve
from puzzleplan.plans.core.types import Limits, Request, Result, Status

LIMITS = Limits(time_limit=60)
SEED000 = EXAMPLES / "rush-hour" / "seed-000-hardest.yaml"
SEED000_REACHABLE = 24_132
# The classic sliding-block spaces take 5-19 s per case here; test_blocks and the catalogue's bfs cover them
KNOWN = [c for c in CASES if c.optimal is not None and not large_blocks(c)]


def _solve(case: Case, cap: int, engine: str | None, **options: object) -> Result:
    request = Request(max_moves=cap, any_plan=engine is None, limits=LIMITS, options=dict(options))
    return solve(case.model(), engine, request)


def _skip_unsupported(engine: str | None, case: Case) -> None:
    from puzzleplan.plans.core import engines
    reason = engine and engines.supports(engine, case.model())
    if reason:
        pytest.skip(reason)


def _assert_plan_within(result: Result, cap: int, optimal: int) -> None:
    assert result.status in (Status.SOLVED, Status.OPTIMAL), result.message
    assert result.plan is not None and optimal <= result.plan.cost <= cap


@pytest.mark.parametrize("engine", [None, "dfs"], ids=["any", "dfs"])
@pytest.mark.parametrize("case", KNOWN, ids=lambda c: c.id)
def test_plan_within_a_cap_at_and_above_the_optimum(case: Case, engine: str | None) -> None:
    _skip_unsupported(engine, case)
    for cap in (case.optimal, case.optimal + 1, case.optimal + 7):
        _assert_plan_within(_solve(case, cap, engine), cap, case.optimal)


@pytest.mark.parametrize("engine", [None, "dfs"], ids=["any", "dfs"])
@pytest.mark.parametrize("case", [c for c in KNOWN if c.optimal > 0], ids=lambda c: c.id)
def test_cap_below_the_optimum_is_proved(case: Case, engine: str | None) -> None:
    _skip_unsupported(engine, case)
    cap = case.optimal - 1
    result = _solve(case, cap, engine)
    assert result.status is Status.NO_PLAN_WITHIN_CAP, result.message
    assert result.plan is None and result.lower_bound is not None and result.lower_bound >= cap + 1
    if engine == "dfs":
        assert result.lower_bound == cap + 1


SMALL = [c for c in KNOWN if c.blind_ok and c.id.split("/")[1] in
         ("walls", "seed-003-card", "small-2x3", "seed-004", "pocket", "hanoi", "water-jugs")]


@pytest.mark.parametrize("case", SMALL, ids=lambda c: c.id)
def test_generic_table_dfs_agrees_with_the_optimum_at_every_cap(case: Case) -> None:
    """The table search (tiles included, without their kernel) finds a plan exactly when cap >= optimum."""
    for cap in range(0, case.optimal + 4):
        result = _solve(case, cap, "dfs", native=False)
        if cap >= case.optimal:
            _assert_plan_within(result, cap, case.optimal)
        else:
            assert result.status is Status.NO_PLAN_WITHIN_CAP and result.lower_bound == cap + 1


@pytest.mark.parametrize("metric, optimal", [("step", 93), ("slide", 49)])
def test_table_dfs_is_a_graph_search_on_seed_000(metric: str, optimal: int) -> None:
    """A tree search re-expands the transpositions without end; the table search expands each
    state at most twice (a depth-first pass, then a repair pass for states reached shallower)."""
    model = load(SEED000, {"metric": metric})
    for cap in (200, optimal, optimal - 1):  # a tree search would hit the time limit instead
        result = solve(model, "dfs", Request(max_moves=cap, limits=Limits(time_limit=30)))
        assert result.status is (Status.SOLVED if cap >= optimal else Status.NO_PLAN_WITHIN_CAP), result.message
        assert 0 < result.stats.states <= SEED000_REACHABLE
        assert result.stats.nodes <= 2 * SEED000_REACHABLE
        if result.plan is not None:
            assert result.plan.cost <= cap


def test_the_table_counts_as_stored_states() -> None:
    model = load(SEED000)
    result = solve(model, "dfs", Request(max_moves=200, limits=Limits(time_limit=60, max_states=1000)))
    assert result.status is Status.LIMIT_REACHED and "state limit" in result.message
    assert result.stats.states > 1000


def test_unsolvable_under_a_cap() -> None:
    """Exhausted with nothing cut off by the cap: unsolvable; with a small cap: only no plan within it."""
    model = load(EXAMPLES / "rush-hour" / "unsolvable.yaml")
    result = solve(model, "dfs", Request(max_moves=1000, limits=LIMITS))
    assert result.status is Status.UNSOLVABLE and result.stats.states == 513
    result = solve(model, "dfs", Request(max_moves=3, limits=LIMITS))
    assert result.status is Status.NO_PLAN_WITHIN_CAP and result.lower_bound == 4


def test_a_family_without_h(tmp_path: Path) -> None:
    """A user class with no `h` gets 0: the table DFS is then a plain depth-limited graph search."""
    (tmp_path / "walk.py").write_text(textwrap.dedent('''
        class Walk:
            """From 0 to `goal` by steps of +1, +2 and -1 (no h)."""
            def __init__(self, goal):
                self.goal = goal
            def initial(self):
                return 0
            def is_goal(self, state):
                return state == self.goal
            def successors(self, state):
                for step in (-1, 1, 2):
                    if 0 <= state + step <= self.goal + 3:
                        yield f"{step:+d}", state + step
    '''))
    (tmp_path / "walk.yaml").write_text("puzzle: python:./walk.py:Walk\ngoal: 9\n")
    model = load(tmp_path / "walk.yaml")
    assert model.h(model.initial()) == 0
    for cap, status in ((5, Status.SOLVED), (7, Status.SOLVED), (4, Status.NO_PLAN_WITHIN_CAP)):
        result = solve(model, "dfs", Request(max_moves=cap, limits=LIMITS))
        assert result.status is status
        if result.plan is not None:
            assert result.plan.cost <= cap
    ctx = SearchContext()
    actions, pruned = GenericDepthFirst(model).within_cap(5, ctx)
    assert actions is not None and len(actions) == 5
    assert sum(int(a) for a in actions) == 9


def test_any_under_a_cap_runs_the_optimal_engine() -> None:
    """--any under a cap: the family's optimal engine (complete, and never slower than itself)."""
    capped, free = Request(max_moves=50, any_plan=True), Request(any_plan=True)
    for path in ("rush-hour/walls.yaml", "tiles/small-2x3.yaml", "sokoban/seed-004.yaml", "user/hanoi.yaml"):
        model = load(EXAMPLES / path)
        assert default_engine(model, capped) == model.default_engine
        assert default_engine(model, free) == "greedy"
