"""The Rush Hour encodings (SAT rh-order / rh-onehot, CP-SAT cp-rh-int / cp-rh-bool), both metrics:
SAT at BFS's optimum with a checked plan, UNSAT one below, exact-T semantics, hints, and a
property test on random small boards (the least horizon equals the BFS optimum)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from helpers import run_json
from puzzleplan.encoders.base import Answer, EncodingOptions
from puzzleplan.encoders.cpsat.base import solve as cp_solve
from puzzleplan.encoders.cpsat.rush_hour import RushHourBool, RushHourInt
from puzzleplan.encoders.sat.base import IncrementalSat, solve_fixed, solve_then_fewer
from puzzleplan.encoders.sat.rush_hour import RushHourOneHot, RushHourOrder
from puzzleplan.models import load, loads
from puzzleplan.models.rush_hour.presolve import Geometry
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Request, Status

RH = Path(__file__).resolve().parent.parent / "examples" / "rush-hour"
METRICS = ("step", "slide")
SAT_CLASSES = (RushHourOrder, RushHourOneHot)
CP_CLASSES = (RushHourInt, RushHourBool)
ALL = SAT_CLASSES + CP_CLASSES
EXACT = EncodingOptions(goal="exact", no_reversal=False, distance_cuts=False)

# tiny handmade boards: walls; a vehicle boxed in for good (a constant); a vertical primary
# leaving upwards; a primary already at its exit
TINY = {
    "walls": """
        board: |
          .x..
          AAB.
          ..B.
          x...
    """,
    "boxed": """
        board: |
          Bx...
          B....
          xAAC.
          ...C.
          .....
    """,
    "up": """
        exit: up
        board: |
          .BB.
          .A..
          .A..
          CC..
    """,
    "done": """
        board: |
          ..AA
          ....
          BBB.
          ....
    """,
}


def tiny(name: str, metric: str):
    text = "\n".join(line[8:] for line in TINY[name].strip("\n").splitlines())
    return loads(f"puzzle: rush-hour\nmetric: {metric}\n{text}\n")


def optimum(model) -> int | None:
    result = solve(model, "bfs", Request())
    if result.status is Status.UNSOLVABLE:
        return None
    assert result.status is Status.OPTIMAL
    return result.plan.length


def run(cls, model, horizon: int, options: EncodingOptions = EncodingOptions()):
    enc = cls(model, options)
    if enc.backend == "sat":
        return solve_fixed(enc, horizon)
    return cp_solve(enc, horizon, workers=2)


def assert_plan(model, result, horizon: int, exact: bool = False) -> None:
    assert result.answer is Answer.SAT
    report = check_plan(model, result.moves)
    assert report.valid, (report.error, result.moves)
    assert len(result.moves) == horizon if exact else len(result.moves) <= horizon
    if model.metric == "step":
        assert all(m[-2:] in ("+1", "-1") for m in result.moves)


CASES = [("walls", m) for m in METRICS] + [("seed-003-card", m) for m in METRICS]


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
@pytest.mark.parametrize("name,metric", CASES, ids=lambda v: str(v))
def test_examples_by(cls, name: str, metric: str) -> None:
    model = load(RH / f"{name}.yaml", {"metric": metric})
    best = optimum(model)
    assert best == model.expect[f"optimal_{metric}"]
    assert_plan(model, run(cls, model, best), best)
    assert run(cls, model, best - 1).answer is Answer.UNSAT


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
@pytest.mark.parametrize("metric", METRICS)
def test_exact_at_the_optimum(cls, metric: str) -> None:
    model = load(RH / "walls.yaml", {"metric": metric})
    best = optimum(model)
    assert_plan(model, run(cls, model, best, EXACT), best, exact=True)
    assert run(cls, model, best - 1, EXACT).answer is Answer.UNSAT


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("name", list(TINY))
def test_tiny_boards(cls, metric: str, name: str) -> None:
    model = tiny(name, metric)
    best = optimum(model)
    assert_plan(model, run(cls, model, best), best)
    if best > 0:
        assert run(cls, model, best - 1).answer is Answer.UNSAT
    result = run(cls, model, best, EXACT)
    assert_plan(model, result, best, exact=True)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
@pytest.mark.parametrize("metric", METRICS)
def test_unsolvable(cls, metric: str) -> None:
    model = load(RH / "unsolvable.yaml", {"metric": metric})
    assert optimum(model) is None
    assert run(cls, model, 6).answer is Answer.UNSAT


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.name)
def test_wall_before_the_exit_is_unsat(cls) -> None:
    model = loads("puzzle: rush-hour\nboard: |\n  ....\n  AA.x\n  ....\n  ....\n")
    assert not Geometry(model).goal_reachable()
    assert run(cls, model, 3).answer is Answer.UNSAT


def test_presolve_intervals() -> None:
    geo = Geometry(tiny("boxed", "step"))
    b = [v.name for v in geo.vehicles].index("B")
    assert geo.lo[b] == geo.hi[b] == 0 and b not in geo.movable       # boxed by walls and A
    geo = Geometry(load(RH / "walls.yaml"))
    names = [v.name for v in geo.vehicles]
    assert (geo.lo[names.index("B")], geo.hi[names.index("B")]) == (0, 0)   # a wall at its front


@pytest.mark.parametrize("cls", CP_CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("metric", METRICS)
def test_hint_is_a_full_assignment(cls, metric: str) -> None:
    """A BFS plan as a hint, every hinted variable fixed: still feasible, and decoded back."""
    model = load(RH / "walls.yaml", {"metric": metric})
    plan = list(solve(model, "bfs", Request()).plan.moves)
    enc = cls(model, EncodingOptions(no_reversal=False, idle_at_end=False))
    enc.commute = False                    # a BFS plan need not be in commuted normal form
    horizon = len(plan) + 2
    cp = enc.build(horizon)
    enc.add_hint(plan)
    solver = cp_model.CpSolver()
    solver.parameters.fix_variables_to_their_hinted_value = True
    solver.parameters.num_workers = 1
    assert solver.Solve(cp) in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    assert enc.decode(solver, horizon) == plan


@pytest.mark.parametrize("metric", METRICS)
def test_int_with_trace_rectangles(metric: str) -> None:
    """cp-rh-int's documented alternative: one AddNoOverlap2D of trace rectangles per step."""
    model = load(RH / "walls.yaml", {"metric": metric})
    best = optimum(model)
    for horizon, answer in ((best, Answer.SAT), (best - 1, Answer.UNSAT)):
        enc = RushHourInt(model)
        enc.overlap = "2d"
        result = cp_solve(enc, horizon, workers=2)
        assert result.answer is answer
        if answer is Answer.SAT:
            assert_plan(model, result, horizon)


