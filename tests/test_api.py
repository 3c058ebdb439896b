"""The public Python API (`import puzzleplan`) works as its docstring says."""
from __future__ import annotations

import io
import subprocess
import sys

import pytest

import puzzleplan
from catalogue import EXAMPLES
from helpers import run_cli

SAFE = EXAMPLES / "tiles" / "malok-safe.yaml"
SMALL = EXAMPLES / "tiles" / "seed-002-small.yaml"
SIX = EXAMPLES / "tiles" / "small-2x3.yaml"
LOYD = EXAMPLES / "tiles" / "unsolvable-loyd.yaml"


def test_the_docstring_runs_as_written(monkeypatch) -> None:
    import doctest
    monkeypatch.chdir(EXAMPLES.parent)            # its paths are from the repository's root
    failed, attempted = doctest.testmod(puzzleplan, verbose=False)
    assert attempted >= 5 and failed == 0


def test_the_names_the_docstring_promises() -> None:
    for name in ("load", "loads", "solve", "verify", "check", "explore", "render", "render_file", "show", "write_plan",
                 "compare", "export", "decode", "compile_task", "Request", "Limits", "Status", "Result", "Plan", "__version__"):
        assert hasattr(puzzleplan, name), name
        assert name in dir(puzzleplan)
    assert puzzleplan.Status.OPTIMAL.value == "optimal"
    with pytest.raises(AttributeError):
        puzzleplan.no_such_name  # noqa: B018


def test_load_and_solve_the_safe() -> None:
    model = puzzleplan.load(SAFE)
    result = puzzleplan.solve(model)
    assert result.status is puzzleplan.Status.OPTIMAL and result.plan.length == 24
    assert result.lower_bound == 24 and result.length == result.cost == 24   # as the JSON's top level
    assert puzzleplan.check(model, result.plan).valid            # a Plan
    assert puzzleplan.check(model, result).valid                 # a Result holding one
    assert puzzleplan.check(model, list(result.plan.moves), "printed").valid


def test_the_file_cap_applies_and_keywords_override_it() -> None:
    model = puzzleplan.load(SMALL)
    assert puzzleplan.solve(model, "bfs", max_moves=10).status is puzzleplan.Status.NO_PLAN_WITHIN_CAP
    found = puzzleplan.solve(puzzleplan.load(SAFE), "dfs", max_moves=40, time_limit=60)
    assert found.status.has_plan and found.plan.length <= 40
    request = puzzleplan.Request(max_moves=10, limits=puzzleplan.Limits(time_limit=60))
    assert puzzleplan.solve(model, "bfs", request, max_moves=11).plan.length == 11   # the keyword wins
    limited = puzzleplan.solve(puzzleplan.load(EXAMPLES / "tiles" / "eight-31.yaml"), "bfs", time_limit=0.0001)
    assert limited.status is puzzleplan.Status.LIMIT_REACHED and "time limit" in limited.message


def test_loads_and_any_plan() -> None:
    model = puzzleplan.loads("puzzle: tiles\nstart: |\n  1 2 3\n  4 _ 5\ngoal: |\n  1 2 3\n  4 5 _\n")
    result = puzzleplan.solve(model, any_plan=True)
    assert result.engine == "greedy" and result.status.has_plan and result.plan.moves


def test_unknown_engine_encoding_and_option_name_the_choices() -> None:
    model = puzzleplan.load(SMALL)
    with pytest.raises(ValueError, match="no engine 'nope'; expected one of .*bfs.*idastar"):
        puzzleplan.solve(model, "nope")
    with pytest.raises(ValueError, match="no encoding 'nope' .*tiles-moves"):
        puzzleplan.solve(model, "sat", encoding="nope")
    with pytest.raises(TypeError, match="'max_move'.*max_moves"):
        puzzleplan.solve(model, max_move=3)
    with pytest.raises(ValueError, match="available: .*tiles-moves"):
        puzzleplan.verify(model, encodings=["nope"])


@pytest.mark.parametrize("keywords, field", [({"time_limit": -1}, "time_limit"), ({"time_limit": "abc"}, "time_limit"),
                                            ({"max_states": 0}, "max_states"), ({"memory_mb": -5}, "memory_mb"),
                                            ({"max_moves": -4}, "max_moves"), ({"max_moves": 5.5}, "max_moves")])
def test_limits_and_caps_out_of_range_name_the_field(keywords, field) -> None:
    with pytest.raises(ValueError, match=f"^{field}: expected"):
        puzzleplan.solve(puzzleplan.load(SMALL), "astar", **keywords)


