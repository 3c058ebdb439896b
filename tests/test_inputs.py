"""The inputs a user expects: `-` reads the puzzle from standard input, a tiles file without
`goal:` has the standard goal, Fogleman's Rush Hour database lines load as levels (their
published figures checked against our solver), and `decode` takes `@FILE` for its map too."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from catalogue import EXAMPLES
from helpers import run_cli, run_json
from puzzleplan.models import ModelError, load, loads
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Limits
from puzzleplan.plans.explore import explore
from puzzleplan.plans.solve import solve

SAMPLE = EXAMPLES / "rush-hour" / "rush-sample.txt"
TWO_BOXES = EXAMPLES / "sokoban" / "two-boxes.yaml"


def _stdin(monkeypatch, text: str | bytes) -> None:
    data = text.encode("utf-8") if isinstance(text, str) else text
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


# -- standard input ----------------------------------------------------------------------------------
def test_dash_reads_the_puzzle_from_stdin_once(capsys, monkeypatch) -> None:
    _stdin(monkeypatch, TWO_BOXES.read_text())
    code, data = run_json(capsys, "solve", "-", "--metric", "pushes")   # --metric loads it twice: one read
    assert code == 0 and data["cost"] == 4 and data["file"] == "-" and data["metric"] == "pushes"
    for command in (["check", "-", "urDldRuRurD"], ["explore", "-"], ["convert", "-", "--to", "xsb"]):
        _stdin(monkeypatch, TWO_BOXES.read_text())
        code, out, err = run_cli(capsys, *command)
        assert code == 0 and err == "" and out, command


def test_an_unnamed_puzzle_from_stdin_is_called_by_its_source(capsys, monkeypatch) -> None:
    _stdin(monkeypatch, "puzzle: tiles\nstart: |\n  2 1\n  3 _\n")
    code, data = run_json(capsys, "solve", "-")
    assert data["puzzle"] == "<stdin>"
    _stdin(monkeypatch, "puzzle: tiles\nstart: |\n  2 1\n  3 _\n")
    code, out, _ = run_cli(capsys, "convert", "-", "--to", "yaml")
    assert code == 0 and "name:" not in out   # the placeholder is the output's, not the puzzle's


def test_rush_hour_database_lines_come_through_stdin_too(capsys, monkeypatch) -> None:
    """`MOVES BOARD CLUSTER` lines piped in, as a rush.txt file is read; --level picks one."""
    lines = [line for line in (EXAMPLES / "rush-hour" / "rush-sample.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    _stdin(monkeypatch, "\n".join(lines[:2]) + "\n")
    code, data = run_json(capsys, "solve", "-", "--level", "2")
    assert code == 0 and data["cost"] == int(lines[1].split()[0]) and data["metric"] == "slide"
    _stdin(monkeypatch, "\n".join(lines[:2]) + "\n")
    code, _, err = run_cli(capsys, "solve", "-")
    assert code == 2 and "holds several puzzles" in err and "--level" in err


@pytest.mark.parametrize("text, fragment", [
    ("puzzle: tiles\nstart: |\n  1 2 3\n  4 _ x y\n", "<stdin>:4: field 'start': row 2 has 4 faces"),
    ("puzzle: [\n", "<stdin>:2: YAML syntax error"),
    ("", "<stdin>:1: empty file"),
    (b"puzzle: \xff\n", "<stdin>: not UTF-8 text"),
])
def test_stdin_errors_name_stdin(capsys, monkeypatch, text, fragment: str) -> None:
    _stdin(monkeypatch, text)
    code, out, err = run_cli(capsys, "solve", "-")
    assert code == 2 and out == "" and err.startswith(f"puzzleplan: error: {fragment}"), err
    assert len(err.strip().splitlines()) == 1


def test_stdin_holds_one_yaml_puzzle_or_xsb_levels(capsys, monkeypatch) -> None:
    _stdin(monkeypatch, "puzzle: tiles\nstart: |\n  1 2\n  3 _\n")
    code, _, err = run_cli(capsys, "solve", "-", "--level", "2")
    assert code == 2 and "<stdin>: --level is for level collections" in err and "this text holds none of them" in err
    _stdin(monkeypatch, "; A\n#####\n#@$.#\n#####\n\n; B\n######\n#@$ .#\n######\n")
    code, out, _ = run_cli(capsys, "solve", "-", "--level", "B")
    assert code == 0 and "plan:    RR" in out
    _stdin(monkeypatch, "; A\n#####\n#@$.#\n#####\n\n; B\n######\n#@$ .#\n######\n")
    code, out, _ = run_cli(capsys, "solve", "-", "--level", "B", "--metric", "pushes")   # standard input read once
    assert code == 0 and "2 pushes, 2 moves" in out


def test_load_reads_dash_as_stdin(monkeypatch) -> None:
    _stdin(monkeypatch, TWO_BOXES.read_text())
    assert load("-", {"metric": "pushes"}).metric == "pushes"


# -- tiles without goal: -----------------------------------------------------------------------------
def test_tiles_without_a_goal_get_the_standard_goal() -> None:
    model = loads("puzzle: tiles\nstart: |\n  3 1 2\n  10 _ 4\n  5 9 8\n  7 6 11\n")
    assert model.goal_grid == (("1", "2", "3"), ("4", "5", "6"), ("7", "8", "9"), ("10", "11", "_"))
    words = loads("puzzle: tiles\nstart: |\n  b a 2\n  _ a 10\n")      # numbers by value, then letters; repeats
    assert words.goal_grid == (("2", "10", "a"), ("a", "b", "_"))
    hexed = loads("puzzle: tiles\nnotation: hex\nstart: 1F3C 5A29 0478 DBE6\n")
    assert hexed.goal_grid[-1] == ("D", "E", "F", "_") and hexed.goal_grid[2] == ("9", "A", "B", "C")
    korf = loads("puzzle: tiles\nnotation: korf\nstart: 1 0 2 3\n")      # korf keeps its own: blank first
    assert korf.goal_grid == (("_", "1"), ("2", "3"))


def test_a_goalless_file_solves_as_the_explicit_one(capsys, tmp_path: Path) -> None:
    stated = load(EXAMPLES / "tiles" / "eight-31.yaml")
    assert stated.goal_grid == (("1", "2", "3"), ("4", "5", "6"), ("7", "8", "_"))
    rows = "\n".join("  " + " ".join(row) for row in stated.start_grid)
    goalless = tmp_path / "eight.yaml"
    goalless.write_text(f"puzzle: tiles\nstart: |\n{rows}\n")
    code, data = run_json(capsys, "solve", goalless)
    assert code == 0 and data["length"] == stated.expect["optimal"] == 31


# -- Fogleman's rush.txt -------------------------------------------------------------------------
def _sample_lines() -> list[list[str]]:
    return [line.split() for line in SAMPLE.read_text().splitlines() if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("level", range(1, len(_sample_lines()) + 1))
def test_database_levels_match_their_published_figures(level: int) -> None:
    moves, board, cluster = _sample_lines()[level - 1]
    model = load(SAMPLE, level=str(level))
    assert model.metric == "slide" and model.name == f"rush-sample #{level}"
    assert model.expect == {"optimal_slide": int(moves), "reachable": int(cluster)}
    assert "".join(model.grid()).replace(".", "o") == board
    assert solve(model, "bfs").plan.length == int(moves)
    assert explore(model, SearchContext(Limits())).reachable == int(cluster)
    assert load(SAMPLE, level=board).expect == model.expect          # by its board


def test_database_levels_from_the_command_line(capsys) -> None:
    code, data = run_json(capsys, "solve", SAMPLE, "--level", "7")
    assert code == 0 and data["length"] == 4 and data["metric"] == "slide"
    code, data = run_json(capsys, "solve", SAMPLE, "--level", "7", "--metric", "step")
    assert code == 0 and data["metric"] == "step" and data["length"] == 10     # walls.yaml's optimal_step
    code, data = run_json(capsys, "solve", SAMPLE, "--level", "7", "--metric", "step", "--max-moves", "9")
    assert code == 1 and data["plan"] is None
    code, _, err = run_cli(capsys, "solve", SAMPLE)
    assert code == 2 and "choose one with --level" in err


@pytest.mark.parametrize("lines, level, fragment", [
    ("49 CCCBDEFGGBDEFoAADEHHIooooJIoKKoJLLMM 24132\n4 BBxoCDooooCDAAoEoDoooEooFxoGGGFooooo 432\n",
     None, "holds several puzzles"),
    ("4 BBxoCDooooCDAAoEoDoooEooFxoGGGFooooo 432\n", "3", "level '3': expected a number from 1 to 1"),
    ("# only a comment\n", None, ":1: no puzzle found"),
    ("4 BBxoCDooooCDAAoEoDoooEooFxoGGGFooooo 432\nfour BBxo 1\n", "2", ":2: expected 'MOVES BOARD CLUSTER'"),
    ("\n\n4 BBxoCDoooo?DAAoEoDoooEooFxoGGGFooooo 432\n", None, ":3: field 'board': unknown character '?'"),
    ("4 BBxoCDooooCDAAoEoDoooEooFxoGGGFooooo 432\n", "AAAA", "no puzzle has the board"),
])
def test_database_errors_name_the_file_and_line(tmp_path: Path, lines: str, level, fragment: str) -> None:
    path = tmp_path / "rush.txt"
    path.write_text(lines)
    with pytest.raises(ModelError) as info:
        load(path, level=level)
    assert str(info.value).startswith(str(path)) and fragment in str(info.value), str(info.value)


def test_a_database_line_without_a_cluster_size_reads(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("4 BBxoCDooooCDAAoEoDoooEooFxoGGGFooooo\n")
    model = load(path)
    assert model.expect == {"optimal_slide": 4} and solve(model, "bfs").plan.length == 4
    with pytest.raises(ModelError, match="cannot set walls"):
        load(path, {"walls": []})


# -- decode @FILE ----------------------------------------------------------------------------------
def test_decode_takes_at_files_for_the_map_and_the_solution(capsys, tmp_path: Path) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Solver
    level = EXAMPLES / "sokoban" / "turn.yaml"
    cnf = tmp_path / "turn.cnf"
    assert run_cli(capsys, "export", level, "--horizon", "5", "--to", "dimacs", "-o", cnf)[0] == 0
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
        (tmp_path / "turn.sol").write_text("s SATISFIABLE\nv " + " ".join(map(str, sat.get_model())) + " 0\n")
    code, data = run_json(capsys, "decode", level, "--map", f"@{cnf}.map.json", f"@{tmp_path / 'turn.sol'}")
    assert code == 0 and data["valid"] and data["length"] == 5
    code, _, err = run_cli(capsys, "decode", level, "--map", f"@{tmp_path / 'none.json'}", f"@{tmp_path / 'turn.sol'}")
    assert code == 2 and "none.json: no such file" in err and len(err.strip().splitlines()) == 1


def test_a_file_without_a_name_is_called_by_its_file(tmp_path) -> None:
    path = tmp_path / "my-level.yaml"
    path.write_text("puzzle: sokoban\nlevel: |\n  #####\n  #@$.#\n  #####\n")
    assert load(path).name == "my-level"
    path.write_text("puzzle: sokoban\nname: Named\nlevel: |\n  #####\n  #@$.#\n  #####\n")
    assert load(path).name == "Named"


def test_solve_notes_a_proof_that_contradicts_the_file_s_expect(capsys, monkeypatch) -> None:
    """A rush.txt line whose MOVES is wrong: the proved optimum is reported, with a note."""
    line = next(l for l in SAMPLE.read_text().splitlines() if l.strip() and not l.startswith("#"))
    moves = int(line.split()[0])
    _stdin(monkeypatch, line.replace(f"{moves} ", f"{moves + 2} ", 1) + "\n")
    code, out, err = run_cli(capsys, "solve", "-")
    assert code == 0 and f"optimal: {moves} moves" in out
    assert err.strip() == (f"puzzleplan: note: the file's expect: gives the optimum as {moves + 2} (slide); "
                           f"this search proved {moves}")
    _stdin(monkeypatch, line + "\n")
    assert run_cli(capsys, "solve", "-")[2] == ""      # agreeing: no note


def test_xsb_levels_in_a_file_without_their_suffix_are_named_so(capsys, tmp_path) -> None:
    (tmp_path / "level").write_text("#####\n#@$.#\n#####\n")
    code, out, err = run_cli(capsys, "solve", tmp_path / "level")
    assert code == 2 and out == "" and err.strip().endswith(
        "level:1: the file holds XSB levels, not a YAML puzzle; name it .xsb or .sok")
    (tmp_path / "broken.yaml").write_text("puzzle: sokoban\nlevel: |\n  #####\n  #@$.#\n  #####\nmetric: [x\n")
    code, out, err = run_cli(capsys, "solve", tmp_path / "broken.yaml")
    assert code == 2 and "YAML syntax error" in err   # a YAML puzzle's own error stands


def test_a_pipe_nobody_writes_to_ends_at_the_time_limit_and_one_written_is_read(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys
    import threading
    fifo = tmp_path / "puzzle"
    os.mkfifo(fifo)
    command = [sys.executable, "-m", "puzzleplan.plans.cli", "solve", str(fifo), "--time-limit", "1", "--json"]
    idle = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert idle.returncode == 3, idle.stderr
    assert json.loads(idle.stdout) == {"status": "limit_reached", "file": str(fifo),
                                       "message": "time limit of 1 s reached while reading the puzzle"}
    writer = threading.Thread(target=lambda: fifo.write_text((EXAMPLES / "tiles" / "small-2x3.yaml").read_text()))
    writer.start()
    written = subprocess.run(command[:-3] + ["--time-limit", "30", "--json"], capture_output=True, text=True, timeout=60)
    writer.join()
    assert written.returncode == 0 and json.loads(written.stdout)["length"] == 13
