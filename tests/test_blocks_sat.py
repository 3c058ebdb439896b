"""The hand-tuned sliding-block SAT encoding (blocks-sat), all three metrics: SAT at BFS's optimum
with a plan the independent checker accepts, UNSAT one below, exact-T semantics, the cuts off,
the CLI, and a property test on random small boards (the least horizon equals BFS's optimum)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from puzzleplan.encoders.base import Answer, EncodingOptions, encodings_for
from puzzleplan.encoders.sat.base import IncrementalSat, solve_fixed, solve_then_fewer
from puzzleplan.encoders.sat.blocks import BlocksSat, geometry
from puzzleplan.models import load, loads
from puzzleplan.models.base import ModelError
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.types import Request, Status
from puzzleplan.plans.solve import solve
from helpers import run_cli, run_json

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "blocks"
METRICS = ("step", "slide", "piece")
DEEPEST = 20          # examples whose optimum is deeper are for the benchmark, not unit tests


def optimum(model) -> int | None:
    result = solve(model, "bfs", Request())
    if result.status is Status.UNSOLVABLE:
        return None
    assert result.status is Status.OPTIMAL
    return result.plan.length


def assert_plan(model, result, horizon: int, exact: bool = False) -> None:
    assert result.answer is Answer.SAT
    report = check_plan(model, result.moves)
    assert report.valid, (report.error, result.moves)
    assert len(result.moves) == horizon if exact else len(result.moves) <= horizon


def small_cases() -> list[tuple[str, str]]:
    out = []
    for path in sorted(EXAMPLES.glob("*.yaml")):
        model = load(path)
        for metric in METRICS:
            best = model.expect.get(f"optimal_{metric}")
            if best is not None and best <= DEEPEST or model.expect.get("solvable") is False:
                out.append((path.stem, metric))
    return out


@pytest.mark.parametrize("name,metric", small_cases(), ids=lambda v: str(v))
def test_examples_plan_at_the_optimum_and_none_below(name: str, metric: str) -> None:
    model = load(EXAMPLES / f"{name}.yaml", {"metric": metric})
    best = optimum(model)
    if best is None:                 # unsolvable: no plan within a few moves either
        assert solve_fixed(BlocksSat(model), 6).answer is Answer.UNSAT
        return
    assert best == model.expect[f"optimal_{metric}"]
    assert_plan(model, solve_fixed(BlocksSat(model), best), best)
    if best > 0:
        assert solve_fixed(BlocksSat(model), best - 1).answer is Answer.UNSAT
        assert_shared_around(model, best)


def assert_shared_around(model, best: int) -> None:
    """verify's shared solver (solve_then_fewer): at the optimum a plan, then none shorter; one
    above, a plan, then a plan of the optimum."""
    at, below = solve_then_fewer(BlocksSat(model), best)
    assert_plan(model, at, best)
    assert below.answer is Answer.UNSAT
    above, again = solve_then_fewer(BlocksSat(model), best + 1)
    assert_plan(model, above, best + 1)
    assert_plan(model, again, best)


@pytest.mark.parametrize("metric", METRICS)
def test_exact_semantics_and_no_cuts(metric: str) -> None:
    model = load(EXAMPLES / "box.yaml", {"metric": metric})
    best = optimum(model)
    exact = EncodingOptions(goal="exact", no_reversal=False, distance_cuts=False)
    assert_plan(model, solve_fixed(BlocksSat(model, exact), best), best, exact=True)
    assert solve_fixed(BlocksSat(model, exact), best - 1).answer is Answer.UNSAT
    bare = EncodingOptions(no_reversal=False, idle_at_end=False, distance_cuts=False, card="totalizer")
    assert_plan(model, solve_fixed(BlocksSat(model, bare), best), best)
    assert solve_fixed(BlocksSat(model, bare), best - 1).answer is Answer.UNSAT


def test_reach_bound_counts_the_free_room() -> None:
    """Klotski: 20 cells, 18 covered, two free: the 2x2 block moves at most one unit step within
    one move, the others two; with an exit the leaving block also has the band past the opening."""
    model = load(EXAMPLES / "klotski.yaml", {"metric": "piece"})
    bounds = {model.board.slot_letter[geo.slot]: geo.reach_bound for geo in geometry(model)}
    assert bounds == {"A": 2, "B": 1, "E": 2, "G": 2}
    model = load(EXAMPLES / "klotski-exit.yaml", {"metric": "piece"})
    leaving = model.board.slot_class[model.exit_goal[0]]
    assert geometry(model)[leaving].reach_bound > 2


def test_listed_and_refused() -> None:
    model = load(EXAMPLES / "three.yaml", {"metric": "piece"})
    assert "blocks-sat" in encodings_for(model, "sat")
    assert BlocksSat.supports(model) is None
    other = load(EXAMPLES.parent / "tiles" / "eight-31.yaml")
    assert "tiles" in BlocksSat.supports(other)


def test_cli_solve_and_verify(capsys) -> None:
    path = EXAMPLES / "box.yaml"
    code, out = run_json(capsys, "solve", path, "--engine", "sat", "--encoding", "blocks-sat", "--metric", "piece")
    assert code == 0 and out["status"] == "optimal" and out["length"] == 7, out
    code, out, _ = run_cli(capsys, "verify", path, "--metric", "slide", "--encodings", "blocks-sat")
    assert code == 0 and "sat blocks-sat" in out and "fails" not in out, out


# -- property: the least horizon is BFS's optimum --------------------------------------------------
SHAPES = [((0, 0),), ((0, 0), (0, 1)), ((0, 0), (1, 0)), ((0, 0), (1, 0), (1, 1)), ((0, 0), (0, 1), (1, 0))]


@st.composite
def boards(draw):
    rows, cols = draw(st.sampled_from([(3, 3), (3, 4), (4, 3)]))
    grid = [["."] * cols for _ in range(rows)]
    if draw(st.booleans()):
        grid[draw(st.integers(0, rows - 1))][draw(st.integers(0, cols - 1))] = "#"
    for letter in "ABCD"[:draw(st.sampled_from([2, 3, 3, 4, 4]))]:
        shape = draw(st.sampled_from(SHAPES))
        fits = [[(r + dr, c + dc) for dr, dc in shape] for r in range(rows) for c in range(cols)]
        fits = [cells for cells in fits if all(0 <= y < rows and 0 <= x < cols and grid[y][x] == "." for y, x in cells)]
        if fits:
            for y, x in draw(st.sampled_from(fits)):
                grid[y][x] = letter
    metric = draw(st.sampled_from(METRICS))
    board = "".join(f"  {''.join(row)}\n" for row in grid)
    head = f"puzzle: blocks\nmetric: {metric}\nboard: |\n{board}"
    if draw(st.booleans()):
        target = [draw(st.integers(1, rows)), draw(st.integers(1, cols))]
        try:
            return loads(f"{head}goal: {{A: {target}}}\n")
        except ModelError:
            assume(False)
    model = loads(f"{head}layout: |\n{board}")
    state = model.initial()
    for pick in draw(st.lists(st.integers(0, 50), min_size=2, max_size=12)):    # a layout some walk reaches
        children = [child for _, child in model.successors(state)]
        state = children[pick % len(children)] if children else state
    layout = "".join(f"  {row}\n" for row in model.grid(state))
    return loads(f"{head}layout: |\n{layout}")


def least_horizon(model, cap: int) -> int | None:
    sat = IncrementalSat(BlocksSat(model))
    try:
        for t in range(cap + 1):
            result = sat.solve(t)
            if result.answer is Answer.SAT:
                assert_plan(model, result, t)
                return t
        return None
    finally:
        sat.close()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(boards())
def test_least_horizon_is_the_optimum(model) -> None:
    best = optimum(model)
    assert least_horizon(model, 8 if best is None else best) == best
    if best:
        assert_shared_around(model, best)


def test_the_sat_engine_picks_the_family_encoding_without_compiling_the_task(monkeypatch) -> None:
    """Deciding whether the generic encodings apply compiles the planning task (seconds on
    Klotski under piece); the family's own encoding is found without it."""
    import puzzleplan.encoders.base as base
    from puzzleplan.encoders.engines import pick_encoding, supports_sat
    from puzzleplan.models import load as load_file

    def no_compile(model):
        raise AssertionError("compiled the task")
    monkeypatch.setattr(base, "generic_reason", no_compile)
    model = load_file(Path(__file__).resolve().parent.parent / "examples" / "blocks" / "klotski.yaml",
                      overrides={"metric": "piece"})
    assert supports_sat(model) is None and pick_encoding(model, "sat", None) == "blocks-sat"
    assert pick_encoding(model, "sat", "blocks-sat") == "blocks-sat"