def test_cuts_do_not_change_the_optimum() -> None:
    model = load(RH / "seed-003-card.yaml", {"metric": "slide"})
    best = optimum(model)
    for options in (EncodingOptions(no_reversal=False, idle_at_end=False, distance_cuts=False),
                    EncodingOptions(card="totalizer")):
        for cls in SAT_CLASSES:
            assert_plan(model, run(cls, model, best, options), best)
            assert run(cls, model, best - 1, options).answer is Answer.UNSAT


# -- property: the least horizon is BFS's optimum --------------------------------------------
@st.composite
def boards(draw):
    rows, cols = draw(st.sampled_from([(4, 4), (5, 5), (4, 5)]))
    grid = [["."] * cols for _ in range(rows)]
    vertical = draw(st.booleans())
    line = draw(st.integers(0, (cols if vertical else rows) - 1))
    for i in range(2):
        r, c = (i, line) if vertical else (line, i)
        grid[r][c] = "A"
    exit_ = draw(st.sampled_from(["up", "down"] if vertical else ["left", "right"]))
    if exit_ in ("up", "left"):           # start away from the exit edge
        grid = grid[::-1] if vertical else [row[::-1] for row in grid]
    placed = 0
    for name in "BCDE":
        length, horizontal = draw(st.integers(2, 3)), draw(st.booleans())
        r, c = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))
        cells = [(r, c + i) if horizontal else (r + i, c) for i in range(length)]
        if all(0 <= a < rows and 0 <= b < cols and grid[a][b] == "." for a, b in cells):
            for a, b in cells:
                grid[a][b] = name
            placed += 1
        if placed >= 3:
            break
    if draw(st.booleans()):
        r, c = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))
        if grid[r][c] == ".":
            grid[r][c] = "x"
    metric = draw(st.sampled_from(METRICS))
    text = "".join(f"  {''.join(row)}\n" for row in grid)
    return loads(f"puzzle: rush-hour\nmetric: {metric}\nexit: {exit_}\nboard: |\n{text}")


