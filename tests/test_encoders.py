"""Bounded-horizon encodings: correctness against search, soundness of UNSAT, CLI (verify, compare, export)."""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue import EXAMPLES
from helpers import run_cli, run_json
from puzzleplan.encoders.base import Answer, EncodingOptions, encoding_class, encodings_for, proves_no_plan_up_to
from puzzleplan.encoders.certify import proof_options, solve_one
from puzzleplan.models import load, loads
from puzzleplan.models.tiles.model import TilesPuzzle
from puzzleplan.encoders.detours import without_detours
from puzzleplan.plans.check import check_plan, states_by_move_names
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Request, Status

TILES = encodings_for("tiles")
SMALL = EXAMPLES / "tiles" / "seed-002-small.yaml"
SAFE = EXAMPLES / "tiles" / "malok-safe.yaml"
KORF = EXAMPLES / "tiles" / "korf-012.yaml"
EXACT_PROOF = EncodingOptions(goal="exact", no_reversal=False, idle_at_end=False)


def test_two_encodings_per_backend_for_tiles() -> None:
    assert len(encodings_for("tiles", "sat")) >= 2 and len(encodings_for("tiles", "cpsat")) >= 2


@pytest.mark.parametrize("encoding", TILES)
@pytest.mark.parametrize("options", [EncodingOptions(), EXACT_PROOF, EncodingOptions(goal="exact", card="totalizer")],
                         ids=["by", "exact", "exact-totalizer"])
def test_encoding_sat_at_optimum_unsat_below(encoding: str, options: EncodingOptions) -> None:
    model = load(SMALL)
    found = solve_one(model, encoding, options, 11)
    assert found.answer is Answer.SAT and check_plan(model, found.moves).valid and len(found.moves) <= 11
    assert found.variables > 0 and found.constraints > 0
    below = 10 if options.goal == "by" else 9
    assert solve_one(model, encoding, options, below).answer is Answer.UNSAT


def test_reversal_cut_with_exact_horizon_is_not_a_proof() -> None:
    """A 2x2 instance one move from the goal: with 'exact T' plus the reversal cut, T = 3 is UNSAT
    although the 1-move plan padded with a reversal pair has exactly 3 moves."""
    model = loads("puzzle: tiles\nstart: |\n  a b\n  _ c\ngoal: |\n  a b\n  c _\n")
    assert solve(model, "bfs", Request()).plan.length == 1
    cut = EncodingOptions(goal="exact", no_reversal=True)
    for encoding in [n for n in TILES if not getattr(encoding_class(n), "parallel", False)]:  # sas-exists has no such cut
        assert solve_one(model, encoding, cut, 3).answer is Answer.UNSAT
        assert solve_one(model, encoding, EXACT_PROOF, 3).answer is Answer.SAT
        assert solve_one(model, encoding, EncodingOptions(goal="by"), 3).answer is Answer.SAT
    assert proves_no_plan_up_to(cut, 3, model.plan_parity()) is None
    assert proves_no_plan_up_to(EXACT_PROOF, 3, model.plan_parity()) == 3
    assert proves_no_plan_up_to(EncodingOptions(goal="by"), 3, None) == 3
    assert not proof_options(model)[0].cuts_need_shortest()


@st.composite
def small_tiles(draw):
    rows, cols = draw(st.sampled_from([(2, 2), (2, 3), (3, 2)]))
    n = rows * cols
    faces = [draw(st.sampled_from("abc")) for _ in range(n - 1)] + ["_"]
    start, goal = list(faces), list(faces)
    random.Random(draw(st.integers(0, 10**6))).shuffle(start)
    random.Random(draw(st.integers(0, 10**6))).shuffle(goal)
    grid = lambda cells: [cells[r * cols:(r + 1) * cols] for r in range(rows)]
    return TilesPuzzle.from_grids(grid(start), grid(goal))


