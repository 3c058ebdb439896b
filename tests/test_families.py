"""The capability matrix (`puzzleplan families`) says what runs, and exactly that runs: every
engine, encoding and export it lists works on the family's sample, and every engine it leaves
out refuses with its reason."""
from __future__ import annotations

import pytest

from catalogue import EXAMPLES
from helpers import run_json
from puzzleplan.encoders.certify import costed, proof_options, sat_options, solve_one
from puzzleplan.encoders.base import GENERIC_ENCODINGS, Answer, all_encodings
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
    optimum = solve(model, "task-astar").plan.cost   # by cost: bfs refuses tasks with action costs
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
    if row.unit_cost_engines:   # a cost row's sample has costs; its plain sample runs these too
        plain = sample_model(families()[row.family], row.metric, plain=True)
        assert plain.unit_cost and not model.unit_cost
        for name in row.unit_cost_engines:
            assert solve(plain, name, Request(limits=Limits(time_limit=60))).status.has_plan, name


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.family}/{r.metric}")
def test_listed_encodings_find_the_optimum(row) -> None:
    model = sample_model(families()[row.family], row.metric)
    native = solve(model, "task-astar").plan
    plan_options = sat_options(model).with_(parallel=False)   # one move a step: horizon = length
    proof, offset = proof_options(model)
    for name in row.encodings:
        if costed(model):   # cost-bounded at the native plan's length: its cost, and nothing cheaper
            found = solve_one(model, name, plan_options, native.length, time_limit=60, cost_bound=native.cost)
            cheaper = solve_one(model, name, plan_options, native.length, time_limit=60, cost_bound=native.cost - 1)
            assert cheaper.answer is Answer.UNSAT, name
        else:
            found = solve_one(model, name, plan_options, native.length, time_limit=60)
            if native.length - offset >= 0:
                below = solve_one(model, name, proof.with_(parallel=False), native.length - offset, time_limit=60)
                assert below.answer is Answer.UNSAT, name
        assert found.answer is Answer.SAT and check_plan(model, found.moves, "printed").valid, name
    declared = set(families()[row.family].encodings) | set(GENERIC_ENCODINGS)
    assert set(row.encodings) <= declared <= set(all_encodings())


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.family}/{r.metric}")
def test_listed_exports_write(row, tmp_path, capsys) -> None:
    from helpers import run_cli
    desc = families()[row.family]
    puzzle = tmp_path / "sample.yaml"
    puzzle.write_text(desc.sample_text(row.metric) + f"metric: {row.metric}\n")
    for kind in ("pddl", "dimacs", "cpsat"):
        out = tmp_path / f"out-{kind}"
        horizon = ("--horizon", "3") if kind != "pddl" else ()   # a pddl export has none
        code, _, err = run_cli(capsys, "export", puzzle, *horizon, "--to", kind, "-o", out)
        assert (code == 0) == (kind in row.exports), (kind, err)


def test_families_command_prints_the_matrix(capsys) -> None:
    code, rows = run_json(capsys, "families")
    assert code == 0
    assert rows == [{k: list(v) if isinstance(v, tuple) else v for k, v in row.as_dict().items()} for row in ROWS]
    assert {(r["family"], r["metric"]) for r in rows} >= {("tiles", "step"), ("rush-hour", "slide"),
                                                          ("sokoban", "pushes")}


CONVERTIBLE = sorted(p for family in ("tiles", "rush-hour", "sokoban", "blocks", "rules")
                     for p in (EXAMPLES / family).glob("*.yaml"))


@pytest.mark.parametrize("path", CONVERTIBLE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_convert_to_yaml_keeps_the_description_and_the_facts(path) -> None:
    """`convert --to yaml` writes the file's description and expect back (valid_plans only
    where the moves keep their names, and then the plans still check)."""
    from puzzleplan.models import load, loads
    model = load(path)
    again = loads(model.notation("yaml"), "<converted>")
    assert again.description.strip() == model.description.strip()
    kept = {k: v for k, v in model.expect.items() if k != "valid_plans"}
    assert {k: v for k, v in again.expect.items() if k != "valid_plans"} == kept
    for plan in again.expect.get("valid_plans", []):
        assert check_plan(again, str(plan)).valid


def test_tiles_grid_is_written_only_when_it_reads_back_as_the_same_puzzle(capsys, tmp_path) -> None:
    """Bare rows read back with the standard goal: a puzzle with another goal (Korf's blank
    first) is refused, not written as a different puzzle."""
    from helpers import run_cli
    from puzzleplan.models import load, loads
    korf = tmp_path / "korf.yaml"
    korf.write_text('puzzle: tiles\nnotation: korf\nstart: "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"\n')
    code, out, err = run_cli(capsys, "convert", korf, "--to", "grid")
    assert code == 2 and out == "" and "this puzzle's goal is another; write yaml" in err
    standard = tmp_path / "standard.yaml"
    standard.write_text("puzzle: tiles\nstart: |\n  2 1\n  3 _\n")
    model = load(standard)
    again = loads("puzzle: tiles\nstart: |\n" + "".join(f"  {row}\n" for row in model.notation("grid").splitlines()))
    assert (again.start_grid, again.goal_grid) == (model.start_grid, model.goal_grid)
