"""`compare` under its limits: one --time-limit over the whole command, rows a limit stopped
shown as such (exit 3), --memory-limit held, Ctrl-C keeping the finished rows, --csv checked
before any row, and a native search stopped before the horizon was known."""
from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest

from helpers import run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SMALL = EXAMPLES / "tiles" / "small-2x3.yaml"     # horizon 13: every row answers in milliseconds
EIGHT = EXAMPLES / "tiles" / "eight-31.yaml"      # horizon 31: tiles-dirs on glucose4 takes about 1 s
QUICK_ROWS = ["--horizon", "13", "--encodings", "tiles-moves", "--solvers", "cadical195", "glucose4"]


def test_one_time_limit_covers_every_row(capsys, monkeypatch) -> None:
    """Each row gets what is left of one limit; rows that find none left are unknown at once."""
    import puzzleplan.encoders.certify as certify
    real = certify.solve_one
    asked: list[float | None] = []

    def slow(*args, **kwargs):
        asked.append(args[6])    # the row's time limit
        time.sleep(1.0)
        return real(*args, **kwargs)
    monkeypatch.setattr(certify, "solve_one", slow)
    code, out, _ = run_cli(capsys, "compare", SMALL, *QUICK_ROWS, "--repeat", "2", "--time-limit", "2", "--json")
    rows = json.loads(out)
    assert code == 3
    assert len(asked) == 4 and asked[0] <= 2 and asked[1] < 1.5 and asked[2:] == [0.0, 0.0]
    assert rows[0]["result"] == "sat"
    assert [r["result"] for r in rows[2:]] == ["unknown (time limit)"] * 2
    assert [r["limit"] for r in rows[2:]] == ["time limit"] * 2


def test_a_sat_row_cut_by_the_time_limit_shows_how_long_it_ran(capsys) -> None:
    # Korf #55 at its optimum takes glucose far longer than 2 s; the limit counts from the
    # command's start, so the row gets what loading leaves of it, even on a loaded machine
    args = ["compare", EXAMPLES / "tiles" / "korf-055.yaml", "--horizon", "41", "--encodings", "tiles-dirs",
            "--solvers", "glucose4", "--time-limit", "2"]
    code, out, _ = run_cli(capsys, *args, "--json")
    [row] = json.loads(out)
    assert code == 3
    assert row["result"] == "unknown (time limit)" and row["limit"] == "time limit"
    assert row["variables"] is None and row["constraints"] is None and row["build_seconds"] is None
    assert 0 < row["solve_seconds"] <= 2 + 5 and row["seconds"] == row["solve_seconds"]
    code, out, _ = run_cli(capsys, *args)
    line = out.splitlines()[-1].split()
    assert code == 3
    assert line[3:6] == ["-", "-", "-"] and 0 < float(line[6]) <= 2 + 5 and " ".join(line[7:]) == "unknown (time limit)"


def test_the_memory_limit_holds_sat_rows(capsys, monkeypatch) -> None:
    import puzzleplan.encoders.runner as runner
    monkeypatch.setattr(runner, "MEMORY_POLL", 0.001)
    monkeypatch.setattr(runner, "resident_mb", lambda pid="self": 10.0**6)   # as if the solver grew without bound
    code, out, _ = run_cli(capsys, "compare", SMALL, *QUICK_ROWS, "--memory-limit", "50000", "--json")
    rows = json.loads(out)
    assert code == 3 and len(rows) == 2
    assert {r["result"] for r in rows} == {"unknown (memory limit of 50000 MiB)"}


def test_the_memory_limit_holds_cpsat_rows(capsys, monkeypatch) -> None:
    import puzzleplan.encoders.cpsat.base as cpsat
    monkeypatch.setattr(cpsat, "WATCH_EVERY", 0.001)
    monkeypatch.setattr(cpsat, "resident_mb", lambda pid="self": 10.0**6)
    code, out, _ = run_cli(capsys, "compare", EIGHT, "--horizon", "31", "--encodings", "cp-tiles-table",
                           "--memory-limit", "50000", "--time-limit", "3", "--json")
    [row] = json.loads(out)
    assert code == 3 and row["result"] == "unknown (memory limit of 50000 MiB)"
    assert row["variables"] > 0   # CP-SAT built its model: its size is known


@pytest.mark.parametrize("form", ["json", "csv", "text"])
def test_ctrl_c_keeps_the_finished_rows(capsys, monkeypatch, tmp_path: Path, form: str) -> None:
    import puzzleplan.encoders.certify as certify
    real = certify.solve_one
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    monkeypatch.setattr(certify, "solve_one", interrupted)
    table = tmp_path / "rows.csv"
    extra = {"json": ["--json"], "csv": ["--csv", table], "text": []}[form]
    code, out, err = run_cli(capsys, "compare", SMALL, *QUICK_ROWS, *extra)
    assert code == 3 and "puzzleplan: interrupted" in err and "Traceback" not in err
    if form == "json":
        data = json.loads(out)
        assert data["status"] == "limit_reached" and data["message"] == "interrupted (Ctrl-C) after 1 of 2 rows"
        assert [r["result"] for r in data["rows"]] == ["sat"]
    if form == "csv":
        rows = list(csv.DictReader(table.open()))
        assert [(r["solver"], r["result"]) for r in rows] == [("cadical195", "sat")]
    if form != "json":
        lines = out.splitlines()
        assert "cadical195" in lines[-2] and lines[-1] == "interrupted (Ctrl-C) after 1 of 2 rows"


@pytest.mark.parametrize("where", ["missing/rows.csv", "."], ids=["no-folder", "a-folder"])
def test_an_unwritable_csv_is_refused_before_any_row(capsys, monkeypatch, tmp_path: Path, where: str) -> None:
    import puzzleplan.encoders.certify as certify
    import puzzleplan.plans.cli.commands_encode as commands
    from puzzleplan.plans.core.words import clip_path

    def never(*args, **kwargs):
        raise AssertionError("a row ran before --csv was checked")
    monkeypatch.setattr(certify, "solve_one", never)
    monkeypatch.setattr(commands, "compare_horizon", never)
    path = tmp_path / where
    code, out, err = run_cli(capsys, "compare", SMALL, "--encodings", "tiles-moves", "--csv", path)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"puzzleplan: error: --csv {clip_path(str(path))}: cannot write")
    assert list(tmp_path.iterdir()) == []   # nothing left behind


def test_a_native_search_stopped_by_a_limit_is_exit_3_with_a_hint(capsys) -> None:
    code, out, err = run_cli(capsys, "compare", EIGHT, "--max-states", "100")
    assert code == 3 and out == ""
    assert err.splitlines() == ["puzzleplan: state limit of 100 reached before the horizon was known; "
                                "give --horizon T to skip the native search"]
    code, out, _ = run_cli(capsys, "compare", EIGHT, "--max-states", "100", "--json")
    data = json.loads(out)
    assert code == 3 and data["status"] == "limit_reached" and data["rows"] == []
    assert "--horizon" in data["message"]


def test_a_cp_sat_build_is_held_to_the_time_limit(capsys) -> None:
    """A CP-SAT model grows with the horizon: its build, not only its solve, stops at the limit."""
    started = time.monotonic()
    code, out, _ = run_cli(capsys, "compare", str(EXAMPLES / "tiles" / "korf-012.yaml"), "--encodings",
                           "cp-tiles-table", "--horizon", "40000", "--time-limit", "1", "--json")
    rows = json.loads(out)
    assert code == 3 and [row["result"] for row in rows] == ["unknown (time limit)"]
    assert time.monotonic() - started < 20   # the whole build takes about 35 s and 2 GB
