"""The capability matrix (`puzzleplan families`) says what runs, and exactly that runs: every
engine, encoding and export it lists works on the family's sample, and every engine it leaves
out refuses with its reason."""
from __future__ import annotations

import pytest

from helpers import run_json
from puzzleplan.encoders.certify import proof_options, sat_options, solve_one
from puzzleplan.encoders.base import Answer, all_encodings
from puzzleplan.models.family import families
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core import engines
from puzzleplan.plans.core.types import Limits, Request, Status
from puzzleplan.plans.families import matrix, sample_model
from puzzleplan.plans.solve import solve

ROWS = matrix()


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.family}/{r.metric}")
def test_listed_engines_run_and_the_others_refuse(row) -> None:
    model = sample_model(families()[row.family], row.metric)
    optimum = solve(model, "bfs").plan.cost
    for name in engines.names():
        if name in row.engines:
            result = solve(model, name, Request(limits=Limits(time_limit=60)))
            assert result.status.has_plan, (name, result.message)
            assert check_plan(model, list(result.plan.moves), "printed").valid
            if name in engines.OPTIMAL_ENGINES:
                assert result.plan.cost == optimum
        else:
            reason = engines.supports(name, model)
            assert reason, name
            result = solve(model, name)
            assert result.status is Status.UNSUPPORTED and result.message == reason


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.family}/{r.metric}")
def test_listed_encodings_find_the_optimum(row) -> None:
    model = sample_model(families()[row.family], row.metric)
    optimum = solve(model, "bfs").plan.length
    for name in row.encodings:
        found = solve_one(model, name, sat_options(model), optimum, time_limit=60)
        assert found.answer is Answer.SAT and check_plan(model, found.moves, "printed").valid, name
        below = optimum - proof_options(model)[1]
        if below >= 0:
            assert solve_one(model, name, proof_options(model)[0], below, time_limit=60).answer is Answer.UNSAT
    declared = set(families()[row.family].encodings)
    assert set(row.encodings) <= declared <= set(all_encodings())


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.family}/{r.metric}")
def test_listed_exports_write(row, tmp_path, capsys) -> None:
    from helpers import run_cli
    desc = families()[row.family]
    puzzle = tmp_path / "sample.yaml"
    puzzle.write_text(desc.sample_text() + f"metric: {row.metric}\n")
    for kind in ("pddl", "dimacs", "cpsat"):
        out = tmp_path / f"out-{kind}"
        code, _, err = run_cli(capsys, "export", puzzle, "--horizon", "3", "--to", kind, "-o", out)
        assert (code == 0) == (kind in row.exports), (kind, err)


def test_families_command_prints_the_matrix(capsys) -> None:
    code, rows = run_json(capsys, "families")
    assert code == 0
    assert rows == [{k: list(v) if isinstance(v, tuple) else v for k, v in row.as_dict().items()} for row in ROWS]
    assert {(r["family"], r["metric"]) for r in rows} >= {("tiles", "step"), ("rush-hour", "slide"),
                                                          ("sokoban", "pushes")}
