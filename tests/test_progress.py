"""The progress display (plans/core/progress.py): its text, its width, and real commands run
under a pseudo-terminal - the progress shows while they run and leaves nothing behind; with
stderr a pipe, --quiet or TERM=dumb not one byte of it is written."""
from __future__ import annotations

import fcntl
import io
import os
import re
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pyte
import pytest

from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.progress import (INTERVAL_VARIABLE, Progress, clock, compact, counted_text, interval,
                                            open_text, wanted)
from puzzleplan.plans.core.types import Limits

ROOT = Path(__file__).resolve().parent.parent
EIGHT = "examples/tiles/eight-31.yaml"
SMALL = "examples/tiles/small-2x3.yaml"
COLS = 40


def screen_of(data: bytes, cols: int = COLS, rows: int = 24, newline_is_crlf: bool = False) -> list[str]:
    """What a terminal `cols` wide shows after `data` (its rows, right-stripped). A pty turns
    \\n into \\r\\n itself; text written to a plain buffer needs `newline_is_crlf`."""
    if newline_is_crlf:
        data = data.replace(b"\n", b"\r\n")
    screen = pyte.Screen(cols, rows)
    pyte.ByteStream(screen).feed(data)
    return [row.rstrip() for row in screen.display]


def shown(rows: list[str]) -> list[str]:
    """The screen's rows up to its last non-blank one."""
    while rows and not rows[-1]:
        rows = rows[:-1]
    return rows


# --- the text of a line --------------------------------------------------------------------

def test_counted_text_has_count_percent_and_eta() -> None:
    assert counted_text(3, 5, 12.4) == "3/5  60% ETA 0:00:12"
    assert counted_text(3, 5, None) == "3/5  60%"                  # no estimate yet: no ETA
    assert counted_text(150_000, 1_000_000, 3725) == "150k/1M  15% ETA 1:02:05"
    assert counted_text(0, 0, None) == "0/0 100%"


def test_open_text_shows_the_fields_it_has() -> None:
    text = open_text({"bound": 30, "depth": 12, "nodes": 1_234_567, "states": 45_678, "rate": 98_765.4}, 65.2)
    assert text == "bound 30  depth 12  nodes 1.23M  states 45.7k  98.8k nodes/s  0:01:05"
    # no bound yet, and a SAT call that counts no nodes: only what is known
    assert open_text({"bound": None, "depth": 7, "nodes": 0, "states": 0, "rate": 0.0}, 3) == "depth 7  0:00:03"
    assert open_text({"bound": 29, "horizon": 27, "nodes": 0}, 4) == "bound 29  horizon 27  0:00:04"   # SAT


def test_compact_and_clock() -> None:
    assert [compact(n) for n in (0, 9_999, 10_000, 123_456, 4_560_000, 1.5e9, 2.5e12)] == \
        ["0", "9,999", "10k", "123k", "4.56M", "1.5G", "2,500G"]
    assert clock(None) == "-:--:--" and clock(0) == "0:00:00" and clock(3599.9) == "0:59:59"


def test_interval_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(INTERVAL_VARIABLE, raising=False)
    assert interval() == 0.5
    monkeypatch.setenv(INTERVAL_VARIABLE, "0.02")
    assert interval() == 0.02
    for bad in ("fast", "-1", "0", "nan"):
        monkeypatch.setenv(INTERVAL_VARIABLE, bad)
        assert interval() == 0.5


def test_wanted_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    assert not wanted(io.StringIO()) and not wanted(None)
    master, slave = os.openpty()
    try:
        with os.fdopen(slave, "w", closefd=False) as tty:
            assert wanted(tty)
            assert not wanted(tty, quiet=True)
            monkeypatch.setenv("TERM", "dumb")
            assert not wanted(tty)
    finally:
        os.close(master)
        os.close(slave)


# --- drawing into a buffer ------------------------------------------------------------------

def test_lines_fit_the_width_and_close_leaves_nothing() -> None:
    buffer = io.StringIO()
    display = Progress(buffer, width=COLS)
    bar = display.counted("building pattern databases for a very long puzzle name", 1000)
    search = display.open("idastar with a long label", bound=31, depth=12, nodes=9_876_543, states=0, rate=123_456)
    for _ in range(4):
        bar.update(advance=100)
        time.sleep(0.02)
    rows = shown(screen_of(buffer.getvalue().encode(), newline_is_crlf=True))
    assert len(rows) == 2, rows                      # two lines, neither wrapped onto a third
    assert all(0 < len(row) < COLS for row in rows)
    # too narrow for the count beside the bar: label, bar, percent, ETA
    assert re.fullmatch(r"building p… [━╸╺]{10}  40% ETA 0:00:0\d", rows[0]), rows[0]
    assert rows[1].startswith("idastar with a long label  bound 31") and rows[1].endswith("…")
    search.remove()
    assert len(shown(screen_of(buffer.getvalue().encode(), newline_is_crlf=True))) == 1
    display.close()
    assert shown(screen_of(buffer.getvalue().encode(), newline_is_crlf=True)) == []
    assert not display.enabled
    display.counted("after the end", 3).update(done=1)   # a closed display draws nothing more
    assert shown(screen_of(buffer.getvalue().encode(), newline_is_crlf=True)) == []


