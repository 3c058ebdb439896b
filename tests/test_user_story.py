"""Issue F's traps around "give me a plan": plans as users write them, the Python API, verify's
verdicts and its one time limit, the default memory limit, no orphan processes, the words."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue import CASES, EXAMPLES
from helpers import run_cli, run_json
from puzzleplan.models import load
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.memory import default_memory_limit_mb, parse_memory_limit
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Limits, Request, Status

SAFE = EXAMPLES / "tiles" / "malok-safe.yaml"
SMALL = EXAMPLES / "tiles" / "seed-002-small.yaml"
KORF79 = EXAMPLES / "tiles" / "korf-079.yaml"
SEED000 = EXAMPLES / "rush-hour" / "seed-000-hardest.yaml"
WALLS = EXAMPLES / "rush-hour" / "walls.yaml"
HANOI = EXAMPLES / "user" / "hanoi.yaml"
JUGS = EXAMPLES / "user" / "water-jugs.yaml"
SOKOBAN = EXAMPLES / "sokoban" / "seed-004.yaml"


def _children() -> list[int]:
    """Live (not zombie) child processes of this test process, from /proc."""
    me = os.getpid()
    kids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z":
            kids.append(int(entry.name))
    return kids


# -- plans as users write them --------------------------------------------------------------------
@pytest.mark.parametrize("case", [c for c in CASES if c.optimal is not None and c.blind_ok], ids=lambda c: c.id)
def test_printed_plan_reads_back(capsys, case) -> None:
    """What `solve` prints on its `plan:` line, `check` accepts: one-move plans included."""
    code, data = run_json(capsys, "solve", case.path, "--metric", case.metric)
    assert code == 0
    printed = next(line for line in run_cli(capsys, "solve", case.path, "--metric", case.metric)[1].splitlines()
                   if line.startswith("plan:"))[len("plan:"):].strip()
    code, out, err = run_cli(capsys, "check", case.path, printed, "--metric", case.metric)
    assert code == 0, (printed, out, err)
    assert out.startswith("valid:")
    assert data["cost"] == case.optimal


def test_one_move_plans_read_as_one_move(capsys) -> None:
    code, out, _ = run_cli(capsys, "check", SEED000, "A+1")
    assert "move 1 of 1 ('A+1')" in out          # one move, not three characters
    code, out, _ = run_cli(capsys, "check", HANOI, "1>3")
    assert "after all 1 move the goal" in out     # one move, worded in the singular
    assert check_plan(load(HANOI), "1>21>32>31>23>13>21>21>32>32>13>12>31>21>32>3").valid  # user moves run together
    assert check_plan(load(WALLS, {"metric": "slide"}), "G-1D+3E-2A+4").valid  # Rush Hour moves run together


def test_sokoban_lurd_wrapped_and_run_length(capsys) -> None:
    plan = solve(load(SOKOBAN)).plan.text()
    wrapped = "\n".join(plan[i:i + 3] for i in range(0, len(plan), 3))
    code, out, _ = run_cli(capsys, "check", SOKOBAN, wrapped)
    assert code == 0 and out.startswith("valid")
    compact = "".join(f"{len(run)}{run[0]}" if len(run) > 1 else run for run in _runs(plan))
    assert check_plan(load(SOKOBAN), compact).valid


def _runs(text: str) -> list[str]:
    runs: list[str] = []
    for ch in text:
        if runs and runs[-1][0] == ch:
            runs[-1] += ch
        else:
            runs.append(ch)
    return runs


def test_plan_notation_is_never_guessed(capsys) -> None:
    """On the safe (faces a..h), `d` is a face and a direction: refused, naming --notation."""
    code, out, err = run_cli(capsys, "check", SAFE, "d")
    assert code == 2 and "--notation" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run_cli(capsys, "check", SAFE, "d", "--notation", "tiles")
    assert code == 1 and "no tile 'd' is next to the blank" in out
    code, out, _ = run_cli(capsys, "check", SAFE, "D", "--notation", "blank")
    assert "cannot move down" in out
    code, out, _ = run_cli(capsys, "check", SAFE, "U")  # no face U on this board: a direction
    assert code == 1 and "goal is not reached" in out
    code, out, err = run_cli(capsys, "check", EXAMPLES / "rush-hour" / "walls.yaml", "A+1", "--notation", "digits")
    assert code == 2 and out == "" and "tiles plan" in err     # other families have one notation


def test_decode_reads_at_file_and_refuses_a_foreign_map(capsys, tmp_path) -> None:
    from puzzleplan.encoders.certify import proof_options
    from puzzleplan.encoders.export import export_dimacs
    from pysat.formula import CNF
    from pysat.solvers import Solver
    model = load(SMALL)
    cnf_path = tmp_path / "small.cnf"
    map_path = export_dimacs(model, "tiles-moves", proof_options(model)[0].with_(goal="by"), 11, cnf_path)
    with Solver(name="glucose4", bootstrap_with=CNF(from_file=str(cnf_path)).clauses) as sat:
        assert sat.solve()
        assignment = sat.get_model()
    solution = tmp_path / "model.txt"
    solution.write_text("v " + " ".join(map(str, assignment)) + " 0\n")
    code, out, _ = run_cli(capsys, "decode", SMALL, "--map", map_path, f"@{solution}")
    assert code == 0 and "valid" in out
    code, out, err = run_cli(capsys, "decode", SEED000, "--map", map_path, f"@{solution}")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    code, _, err = run_cli(capsys, "decode", SMALL, "--map", map_path, "@" + "x" * 5000)
    assert code == 2 and len(err) < 300


# -- the Python API ---------------------------------------------------------------------------------
def test_api_honours_the_file_cap_and_default_limits() -> None:
    model = load(SMALL, {"max_moves": 9})         # optimum 11
    result = solve(model, "dfs")
    assert result.status is Status.NO_PLAN_WITHIN_CAP and result.lower_bound == 10
    assert Limits().memory_mb is not None and Limits().memory_mb >= 256
    assert Limits(memory_mb=None).memory_mb is None


def test_memory_limit_ends_a_search_cleanly() -> None:
    model = load(EXAMPLES / "tiles" / "words-3x4.yaml")
    result = solve(model, "bfs", Request(limits=Limits(memory_mb=1)))
    assert result.status is Status.LIMIT_REACHED and "memory limit" in result.message


def test_memory_limit_words(monkeypatch) -> None:
    assert parse_memory_limit("4G") == 4096 and parse_memory_limit("none") is None
    assert parse_memory_limit("1.5G") == 1536 and parse_memory_limit("1") == 1
    for bad in ("lots", "0.5", "0.0001G", "-3", "nan"):   # under 1 MiB was read as 1 MiB
        with pytest.raises(ValueError):
            parse_memory_limit(bad)
    monkeypatch.setenv("PUZZLEPLAN_MEMORY_LIMIT", "1234")
    assert default_memory_limit_mb() == 1234 and Limits().memory_mb == 1234
    monkeypatch.setenv("PUZZLEPLAN_MEMORY_LIMIT", "none")
    assert Limits().memory_mb is None
    monkeypatch.setenv("PUZZLEPLAN_MEMORY_LIMIT", "garbage")      # said, not silently ignored
    with pytest.raises(ValueError, match="PUZZLEPLAN_MEMORY_LIMIT: expected MiB, '4G' or 'none', got 'garbage'"):
        Limits()


_SCRIPT = f"""
from puzzleplan.models import load
from puzzleplan.plans.solve import solve
print("BODY")
result = solve(load({str(SMALL)!r}), "sat")
print(result.status.value, result.plan.length if result.plan else None)
"""


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_sat_child_never_imports_the_callers_script(tmp_path, how) -> None:
    """A script without a __main__ guard runs once, and a here-document works too."""
    if how == "file":
        script = tmp_path / "noguard.py"
        script.write_text(_SCRIPT)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                              cwd=tmp_path)
    else:
        done = subprocess.run([sys.executable, "-"], input=_SCRIPT, capture_output=True, text=True, timeout=120,
                              cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("BODY") == 1
    assert "optimal 11" in done.stdout and "Traceback" not in done.stderr


# -- limits: on time, no orphans, verify's verdicts --------------------------------------------------
def _new_children(before: set[int]) -> list[int]:
    """Children started since `before` that are still alive after a short grace period
    (other tests may leave long-lived helpers such as multiprocessing's forkserver)."""
    deadline = time.monotonic() + 5
    while True:
        new = [p for p in _children() if p not in before]
        if not new or time.monotonic() > deadline:
            return new
        time.sleep(0.1)


def test_sat_time_limit_kills_the_solver_and_leaves_no_child(capsys) -> None:
    before = set(_children())
    started = time.monotonic()
    code, data = run_json(capsys, "solve", KORF79, "--engine", "sat", "--time-limit", "2")
    elapsed = time.monotonic() - started
    assert code == 3 and data["status"] == "limit_reached"
    assert elapsed < 2 * 1.1 + 8   # the limit, plus start-up (imports, encoding build)
    assert _new_children(before) == []


def test_verify_time_limit_covers_the_whole_command(capsys) -> None:
    before = set(_children())
    started = time.monotonic()
    code, out, _ = run_cli(capsys, "verify", KORF79, "--time-limit", "3")
    elapsed = time.monotonic() - started
    assert code == 3, out
    assert "DISAGREEMENT" not in out
    assert elapsed < 3 * 1.1 + 8
    assert _new_children(before) == []


def test_verify_refutes_a_false_claim_without_crying_disagreement(capsys) -> None:
    code, out, _ = run_cli(capsys, "verify", SMALL, "--claim", "9")
    assert code == 1 and "DISAGREEMENT" not in out and "refuted" in out
    code, data = run_json(capsys, "verify", SMALL, "--claim", "9")
    assert data["status"] == "refuted" and data["optimal"] == 11
    code, out, _ = run_cli(capsys, "verify", SMALL)
    assert code == 0 and "verified: the minimal move count is 11" in out


def test_certificate_contradictions() -> None:
    from puzzleplan.encoders.certify import Certificate
    plan = Certificate("m", "plan of 9", "", 0.0, kind="plan", horizon=9, answer="holds")
    assert plan.contradicts(11) and not plan.contradicts(9)
    bound = Certificate("m", "no plan <= 8", "", 0.0, kind="bound", horizon=8, answer="fails")
    assert not bound.contradicts(8) and bound.contradicts(9)
    unknown = Certificate("m", "no plan <= 8", "", 0.0, kind="bound", horizon=8, answer="unknown")
    assert not unknown.contradicts(3)


# -- words ------------------------------------------------------------------------------------------
def test_bare_command_prints_usage(capsys) -> None:
    code, out, err = run_cli(capsys)
    assert code == 2 and "usage: puzzleplan" in err and "solve" in err


def test_encodings_command_named_by_help_exists(capsys) -> None:
    code, out, _ = run_cli(capsys, "encodings", SAFE)
    assert code == 0 and "tiles-moves" in out and "rh-order" not in out
    code, rows = run_json(capsys, "encodings")
    assert {"tiles-moves", "rh-order", "cp-sok"} <= {r["name"] for r in rows}


def test_pdb_build_takes_limits(capsys) -> None:
    code, out, err = run_cli(capsys, "pdb", "build", SMALL, "--time-limit", "60", "--memory-limit", "4G")
    assert code == 0, err


def test_errors_are_json_too(capsys) -> None:
    code, out, err = run_cli(capsys, "solve", "no-such-file.yaml", "--json")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert json.loads(out) == {"status": "error", "error": "no-such-file.yaml: no such file"}
    code, out, err = run_cli(capsys, "solve", SAFE, "--json", "--time-limit", "soon")
    assert code == 2 and json.loads(out)["status"] == "error" and len(err.strip().splitlines()) == 1


def test_singular_words(capsys) -> None:
    code, out, _ = run_cli(capsys, "solve", SAFE, "--max-moves", "1", "--engine", "bfs")
    assert code == 1 and "1 moves" not in out and "within 1 move" in out
    code, out, _ = run_cli(capsys, "explore", HANOI)
    assert "(1 goal state in all)" in out


def test_uncapped_dfs_through_the_api_stops_at_the_memory_limit() -> None:
    """Without the file's cap, a graph DFS on the safe's 10^13 states once grew to 13.5 GB."""
    model = load(SAFE).with_changes(max_moves=None)
    result = solve(model, "dfs", Request(limits=Limits(memory_mb=1, time_limit=60)))
    assert result.status is Status.LIMIT_REACHED and "memory" in result.message


def test_explore_stops_at_the_memory_limit(capsys, monkeypatch) -> None:
    monkeypatch.setenv("PUZZLEPLAN_MEMORY_LIMIT", "1")   # the flag refuses a limit this process already passes
    code, out, _ = run_cli(capsys, "explore", EXAMPLES / "tiles" / "words-3x4.yaml")
    assert code == 3 and "memory limit" in out


def test_a_memory_limit_below_what_the_process_holds_is_refused(capsys) -> None:
    code, out, err = run_cli(capsys, "solve", SMALL, "--memory-limit", "1")
    assert code == 2 and out == ""
    assert "--memory-limit: expected more than the" in err and "MiB this process already holds, got 1" in err


def test_cold_kernels_are_announced(capsys, monkeypatch) -> None:
    import puzzleplan.plans.warmup as warmup
    monkeypatch.setattr(warmup, "kernels_cached", lambda modules=None: False)
    code, out, err = run_cli(capsys, "solve", SMALL)
    assert code == 0 and "compiling the search kernels" in err and "warm-up" in err
    code, out, err = run_cli(capsys, "solve", SMALL, "--quiet")
    assert err == ""


def test_cold_kernels_are_announced_for_the_engines_that_use_them(capsys, monkeypatch) -> None:
    """Sokoban's `push` engine is compiled; its generic `astar` is not and says nothing."""
    import puzzleplan.plans.warmup as warmup
    monkeypatch.setattr(warmup, "kernels_cached", lambda modules=None: False)
    level = EXAMPLES / "sokoban" / "two-boxes.yaml"
    code, _, err = run_cli(capsys, "solve", level)
    assert code == 0 and "compiling the search kernels" in err
    code, _, err = run_cli(capsys, "solve", level, "--engine", "astar")
    assert code == 0 and err == ""


def test_cold_kernels_are_announced_for_an_encoding_that_loads_them(capsys, monkeypatch) -> None:
    """tiles-pdb's bound runs the compiled tables on boards over 9 cells (Korf #55), not on the
    8-puzzle; other encodings never load them."""
    import argparse
    import puzzleplan.plans.warmup as warmup
    from puzzleplan.plans.cli.common import note_cold_kernels
    monkeypatch.setattr(warmup, "kernels_cached", lambda modules=None: False)
    args = argparse.Namespace(quiet=False, json=False)
    korf, eight = load(EXAMPLES / "tiles" / "korf-055.yaml"), load(EXAMPLES / "tiles" / "eight-31.yaml")
    for model, engine, names, said in ((korf, "sat", ["tiles-pdb"], True), (korf, "sat", ["tiles-dirs"], False),
                                       (eight, "sat", ["tiles-pdb"], False), (korf, "verify", ["tiles-pdb"], True),
                                       (eight, "idastar", [], True)):
        note_cold_kernels(model, engine, args, names)
        assert ("compiling the search kernels" in capsys.readouterr().err) is said, (engine, names)


def test_table_kernels_alone_cold_are_announced_only_for_an_encoding_that_loads_tables(capsys, monkeypatch) -> None:
    """A solve that builds no pattern database never compiles its kernels (a build shows its own
    progress line): it was told of a compile at every run, the safe's 0.7 s included."""
    import argparse
    import puzzleplan.plans.warmup as warmup
    from puzzleplan.models.family import family
    from puzzleplan.plans.cli.common import note_cold_kernels
    tables = family("tiles").table_kernels
    monkeypatch.setattr(warmup, "kernels_cached", lambda modules=None: not set(tables) & set(modules or ()))
    args = argparse.Namespace(quiet=False, json=False)
    korf, safe = load(EXAMPLES / "tiles" / "korf-055.yaml"), load(EXAMPLES / "tiles" / "malok-safe.yaml")
    for model, engine, names, said in ((safe, "idastar", [], False), (korf, "idastar", [], False),
                                       (korf, "sat", ["tiles-pdb"], True), (korf, "sat", ["tiles-dirs"], False)):
        note_cold_kernels(model, engine, args, names)
        assert ("compiling the search kernels" in capsys.readouterr().err) is said, (engine, names)


def test_warm_up_compiles_and_leaves_the_cache_alone(capsys) -> None:
    from puzzleplan.models.tiles import pdb as tiles_pdb
    before = sorted(p.name for p in tiles_pdb.cache_dir().glob("*")) if tiles_pdb.cache_dir().exists() else []
    code, report = run_json(capsys, "warm-up")
    assert code == 0 and report["cached"] is True and {"tiles", "sokoban"} <= set(report["families"])
    after = sorted(p.name for p in tiles_pdb.cache_dir().glob("*")) if tiles_pdb.cache_dir().exists() else []
    assert before == after


def test_all_optimal_checks_within_the_time_limit(capsys) -> None:
    """207,936 optimal plans: listing and checking them stop together at the limit."""
    started = time.monotonic()
    code, data = run_json(capsys, "solve", EXAMPLES / "rush-hour" / "seed-003-card.yaml", "--all-optimal",
                          "--time-limit", "1")
    elapsed = time.monotonic() - started
    assert code == 3 and data["count"] == 207_936 and not data["complete"]
    assert "time limit" in data["message"] and 0 < len(data["plans"]) < data["count"]
    assert elapsed < 1 * 1.1 + 2


def test_warm_up_names_numbas_cache_dir_when_one_is_set(monkeypatch, tmp_path) -> None:
    from puzzleplan.plans.warmup import _cache_dirs
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert _cache_dirs("puzzleplan.models.tiles.heuristic_kernels")[0] == tmp_path
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert _cache_dirs("puzzleplan.models.tiles.heuristic_kernels")[0].name == "__pycache__"


def test_faces_of_several_characters_run_together_read_as_the_one_legal_split(capsys) -> None:
    """Korf #12's blank (row 3, column 4) is next to 5, 3 and 15: under --notation tiles `15` is
    the tile 15, not 1 then 5, and `1513` is 15 then 13, the one split whose moves are legal."""
    korf = EXAMPLES / "tiles" / "korf-012.yaml"
    code, out, _ = run_cli(capsys, "check", korf, "15", "--notation", "tiles")
    assert code == 1 and "after all 1 move the goal is not reached" in out
    code, out, _ = run_cli(capsys, "check", korf, "1513", "--notation", "tiles")
    assert code == 1 and "after all 2 moves the goal is not reached" in out
    code, out, _ = run_cli(capsys, "check", korf, "1", "--notation", "tiles")
    assert code == 1 and "no tile '1' is next to the blank" in out
    code, _, err = run_cli(capsys, "check", korf, "1" * 20, "--notation", "tiles")
    assert code == 2 and "more than 256 ways; separate its moves" in err


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=8))
def test_a_legal_run_of_faces_reads_back_as_itself_or_is_refused(steps: list[int]) -> None:
    from puzzleplan.plans.check.common import PlanNotationError
    from puzzleplan.plans.check.tiles import regrouped, tokens
    model = load(EXAMPLES / "tiles" / "korf-012.yaml")
    grid = [list(row) for row in model.start_grid]
    r, c = 2, 3
    faces = []
    for step in steps:   # a walk of the blank, each move named by the face it slides
        dr, dc = ((-1, 0), (0, 1), (1, 0), (0, -1))[step]
        if 0 <= r + dr < 4 and 0 <= c + dc < 4:
            faces.append(grid[r + dr][c + dc])
            grid[r][c], grid[r + dr][c + dc] = grid[r + dr][c + dc], "_"
            r, c = r + dr, c + dc
    text = "".join(faces)
    try:
        read = regrouped(model, text, tokens(text), "tiles")
    except PlanNotationError as exc:
        assert "ways; separate its moves" in str(exc)
        return
    assert read == faces or not text