@settings(max_examples=12, deadline=None)
@given(small_tiles(), st.sampled_from(["increasing", "binary"]))
def test_engines_find_the_bfs_optimum(model: TilesPuzzle, strategy: str) -> None:
    bfs = solve(model, "bfs", Request())
    if bfs.status is not Status.OPTIMAL:
        return
    for engine in ("sat", "cpsat"):
        for encoding in encodings_for("tiles", engine):
            result = solve(model, engine, Request(max_moves=30, options={"encoding": encoding, "strategy": strategy}))
            assert result.status is Status.OPTIMAL, (engine, encoding, result.message)
            assert result.plan.length == bfs.plan.length
            assert check_plan(model, list(result.plan.moves)).valid


def test_fixed_strategy_within_cap_and_proof_of_none(capsys) -> None:
    code, data = run_json(capsys, "solve", SAFE, "--engine", "sat", "--any")
    assert code == 0 and data["length"] <= 59 and data["stats"]["strategy"] == "fixed"
    code, data = run_json(capsys, "solve", SMALL, "--engine", "sat", "--strategy", "fixed", "--max-moves", "10")
    assert code == 1 and data["status"] == "no_plan_within_cap" and data["lower_bound"] == 11
    code, data = run_json(capsys, "solve", SMALL, "--engine", "cpsat", "--strategy", "binary", "--max-moves", "30")
    assert code == 0 and data["status"] == "optimal" and data["length"] == 11


@pytest.mark.parametrize("engine", ["sat", "cpsat"])
def test_binary_with_no_horizon_of_the_plans_parity_within_the_cap_proves_none(capsys, engine: str) -> None:
    """Cap 0 and plans of odd length: no horizon to ask (horizon -1 was asked: an internal error)."""
    code, data = run_json(capsys, "solve", EXAMPLES / "tiles" / "small-2x3.yaml", "--engine", engine,
                          "--strategy", "binary", "--goal", "exact", "--max-moves", "0")
    assert code == 1 and data["status"] == "no_plan_within_cap"


@pytest.mark.parametrize("engine", ["sat", "cpsat"])
def test_a_fixed_horizon_plan_has_its_detours_cut(capsys, engine: str) -> None:
    # exact-T pads the 11-move optimum to 29 moves; the plan returned visits no state twice
    code, data = run_json(capsys, "solve", SMALL, "--engine", engine, "--strategy", "fixed", "--max-moves", "29",
                          "--goal", "exact")
    assert code == 0 and data["status"] == "solved" and data["length"] < 29
    assert data["message"] == "cut from the solver's 29 moves: its detours left out"
    model = load(SMALL)
    states = states_by_move_names(model, data["plan"])
    assert len(set(states)) == len(states) and check_plan(model, data["plan"]).valid
    assert [model.is_goal(s) for s in states].index(True) == len(states) - 1


def test_detours_are_cut_at_the_first_goal_and_around_each_loop() -> None:
    model = load(SMALL)
    plan = list(solve(model, "bfs", Request()).plan.moves)
    inverse = {"L": "R", "R": "L", "U": "D", "D": "U"}
    goal = states_by_move_names(model, plan)[-1]
    after = model.plan_moves([next(iter(model.successors(goal)))[0]])[0]
    padded = [plan[0], inverse[plan[0]]] + plan + [after, inverse[after]]
    assert without_detours(model, padded) == plan


def test_sat_time_limit_ends_cleanly(capsys) -> None:
    code, data = run_json(capsys, "solve", KORF, "--engine", "sat", "--time-limit", "2")
    assert code == 3 and data["status"] == "limit_reached" and data["stats"]["seconds"] < 10
    model = load(KORF)
    assert model.cheap_h(model.initial()) <= data["lower_bound"] <= 45


def test_unknown_encoding_is_refused_before_any_search(capsys) -> None:
    code, data = run_json(capsys, "solve", SMALL, "--engine", "sat", "--encoding", "cp-tiles-table")
    assert code == 2 and data["status"] == "error" and "tiles-moves" in data["error"]
    code, out, err = run_cli(capsys, "solve", SMALL, "--engine", "cpsat", "--encoding", "tiles-moves")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "cp-tiles-table" in err
    code, out, err = run_cli(capsys, "solve", SMALL, "--engine", "bfs", "--encoding", "tiles-moves")
    assert code == 2 and out == "" and "--encoding goes with --engine sat or cpsat, not bfs" in err
    code, out, err = run_cli(capsys, "solve", SMALL, "--engine", "cpsat", "--solver", "glucose4")
    assert code == 2 and out == "" and "--solver goes with --engine sat, not cpsat" in err
    code, out, err = run_cli(capsys, "solve", SMALL, "--engine", "bfs", "--heuristic", "manhattan")
    assert code == 2 and out == "" and "--heuristic goes with --engine idastar or a task engine, not bfs" in err
    code, out, err = run_cli(capsys, "solve", SMALL, "--no-reversal-cut")    # the default engine reads none
    assert code == 2 and out == "" and "--reversal-cut goes with --engine sat or cpsat" in err


