"""Plan files: every catalogue example's plan written in puzzleplan's notation, Fast Downward's
format and (Sokoban) LURD is read back by `check` as the same plan; the fd writer prints what
Fast Downward prints; the LURD reader takes run-lengths, wrapped lines and one move, and names
the line of anything else."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue import CASES, EXAMPLES, heavy_blocks_task
from helpers import fast_downward, run_cli, run_json
from puzzleplan.encoders.pddl import moves_from_planner_plan, task_pddl
from puzzleplan.models import load
from puzzleplan.models.pddl.plan import tokens
from puzzleplan.plans.check import PlanNotationError, check_plan
from puzzleplan.plans.core.types import Limits, Request
from puzzleplan.plans.core.words import clip_path
from puzzleplan.plans.planfile import FORMATS, PlanFormatError, is_fd_text, read_lurd, write_plan
from puzzleplan.plans.solve import default_engine, solve

SOKOBAN = EXAMPLES / "sokoban"


def _deep(case) -> str | None:
    """Why a case is left out of the round trip (its plan takes too long to find or to ground)."""
    if case.optimal is None:
        return "no known optimum: nothing to round-trip"
    if heavy_blocks_task(case):
        return "grounding a deep or many-look-alike sliding-block task for the fd names takes seconds per metric"
    return None


ROUND_TRIP = [c for c in CASES if _deep(c) is None]


def _optimal_plan(model):
    request = Request(max_moves=model.max_moves, limits=Limits(time_limit=20))
    result = solve(model, default_engine(model, request), request)
    assert result.plan is not None, result.message
    return result.plan


@pytest.mark.parametrize("case", ROUND_TRIP, ids=lambda c: c.id)
def test_every_format_reads_back_as_the_same_plan(case) -> None:
    model = case.model()
    plan = _optimal_plan(model)
    moves = list(plan.moves)
    native = write_plan(model, moves, "puzzleplan")
    report = check_plan(model, native)
    assert report.valid and report.length == len(moves), report.error
    fd = write_plan(model, moves, "fd")
    assert len(fd.splitlines()) == len(moves) + 1 and fd.endswith(")\n")
    assert int(re.search(r"; cost = (\d+)", fd).group(1)) == plan.cost == case.optimal
    report = check_plan(model, fd)
    assert report.valid and report.length == len(moves), report.error
    if case.family == "sokoban":
        lurd = write_plan(model, moves, "lurd")
        assert read_lurd(lurd) == moves
        report = check_plan(model, lurd)
        assert report.valid and report.length == len(moves), report.error
    else:
        with pytest.raises(PlanFormatError, match="lurd is Sokoban's notation"):
            write_plan(model, moves, "lurd")


@pytest.mark.parametrize("path, fmt, extra", [
    (EXAMPLES / "tiles" / "small-2x3.yaml", "fd", ()),
    (EXAMPLES / "tiles" / "malok-safe.yaml", "digits", ()),        # the seed's 0-3
    (EXAMPLES / "rush-hour" / "walls.yaml", "fd", ("--metric", "slide")),
    (SOKOBAN / "two-boxes.yaml", "lurd", ("--metric", "pushes")),
    (SOKOBAN / "two-boxes.yaml", "fd", ("--metric", "pushes")),
    (EXAMPLES / "pddl" / "ferry.yaml", "fd", ()),
    (EXAMPLES / "rules" / "hanoi.yaml", "puzzleplan", ()),
    (EXAMPLES / "user" / "hanoi.yaml", "fd", ()),                 # a Python class: its enumerated task
])
def test_solve_writes_a_plan_file_that_check_reads(capsys, tmp_path: Path, path: Path, fmt: str, extra) -> None:
    out = tmp_path / "plan.txt"
    code, data = run_json(capsys, "solve", path, "--plan-file", out, "--plan-format", fmt, *extra)
    assert code == 0 and data["plan_file"] == str(out)
    code, report = run_json(capsys, "check", path, f"@{out}", *extra)
    assert code == 0 and report["valid"] and report["length"] == data["length"]
    code, text, _ = run_cli(capsys, "solve", path, "--plan-file", out, "--plan-format", fmt, *extra)
    assert code == 0 and f"wrote:   {out} ({fmt})" in text


def test_a_format_that_does_not_fit_is_refused_before_the_search(capsys, tmp_path: Path) -> None:
    out = tmp_path / "plan"
    code, text, err = run_cli(capsys, "solve", EXAMPLES / "tiles" / "small-2x3.yaml", "--plan-file", out,
                              "--plan-format", "lurd")
    assert code == 2 and text == "" and not out.exists()
    assert err.startswith("puzzleplan: error: --plan-format lurd:") and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "solve", SOKOBAN / "turn.yaml", "--plan-file", out, "--plan-format", "digits")
    assert code == 2 and "digits is the sliding tiles' notation, not sokoban's" in err and not out.exists()
    code, _, err = run_cli(capsys, "solve", SOKOBAN / "turn.yaml", "--plan-format", "fd")
    assert code == 2 and "--plan-file" in err
    code, _, err = run_cli(capsys, "solve", SOKOBAN / "turn.yaml", "--all-optimal", "--plan-file", out)
    assert code == 2 and "--all-optimal" in err and not out.exists()
    code, text, err = run_cli(capsys, "solve", SOKOBAN / "turn.yaml", "--all-optimal", "--engine", "greedy")
    assert code == 2 and text == "" and "--engine does not apply" in err
    code, _, err = run_cli(capsys, "solve", SOKOBAN / "turn.yaml", "--plan-file", tmp_path / "no" / "dir" / "p")
    assert code == 2 and "cannot write" in err and not (tmp_path / "no").exists()


def test_no_plan_writes_no_file(capsys, tmp_path: Path) -> None:
    out = tmp_path / "plan"
    code, _, err = run_cli(capsys, "solve", SOKOBAN / "unsolvable.yaml", "--plan-file", out)
    assert code == 1 and not out.exists() and "not written" in err


def test_fd_text_is_told_apart_and_a_plan_of_no_moves_reads() -> None:
    assert is_fd_text("(u_3 )\n; cost = 1 (unit cost)\n")
    assert is_fd_text("; a comment first\n(u_3 )\n")
    assert is_fd_text("; cost = 0 (unit cost)\n")
    assert not is_fd_text("U;L;D") and not is_fd_text("urDR") and not is_fd_text("; just a note\n")
    solved = load(SOKOBAN / "first-push.yaml")
    text = write_plan(solved, ["R"], "fd")
    assert text.startswith("(r_") and text.endswith("; cost = 1 (unit cost)\n")   # a plan of one move
    assert check_plan(solved, text).valid
    report = check_plan(solved, "; cost = 0 (unit cost)\n")   # no moves: read, and the goal is not reached
    assert not report.valid and report.length == 0 and "not reached" in report.error


# -- what Fast Downward prints --------------------------------------------------------------------


FD = fast_downward()


@pytest.mark.skipif(FD is None, reason="up-fast-downward is not installed (pip install -e '.[test]')")
@pytest.mark.parametrize("path, metric", [
    (EXAMPLES / "pddl" / "ferry.yaml", None),                 # action costs: general cost
    (SOKOBAN / "two-boxes.yaml", "pushes"),                   # walks cost 0
    (EXAMPLES / "tiles" / "small-2x3.yaml", None),            # unit cost
    ("puzzle: pddl\ndomain: |\n  (define (domain lamp) (:requirements :strips :negative-preconditions) (:predicates (on) (lit))\n"
     "    (:action flip :parameters () :precondition (not (on)) :effect (on))\n"
     "    (:action light :parameters () :precondition (on) :effect (lit)))\n"
     "problem: |\n  (define (problem one) (:domain lamp) (:init) (:goal (lit)))\n", None),   # no arguments
])
def test_the_fd_writer_prints_what_fast_downward_prints(tmp_path: Path, path: Path | str, metric: str | None) -> None:
    """On the export, or on a PDDL puzzle's own domain and problem (its moves are their actions,
    `(go a b)`, and `(flip )` for one without arguments)."""
    if isinstance(path, str):
        (tmp_path / "puzzle.yaml").write_text(path)
        path = tmp_path / "puzzle.yaml"
    model = load(path, {"metric": metric} if metric else None)
    domain, problem = model.pddl_texts if model.family == "pddl" else task_pddl(model)
    (tmp_path / "domain.pddl").write_text(domain)
    (tmp_path / "problem.pddl").write_text(problem)
    done = subprocess.run([sys.executable, str(FD), "--plan-file", "plan", "domain.pddl", "problem.pddl",
                           "--search", "astar(lmcut())"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-400:]
    printed = (tmp_path / "plan").read_text()
    moves = tokens(printed) if model.family == "pddl" else moves_from_planner_plan(model, printed)
    assert write_plan(model, moves, "fd") == printed


# -- LURD ------------------------------------------------------------------------------------------
def test_plan_files_may_hold_comment_lines_and_come_from_standard_input(capsys, tmp_path: Path,
                                                                         monkeypatch) -> None:
    """Whole lines starting ; or # are notes, in every family's notation; `@-` reads stdin."""
    import io
    plan = "; found by hand\n# the primary waits\nA-1 A-1\n"
    board = tmp_path / "left.yaml"
    board.write_text("puzzle: rush-hour\nexit: left\nboard: |\n  ......\n  ..AA..\n  ......\n")
    (tmp_path / "plan.txt").write_text(plan)
    assert run_cli(capsys, "check", board, f"@{tmp_path / 'plan.txt'}")[:2] == (0, "valid: 2 moves reach the goal\n")
    monkeypatch.setattr("sys.stdin", io.StringIO(plan))
    assert run_cli(capsys, "check", board, "@-")[:2] == (0, "valid: 2 moves reach the goal\n")
    code, _, err = run_cli(capsys, "check", "-", "@-")        # one standard input cannot hold both
    assert code == 2 and "cannot both come from standard input" in err


