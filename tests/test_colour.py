"""`solve --show` in colour on a terminal: the boards painted in their pictures' colours, only
when stdout is a terminal, NO_COLOR is unset and TERM is not dumb; otherwise byte for byte the
plain boards.

The painting itself is tested on every example (the text is unchanged under the colours, every
cell has its picture's colour); the command is run in a pseudo-terminal (pty) and through a
pipe, and what the terminal shows is read back through a terminal emulator (pyte).
"""
from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
import tty
from pathlib import Path
from typing import Any

import pytest

import puzzleplan
from catalogue import CASES, EXAMPLES
from puzzleplan.plans.check import states_by_move_names
from puzzleplan.plans.cli.output import print_result
from puzzleplan.plans.render import palette, terminal

ANSI = re.compile(r"\x1b\[[0-9;]*m")
MODELS = sorted({case.path for case in CASES})
WALLS = EXAMPLES / "rush-hour/walls.yaml"


def _plain(text: str) -> str:
    return ANSI.sub("", text)


def _rgb(fill: str) -> str:
    return fill.lstrip("#").lower()


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


# -- when to colour ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode, tty_, environ, expected", [
    ("auto", True, {"TERM": "xterm-256color"}, True),
    ("auto", False, {"TERM": "xterm-256color"}, False),          # a pipe or a file
    ("auto", True, {"TERM": "xterm", "NO_COLOR": "1"}, False),
    ("auto", True, {"TERM": "xterm", "NO_COLOR": ""}, True),     # no-color.org: set and not empty
    ("auto", True, {"TERM": "dumb"}, False),
    ("always", False, {"NO_COLOR": "1", "TERM": "dumb"}, True),
    ("never", True, {"TERM": "xterm"}, False),
])
def test_when_to_colour(mode: str, tty_: bool, environ: dict[str, str], expected: bool) -> None:
    stream = _Tty() if tty_ else io.StringIO()
    assert terminal.wanted(mode, stream, environ) is expected


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="expected one of auto, always, never"):
        terminal.wanted("sometimes")


def test_the_colours_the_terminal_takes() -> None:
    from rich.color import ColorSystem
    assert terminal.colour_system({"TERM": "xterm", "COLORTERM": "truecolor"}) is ColorSystem.TRUECOLOR
    assert terminal.colour_system({"TERM": "xterm-256color"}) is ColorSystem.EIGHT_BIT
    assert terminal.colour_system({"TERM": "xterm"}) is ColorSystem.STANDARD
    assert terminal.colour_system({"TERM": "dumb"}) is ColorSystem.STANDARD    # asked for all the same