@pytest.mark.parametrize("flags, cut", [(["--reversal-cut"], True), (["--no-reversal"], True),
                                        (["--no-reversal-cut"], False), ([], None)])
def test_the_reversal_cut_flags(flags, cut) -> None:
    from puzzleplan.plans.cli.parser import build_parser
    assert build_parser().parse_args(["solve", str(SMALL), "--engine", "sat", *flags]).no_reversal is cut


def test_cpsat_parameters_and_hint(capsys) -> None:
    code, data = run_json(capsys, "solve", SAFE, "--engine", "cpsat", "--params", "num_workers:2 random_seed:7",
                          "--hint")
    assert code == 0 and data["length"] == 24
    code, _, err = run_cli(capsys, "solve", SMALL, "--engine", "cpsat", "--params", "no_such_field:3")
    assert code == 2 and "CP-SAT parameters" in err


@pytest.mark.parametrize("path,optimum", [(SMALL, 11), (SAFE, 24)])
def test_verify_agrees(capsys, path: Path, optimum: int) -> None:
    code, data = run_json(capsys, "verify", path)
    assert code == 0 and data["agree"] and data["optimal"] == optimum
    methods = {c["method"].split()[0] for c in data["certificates"]}
    assert {"sat", "cpsat"} <= methods
    for cert in data["certificates"]:
        assert cert["holds"]
        if cert["plan"]:
            assert check_plan(load(path), cert["plan"]).valid


def test_verify_a_puzzle_solved_at_the_start(capsys, tmp_path: Path) -> None:
    """Optimum 0: each bound row says there is nothing shorter, not 'no plan <= -1'."""
    path = tmp_path / "done.yaml"
    path.write_text("puzzle: tiles\nstart: |\n  1 2\n  3 _\ngoal: |\n  1 2\n  3 _\n")
    code, data = run_json(capsys, "verify", path)
    assert code == 0 and data["status"] == "verified" and data["optimal"] == 0
    bounds = [c for c in data["certificates"] if c["kind"] == "bound"]
    assert bounds and all(c["claim"] == "no shorter plan (none is shorter than 0)" and c["holds"] for c in bounds)


def test_verify_wrong_claim_is_refuted(capsys) -> None:
    """The native optimum refutes the claim and no row contradicts it: refuted (exit 1), not a
    disagreement; the verdict does not say the rows found the optimum (they need not)."""
    code, out, _ = run_cli(capsys, "verify", SAFE, "--claim", "26")
    assert code == 1 and "refuted" in out and "DISAGREEMENT" not in out and "fails" in out
    code, data = run_json(capsys, "verify", SAFE, "--claim", "22")
    assert code == 1 and data["agree"] and data["status"] == "refuted"
    method = data["certificates"][0]["method"]
    assert data["summary"] == f"refuted: the minimal move count is not 22; {method} proves it is 24, and no row contradicts it"


def test_a_refuted_claim_stays_refuted_when_rows_run_out_of_time(capsys) -> None:
    """The native optimum disproves the claim; encoding rows a limit cut short cannot undo that."""
    code, data = run_json(capsys, "verify", EXAMPLES / "rush-hour" / "seed-000-hardest.yaml", "--metric", "step",
                          "--claim", "90", "--time-limit", "1")
    assert code == 1 and data["status"] == "refuted" and data["agree"]
    if any(c["answer"] == "unknown" for c in data["certificates"]):   # the usual case within 1 s
        assert data["summary"].startswith("refuted: the minimal move count is not 90; bfs proves it is 93 (")
    assert all((c["holds"] is None) == (c["answer"] == "unknown") for c in data["certificates"])