def test_a_narrow_terminal_gives_up_the_bar_and_count_before_the_label() -> None:
    widths = {40: r"verify [━╸╺]{23} 4/9  44%", 20: r"verify [━╸╺]{7}  44%", 18: r"verify 4/9  44%",
              13: r"verify  44%", 6: r"veri…"}
    for width, expected in widths.items():
        buffer = io.StringIO()
        with Progress(buffer, width=width) as display:
            display.counted("verify", 9, done=4)
            rows = shown(screen_of(buffer.getvalue().encode(), width, newline_is_crlf=True))
            assert len(rows) == 1 and re.fullmatch(expected, rows[0]), (width, rows)
        assert shown(screen_of(buffer.getvalue().encode(), width, newline_is_crlf=True)) == []


def test_silent_display_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    display = Progress.for_terminal()            # stderr is captured here: not a terminal
    assert not display.enabled and not Progress.silent().enabled
    line = display.counted("x", 10)
    line.update(done=5, label="y")
    line.remove()
    display.close()
    ctx = SearchContext(Limits(), display)
    ctx.stats.nodes = 10
    ctx.report()
    ctx.count("tables", 1, 2)
    ctx.poll()
    ctx.finish()
    assert capsys.readouterr() == ("", "")


def test_search_context_reports_into_the_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(INTERVAL_VARIABLE, "0.001")
    buffer = io.StringIO()
    with Progress(buffer, width=100) as display:
        ctx = SearchContext(Limits(memory_mb=None), display)
        ctx.phase, ctx.lower_bound = "idastar", 28
        ctx.stats.depth, ctx.stats.nodes, ctx.stats.states = 9, 20_000, 0
        time.sleep(0.002)
        ctx.poll()                                   # an interval has passed: the open line shows
        ctx.count("building pattern databases", 50, 200)
        rows = shown(screen_of(buffer.getvalue().encode(), 100, newline_is_crlf=True))
        assert rows[0].startswith("idastar  bound 28  depth 9  nodes 20k  ") and "nodes/s" in rows[0]
        assert rows[1].startswith("building pattern databases ") and "50/200  25%" in rows[1]
        ctx.count("building pattern databases", 200, 200)   # done: the bar goes
        assert len(shown(screen_of(buffer.getvalue().encode(), 100, newline_is_crlf=True))) == 1
        ctx.finish()
        assert shown(screen_of(buffer.getvalue().encode(), 100, newline_is_crlf=True)) == []


def test_verify_from_python_counts_its_solver_calls() -> None:
    import puzzleplan
    from puzzleplan.plans.verify import verify
    buffer = io.StringIO()
    with Progress(buffer, width=200) as display:
        found = verify(puzzleplan.load(str(ROOT / SMALL)), encodings=["tiles-moves", "cp-sas"], progress=display)
        drawn = buffer.getvalue()
        assert shown(screen_of(drawn.encode(), 200, newline_is_crlf=True)) == []   # verify took its bar away
    assert found.status == "verified"
    # 1 + 2 per encoding solver calls: the native optimum, then a plan and a bound per encoding
    for done, what in ((0, "native optimum"), (1, "sat tiles-moves cadical195: plan of 13"),
                       (2, "sat tiles-moves cadical195: no plan <= 12"), (3, "cpsat cp-sas: plan of 13"),
                       (4, "cpsat cp-sas: no plan <= 12")):
        assert re.search(rf"verify: {re.escape(what)}.* {done}/5 ", drawn), what


def test_count_checks_the_limits() -> None:
    ctx = SearchContext(Limits(time_limit=0.001, memory_mb=None), Progress.silent())
    time.sleep(0.005)
    with pytest.raises(LimitReached):
        ctx.count("tables", 1, 10)


# --- real commands under a pseudo-terminal --------------------------------------------------

