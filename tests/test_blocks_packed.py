"""Sliding blocks: the packed uint64 space (models/blocks/packed.py) against the model's own
move rule, the array searches against the per-state ones, the heuristic (models/blocks/heuristic.py)
against true distances, and every optimal plan against the checker and a second count."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from puzzleplan.models import load
from puzzleplan.models.blocks.model import Blocks
from puzzleplan.models.document import parse_document
from puzzleplan.plans.all_optimal import all_optimal_plans
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.types import Request, Status
from puzzleplan.plans.explore import explore
from puzzleplan.plans.solve import solve
from helpers import run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "blocks"
ALL = sorted(EXAMPLES.glob("*.yaml"))
METRICS = ("step", "slide", "piece")
SMALL = [p for p in ALL if load(p).expect.get("reachable", 10**9) <= 10_000]   # per-state sweeps in test time
SHAPES = {"1x1": ["X"], "1x2": ["XX"], "2x1": ["X", "X"], "2x2": ["XX", "XX"], "L": ["X.", "XX"]}
SIDES = ("top", "bottom", "left", "right")


def model_of(text: str, metric: str) -> Blocks:
    doc = parse_document(text, "t.yaml")
    doc.override({"metric": metric})
    return Blocks.from_document(doc)


def keys_of(space, states) -> np.ndarray:
    return np.array([space.pack(s) for s in states], dtype=np.uint64)


def packed_moves(model: Blocks, states: list) -> list[set]:
    """Per state: {(action, move string, child state)} from one `expand` call over all the states."""
    space = model.packed_space()
    children, parents, codes = space.expand(keys_of(space, states))
    out: list[set] = [set() for _ in states]
    for child, parent, code in zip(children.tolist(), parents.tolist(), codes.tolist()):
        action = space.action(code)
        out[parent].add((action, model.plan_moves([action])[0], space.unpack(child)))
    return out


def model_moves(model: Blocks, state) -> set:
    return {(action, model.plan_moves([action])[0], child) for action, child in model.successors(state)}


def assert_same_moves(model: Blocks, states: list) -> None:
    """The packed moves are the model's: the same actions (slot, destination, path), move strings
    and children; and the goal test and pack/unpack agree."""
    space = model.packed_space()
    assert space is not None
    for state, fast in zip(states, packed_moves(model, states)):
        assert fast == model_moves(model, state), model.render(state)
    goals = space.goal_mask(keys_of(space, states))
    assert goals.tolist() == [model.is_goal(s) for s in states]
    assert [space.unpack(space.pack(s)) for s in states] == states


def walk(model: Blocks, picks: list[int]) -> list:
    state, out = model.initial(), [model.initial()]
    for pick in picks:
        kids = sorted(model.successors(state), key=repr)
        if not kids:
            break
        state = kids[pick % len(kids)][1]
        out.append(state)
    return out


def graph(model: Blocks, cap: int) -> tuple[list, dict] | None:
    """Every reachable state and its children (None past `cap` states)."""
    start = model.initial()
    order, seen, children = [start], {start}, {}
    for state in order:
        children[state] = [c for _, c in model.successors(state)]
        for c in children[state]:
            if c not in seen:
                seen.add(c)
                order.append(c)
                if len(order) > cap:
                    return None
    return order, children


def goal_distances(model: Blocks, order: list, children: dict) -> dict:
    """Moves from each state to its nearest goal (moves are reversible: a sweep from the goals)."""
    dist = {s: 0 for s in order if model.is_goal(s)}
    frontier = list(dist)
    while frontier:
        nxt = []
        for s in frontier:
            for c in children[s]:
                if c not in dist:
                    dist[c] = dist[s] + 1
                    nxt.append(c)
        frontier = nxt
    return dist


# -- random boards -------------------------------------------------------------------------------------
@st.composite
def board_texts(draw) -> str:
    """A small board: a few pieces of random polyomino shapes, maybe walls, and a goal (a target
    for A, a full layout reached by a random walk, or an exit for A to leave through)."""
    rows, cols = draw(st.integers(2, 5)), draw(st.integers(2, 4))
    grid = [["."] * cols for _ in range(rows)]
    for _ in range(draw(st.integers(0, 2))):
        grid[draw(st.integers(0, rows - 1))][draw(st.integers(0, cols - 1))] = "#"
    shapes: dict[str, list[str]] = {}
    for letter in "ABCDEFG"[:draw(st.integers(2, 7))]:
        shape = SHAPES[draw(st.sampled_from(sorted(SHAPES)))]
        r0, c0 = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))
        cells = [(r0 + r, c0 + c) for r, row in enumerate(shape) for c, ch in enumerate(row) if ch == "X"]
        if all(r < rows and c < cols and grid[r][c] == "." for r, c in cells):
            for r, c in cells:
                grid[r][c] = letter
            shapes[letter] = shape
    assume("A" in shapes)
    text = "puzzle: blocks\nboard: |\n" + "".join(f"  {''.join(row)}\n" for row in grid)
    kind = draw(st.sampled_from(["goal", "layout", "exit"]))
    shape = shapes["A"]
    if kind == "goal":
        fits = [(r, c) for r in range(rows - len(shape) + 1) for c in range(cols - len(shape[0]) + 1)
                if all(grid[r + i][c + j] != "#" for i, row in enumerate(shape) for j, ch in enumerate(row) if ch == "X")]
        r, c = draw(st.sampled_from(fits))
        return text + f"goal: {{A: [{r + 1}, {c + 1}]}}\n"
    if kind == "exit":
        side = draw(st.sampled_from(SIDES))
        across, length = (len(shape[0]), cols) if side in ("top", "bottom") else (len(shape), rows)
        assume(across <= length)
        first = draw(st.integers(1, length - across + 1))
        at = ", ".join(str(i) for i in range(first, first + across))
        return text + f"exit: {{side: {side}, at: [{at}]}}\nleave: A\n"
    top = min(r for r, row in enumerate(grid) if "A" in row)
    left = min(row.index("A") for row in grid if "A" in row)
    probe = model_of(text + f"goal: {{A: [{top + 1}, {left + 1}]}}\n", "step")
    end = walk(probe, draw(st.lists(st.integers(0, 99), max_size=8)))[-1]
    return text + "layout: |\n" + "".join(f"  {row}\n" for row in probe.grid(end))


# -- the packed space is the model's move rule ------------------------------------------------------------
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_packed_moves_from_the_start(path: Path, metric: str) -> None:
    model = load(path, {"metric": metric})
    assert_same_moves(model, [model.initial()])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(ALL), metric=st.sampled_from(METRICS),
       picks=st.lists(st.integers(0, 10_000), max_size=40))
def test_packed_moves_along_random_walks(path: Path, metric: str, picks: list[int]) -> None:
    model = load(path, {"metric": metric})
    assert_same_moves(model, walk(model, picks))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=board_texts(), metric=st.sampled_from(METRICS))
def test_packed_moves_on_random_boards(text: str, metric: str) -> None:
    model = model_of(text, metric)
    found = graph(model, 1500)
    states = found[0] if found is not None else walk(model, list(range(30)))
    assert_same_moves(model, states)


def test_boards_past_64_bits_use_the_generic_search() -> None:
    wide = "puzzle: blocks\nboard: |\n  A........\n" + "  .........\n" * 7 + "goal: {A: [2, 2]}\n"   # 72 cells
    crowded = "puzzle: blocks\nboard: |\n  ABCDEFGH\n  IJK.....\n" + "  ........\n" * 6 + "goal: {A: [8, 8]}\n"
    for text in (wide, crowded):    # 11 fields of 6 bits: 66
        model = model_of(text, "piece")
        assert model.packed_space() is None
        result = solve(model, "bfs")
        assert result.status is Status.OPTIMAL and "kernel" not in result.stats.extra


# -- the array searches agree with the per-state ones -------------------------------------------------------
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.stem)
def test_packed_searches_match_the_generic_ones(path: Path, metric: str) -> None:
    model = load(path, {"metric": metric})
    fast, slow = explore(model), explore(model, native=False)
    assert fast.stats.extra.get("kernel") == "packed layers" and fast.complete and slow.complete
    assert (fast.reachable, fast.per_depth, fast.goals, fast.goal_distance) == \
        (slow.reachable, slow.per_depth, slow.goals, slow.goal_distance)
    assert fast.reachable == model.expect["reachable"]
    quick, plain = solve(model, "bfs"), solve(model, "bfs", Request(options={"native": False}))
    assert quick.status is plain.status
    if quick.status is Status.OPTIMAL:
        assert quick.stats.extra.get("kernel") == "packed layers"
        assert quick.plan.length == plain.plan.length
        assert check_plan(model, list(quick.plan.moves)).valid


# -- the heuristic -------------------------------------------------------------------------------------------
def assert_admissible_and_consistent(model: Blocks, order: list, children: dict) -> None:
    dist = goal_distances(model, order, children)
    for state in order:
        h = model.h(state)
        assert h >= 0
        if state in dist:
            assert h <= dist[state], (model.render(state), h, dist[state])
        for child in children[state]:
            assert h - model.h(child) <= 1, (model.render(state), model.render(child))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.stem)
def test_h_is_admissible_and_consistent_on_the_examples(path: Path, metric: str) -> None:
    model = load(path, {"metric": metric})
    found = graph(model, 10_000)
    assert found is not None
    assert_admissible_and_consistent(model, *found)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=board_texts(), metric=st.sampled_from(METRICS))
def test_h_is_admissible_and_consistent_on_random_boards(text: str, metric: str) -> None:
    model = model_of(text, metric)
    found = graph(model, 1500)
    assume(found is not None)
    assert_admissible_and_consistent(model, *found)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.stem)
def test_astar_finds_the_bfs_optimum(path: Path, metric: str) -> None:
    model = load(path, {"metric": metric})
    best, bfs = solve(model, "astar"), solve(model, "bfs")
    assert best.status is bfs.status
    if bfs.status is Status.OPTIMAL:
        assert best.plan.length == bfs.plan.length == model.expect.get(f"optimal_{metric}", bfs.plan.length)
        assert check_plan(model, list(best.plan.moves)).valid


# -- every optimal plan ------------------------------------------------------------------------------------
def packed_plan_count(model: Blocks) -> tuple[int, int]:
    """(optimal length, number of optimal plans) counted over the packed space's layers: each
    state's count of shortest move sequences is the sum over the moves into it from the layer above."""
    space = model.packed_space()
    layer, seen, depth = {space.pack(model.initial()): 1}, set(), 0
    while layer:
        seen |= layer.keys()
        keys = np.array(sorted(layer), dtype=np.uint64)
        goals = keys[space.goal_mask(keys)]
        if goals.size:
            return depth, sum(layer[int(k)] for k in goals)
        children, parents, _ = space.expand(keys)
        nxt: dict[int, int] = {}
        for child, parent in zip(children.tolist(), parents.tolist()):
            if child not in seen:
                nxt[child] = nxt.get(child, 0) + layer[int(keys[parent])]
        layer, depth = nxt, depth + 1
    raise AssertionError("no goal reached")


ALL_OPTIMAL = [p for p in SMALL if load(p).expect.get("solvable", True) and p.stem not in ("pennant", "quzzle")]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("path", ALL_OPTIMAL, ids=lambda p: p.stem)
def test_all_optimal_plans_count_twice_and_check(path: Path, metric: str) -> None:
    model = load(path, {"metric": metric})
    found = all_optimal_plans(model, limit=200)
    assert found.status is Status.OPTIMAL
    assert (found.length, found.count) == packed_plan_count(model)
    assert found.plans and len(found.plans) == min(found.count, 200)
    assert len({tuple(p) for p in found.plans}) == len(found.plans)
    for plan in found.plans:
        report = check_plan(model, plan)
        assert report.valid and report.goal_reached and len(plan) == found.length


def test_all_optimal_from_the_command_line(capsys) -> None:
    code, out, _ = run_cli(capsys, "solve", EXAMPLES / "three.yaml", "--metric", "piece", "--all-optimal",
                           "--limit", "5")
    model = load(EXAMPLES / "three.yaml", {"metric": "piece"})
    length, count = packed_plan_count(model)
    assert code == 0 and f"{count} optimal plans of {length} moves" in out
    assert out.count("plan:") == 5