def test_a_heuristic_goes_to_an_engine_that_reads_one() -> None:
    model = puzzleplan.load(SMALL)
    with pytest.raises(ValueError, match="^heuristic: engine astar takes none"):
        puzzleplan.solve(model, "astar", heuristic="manhattan")
    assert puzzleplan.solve(model, heuristic="manhattan").plan.length == 11    # the default, idastar


def test_a_cap_changed_on_the_model_is_checked() -> None:
    with pytest.raises(ValueError, match="^max_moves: expected"):
        puzzleplan.load(SMALL).with_changes(max_moves="x")
    assert puzzleplan.load(SMALL).with_changes(max_moves=0).max_moves == 0


def test_an_engine_that_cannot_run_says_why() -> None:
    result = puzzleplan.solve(puzzleplan.load(SMALL), "plan")
    assert result.status is puzzleplan.Status.UNSUPPORTED and result.message


def test_unsolvable_with_its_reason() -> None:
    result = puzzleplan.solve(puzzleplan.load(LOYD))
    assert result.status is puzzleplan.Status.UNSOLVABLE and "parity" in result.message
    assert result.status.exit_code == 1


def test_verify_the_small_safe() -> None:
    found = puzzleplan.verify(puzzleplan.load(SMALL), time_limit=120)
    assert found.status == "verified" and found.optimal == 11 == found.claim
    assert found.agree and found.exit_code == 0 and len(found.certificates) >= 3
    assert found.as_dict()["status"] == "verified"
    assert repr(found).startswith("<Verification verified 11")


def test_verify_interrupted_keeps_the_rows_answered_before(monkeypatch) -> None:
    """Ctrl-C during a bound row: the native row and the plan row stay, the verdict names the
    call that was cut short, and no row claims what it did not prove."""
    import puzzleplan.encoders.certify as certify
    asked = certify.solve_one

    def interrupt_the_bound(model, encoding, options, horizon, *args, **kwargs):
        if horizon < 11:
            raise KeyboardInterrupt
        return asked(model, encoding, options, horizon, *args, **kwargs)
    monkeypatch.setattr(certify, "solve_one", interrupt_the_bound)
    found = puzzleplan.verify(puzzleplan.load(SMALL), encodings=["tiles-moves"], fresh_bound=True, time_limit=120)
    assert found.status == "limit_reached" and found.exit_code == 3 and found.optimal == 11
    assert [(c.kind, c.answer) for c in found.certificates] == [("optimum", "holds"), ("plan", "holds")]
    assert found.message == ("interrupted (Ctrl-C) during sat tiles-moves cadical195: "
                             "no plan <= 10 (UNSAT at 9, parity rules out 10)")
    assert found.summary() == f"limit_reached: {found.message}; no method contradicts the optimum 11"
    assert found.as_dict()["message"] == found.message


def test_verify_holds_sat_rows_to_the_memory_limit(monkeypatch) -> None:
    """The solver process's memory counts toward the limit: a row over it is unknown, naming it."""
    import puzzleplan.encoders.runner as runner
    monkeypatch.setattr(runner, "MEMORY_POLL", 0.001)
    monkeypatch.setattr(runner, "resident_mb", lambda pid="self": 10.0**6)   # as if the solver grew without bound
    found = puzzleplan.verify(puzzleplan.load(SMALL), encodings=["tiles-moves"], time_limit=120, memory_mb=50_000)
    assert found.status == "limit_reached" and found.certificates[0].answer == "holds"
    assert {c.result for c in found.certificates[1:]} == {"unknown (memory limit of 50000 MiB)"}
    assert found.summary().startswith("limit_reached: 2 rows unanswered at the memory limit of 50000 MiB;")


def test_verify_an_unsolvable_puzzle() -> None:
    found = puzzleplan.verify(puzzleplan.load(LOYD))
    assert found.status == "unsolvable" and found.optimal is None and found.exit_code == 1
    assert found.as_dict() == {"status": "unsolvable", "optimal": None, "claim": None, "agree": None,
                               "message": found.message, "summary": found.summary(), "lower_bound": None,
                               "certificates": []}
    assert found.summary().startswith("unsolvable: ")


def test_check_a_bad_plan() -> None:
    report = puzzleplan.check(puzzleplan.load(SMALL), "UL")
    assert not report.valid and "goal is not reached" in report.error


def test_explore() -> None:
    out = puzzleplan.explore(puzzleplan.load(SIX))
    assert out.complete and out.reachable == 180 and sum(out.per_depth) == 180
    partial = puzzleplan.explore(puzzleplan.load(EXAMPLES / "tiles" / "eight-31.yaml"), max_states=5000)
    assert not partial.complete and "state limit" in partial.message