# -- the painting ----------------------------------------------------------------------------------
@pytest.mark.parametrize("path", MODELS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_painting_keeps_the_text(path: Path) -> None:
    model = puzzleplan.load(path)
    state = model.initial()
    painted = terminal.paint(model, state)
    assert _plain(painted) == model.render(state)
    if model.family in ("rush-hour", "tiles", "sokoban", "blocks"):
        assert ANSI.search(painted), "a grid family's board is painted"


def _screen(text: str, columns: int = 40) -> Any:
    pyte = pytest.importorskip("pyte", reason="pyte is not installed (pip install -e '.[test]')")
    lines = text.split("\n")
    screen = pyte.Screen(columns, len(lines) + 1)
    pyte.Stream(screen).feed(text.replace("\n", "\r\n"))
    return screen


EXIT_UP = "puzzle: rush-hour\nexit: up\nboard: |\n  ......\n  .A.CC.\n  .A....\n  ......\n"
EXIT_LEFT = "puzzle: rush-hour\nexit: left\nboard: |\n  B.....\n  B.....\n  ..AA..\n  ......\n"


@pytest.mark.parametrize("text", [None, EXIT_UP, EXIT_LEFT], ids=["walls", "exit-up", "exit-left"])
def test_rush_hour_cars_have_their_picture_colours(text: str | None) -> None:
    """Each car's cells in its colour, wherever the exit mark shifts the board in the text."""
    model = puzzleplan.load(WALLS) if text is None else puzzleplan.loads(text)
    state = model.initial()
    screen = _screen(terminal.paint(model, state))
    letters = model.letters()
    top, left = model.text_origin()
    others = 0
    for v, (vehicle, offset) in enumerate(zip(model.vehicles, state)):
        fill = palette.GOAL if v == model.primary else palette.colour(others)
        others += v != model.primary
        for r, c in vehicle.cells(offset):
            cell = screen.buffer[top + r][left + c]
            assert (cell.data, cell.bg, cell.fg) == (letters[v], _rgb(fill), _rgb(palette.ink_on(fill)))
    floor = [screen.buffer[r][c] for r, line in enumerate(model.render(state).split("\n"))
             for c, ch in enumerate(line) if ch in ".> "]
    assert floor and all(cell.bg == "default" for cell in floor)


def test_sokoban_walls_boxes_goals_and_player() -> None:
    from puzzleplan.models.sokoban import picture
    model = puzzleplan.load(EXAMPLES / "sokoban/box-on-goal.yaml")
    state = model.initial()
    screen = _screen(terminal.paint(model, state))
    expected = {"#": palette.WALL, "$": picture.BOX, "*": picture.BOX_ON_GOAL, "@": picture.PLAYER,
                "+": picture.PLAYER, ".": palette.GOAL}
    text = model.render(state).split("\n")
    seen = set()
    for r, line in enumerate(text):
        for c, ch in enumerate(line):
            if ch in expected:
                assert screen.buffer[r][c].bg == _rgb(expected[ch]), f"{ch!r} at row {r}, column {c}"
                seen.add(ch)
            else:
                assert screen.buffer[r][c].bg == "default"
    assert {"#", "$", "*", "@", "."} <= seen


def test_tiles_words_are_painted_whole() -> None:
    model = puzzleplan.load(EXAMPLES / "tiles/words-3x4.yaml")
    state = model.initial()
    painted = terminal.paint(model, state)
    screen = _screen(painted)
    faces = {model.faces[f]: palette.colour(f - 1) for f in range(1, len(model.faces))}
    for r, line in enumerate(model.render(state).split("\n")):
        for m in re.finditer(r"\S+", line):
            want = "default" if m.group() == "_" else _rgb(faces[m.group()])
            assert {screen.buffer[r][c].bg for c in range(m.start(), m.end())} == {want}, m.group()


def test_lines_of_text_stay_plain() -> None:
    for path in ("pddl/gripper.yaml", "user/hanoi.yaml", "rules/hanoi.yaml"):
        model = puzzleplan.load(EXAMPLES / path)
        assert terminal.paint(model, model.initial()) == model.render(model.initial())


def test_print_result_colours_when_forced(capsys: Any) -> None:
    model = puzzleplan.load(WALLS)
    result = puzzleplan.solve(model)
    print_result(model, result, True, "always")
    forced = capsys.readouterr().out
    print_result(model, result, True, "never")
    plain = capsys.readouterr().out
    assert ANSI.search(forced) and not ANSI.search(plain)
    assert _plain(forced) == plain
    print_result(model, result, True)          # auto, and capsys is no terminal
    assert capsys.readouterr().out == plain


# -- the command, in a terminal and through a pipe --------------------------------------------------
def _solve(on_tty: bool, *options: str, **env: str) -> str:
    """`solve walls.yaml --show [options]`'s stdout, its boards only (the timings differ from run to run)."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLORTERM")}
    environ.update({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, **env)
    command = [sys.executable, "-m", "puzzleplan.plans.cli", "solve", str(WALLS), "--show", *options]
    if not on_tty:
        done = subprocess.run(command, env=environ, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        out = done.stdout
    else:
        main_fd, child_fd = pty.openpty()
        tty.setraw(child_fd)                    # no "\n" -> "\r\n": the bytes as written
        process = subprocess.Popen(command, env=environ, stdout=child_fd, stderr=subprocess.PIPE)
        os.close(child_fd)
        chunks = []
        while True:
            try:
                chunk = os.read(main_fd, 65536)
            except OSError:                     # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(main_fd)
        assert process.wait(timeout=120) == 0, process.stderr.read() if process.stderr else ""
        out = b"".join(chunks)
    text = out.decode("utf-8")
    return text[text.index("\nstart\n"):]


def test_the_command_colours_a_terminal_only() -> None:
    piped = _solve(False)
    model = puzzleplan.load(WALLS)
    result = puzzleplan.solve(model)
    boards = states_by_move_names(model, list(result.plan.moves))
    labels = ["start"] + [f"move {i}: {m}" for i, m in enumerate(result.plan.moves, 1)]
    assert piped == "".join(f"\n{label}\n{model.render(s)}\n" for label, s in zip(labels, boards))
    coloured = _solve(True)
    assert "\x1b[1;38;2;255;255;255;48;2;214;39;40mAA\x1b[0m" in coloured    # the red car, in true colour
    assert _plain(coloured) == piped
    assert _solve(True, NO_COLOR="1") == piped
    assert _solve(True, TERM="dumb") == piped


def test_the_color_option_overrides_the_terminal_test() -> None:
    piped = _solve(False)
    forced = _solve(False, "--color", "always")               # a pipe, coloured all the same
    assert "\x1b[1;38;2;255;255;255;48;2;214;39;40mAA\x1b[0m" in forced
    assert _plain(forced) == piped
    assert _solve(True, "--color", "never") == piped          # a terminal, NO_COLOR unset: plain
