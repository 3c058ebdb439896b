"""The perimeter of the push engine (models/sokoban/perimeter.py): its distances are the exact
pushes to go, and the engine with the perimeter read from its first node (whole, or cut to a
few states so that its depth bound is in play, or dropped at once) keeps both optima."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_sokoban_search import METRICS, assert_agrees_with_bfs, microban, push, small_levels

from puzzleplan.models.sokoban import native
from puzzleplan.models.sokoban.kernel_rules import BIG
from puzzleplan.models.sokoban.model import Sokoban
from puzzleplan.models.sokoban.perimeter import Perimeter
from puzzleplan.models.sokoban.tables import build
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Request
from puzzleplan.plans.search import bfs


def _perimeter(model: Sokoban, states: int) -> Perimeter:
    per = Perimeter(build(model).as_tuple(), model.goal_cells, moves=model.metric == "moves")
    per.extend(states)
    return per


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("level", [1, 2, 4, 6])
def test_distances_are_the_pushes_or_moves_to_go(level: int, metric: str) -> None:
    """Every stored state's distance is its exact fewest pushes (moves, for the moves
    perimeter, whose player is on its exact cell) to a solved position, checked by a forward
    BFS from that state, and a small perimeter's depth bounds what it left out."""
    model = microban(level, metric)
    whole = _perimeter(model, 1 << 30)
    assert whole.complete and whole.bound() == BIG
    plain = model.with_options(prune=False)
    for j in range(0, whole.states, max(1, whole.states // 25)):
        boxes = sum(1 << int(b) for b in whole.boxes[j])
        start = boxes << model.pbits | int(whole.player[j])
        moved = Sokoban("\n".join(plain.render(start).splitlines()), metric=metric)
        reference = bfs.run(moved.with_options(prune=False), Request(), SearchContext())
        assert reference.plan is not None and reference.plan.cost == whole.dist[j], (level, j)
    part = _perimeter(model, whole.states // 3)
    assert not part.complete and part.depth < int(whole.dist[:whole.states].max())
    assert (part.dist[:part.states] <= part.depth + 1).all()
    held = {(tuple(part.boxes[j]), int(part.player[j])) for j in range(part.states)}
    for j in range(whole.states):   # every state within the depth is held, with its distance
        if whole.dist[j] <= part.depth:
            assert (tuple(whole.boxes[j]), int(whole.player[j])) in held


def read_at_once(monkeypatch: pytest.MonkeyPatch, megabytes: float, keep: float = 0.0) -> None:
    """The perimeter read from the first slice, at most `megabytes` (tiny: a few states),
    dropped below a share of `keep` (0: never)."""
    monkeypatch.setattr(native, "PERIMETER_AFTER", 0)
    monkeypatch.setattr(native, "PERIMETER_MB", megabytes)
    monkeypatch.setattr(native, "PERIMETER_KEEP", keep)


@pytest.fixture
def perimeter_at_once(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    read_at_once(monkeypatch, request.param)


@pytest.mark.parametrize("perimeter_at_once", [0.0005, 256], indirect=True, ids=["few-states", "whole"])
@pytest.mark.parametrize("level", range(1, 41, 3))
def test_microban_optima_with_the_perimeter(perimeter_at_once: None, level: int) -> None:
    for metric in METRICS:
        model = microban(level, metric)
        on, off = push(model), push(model, perimeter=False)
        assert on.plan.cost == off.plan.cost == on.lower_bound and on.plan.length == off.plan.length, (level, metric)
        assert check_plan(model, on.plan.text()).valid
        assert "perimeter_states" in on.stats.extra and "perimeter_states" not in off.stats.extra


def test_a_useless_perimeter_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dropped at its first decision (every share is below KEEP), which comes after a slice of
    16 expansions once a child was looked up: the bounds fall back to the matching mid-search,
    and the optimum stays."""
    read_at_once(monkeypatch, 0.002, keep=2.0)     # a few dozen states (never complete); no share keeps it
    monkeypatch.setattr(native, "SLICE", 16)
    monkeypatch.setattr(native, "PERIMETER_RATIO", 10 ** 9)     # a decision at every slice
    monkeypatch.setattr(native, "PERIMETER_READS", 0.0)
    decided = 0
    for level in (3, 7, 12, 21, 30, 39):
        for metric in METRICS:
            model = microban(level, metric)
            on, off = push(model), push(model, perimeter=False)
            assert on.plan.cost == off.plan.cost and on.plan.length == off.plan.length, (level, metric)
            assert check_plan(model, on.plan.text()).valid
            decided += "perimeter_share" in on.stats.extra
    assert decided >= 3


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(small_levels(), st.sampled_from(METRICS), st.sampled_from([0.0002, 256]))
def test_random_levels_with_the_perimeter_agree_with_bfs(monkeypatch: pytest.MonkeyPatch, model: Sokoban,
                                                        metric: str, megabytes: float) -> None:
    read_at_once(monkeypatch, megabytes)
    assert_agrees_with_bfs(model.with_options(metric=metric), {"perimeter": False})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(small_levels(), st.sampled_from(METRICS), st.sampled_from([0.0002, 256]), st.data())
def test_a_player_goal_with_the_perimeter_agrees_with_bfs(monkeypatch: pytest.MonkeyPatch, model: Sokoban,
                                                          metric: str, megabytes: float, data: st.DataObject) -> None:
    """With a player goal the moves perimeter starts from that cell alone (perimeter.seed)."""
    read_at_once(monkeypatch, megabytes)
    cell = data.draw(st.sampled_from(sorted(model.index)))
    assert_agrees_with_bfs(model.with_options(metric=metric, player_goal=cell), {"perimeter": False})