def test_compare_table_and_csv(capsys, tmp_path: Path) -> None:
    csv_file = tmp_path / "cmp.csv"
    code, out, _ = run_cli(capsys, "compare", SMALL, "--solvers", "cadical195", "minisat22", "--csv", csv_file)
    assert code == 0
    lines = csv_file.read_text().strip().splitlines()
    sat, cp = len(encodings_for("tiles", "sat")), len(encodings_for("tiles", "cpsat"))
    assert len(lines) == 1 + sat * 2 + cp
    assert all(",sat," in line for line in lines[1:])
    code, data = run_json(capsys, "compare", SMALL, "--horizon", "9", "--encodings", "tiles-dirs")
    assert code == 0 and {row["result"] for row in data} == {"unsat"}


def test_export_dimacs_and_decode(capsys, tmp_path: Path) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Solver
    cnf_path = tmp_path / "safe.cnf"
    assert run_cli(capsys, "export", SAFE, "--horizon", "24", "--to", "dimacs", "-o", cnf_path)[0] == 0
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf_path)).clauses) as s:
        assert s.solve()
        (tmp_path / "safe.sol").write_text("s SATISFIABLE\nv " + " ".join(map(str, s.get_model())) + " 0\n")
    code, data = run_json(capsys, "decode", SAFE, "--map", f"{cnf_path}.map.json", tmp_path / "safe.sol")
    assert code == 0 and data["valid"] and data["length"] == 24
    code, out, _ = run_cli(capsys, "decode", SAFE, "--map", f"{cnf_path}.map.json", tmp_path / "safe.sol")
    assert code == 0 and f"plan:    {''.join(data['plan'])}\n" in out   # as solve prints a tiles plan
    code, _, err = run_cli(capsys, "decode", SMALL, "--map", f"{cnf_path}.map.json", tmp_path / "safe.sol")
    assert code == 2 and "does not match" in err


def test_export_stays_within_the_limits_and_writes_nothing_when_one_stops_it(capsys, tmp_path: Path,
                                                                             monkeypatch) -> None:
    """A formula grows with the horizon: its build answers to --time-limit and the memory
    limit (exit 3), and no file is left behind."""
    code, _, err = run_cli(capsys, "export", SAFE, "--horizon", "100000", "--to", "dimacs", "-o",
                           tmp_path / "big.cnf", "--time-limit", "0.5")
    assert code == 3 and "time limit of 0.5 s reached while building the formula" in err
    code, _, err = run_cli(capsys, "export", SAFE, "--horizon", "100000", "--to", "cpsat", "-o",
                           tmp_path / "big.pb", "--time-limit", "0.5")
    assert code == 3 and "time limit of 0.5 s reached" in err
    import puzzleplan.encoders.runner as runner
    monkeypatch.setattr(runner, "MEMORY_POLL", 0.001)
    monkeypatch.setattr(runner, "resident_mb", lambda pid="self": 10.0**6)
    code, _, err = run_cli(capsys, "export", SAFE, "--horizon", "24", "--to", "dimacs", "-o",
                           tmp_path / "safe.cnf", "--memory-limit", "2000")
    assert code == 3 and "memory limit of 2000 MiB reached" in err
    assert list(tmp_path.iterdir()) == []


def test_decode_names_a_map_of_another_family(capsys, tmp_path: Path) -> None:
    cnf_path = tmp_path / "safe.cnf"
    assert run_cli(capsys, "export", SAFE, "--horizon", "24", "--to", "dimacs", "-o", cnf_path)[0] == 0
    code, _, err = run_cli(capsys, "decode", EXAMPLES / "rush-hour" / "walls.yaml", "--map",
                           f"{cnf_path}.map.json", "v 1 0")
    assert code == 2 and "its encoding 'tiles-moves' is not one of rush-hour" in err and "attribute" not in err


def test_export_cpsat_proto(capsys, tmp_path: Path) -> None:
    from ortools.sat import cp_model_pb2
    out = tmp_path / "safe.pb"
    assert run_cli(capsys, "export", SAFE, "--horizon", "24", "--to", "cpsat", "-o", out)[0] == 0
    proto = cp_model_pb2.CpModelProto()
    proto.ParseFromString(out.read_bytes())
    assert len(proto.variables) > 0 and len(proto.constraints) > 0


