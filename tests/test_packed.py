"""The array-based breadth-first search over packed states (plans/search/layered.py).

Its move generators (models/rush_hour/packed.py, models/tiles/packed.py) restate the move rule
for arrays, so they are checked against the models' own `successors` on random states, and the
packed sweeps against the per-state sweeps on every catalogue example that has a packed space.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue import CASES
from puzzleplan.models.tiles.model import TilesPuzzle
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.explore import explore
from puzzleplan.plans.search import layered
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Limits, Request, Status
from test_rush_hour import boards

# Compared with the per-state sweep, which takes seconds on the 81,340 configurations of Century
PACKED = [c for c in CASES if c.blind_ok and c.expect.get("reachable", 0) <= 30_000
          and layered.packed_space(c.model()) is not None]


def packed_moves(model, state) -> set:
    space = model.packed_space()
    children, parents, codes = space.expand(np.array([space.pack(state)], dtype=np.uint64))
    assert (parents == 0).all()
    return {(space.action(int(code)), int(child)) for code, child in zip(codes, children)}


def model_moves(model, state) -> set:
    space = model.packed_space()
    return {(action, space.pack(child)) for action, child in model.successors(state)}


def walk(model, picks):
    state = model.initial()
    yield state
    for pick in picks:
        kids = list(model.successors(state))
        if not kids:
            return
        state = kids[pick % len(kids)][1]
        yield state


@settings(max_examples=60, deadline=None)
@given(boards(), st.lists(st.integers(0, 50), max_size=20))
def test_rush_hour_packed_moves_are_the_models(model, picks) -> None:
    if model.packed_space() is None:
        return
    for state in walk(model, picks):
        assert packed_moves(model, state) == model_moves(model, state)
        space = model.packed_space()
        assert bool(space.goal_mask(np.array([space.pack(state)], dtype=np.uint64))[0]) == model.is_goal(state)


@st.composite
def tiles_boards(draw):
    rows, cols = draw(st.integers(2, 3)), draw(st.integers(2, 5))
    faces = draw(st.lists(st.sampled_from("abcdefghij"), min_size=rows * cols - 1, max_size=rows * cols - 1))
    goal = faces + ["_"]
    start = draw(st.permutations(goal))
    grid = lambda cells: [cells[r * cols:(r + 1) * cols] for r in range(rows)]
    return TilesPuzzle.from_grids(grid(start), grid(goal))


@settings(max_examples=60, deadline=None)
@given(tiles_boards(), st.lists(st.integers(0, 3), max_size=20))
def test_tiles_packed_moves_are_the_models(model, picks) -> None:
    assert model.packed_space() is not None
    for state in walk(model, picks):
        assert packed_moves(model, state) == model_moves(model, state)


def test_boards_too_large_have_no_packed_space() -> None:
    goal = [[str(r * 4 + c) for c in range(4)] for r in range(4)]
    goal[0][0] = "_"
    assert TilesPuzzle.from_grids(goal, goal).packed_space() is None   # 16 cells do not fit


@pytest.mark.parametrize("case", PACKED, ids=lambda c: c.id)
def test_packed_explore_matches_the_per_state_sweep(case) -> None:
    model = case.model()
    fast, slow = explore(model), explore(model, native=False)
    assert fast.stats.extra.get("kernel") == "packed layers"
    assert fast.complete and slow.complete
    assert (fast.per_depth, fast.goals, fast.goal_distance) == (slow.per_depth, slow.goals, slow.goal_distance)
    assert fast.stats.generated == slow.stats.generated


@pytest.mark.parametrize("case", PACKED, ids=lambda c: c.id)
def test_packed_bfs_matches_the_per_state_bfs(case, monkeypatch: pytest.MonkeyPatch) -> None:
    model = case.model()
    slow = solve(model, "bfs", Request(options={"native": False}))
    monkeypatch.setattr(layered, "CHUNK", 5)   # many chunks per layer: the merge across chunks
    fast = solve(model, "bfs")
    assert fast.status is slow.status
    assert (fast.plan and fast.plan.length) == (slow.plan and slow.plan.length)
    if fast.status is Status.OPTIMAL:
        assert fast.stats.extra.get("kernel") == "packed layers"


def test_a_state_cap_ends_packed_searches_cleanly() -> None:
    rows = lambda text: [row.split() for row in text.split("/")]
    model = TilesPuzzle.from_grids(rows("8 6 7 / 2 5 4 / 3 _ 1"), rows("1 2 3 / 4 5 6 / 7 8 _"))
    out = explore(model, SearchContext(Limits(max_states=5000)))
    assert not out.complete and "state limit" in out.message
    assert out.stats.states > 5000                    # stopped once the cap was passed, mid-layer
    assert out.reachable < 181440 and sum(out.per_depth) == out.reachable   # whole layers only
    result = solve(model, "bfs", Request(limits=Limits(max_states=5000)))
    assert result.status is Status.LIMIT_REACHED and result.plan is None
    assert result.stats.states > 5000


@pytest.mark.parametrize("native", [True, False], ids=["packed layers", "parents dict"])
def test_bfs_stopped_by_a_limit_keeps_the_bound_it_proved(native: bool) -> None:
    """Breadth-first search goal-tests every layer it finishes: stopped by a limit, it says
    that no plan is that short (and the bound never passes the optimum)."""
    from catalogue import EXAMPLES
    from puzzleplan.models import load
    model = load(EXAMPLES / "rush-hour" / "seed-000-hardest.yaml")
    full = solve(model, "bfs", Request(options={"native": native}))
    stopped = solve(model, "bfs", Request(limits=Limits(max_states=3_000), options={"native": native}))
    assert full.status is Status.OPTIMAL and stopped.status is Status.LIMIT_REACHED
    assert stopped.lower_bound is not None and 2 <= stopped.lower_bound <= full.plan.length


def test_a_layer_merge_that_would_pass_the_memory_limit_ends_the_sweep_before_it(monkeypatch) -> None:
    """The merge of a layer's chunks allocates several times their size at once, between polls:
    its memory is reserved first. With the process held at 100 MiB and a limit of 101, the 8-puzzle's
    sweep, complete without the reservation, stops at the first merge needing more than 1 MiB."""
    import puzzleplan.plans.core.context as context
    from catalogue import EXAMPLES
    from puzzleplan.models import load
    monkeypatch.setattr(layered, "CHUNK", 256)                    # many chunks per layer
    monkeypatch.setattr(context, "resident_mb", lambda pid="self": 100.0)
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")
    assert explore(model, SearchContext(Limits(memory_mb=1_000))).complete
    out = explore(model, SearchContext(Limits(memory_mb=101)))
    assert not out.complete and "merging the next layer" in out.message
    assert 0 < out.reachable < 181_440