def run_on_pty(*args: str, stdout_on_pty: bool = False, env: dict[str, str] | None = None,
               stderr_on_pty: bool = True) -> tuple[int, bytes, str, str]:
    """Run `puzzleplan ARGS` with stderr (and stdout when asked) on a pseudo-terminal COLS wide.
    Returns (exit code, the bytes the terminal received, stdout, stderr) - each of the last two
    empty when it went to the terminal."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLS, 0, 0))
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    environment.update({"TERM": "xterm-256color", INTERVAL_VARIABLE: "0.01", **(env or {})})
    proc = subprocess.Popen([sys.executable, "-m", "puzzleplan.plans.cli", *args], cwd=ROOT, env=environment,
                            stdin=subprocess.DEVNULL, stdout=slave if stdout_on_pty else subprocess.PIPE,
                            stderr=slave if stderr_on_pty else subprocess.PIPE)
    os.close(slave)
    received: list[bytes] = []

    def read() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:          # EIO: every writer has closed the terminal
                return
            if not chunk:
                return
            received.append(chunk)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    out, err = proc.communicate(timeout=120)
    reader.join(timeout=20)
    os.close(master)
    return proc.returncode, b"".join(received), (out or b"").decode(), (err or b"").decode()


def _masked(text: str) -> str:
    return re.sub(r"\d", "9", text)   # the seconds differ from run to run


def test_explore_shows_an_open_line_and_leaves_a_clean_terminal() -> None:
    code, data, out, _ = run_on_pty("explore", EIGHT)
    assert code == 0 and "reachable:     181,440 states" in out
    text = data.decode("utf-8", "replace")
    assert "explore (packed)" in text and "depth 2" in text and "nodes" in text   # the open line was drawn
    assert shown(screen_of(data)) == []                                    # and nothing is left of it
    assert "\x1b" not in out                                               # stdout is a pipe: plain text


def test_explore_on_one_terminal_shows_only_the_output() -> None:
    code, data, _, _ = run_on_pty("explore", EIGHT, stdout_on_pty=True)
    assert code == 0
    _, _, plain, _ = run_on_pty("explore", EIGHT, env={"TERM": "dumb"})
    expected = [row.rstrip() for line in plain.splitlines() for row in _wrapped(line, COLS)]
    assert [_masked(r) for r in shown(screen_of(data))] == [_masked(r) for r in expected]


def _wrapped(line: str, cols: int) -> list[str]:
    """A line as a terminal `cols` wide shows it (cut into rows)."""
    return [line[i:i + cols] for i in range(0, max(len(line), 1), cols)]


def test_pdb_build_shows_a_counted_bar(tmp_path: Path) -> None:
    code, data, out, _ = run_on_pty("pdb", "build", EIGHT, "--partition", "1 2 3 4 / 5 6 7 8",
                                    env={"PUZZLEPLAN_CACHE_DIR": str(tmp_path)})
    assert code == 0 and "2 tables (2 built" in out
    text = data.decode("utf-8", "replace")
    assert "━" in text and "0/6,048   0%" in text and " 100%" in text   # 2 x 3,024 placements, to the end
    assert shown(screen_of(data)) == []


def test_compare_rows_print_above_the_bar() -> None:
    code, data, _, _ = run_on_pty("compare", SMALL, "--horizon", "13", "--encodings", "tiles-moves", "cp-sas",
                                  "--solvers", "cadical195", stdout_on_pty=True)
    assert code == 0
    assert "compare" in data.decode("utf-8", "replace") and "2/2 100%" in data.decode("utf-8", "replace")
    rows = shown(screen_of(data))
    assert rows[0].startswith("puzzle:") and not any("━" in r or "%" in r for r in rows)
    assert [r.split()[:2] for r in rows if r.startswith(("tiles-moves", "cp-sas"))] == \
        [["tiles-moves", "cadical195"], ["cp-sas", "cp-sat"]]


@pytest.mark.parametrize("how", ["pipe", "quiet", "dumb", "json"])
def test_no_progress_bytes_without_a_terminal(how: str) -> None:
    args = ["explore", EIGHT] + (["--quiet"] if how == "quiet" else []) + (["--json"] if how == "json" else [])
    code, data, out, err = run_on_pty(*args, stderr_on_pty=how != "pipe",
                                      env={"TERM": "dumb"} if how == "dumb" else None)
    assert code == 0 and "181" in out
    assert data == b"" and err == ""                     # not one byte: no text, no escape code
    assert "\x1b" not in out


def test_a_memory_limit_below_the_loaded_process_says_so_at_the_first_check(monkeypatch) -> None:
    import puzzleplan.plans.core.context as context
    held = iter([40.0, 10.0, 40.0])
    monkeypatch.setattr(context, "resident_mb", lambda: next(held))
    ctx = SearchContext(Limits(memory_mb=30))
    with pytest.raises(LimitReached, match=r"memory limit of 30 MiB reached at the first check \(40 MiB resident"):
        ctx.poll()
    ctx = SearchContext(Limits(memory_mb=30))
    ctx.poll()                              # 10 MiB: passes
    with pytest.raises(LimitReached) as caught:
        ctx.poll()                          # later: the plain words every engine uses
    assert str(caught.value) == "memory limit of 30 MiB reached"