def least_horizon(cls, model, cap: int) -> int | None:
    sat = IncrementalSat(cls(model, EncodingOptions()))
    try:
        for t in range(cap + 1):
            result = sat.solve(t)
            if result.answer is Answer.SAT:
                assert_plan(model, result, t)
                return t
        return None
    finally:
        sat.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_least_horizon_is_the_optimum(model) -> None:
    best = optimum(model)
    cap = 8 if best is None else best
    for cls in SAT_CLASSES:
        assert least_horizon(cls, model, cap) == best, cls.name


def shared_answers(cls, model, horizon: int) -> list:
    """solve_then_fewer's two answers: the formula at `horizon`, then plans of <= horizon - 1."""
    return list(solve_then_fewer(cls(model, EncodingOptions()), horizon))


def assert_shared_around(cls, model, best: int) -> None:
    """At the optimum: a plan, then none shorter; one above: a plan, then a plan of the optimum."""
    at, below = shared_answers(cls, model, best)
    assert_plan(model, at, best)
    assert below.answer is Answer.UNSAT and below.horizon == best - 1
    above, again = shared_answers(cls, model, best + 1)
    assert_plan(model, above, best + 1)
    assert_plan(model, again, best)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boards())
def test_bound_on_the_plans_solver_agrees_with_bfs(model) -> None:
    """verify's shared solver (the plan, then fewer steps under assumptions) proves exactly
    what BFS says, on random boards: UNSAT one below the optimum, SAT from the optimum on."""
    best = optimum(model)
    if best is None:
        for cls in SAT_CLASSES:
            assert [r.answer for r in shared_answers(cls, model, 6)] == [Answer.UNSAT, Answer.UNSAT]
        return
    if best == 0:
        return
    for cls in SAT_CLASSES:
        assert_shared_around(cls, model, best)


@pytest.mark.parametrize("cls", SAT_CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("name,metric", CASES, ids=lambda v: str(v))
def test_bound_on_the_plans_solver_examples(cls, name: str, metric: str) -> None:
    model = load(RH / f"{name}.yaml", {"metric": metric})
    assert_shared_around(cls, model, optimum(model))


def test_verify_asks_the_bound_on_the_plans_solver(capsys) -> None:
    """verify shares the solver by default and says so; --fresh-bound asks a fresh one; both prove."""
    path = RH / "seed-003-card.yaml"
    code, data = run_json(capsys, "verify", path, "--metric", "step", "--encodings", "rh-order")
    rows = data["certificates"]
    assert code == 0 and data["status"] == "verified" and data["optimal"] == 16
    assert rows[1]["claim"] == "plan of 16" and rows[2]["claim"] == "no plan <= 15"
    assert rows[2]["result"] == "holds (on the plan's solver)"
    code, data = run_json(capsys, "verify", path, "--metric", "step", "--encodings", "rh-order", "--fresh-bound")
    assert code == 0 and data["status"] == "verified" and data["certificates"][2]["result"] == "holds"
    code, data = run_json(capsys, "verify", path, "--metric", "step", "--encodings", "rh-order", "--claim", "17")
    assert code == 1 and data["status"] == "refuted" and data["certificates"][2]["answer"] == "fails"
    assert check_plan(load(path, {"metric": "step"}), data["certificates"][2]["plan"]).valid


def test_shared_rows_under_a_time_limit(capsys) -> None:
    """A limit during the shared solve leaves the rows it came before unknown (exit 3)."""
    code, data = run_json(capsys, "verify", RH / "seed-000-hardest.yaml", "--metric", "step",
                          "--encodings", "rh-order", "--time-limit", "1")
    assert code == 3 and data["status"] == "limit_reached"
    assert [row["answer"] for row in data["certificates"][1:]] == ["unknown", "unknown"]


def test_fresh_bound_from_the_api() -> None:
    import puzzleplan
    model = load(RH / "walls.yaml", {"metric": "step"})
    shared = puzzleplan.verify(model, encodings=["rh-order"])
    fresh = puzzleplan.verify(model, encodings=["rh-order"], fresh_bound=True)
    assert shared.status == fresh.status == "verified"
    assert shared.certificates[2].result == "holds (on the plan's solver)"
    assert fresh.certificates[2].result == "holds"
