"""The Sokoban encodings (SAT sok-onehot, CP-SAT cp-sok), moves metric: on every small example
level, SAT at BFS's optimum with a plan the checker accepts and UNSAT one below (goal `by`, with
and without cuts); the unsolvable level is UNSAT; exact-T semantics, the incremental driver,
CP-SAT hints, the pushes metric refused, and `verify` agreeing on seed 004."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

from puzzleplan.encoders import base as enc_base
from puzzleplan.encoders.base import Answer, EncodingOptions
from puzzleplan.encoders.cpsat.base import solve as cp_solve
from puzzleplan.encoders.cpsat.sokoban import SokobanCp
from puzzleplan.encoders.sat.base import IncrementalSat, solve_fixed
from puzzleplan.encoders.sat.sokoban import SokobanOneHot
from puzzleplan.models import load
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Request

SOK = Path(__file__).resolve().parent.parent / "examples" / "sokoban"
REGISTRY = {"sok-onehot": "puzzleplan.encoders.sat.sokoban:SokobanOneHot",
            "cp-sok": "puzzleplan.encoders.cpsat.sokoban:SokobanCp"}
CLASSES = (SokobanOneHot, SokobanCp)
NO_CUTS = EncodingOptions(no_reversal=False, idle_at_end=False, distance_cuts=False)


def _small() -> list[str]:
    names = []
    for path in sorted(SOK.glob("*.yaml")):
        optimum = load(path).expect.get("optimal_moves")
        if optimum is not None and optimum <= 15:
            names.append(path.name)
    return names


SMALL = _small()


@lru_cache(maxsize=None)
def optimum(name: str) -> int | None:
    result = solve(load(SOK / name), "bfs", Request())
    return None if result.plan is None else result.plan.length


def run(cls: type, model, horizon: int, options: EncodingOptions = EncodingOptions()):
    enc = cls(model, options)
    if cls is SokobanOneHot:
        return solve_fixed(enc, horizon)
    return cp_solve(enc, horizon, workers=1)


def assert_plan(model, result, horizon: int, exact: bool = False) -> None:
    assert result.answer is Answer.SAT
    assert len(result.moves) == horizon if exact else len(result.moves) <= horizon
    report = check_plan(model, list(result.moves))
    assert report.valid, (result.moves, report.error)


def test_small_levels_cover_both_goal_kinds():
    assert "seed-004.yaml" in SMALL and "seed-004-player-goal.yaml" in SMALL
    assert optimum("seed-004.yaml") == 9 and optimum("seed-004-player-goal.yaml") == 11


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("name", SMALL)
def test_optimum_and_one_below(cls, name):
    model = load(SOK / name)
    best = optimum(name)
    assert best is not None
    assert_plan(model, run(cls, model, best), best)
    if best > 0:
        assert run(cls, model, best - 1).answer is Answer.UNSAT


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("name", ["seed-004.yaml", "seed-004-player-goal.yaml", "turn.yaml", "three.yaml"])
def test_without_cuts(cls, name):
    model = load(SOK / name)
    best = optimum(name)
    assert_plan(model, run(cls, model, best + 2, NO_CUTS), best + 2)
    assert_plan(model, run(cls, model, best, NO_CUTS), best)
    assert run(cls, model, best - 1, NO_CUTS).answer is Answer.UNSAT


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_unsolvable_is_unsat(cls):
    model = load(SOK / "unsolvable.yaml")
    assert optimum("unsolvable.yaml") is None
    for horizon in (0, 4, 10):
        assert run(cls, model, horizon).answer is Answer.UNSAT
        assert run(cls, model, horizon, NO_CUTS).answer is Answer.UNSAT


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_exact_semantics(cls):
    model = load(SOK / "seed-004.yaml")
    best = optimum("seed-004.yaml")
    exact = EncodingOptions(goal="exact", no_reversal=False)
    assert_plan(model, run(cls, model, best, exact), best, exact=True)
    # exactly best + 2: an optimal plan padded by a walk there and back
    padded = run(cls, model, best + 2, exact)
    assert_plan(model, padded, best + 2, exact=True)
    assert run(cls, model, best - 1, exact).answer is Answer.UNSAT


def test_incremental_sat_finds_the_optimum():
    model = load(SOK / "seed-004-player-goal.yaml")
    best = optimum("seed-004-player-goal.yaml")
    inc = IncrementalSat(SokobanOneHot(model))
    try:
        answers = [inc.solve(t).answer for t in range(best + 1)]
        assert answers == [Answer.UNSAT] * best + [Answer.SAT]
    finally:
        inc.close()


def test_cp_hint_is_accepted():
    model = load(SOK / "seed-004.yaml")
    plan = solve(model, "bfs", Request()).plan
    moves = list(plan.moves)
    result = cp_solve(SokobanCp(model), len(moves) + 1, workers=1, hint=moves)
    assert_plan(model, result, len(moves) + 1)
    result = cp_solve(SokobanCp(model, EncodingOptions(goal="exact", no_reversal=False)), len(moves),
                      workers=1, hint=moves)
    assert_plan(model, result, len(moves), exact=True)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_pushes_metric_refused(cls):
    model = load(SOK / "seed-004.yaml").with_metric("pushes")
    assert cls.metrics == ("moves",)
    with pytest.raises(ValueError, match="moves metric only"):
        cls(model)


def test_verify_agrees(capsys):
    from puzzleplan.plans.cli import main
    assert set(REGISTRY) <= set(enc_base.encodings_for("sokoban"))   # declared by the family
    code = main(["verify", str(SOK / "seed-004.yaml"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["agree"] is True
    methods = " ".join(row["method"] for row in out["certificates"])
    assert "sok-onehot" in methods and "cp-sok" in methods
