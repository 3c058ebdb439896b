"""The sliding-block CP-SAT encoding (cp-blocks), all three metrics: SAT at BFS's optimum with a
plan the independent checker accepts, UNSAT one below, unsolvable layouts, exact-T semantics,
hints, the CLI, and a property test on random small boards (the least horizon is BFS's optimum)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from puzzleplan.encoders.base import Answer, EncodingOptions
from puzzleplan.encoders.cpsat.base import solve as cp_solve
from puzzleplan.encoders.cpsat.blocks import BlocksCp
from puzzleplan.models import load, loads
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.types import Request, Status
from puzzleplan.plans.solve import solve
from helpers import run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "blocks"
METRICS = ("step", "slide", "piece")
EXACT = EncodingOptions(goal="exact", no_reversal=False)


def small_cases() -> list[tuple[Path, str]]:
    """Every example and metric whose stated optimum is at most 20."""
    out = []
    for path in sorted(EXAMPLES.glob("*.yaml")):
        expect = load(path).expect
        out.extend((path, m) for m in METRICS if expect.get(f"optimal_{m}", 99) <= 20)
    return out


def optimum(model) -> int | None:
    result = solve(model, "bfs", Request())
    if result.status is Status.UNSOLVABLE:
        return None
    assert result.status is Status.OPTIMAL
    return result.plan.length


def run(model, horizon: int, options: EncodingOptions = EncodingOptions()):
    return cp_solve(BlocksCp(model, options), horizon, BlocksCp.parameters, workers=1)


def assert_plan(model, result, horizon: int, exact: bool = False) -> None:
    assert result.answer is Answer.SAT
    report = check_plan(model, result.moves)
    assert report.valid, (report.error, result.moves)
    assert len(result.moves) == horizon if exact else len(result.moves) <= horizon


@pytest.mark.parametrize("path, metric", small_cases(), ids=lambda v: getattr(v, "stem", v))
def test_examples_optimum_and_one_below(path: Path, metric: str) -> None:
    model = load(path, {"metric": metric})
    best = optimum(model)
    assert best == model.expect[f"optimal_{metric}"]
    assert_plan(model, run(model, best), best)
    assert run(model, best - 1).answer is Answer.UNSAT


@pytest.mark.parametrize("metric", METRICS)
def test_unsolvable_is_unsat(metric: str) -> None:
    model = load(EXAMPLES / "stuck.yaml", {"metric": metric})
    assert optimum(model) is None
    assert run(model, 6).answer is Answer.UNSAT


@pytest.mark.parametrize("metric", METRICS)
def test_exact_at_the_optimum(metric: str) -> None:
    model = load(EXAMPLES / "box.yaml", {"metric": metric})
    best = optimum(model)
    assert_plan(model, run(model, best, EXACT), best, exact=True)
    assert run(model, best - 1, EXACT).answer is Answer.UNSAT


@pytest.mark.parametrize("metric", METRICS)
def test_cuts_do_not_change_the_optimum(metric: str) -> None:
    model = load(EXAMPLES / "walled.yaml", {"metric": metric})
    best = optimum(model)
    bare = EncodingOptions(no_reversal=False, idle_at_end=False, distance_cuts=False)
    assert_plan(model, run(model, best, bare), best)
    assert run(model, best - 1, bare).answer is Answer.UNSAT


@pytest.mark.parametrize("metric", METRICS)
def test_hint_is_a_full_assignment(metric: str) -> None:
    """A BFS plan as a hint, every hinted variable fixed: still feasible, and decoded back."""
    model = load(EXAMPLES / "box.yaml", {"metric": metric})
    plan = list(solve(model, "bfs", Request()).plan.moves)
    enc = BlocksCp(model)
    horizon = len(plan) + 2
    cp = enc.build(horizon)
    enc.add_hint(plan)
    solver = cp_model.CpSolver()
    solver.parameters.fix_variables_to_their_hinted_value = True
    solver.parameters.num_workers = 1
    assert solver.Solve(cp) in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    assert enc.decode(solver, horizon) == plan


def test_supports_blocks_only() -> None:
    assert BlocksCp.supports(load(EXAMPLES / "three.yaml")) is None
    other = loads("puzzle: rush-hour\nboard: |\n  ....\n  AA..\n  ....\n  ....\n")
    assert "blocks" in BlocksCp.supports(other)


def test_cli_solve_and_verify(capsys) -> None:
    path = EXAMPLES / "three.yaml"
    code, out, _ = run_cli(capsys, "solve", path, "--engine", "cpsat", "--encoding", "cp-blocks",
                           "--metric", "slide", "--workers", "2")
    assert code == 0 and "optimal: 4 moves" in out
    code, out, _ = run_cli(capsys, "verify", path, "--metric", "piece", "--encodings", "cp-blocks", "--workers", "2")
    assert code == 0 and "cpsat cp-blocks" in out and "verified" in out


# -- property: the least horizon is BFS's optimum ----------------------------------------------
SHAPES = ([(0, 0)], [(0, 0), (0, 1)], [(0, 0), (1, 0)], [(0, 0), (0, 1), (1, 0), (1, 1)])


@st.composite
def boards(draw):
    rows, cols = draw(st.sampled_from([(3, 3), (3, 4)]))
    grid = [["."] * cols for _ in range(rows)]
    if draw(st.booleans()):
        grid[draw(st.integers(0, rows - 1))][draw(st.integers(0, cols - 1))] = "#"
    placed: list[tuple[str, list[tuple[int, int]]]] = []
    for letter in "ABCD":
        shape = draw(st.sampled_from(SHAPES[:3] if letter != "A" else SHAPES))
        r, c = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))
        cells = [(r + dr, c + dc) for dr, dc in shape]
        if all(0 <= y < rows and 0 <= x < cols and grid[y][x] == "." for y, x in cells):
            for y, x in cells:
                grid[y][x] = letter
            placed.append((letter, cells))
        if len(placed) == 4:
            break
    assume(len(placed) >= 2 and placed[0][0] == "A")
    shape = sorted((y - placed[0][1][0][0], x - placed[0][1][0][1]) for y, x in placed[0][1])
    fits = [(r, c) for r in range(rows) for c in range(cols)
            if all(0 <= r + dy < rows and 0 <= c + dx < cols and grid[r + dy][c + dx] != "#" for dy, dx in shape)]
    tr, tc = draw(st.sampled_from(fits))
    metric = draw(st.sampled_from(METRICS))
    text = "".join(f"  {''.join(row)}\n" for row in grid)
    return loads(f"puzzle: blocks\nmetric: {metric}\nboard: |\n{text}goal: {{A: [{tr + 1}, {tc + 1}]}}\n")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(boards())
def test_least_horizon_is_the_optimum(model) -> None:
    best = optimum(model)
    if best is None:
        assert run(model, 6).answer is Answer.UNSAT
        return
    assert_plan(model, run(model, best), best)
    if best > 0:
        assert run(model, best - 1).answer is Answer.UNSAT


def test_the_encodings_own_parameters_apply_under_the_callers() -> None:
    from puzzleplan.encoders.cpsat.base import solver_parameters
    ours = solver_parameters(None, None, None, BlocksCp.parameters).parameters
    assert ours.linearization_level == 0 and ours.num_workers == 1
    theirs = solver_parameters("linearization_level:2", 2, 5.0, BlocksCp.parameters).parameters
    assert theirs.linearization_level == 2 and theirs.num_workers == 2 and theirs.max_time_in_seconds == 5.0