TINY_RH = "puzzle: rush-hour\nboard: |\n  ..B.\n  AAB.\n  .x..\n  CC..\n"


@pytest.mark.parametrize("path", [EXAMPLES / "tiles" / "small-2x3.yaml", "tiny-rush-hour"], ids=["tiles", "rush-hour"])
def test_export_pddl_solved_by_an_outside_planner(capsys, tmp_path: Path, path) -> None:
    """pyperplan (an outside STRIPS planner) solves the exported PDDL, written without --horizon;
    its plan reads back into our move names and checks."""
    from puzzleplan.encoders.pddl import moves_from_planner_plan
    if path == "tiny-rush-hour":
        path = tmp_path / "rh.yaml"
        path.write_text(TINY_RH)
    assert run_cli(capsys, "export", path, "--to", "pddl", "-o", tmp_path)[0] == 0
    subprocess.run([sys.executable, "-m", "pyperplan", "-s", "bfs", str(tmp_path / "domain.pddl"),
                    str(tmp_path / "problem.pddl")], check=True, capture_output=True, timeout=300)
    model = load(path)
    moves = moves_from_planner_plan(model, (tmp_path / "problem.pddl.soln").read_text())
    assert check_plan(model, moves).valid
    assert len(moves) == solve(model, "bfs", Request()).plan.length


def test_solver_without_assumptions_and_unknown_solver(capsys) -> None:
    code, data = run_json(capsys, "solve", SMALL, "--engine", "sat", "--solver", "kissat")
    assert code == 0 and data["length"] == 11
    for args in (["solve", SMALL, "--engine", "sat", "--solver", "nosuch"], ["verify", SMALL, "--solver", "nosuch"],
                 ["compare", SMALL, "--solvers", "nosuch"]):
        code, _, err = run_cli(capsys, *args)
        assert code == 2 and "not a python-sat solver" in err and "Traceback" not in err


@pytest.mark.parametrize("path", [EXAMPLES / "tiles" / "seed-002-small.yaml", EXAMPLES / "rush-hour" / "walls.yaml",
                                  EXAMPLES / "sokoban" / "seed-004.yaml", EXAMPLES / "blocks" / "three.yaml"])
def test_every_cpsat_build_checks_the_limits_once_a_step(path) -> None:
    """A CP-SAT model of a long horizon can take longer to build than the time limit: each
    build calls the caller's limit check (`budget`) at least once a step, and stops with it."""
    from puzzleplan.plans.core.context import LimitReached
    model = load(path)
    for name in encodings_for(model, "cpsat"):
        enc = encoding_class(name)(model, EncodingOptions())
        ticks: list[int] = []
        enc.budget = lambda: ticks.append(1)
        enc.build(6)
        assert len(ticks) >= 6, name
        stopped = encoding_class(name)(model, EncodingOptions())

        def over() -> None:
            raise LimitReached("time limit of 1 s reached")
        stopped.budget = over
        with pytest.raises(LimitReached):
            stopped.build(6)


def test_a_refuted_verdict_cut_short_by_ctrl_c_says_so() -> None:
    """Only the native row answered before Ctrl-C: the verdict names it, not 'every method'."""
    from puzzleplan.encoders.certify import Certificate
    from puzzleplan.plans.verify import Verification
    native = Certificate("push", "optimum 3", "fails: optimum is 5", 0.1, answer="fails", kind="optimum", horizon=3)
    found = Verification("refuted", 5, 3, True, [native], 1, "interrupted (Ctrl-C) during sat sok-onehot: plan of 3")
    assert found.summary() == ("refuted: the minimal move count is not 3; push proves it is 5 "
                               "(interrupted (Ctrl-C) during sat sok-onehot: plan of 3; none contradicts it)")


def test_a_max_horizon_of_0_is_a_horizon_not_the_default() -> None:
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")   # no cap in the file: max_horizon bounds the horizons
    result = solve(model, "sat", Request(options={"max_horizon": 0}))
    assert result.status is Status.LIMIT_REACHED and "horizon 0" in result.message