def test_progress_none_and_true_give_the_same_answers(capsys) -> None:
    model = puzzleplan.load(SIX)
    for progress in (True, False):
        quiet, shown = puzzleplan.solve(model, "bfs"), puzzleplan.solve(model, "bfs", progress=progress)
        assert (shown.status, shown.plan.moves, shown.stats.nodes) == (quiet.status, quiet.plan.moves, quiet.stats.nodes)
        assert puzzleplan.explore(model, progress=progress).per_depth == puzzleplan.explore(model).per_depth
    small = puzzleplan.load(SMALL)
    found = puzzleplan.verify(small, encodings=["tiles-moves"], progress=True)
    assert (found.status, found.optimal) == ("verified", 11)
    assert capsys.readouterr() == ("", "")     # stderr is no terminal here: not one byte
    with pytest.raises(TypeError, match="progress: expected None, True, False or a Progress"):
        puzzleplan.solve(model, progress="yes")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_reaches_the_display(monkeypatch) -> None:
    from puzzleplan.plans.core.progress import Progress
    monkeypatch.setenv("PUZZLEPLAN_PROGRESS_INTERVAL", "0.000001")   # every poll reports
    monkeypatch.setenv("TERM", "xterm")
    model = puzzleplan.load(SIX)
    for call, label in ((lambda p: puzzleplan.solve(model, "bfs", progress=p), "bfs"),
                        (lambda p: puzzleplan.explore(model, progress=p), "explore"),
                        (lambda p: puzzleplan.verify(puzzleplan.load(SMALL), encodings=["tiles-moves"], progress=p),
                         "verify: native optimum")):
        screen = _Terminal()
        with Progress(screen, width=80) as display:      # the caller's display, left open by the call
            call(display)
            assert display.enabled
        assert label in screen.getvalue(), label
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)         # True: stderr when it is a terminal
    assert puzzleplan.solve(model, "bfs", progress=True).plan.length == 13
    assert "bfs" in terminal.getvalue()


def test_readable_reprs() -> None:
    model = puzzleplan.load(SAFE)
    assert repr(model) == "<TilesPuzzle 'Malok safe': tiles 4x4, metric step, cap 59>"
    result = puzzleplan.solve(model)
    assert repr(result) == f"<Result optimal 24 moves by {result.engine}>"
    assert repr(result.plan).startswith("<Plan 24 moves: ")
    assert repr(result.stats).startswith("<Stats ") and " nodes, " in repr(result.stats)
    unsolvable = puzzleplan.solve(puzzleplan.load(LOYD))
    assert repr(unsolvable).startswith(f"<Result unsolvable by {unsolvable.engine}: ")


def test_models_are_immutable_and_changed_into_new_ones() -> None:
    model = puzzleplan.load(SAFE)
    with pytest.raises(AttributeError, match="with_changes"):
        model.max_moves = 3
    uncapped = model.with_changes(max_moves=None)
    assert uncapped.max_moves is None and model.max_moves == 59


def test_version(capsys) -> None:
    assert isinstance(puzzleplan.__version__, str) and puzzleplan.__version__.count(".") >= 2
    code, out, err = run_cli(capsys, "--version")
    assert code == 0 and out == f"puzzleplan {puzzleplan.__version__}\n" and err == ""