def test_lurd_reads_run_lengths_wrapped_lines_and_one_move() -> None:
    assert read_lurd("3l2U") == list("lllUU")
    assert read_lurd("ur\nD l\n  dR\r\n") == list("urDldR")
    assert read_lurd("R") == ["R"] and read_lurd("") == [] and read_lurd("12r") == ["r"] * 12
    assert read_lurd("u, r;D") == list("urD")                           # the separators of every family
    assert read_lurd("r2\nd3 L") == list("rddLLL")                     # a wrap between a count and its letter
    model = load(SOKOBAN / "two-boxes.yaml")
    assert check_plan(model, "u r D\nldR\nuRu\nrD\n").valid                 # wrapped as .sok files store it
    assert check_plan(model, "urDldRuRurD").length == 11
    assert check_plan(load(SOKOBAN / "first-push.yaml"), "R").valid      # one move


def test_lurd_skips_comment_lines_and_a_label_and_repeats_groups() -> None:
    """What solution files put around the moves: `; ...` lines, `Solution:`, `2(lu)` groups."""
    assert read_lurd("; solution by someone\nSolution: urR\n2(lD)ld\n; end\n") == list("urRlDlDld")
    assert read_lurd("Solution (9 moves, 4 pushes): ur2(R2(l)D)") == list("urRllDRllD")
    assert read_lurd("u;r;D") == list("urD")                                # a ';' inside a line still separates
    model = load(SOKOBAN / "two-boxes.yaml")
    assert check_plan(model, "; from a .sok file\nSolution: urDldRuRurD\n").valid


