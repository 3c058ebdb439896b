"""CLI wording and hygiene: honest partial explorations, argparse messages under --json, batch's
refusal of an existing table before any header, notation-specific hints, verify's table and limit line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KLOTSKI = EXAMPLES / "blocks" / "klotski.yaml"
WALLS = EXAMPLES / "rush-hour" / "walls.yaml"
SMALL = EXAMPLES / "tiles" / "seed-002-small.yaml"

SWAPPED = """puzzle: tiles
name: swapped 2x2
start: |
  a b
  c _
goal: |
  b a
  c _
"""


def nearest(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("nearest goal:"))


# -- 1. explore: only a complete sweep says no goal is reachable -------------------------------------

def test_partial_exploration_does_not_claim_the_goal_unreachable(capsys, monkeypatch) -> None:
    for memory, args in (("none", [KLOTSKI, "--max-states", "100"]), ("1", [KLOTSKI]),
                         ("none", [WALLS, "--max-states", "10"])):
        monkeypatch.setenv("PUZZLEPLAN_MEMORY_LIMIT", memory)
        code, out, err = run_cli(capsys, "explore", *args)
        assert code == 3, (args, out, err)
        assert "counts below are partial" in out
        assert nearest(out).startswith("nearest goal:  none found before the exploration stopped (")
        assert "reachable (" not in nearest(out)


def test_partial_exploration_json_says_limit_reached(capsys) -> None:
    code, out, _ = run_cli(capsys, "explore", KLOTSKI, "--max-states", "100", "--json")
    data = json.loads(out)
    assert code == 3 and data["status"] == "limit_reached" and data["goal_distance"] is None
    assert "state limit" in data["message"]


def test_complete_exploration_still_says_no_goal_is_reachable(capsys, tmp_path: Path) -> None:
    path = tmp_path / "swapped.yaml"
    path.write_text(SWAPPED)
    code, out, _ = run_cli(capsys, "explore", path)
    assert code == 0 and "status:" not in out
    assert nearest(out) == "nearest goal:  no goal is reachable"


# -- 2. argparse errors under --json carry the message --------------------------------------------------

def test_usage_error_json_carries_the_argparse_message(capsys) -> None:
    code, out, err = run_cli(capsys, "solve", SMALL, "--time-limit", "-1", "--json")
    assert code == 2
    data = json.loads(out)
    assert out.count("\n") == 1 and data["status"] == "error"
    assert data["error"] == "argument --time-limit: expected a number of seconds above 0 and below 1e9, got -1"
    assert err.strip() == f"puzzleplan solve: error: {data['error']}"


def test_unknown_option_json_names_it(capsys) -> None:
    code, out, err = run_cli(capsys, "solve", SMALL, "--bogus", "--json")
    assert code == 2 and json.loads(out) == {"status": "error", "error": "unrecognized arguments: --bogus"}
    assert "error: unrecognized arguments: --bogus" in err


def test_usage_error_without_json_leaves_stdout_empty(capsys) -> None:
    code, out, err = run_cli(capsys, "solve", SMALL, "--time-limit", "-1")
    assert code == 2 and out == ""
    assert err.strip() == "puzzleplan solve: error: argument --time-limit: expected a number of seconds above 0 and below 1e9, got -1"


# -- 3. batch refuses an existing table before printing anything ---------------------------------------

def test_batch_existing_table_is_one_error_line(capsys, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"name: tiny\ninstances:\n  - file: {SMALL}\nengines: [bfs]\nlimits: {{time_limit: 20}}\n")
    table = tmp_path / "out.csv"
    code, out, err = run_cli(capsys, "batch", spec, "-o", table, "--workers", "1", "--quiet")
    assert code == 0 and table.is_file(), err
    code, out, err = run_cli(capsys, "batch", spec, "-o", table, "--workers", "1")
    assert code == 2 and out == ""
    assert err == f"puzzleplan: error: {table} exists: --resume continues it, --overwrite starts it again\n"
    code, out, err = run_cli(capsys, "batch", spec, "-o", table, "--workers", "1", "--json")
    assert code == 2 and json.loads(out)["error"].endswith("exists: --resume continues it, --overwrite starts it again")
    assert out.count("\n") == 1


# -- 4. a malformed plan's hint names the notation asked for -----------------------------------------------

def test_notation_hint_matches_the_notation(capsys) -> None:
    code, out, _ = run_cli(capsys, "check", SMALL, "--notation", "blank", "00323003222")
    assert code == 1
    assert "move 1 of 11 ('0'): not a move; expected U D L R (--notation blank)" in out
    assert "digits" not in out and "tile face" not in out
    code, out, _ = run_cli(capsys, "check", SMALL, "--notation", "digits", "0032X")
    assert code == 1 and "move 5 of 5 ('X'): not a move; expected digits 0-3 (--notation digits)" in out
    assert "U D L R" not in out
    code, out, _ = run_cli(capsys, "check", SMALL, "0032X")   # no notation asked: every one is named
    assert code == 1 and "expected U D L R (or digits 0-3 / a tile face)" in out


# -- 5. verify: columns sized to their content, an honest limit line ---------------------------------------

def table_lines(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("method "))
    return lines[start:-1]


def test_verify_columns_line_up_with_long_claims(capsys) -> None:
    code, out, _ = run_cli(capsys, "verify", SMALL)
    assert code == 0 and out.splitlines()[-1] == "verified: the minimal move count is 11"
    header, *rows = table_lines(out)
    assert any("UNSAT at 9, parity rules out 10" in row for row in rows)
    starts = [header.index(word) for word in ("claim", "result", "seconds")]
    for row in rows:
        for at in starts:
            assert row[at - 2:at] == "  " and row[at] != " ", (row, at)


def test_verify_limit_line_counts_the_rows_a_limit_cut_short() -> None:
    from puzzleplan.encoders.certify import Certificate
    from puzzleplan.plans.verify import Verification
    rows = [Certificate("idastar", "optimum 31", "holds", 0.5, holds=True, kind="optimum", horizon=31, answer="holds"),
            Certificate("sat tiles-pdb cadical195", "plan of 31", "holds", 0.1, kind="plan", horizon=31, answer="holds"),
            Certificate("sat tiles-pdb cadical195", "no plan <= 30", "unknown (time limit)", 1.0, kind="bound",
                        horizon=30),
            Certificate("cpsat cp-sas", "plan of 31", "unknown (time limit)", 0.0, kind="plan", horizon=31)]
    found = Verification("limit_reached", 31, 31, True, rows, 3)
    assert found.summary() == ("limit_reached: 2 rows unanswered at the time limit; "
                               "no method contradicts the optimum 31")
    rows[2].result = "unknown (memory limit of 900 MiB)"
    assert found.summary() == ("limit_reached: 2 rows unanswered at the memory limit of 900 MiB and the time limit; "
                               "no method contradicts the optimum 31")


def test_verify_keeps_the_bound_the_native_search_proved_before_a_limit(capsys) -> None:
    from puzzleplan.models import load
    from puzzleplan.plans.cli.output import print_verification
    from puzzleplan.plans.core.types import Result, Status
    from puzzleplan.plans.verify import Verification
    model = load(EXAMPLES / "sokoban" / "seed-004.yaml", overrides={"metric": "pushes"})
    native = Result(Status.LIMIT_REACHED, "push", lower_bound=3, message="time limit of 2.91 s reached")
    found = Verification("limit_reached", None, None, None, [], 3, native.message, native)
    print_verification(model, found)
    out = capsys.readouterr().out
    assert "native push: limit_reached: time limit of 2.91 s reached" in out
    assert "bound:   every plan needs at least 3 pushes" in out
    assert found.as_dict()["lower_bound"] == 3


def test_a_time_limit_is_written_as_a_user_would() -> None:
    from puzzleplan.plans.core.context import _seconds
    assert [_seconds(x) for x in (600, 0.5, 2.90928, 0.001, 1200.0)] == ["600", "0.5", "2.91", "0.001", "1200"]


def test_ctrl_c_during_warm_up_is_an_interrupt_not_an_internal_error(capsys, monkeypatch) -> None:
    import puzzleplan.plans.solve as solving
    from puzzleplan.plans.core.types import Result, Stats, Status

    def interrupted(model, engine=None, request=None, ctx=None):
        return Result(Status.LIMIT_REACHED, engine or "idastar", None, None, Stats(), "interrupted (Ctrl-C)")
    monkeypatch.setattr(solving, "solve", interrupted)
    code, out, err = run_cli(capsys, "warm-up", "--json")
    assert code == 3 and json.loads(out) == {"status": "limit_reached", "message": "interrupted (Ctrl-C)"}
    assert err.strip() == "puzzleplan: interrupted"


def test_pdb_build_refuses_a_state_limit_and_reports_ctrl_c_as_a_limit(capsys, monkeypatch) -> None:
    eight = str(EXAMPLES / "tiles" / "eight-31.yaml")
    code, out, err = run_cli(capsys, "pdb", "build", eight, "--max-states", "10")
    assert code == 2 and "--max-states does not apply" in err and out == ""
    import puzzleplan.models.tiles.pdb as pdb

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(pdb, "databases_for", interrupted)
    code, out, err = run_cli(capsys, "pdb", "build", eight, "--json")
    assert code == 3 and json.loads(out)["message"] == "interrupted (Ctrl-C)"


def test_pdb_build_says_which_tables_stay_in_memory_only(capsys) -> None:
    eight = str(EXAMPLES / "tiles" / "eight-31.yaml")
    code, out, _ = run_cli(capsys, "pdb", "build", eight, "--partition", "1 2 3 4 / 5 6 7 8", "--json")
    data = json.loads(out)
    assert code == 0 and [row["cached"] for row in data["tables"]] == [False, False]
    assert len(data["built"]) + len(data["loaded"]) == 2      # loaded: kept in this process by an earlier build
    code, out, _ = run_cli(capsys, "pdb", "build", eight, "--partition", "1 2 3 4 / 5 6 7 8")
    assert "2 under 65,536 entries kept in memory only" in out
    code, _, err = run_cli(capsys, "pdb", "build", eight, "--partition", "/")
    assert code == 2 and "at least one group" in err


# -- outputs: special files are written through, a bad second output is refused before the search ---

def test_a_device_or_fifo_output_is_written_through_not_replaced(capsys, tmp_path: Path) -> None:
    import os
    import stat
    import threading
    code, _, err = run_cli(capsys, "solve", SMALL, "--plan-file", os.devnull)
    assert code == 0, err
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)          # still the device, not a regular file
    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, _, err = run_cli(capsys, "solve", SMALL, "--plan-file", fifo)
    reader.join(timeout=60)
    assert code == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and got and got[0].strip()


def test_a_bad_render_path_is_refused_before_the_plan_file_is_written(capsys, tmp_path: Path) -> None:
    plan = tmp_path / "p.plan"
    code, out, err = run_cli(capsys, "solve", SMALL, "--plan-file", plan, "--render", tmp_path / "no" / "x.html")
    assert code == 2 and out == "" and "--render" in err and err.count("\n") == 1
    assert not plan.exists()


def test_export_into_a_folder_leaves_no_map_behind(capsys, tmp_path: Path) -> None:
    folder = tmp_path / "adir"
    folder.mkdir()
    code, _, err = run_cli(capsys, "export", SMALL, "--to", "dimacs", "--horizon", "3", "-o", folder)
    assert code == 2 and "is a folder" in err
    assert list(tmp_path.iterdir()) == [folder]


def test_a_pddl_export_writes_both_files_or_neither(capsys, tmp_path: Path) -> None:
    """A folder in the way of problem.pddl left domain.pddl written; a missing parent folder is
    refused as the DIMACS export refuses it, and the folder named is made when its parent exists."""
    out = tmp_path / "d"
    (out / "problem.pddl").mkdir(parents=True)
    code, _, err = run_cli(capsys, "export", SMALL, "--to", "pddl", "-o", out)
    assert code == 2 and "problem.pddl: cannot write: is a folder" in err
    assert [p.name for p in out.iterdir()] == ["problem.pddl"]
    code, _, err = run_cli(capsys, "export", SMALL, "--to", "pddl", "-o", tmp_path / "no" / "such")
    assert code == 2 and "no such folder" in err and not (tmp_path / "no").exists()
    code, _, _ = run_cli(capsys, "export", SMALL, "--to", "pddl", "-o", tmp_path / "new")
    assert code == 0 and sorted(p.name for p in (tmp_path / "new").iterdir()) == ["domain.pddl", "problem.pddl"]


@pytest.mark.parametrize("output", [".", "sub/", ".."])
def test_a_formula_export_to_a_folder_asks_for_a_file_name(capsys, tmp_path: Path, monkeypatch, output: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "export", SMALL, "--to", "dimacs", "--horizon", "3", "-o", output)
    assert code == 2 and f"-o: {output} is a folder; a dimacs export writes one file" in err
    assert list(tmp_path.iterdir()) == []


def test_verify_stopped_while_compiling_the_task_answers_in_its_own_shape(capsys, monkeypatch) -> None:
    """A limit in the task's compilation, before or after the native search, gives verify's JSON
    (summary, certificates, the native bound), not the bare two fields of a command stopped early."""
    import puzzleplan.encoders.certify as certify
    import puzzleplan.plans.cli.commands_encode as commands
    from puzzleplan.plans.core.context import LimitReached

    def stopped(*_):
        raise LimitReached("time limit of 1 s reached", "time limit")
    monkeypatch.setattr(certify, "costed", stopped)
    code, out, _ = run_cli(capsys, "verify", SMALL, "--json")
    found = json.loads(out)
    assert code == 3 and found["status"] == "limit_reached" and found["certificates"] == []
    assert found["summary"].endswith("while compiling the planning task, before any encoding ran")
    assert found["lower_bound"] == 11          # the native search's optimum, proved before the limit
    monkeypatch.setattr(commands, "_encodings_arg", stopped)
    code, out, _ = run_cli(capsys, "verify", SMALL)
    assert code == 3 and "limit_reached: time limit of 1 s reached while compiling the planning task, before any " \
                         "method ran" in out