def test_import_puzzleplan_stays_light() -> None:
    code = ("import sys, puzzleplan; heavy = [m for m in ('numpy', 'numba', 'ortools', 'pysat', 'yaml') "
            "if m in sys.modules]; print(' '.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ""


def test_api_arguments_out_of_their_range_are_named(tmp_path) -> None:
    model = puzzleplan.load(SIX)
    with pytest.raises(TypeError, match="plan: expected text"):
        puzzleplan.check(model, None)
    with pytest.raises(ValueError, match="workers: expected a whole number >= 1, got 0"):
        puzzleplan.explore(model, workers=0)
    with pytest.raises(FileNotFoundError, match="no such folder") as raised:
        puzzleplan.render_file(model, tmp_path / "nodir" / "x.svg")
    assert str(tmp_path / "nodir") in str(raised.value) and not list(tmp_path.iterdir())


def test_wrong_argument_types_are_named(tmp_path) -> None:
    model = puzzleplan.load(EXAMPLES / "sokoban" / "seed-004.yaml")
    for keywords, said in ((dict(to="png", frame=1.5), "frame: expected a whole number"),
                           (dict(to="png", frame=True), "frame: expected a whole number"),
                           (dict(to="gif", seconds="1"), "seconds: expected a number, got '1'"),
                           (dict(to="gif", scale="2"), "scale: expected a number, got '2'")):
        with pytest.raises(ValueError, match=said):   # a RenderError
            puzzleplan.render(model, "urR", **keywords)
    six = puzzleplan.load(SIX)
    with pytest.raises(TypeError, match=r"plan: expected moves as text \(or whole numbers, as tiles' digits\), got 1.5"):
        puzzleplan.check(six, ["L", 1.5])
    assert not puzzleplan.check(six, [3, 2, 3, 0], "digits").valid   # read, not an AttributeError


def test_engine_options_are_checked_against_their_type_and_engine() -> None:
    model = puzzleplan.load(SIX)
    with pytest.raises(ValueError, match="workers: expected a whole number from 1 to 64, got 'x'"):
        puzzleplan.solve(model, "pbfs", workers="x")
    with pytest.raises(ValueError, match="strategy: goes with engine sat or cpsat, not bfs"):
        puzzleplan.solve(model, "bfs", strategy="binary")
    with pytest.raises(ValueError, match="workers: goes with engine cpsat or pbfs or push, not astar"):
        puzzleplan.solve(model, "astar", workers=2)
    with pytest.raises(ValueError, match="strategy: expected one of"):
        puzzleplan.solve(model, "sat", strategy="sideways")
    with pytest.raises(ValueError, match="heuristic: engine bfs takes none"):
        puzzleplan.solve(model, heuristic="manhattan", engine="bfs")
    with pytest.raises(ValueError, match="heuristic: expected one of manhattan, pdb for tiles, got 'zz'"):
        puzzleplan.solve(model, "idastar", heuristic="zz")
    with pytest.raises(ValueError, match="partition: goes with engine idastar or dfs, not astar"):
        puzzleplan.solve(model, "astar", partition=[["1", "2"]])
    assert puzzleplan.solve(model, "sat", strategy="binary", card="ladder").status is puzzleplan.Status.OPTIMAL


def test_write_plan_takes_a_plan_or_a_result_as_check_and_render_do() -> None:
    model = puzzleplan.load(EXAMPLES / "sokoban" / "seed-004.yaml")
    result = puzzleplan.solve(model)
    assert puzzleplan.write_plan(model, result.plan, "lurd") == puzzleplan.write_plan(model, result) == "urRlDldRR\n"
    unsolvable = puzzleplan.load(EXAMPLES / "sokoban" / "unsolvable.yaml")
    with pytest.raises(ValueError, match="holds no plan"):
        puzzleplan.write_plan(unsolvable, puzzleplan.solve(unsolvable))


def test_compare_asks_the_push_encoding_its_pushes_as_the_command_line_does(capsys) -> None:
    model = puzzleplan.load(EXAMPLES / "sokoban" / "pocket.yaml", {"metric": "pushes"})
    rows = puzzleplan.compare(model, encodings=["sok-push", "sas-seq"], solvers=["cadical195"])
    assert [(t.encoding, t.horizon, t.result) for t in rows] == [("sok-push", 8, "sat"), ("sas-seq", 28, "sat")]
    code, out, _ = run_cli(capsys, "compare", EXAMPLES / "sokoban" / "pocket.yaml", "--metric", "pushes",
                           "--encodings", "sok-push", "sas-seq", "--solvers", "cadical195", "--json")
    assert code == 0 and [(r["encoding"], r["horizon"]) for r in __import__("json").loads(out)] == [
        ("sok-push", 8), ("sas-seq", 28)]


def test_compare_export_decode_and_the_task_as_the_commands_give_them(tmp_path) -> None:
    model = puzzleplan.load(EXAMPLES / "tiles" / "small-2x3.yaml")
    rows = puzzleplan.compare(model, encodings=["tiles-moves", "cp-tiles-table"], solvers=["cadical195", "glucose4"])
    assert [(t.encoding, t.solver, t.result) for t in rows] == [
        ("tiles-moves", "cadical195", "sat"), ("tiles-moves", "glucose4", "sat"), ("cp-tiles-table", "cp-sat", "sat")]
    assert {t.length for t in rows} == {13} and all(t.valid for t in rows)
    below = puzzleplan.compare(model, horizon=12, encodings=["tiles-moves"])   # the command line's two solvers
    assert [(t.solver, t.result) for t in below] == [("cadical195", "unsat"), ("glucose4", "unsat")]
    twice = puzzleplan.compare(model, horizon=12, encodings=["tiles-moves"] * 2, solvers=["cadical195"] * 2)
    assert [(t.encoding, t.solver) for t in twice] == [("tiles-moves", "cadical195")]   # a name given twice runs once
    assert [p.name for p in puzzleplan.export(model, "pddl", tmp_path / "pddl")] == ["domain.pddl", "problem.pddl"]
    cnf, variables = puzzleplan.export(model, "dimacs", tmp_path / "x.cnf", horizon=13)
    from pysat.formula import CNF
    from pysat.solvers import Solver
    with Solver(name="cadical195", bootstrap_with=CNF(from_file=str(cnf)).clauses) as solver:
        assert solver.solve()
        found = "v " + " ".join(map(str, solver.get_model())) + " 0"
    moves = puzzleplan.decode(model, variables.read_text(), found)
    assert len(moves) == 13 and puzzleplan.check(model, moves).valid
    (tmp_path / "x.sol").write_text(found)
    assert puzzleplan.decode(model, variables, tmp_path / "x.sol") == moves   # the files' paths
    with pytest.raises(ValueError, match=r"^expected the variable map's JSON \(as export writes it beside"):
        puzzleplan.decode(model, str(variables), found)
    assert len(puzzleplan.compile_task(model).actions) > 0
    with pytest.raises(ValueError, match="a pddl export states the puzzle itself, at no horizon"):
        puzzleplan.export(model, "pddl", tmp_path / "again", horizon=3)
    with pytest.raises(ValueError, match="no encoding 'nope'"):
        puzzleplan.compare(model, encodings=["nope"])


def test_partition_reads_as_on_the_command_line_and_check_knows_its_notations() -> None:
    model = puzzleplan.load(EXAMPLES / "tiles" / "eight-31.yaml")
    for partition in ("1 2 3 4 / 5 6 7 8", [[1, 2, 3, 4], [5, 6, 7, 8]], [["1", "2", "3", "4"], ["5", "6", "7", "8"]]):
        assert puzzleplan.solve(model, "idastar", partition=partition).plan.length == 31
    for empty in ("/", "", []):
        with pytest.raises(ValueError, match="at least one group"):
            puzzleplan.solve(model, "idastar", partition=empty)
    with pytest.raises(ValueError, match="expected blank, digits or tiles"):
        puzzleplan.check(model, "5 8", notation="bogus")
    safe = puzzleplan.load(SAFE)   # faces d and u: the check names its own parameter, not the flag
    with pytest.raises(ValueError, match=r"give notation='blank' or notation='tiles'$"):
        puzzleplan.check(safe, "d")
    assert puzzleplan.check(safe, "X", "blank").error.endswith("expected U D L R (notation='blank')")


def test_a_metric_the_family_lacks_is_refused_by_the_model_itself() -> None:
    klotski = puzzleplan.load(EXAMPLES / "blocks" / "klotski.yaml")
    with pytest.raises(ValueError, match="expected one of step, slide, piece for blocks, got 'pieces'"):
        klotski.with_metric("pieces")
    with pytest.raises(ValueError, match="got 'pieces'"):
        klotski.with_changes(metric="pieces")
    piece = klotski.with_changes(metric="piece", max_moves=100)
    assert (piece.metric, piece.max_moves) == ("piece", 100)
    assert puzzleplan.solve(piece).plan.length == 81


def test_export_names_its_parameters_and_the_command_line_its_flags(capsys, tmp_path) -> None:
    path = EXAMPLES / "sokoban" / "seed-004.yaml"
    model = puzzleplan.load(path)
    with pytest.raises(ValueError, match=r"^to: expected one of dimacs, cpsat, pddl, got PDDL$"):
        puzzleplan.export(model, "PDDL", tmp_path / "out")
    with pytest.raises(ValueError, match=r"^horizon: a dimacs export encodes one horizon; give one$"):
        puzzleplan.export(model, "dimacs", tmp_path / "x.cnf")
    code, out, err = run_cli(capsys, "export", path, "--to", "dimacs", "-o", tmp_path / "x.cnf")
    assert code == 2 and err.strip() == "puzzleplan: error: --horizon: a dimacs export encodes one horizon; give --horizon T"
    for extra in ([], ["--horizon", "3"]):   # the format is named before the arguments that go with it
        code, out, err = run_cli(capsys, "export", path, "--to", "PDDL", "-o", tmp_path / "out", *extra)
        assert code == 2 and err.strip() == "puzzleplan: error: --to: expected one of dimacs, cpsat, pddl, got PDDL"
    assert list(tmp_path.iterdir()) == []