@pytest.mark.parametrize("text, line, column, words", [
    ("urD\nlxdR\n", 2, 2, "'x' is not a LURD move"),
    ("urD 3", 1, 5, "the count '3' repeats no move"),
    ("ur\n\n0D", 3, 1, "the count '0' is not from 1"),
    ("u(r)", 1, 2, "'(' is not a LURD move"),
    ("u 99999999999r", 1, 3, "is not from 1"),
])
def test_lurd_errors_name_the_line_and_column(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(PlanNotationError) as info:
        read_lurd(text)
    message = str(info.value)
    assert message.startswith(f"plan line {line}, column {column}: ") and words in message
    assert "\n" not in message


def test_check_names_the_plan_file_of_a_bad_lurd_line(capsys, tmp_path: Path) -> None:
    plan = tmp_path / "level.lurd"
    plan.write_text("urD\nldR\nuRx\n")
    code, out, err = run_cli(capsys, "check", SOKOBAN / "two-boxes.yaml", f"@{plan}")
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.strip() == (f"puzzleplan: error: {clip_path(plan)}: plan line 3, column 3: 'x' is not a LURD move; "
                           "expected l u r d (walk), L U R D (push), a count before a letter repeating it (3r)")


def test_a_long_plan_path_keeps_its_file_name(capsys, tmp_path: Path) -> None:
    folder = tmp_path / ("deep" * 30)
    folder.mkdir()
    plan = folder / "level.lurd"
    plan.write_text("uRx\n")
    code, out, err = run_cli(capsys, "check", SOKOBAN / "two-boxes.yaml", f"@{plan}")
    named = err.strip().removeprefix("puzzleplan: error: ").split(": plan line")[0]
    assert code == 2 and out == "" and "\n" not in err.strip()
    assert named.startswith("...") and named.endswith("/level.lurd") and len(named) <= 80


def _runs(moves: list[str]) -> str:
    """The moves with runs written as counts (`rrrU` -> `3rU`)."""
    return "".join(f"{len(m.group(0))}{m.group(1)}" if len(m.group(0)) > 1 else m.group(0)
                   for m in re.finditer(r"([lurdLURD])\1*", "".join(moves)))


@given(st.data(), st.sampled_from(["two-boxes", "pocket", "l-room", "storage"]), st.integers(1, 12))
@settings(max_examples=60, deadline=None)
def test_lurd_round_trips_random_walks(data, level: str, width: int) -> None:
    """A random legal walk, written as LURD, read back as it was: plain, with run-length counts
    and wrapped at any width; the checker replays it to the same state the model reaches."""
    model = load(SOKOBAN / f"{level}.yaml")
    state, moves = model.initial(), []
    for _ in range(data.draw(st.integers(0, 40))):
        options = list(model.successors(state))
        if not options:
            break
        action, state = options[data.draw(st.integers(0, len(options) - 1))]
        moves += model.plan_moves([action])
    text = write_plan(model, moves, "lurd")
    assert read_lurd(text) == moves
    runs = _runs(moves)
    assert read_lurd(runs) == moves
    pieces = re.findall(r"[0-9]*[lurdLURD]", runs)      # a count stays with its letter
    wrapped = "\n".join(" ".join(pieces[i:i + width]) for i in range(0, len(pieces), width))
    assert read_lurd(wrapped) == moves
    report = check_plan(model, text)
    assert report.error is None or "not reached" in report.error
    assert report.goal_reached == model.is_goal(state)


def test_formats_are_the_ones_the_cli_offers(capsys) -> None:
    code, _, err = run_cli(capsys, "solve", SOKOBAN / "turn.yaml", "--plan-file", "x", "--plan-format", "sas")
    assert code == 2 and all(f in err for f in FORMATS)


SWITCHES = """\
puzzle: rules
name: twelve switches
sets:
  k: 1..12
variables:
  x[k]: 0..1
init:
  x[*]: 0
goal:
  x[1]: 1
  x[2]: 1
actions:
  flip:
    params: {i: k}
    effects:
      x[i]: 1 - x[i]
    name: "{i}"
"""


def test_one_character_moves_of_a_rules_file_are_spaced_so_they_read_back(capsys, tmp_path: Path) -> None:
    """Moves 1 and 2 run together would read as the move 12."""
    (tmp_path / "switches.yaml").write_text(SWITCHES)
    model = load(tmp_path / "switches.yaml")
    result = solve(model)
    assert result.plan.moves == ("1", "2") and result.plan.text() == "1 2"
    assert write_plan(model, result, "puzzleplan") == "1 2\n" and check_plan(model, result.plan.text()).valid
    code, out, _ = run_cli(capsys, "solve", tmp_path / "switches.yaml", "--plan-file", tmp_path / "s.plan")
    assert code == 0 and "plan:    1 2\n" in out and (tmp_path / "s.plan").read_text() == "1 2\n"
    code, out, _ = run_cli(capsys, "solve", tmp_path / "switches.yaml", "--all-optimal")
    assert code == 0 and "plan:    1 2\n" in out and "plan:    2 1\n" in out
    tiles = load(EXAMPLES / "tiles" / "small-2x3.yaml")
    assert " " not in solve(tiles).plan.text()   # a family with a reader of its own keeps its runs


@pytest.mark.parametrize("path", ["tiles/small-2x3.yaml", "rules/hanoi.yaml", "sokoban/seed-004.yaml",
                                  "rush-hour/walls.yaml"])
def test_val_time_stamped_plans_of_the_export_read_as_fast_downwards(path: str) -> None:
    """`0.000: (action) [1]`, as VAL and temporal planners print a plan."""
    model = load(EXAMPLES / path)
    moves = list(solve(model).plan.moves)
    lines = [line for line in write_plan(model, moves, "fd").splitlines() if line.startswith("(")]
    stamped = "".join(f"{i}.000: {line} [1]\n" for i, line in enumerate(lines))
    assert is_fd_text(stamped)
    report = check_plan(model, stamped)
    assert report.valid and report.length == len(moves), report.error


def test_write_plan_reads_plan_text_as_check_does_and_refuses_illegal_moves() -> None:
    walls = load(EXAMPLES / "rush-hour" / "walls.yaml")
    result = solve(walls)
    by_moves = write_plan(walls, result, "seed-003")
    assert write_plan(walls, result.plan.text(), "seed-003") == by_moves
    assert write_plan(walls, by_moves, "fd") == write_plan(walls, result, "fd")   # seed notation read back
    tiles = solve(load(EXAMPLES / "tiles" / "small-2x3.yaml"))
    with pytest.raises(PlanFormatError, match=r"^the plan is not one of this puzzle: move 1 of 13 \('L'\)"):
        write_plan(load(SOKOBAN / "seed-004.yaml"), tiles, "lurd")
    six = load(EXAMPLES / "tiles" / "small-2x3.yaml")
    said = set()
    for plan in ("LLLL", ["L", "L", "L", "L"]):   # text or moves: one wording
        with pytest.raises(PlanFormatError) as raised:
            write_plan(six, plan)
        said.add(str(raised.value))
    assert said == {"the plan is not one of this puzzle: move 3 of 4 ('L'): the blank at row 1, column 1 cannot "
                    "move left (board edge)"}


def test_a_format_that_does_not_fit_names_those_that_do() -> None:
    from puzzleplan.plans.planfile import supports
    assert supports(load(SOKOBAN / "seed-004.yaml"), "digits").endswith("(use puzzleplan, fd or lurd)")
    assert supports(load(EXAMPLES / "rush-hour" / "walls.yaml", {"metric": "slide"}), "cells").endswith(
        "(use puzzleplan, fd or seed-003)")
    assert supports(load(EXAMPLES / "tiles" / "small-2x3.yaml"), "digits") is None
