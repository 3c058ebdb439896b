"""One progress display for every long-running command (solve, explore, pdb build, verify, compare).

The display draws lines on stderr with rich: a *counted* line where a total is known (a bar,
done/total, percent, ETA: table builds, verify's and compare's rows) and an *open* line where
none is (the current bound, depth, nodes, states, nodes/s, elapsed: a search). Every line is
cut to the terminal's width (an ellipsis ends long text), so none wraps, and the display is
transient: `close()` erases every line it drew, leaving the terminal as it was.

It is silent - not one byte written, rich not even imported - when stderr is not a terminal,
when TERM is dumb, or when the command is quiet (`--quiet`, `--json`). A command creates one
display and passes it down; searches reach it through their SearchContext, which forwards its
statistics at most every `interval()` seconds, so hot loops never touch it.
"""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, TextIO

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions
    from rich.progress import Task

INTERVAL_VARIABLE = "PUZZLEPLAN_PROGRESS_INTERVAL"
DEFAULT_INTERVAL = 0.5   # seconds between two updates from a search
REFRESH_PER_SECOND = 4   # redraws (elapsed time and ETA move on while a solver call blocks)
MIN_BAR = 6              # narrower than this, a counted line shows no bar


def interval() -> float:
    """Seconds between a search's updates: $PUZZLEPLAN_PROGRESS_INTERVAL (a positive number;
    anything else is ignored), else 0.5."""
    try:
        value = float(os.environ.get(INTERVAL_VARIABLE, ""))
    except ValueError:
        return DEFAULT_INTERVAL
    return value if 0 < value < 1e6 else DEFAULT_INTERVAL


def wanted(stream: Any, quiet: bool = False) -> bool:
    """True when a display on `stream` should draw: not quiet, a terminal, and TERM not dumb."""
    if quiet or os.environ.get("TERM", "") == "dumb":
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):   # no stream, or a closed one
        return False


def compact(n: float) -> str:
    """A count in at most 6 characters: 9,999, then 12.3k, 4.56M, 1.23G."""
    if n < 10_000:
        return f"{n:,.0f}"
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if n >= size:
            value = n / size
            return f"{value:.3g}{unit}" if value < 1000 else f"{value:,.0f}{unit}"
    return f"{n:,.0f}"  # pragma: no cover - every n >= 10,000 has a unit above


def clock(seconds: float | None) -> str:
    """h:mm:ss, or -:--:-- when unknown."""
    if seconds is None:
        return "-:--:--"
    whole = int(max(0.0, seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def counted_text(done: float, total: float, remaining: float | None, count: bool = True) -> str:
    """The right part of a counted line: '3/5  60% ETA 0:00:12' (no ETA before an estimate;
    no '3/5' unless `count`)."""
    percent = 100.0 * done / total if total > 0 else 100.0
    eta = "" if remaining is None else f" ETA {clock(remaining)}"
    return (f"{compact(done)}/{compact(total)} " if count else "") + f"{percent:3.0f}%{eta}"


def open_text(fields: dict[str, Any], elapsed: float) -> str:
    """The fields of an open line: 'bound 30  depth 12  nodes 1.23M  states 456k  98.7k nodes/s  0:00:05'
    (a horizon in place of the depth for SAT and CP-SAT). A missing bound, and zero nodes or
    states (a SAT call counts none), are left out."""
    parts = []
    if fields.get("bound") is not None:
        parts.append(f"bound {fields['bound']}")
    for name in ("depth", "horizon"):
        if fields.get(name) is not None:
            parts.append(f"{name} {fields[name]}")
    for name in ("nodes", "states"):
        if fields.get(name):
            parts.append(f"{name} {compact(fields[name])}")
    if fields.get("rate"):
        parts.append(f"{compact(fields['rate'])} nodes/s")
    parts.append(clock(elapsed))
    return "  ".join(parts)


class _LineView:
    """How rich draws one task: a single line, never wider than the console."""

    def __init__(self, task: "Task", now: float) -> None:
        self.task, self.now = task, now

    def __rich_console__(self, console: "Console", options: "ConsoleOptions") -> Iterator[Any]:
        from rich.text import Text
        task = self.task
        width = max(1, options.max_width - 1)   # the last column stays free: no pending wrap
        label = Text(task.description, style="bold")
        if task.total is None:
            since = task.fields.get("since")
            elapsed = self.now - since if since is not None else (task.elapsed or 0.0)
            line = Text.assemble(label, "  ", open_text(task.fields, elapsed))
        else:
            line = self._counted(console, options, label, width)
        line.truncate(width, overflow="ellipsis")
        line.no_wrap, line.end = True, "\n"
        yield line

    def _counted(self, console: "Console", options: "ConsoleOptions", label: Any, width: int) -> Any:
        """Label, bar, count, percent, ETA; where that is too wide, the count goes, then the bar."""
        from rich.progress_bar import ProgressBar
        from rich.text import Text
        task = self.task
        assert task.total is not None
        for count in (True, False):
            info = Text(" " + counted_text(task.completed, task.total, task.time_remaining, count))
            room = width - info.cell_len     # for the label, a space and the bar
            if room - 1 - min(label.cell_len, 8) >= MIN_BAR:
                label.truncate(min(label.cell_len, max(room // 2, 8), room - 1 - MIN_BAR), overflow="ellipsis")
                bar_width = room - 1 - label.cell_len
                bar = ProgressBar(total=task.total, completed=task.completed, width=bar_width)
                segments = console.render(bar, options.update(width=bar_width))
                drawn = Text.assemble(*((s.text, s.style) for s in segments))
                return Text.assemble(label, " ", drawn, info)
        full = " " + counted_text(task.completed, task.total, task.time_remaining)
        fits = label.cell_len + len(full) <= width
        return Text.assemble(label, full if fits else " " + counted_text(task.completed, task.total, None, False))


def _same_terminal(a: Any, b: Any) -> bool:
    """True when both streams write to one terminal (stdout is then shown above the lines)."""
    try:
        if not (a.isatty() and b.isatty()):
            return False
        x, y = os.fstat(a.fileno()), os.fstat(b.fileno())
    except (AttributeError, ValueError, OSError):
        return False
    return (x.st_dev, x.st_ino, x.st_rdev) == (y.st_dev, y.st_ino, y.st_rdev)


class Line:
    """One line of a display: counted (it has a total) or open (fields). The lines of a silent
    or closed display do nothing."""

    def __init__(self, display: "Progress | None" = None, task_id: Any = None) -> None:
        self._display, self._id = display, task_id

    def update(self, *, label: str | None = None, done: float | None = None, total: float | None = None,
               advance: float = 0, **fields: Any) -> None:
        """Change the label, the count (done / total, or + advance) or the open line's fields
        (bound, depth or horizon, nodes, states, rate; None hides one) and redraw."""
        display = self._display
        if display is None or display._rich is None:
            return
        changes: dict[str, Any] = dict(fields)
        if label is not None:
            changes["description"] = label
        if done is not None:
            changes["completed"] = done
        if total is not None:
            changes["total"] = total
        if advance:
            changes["advance"] = advance
        display._rich.update(self._id, refresh=True, **changes)

    def remove(self) -> None:
        """Take the line off the display."""
        display, self._display = self._display, None
        if display is not None and display._rich is not None:
            display._rich.remove_task(self._id)
            display._rich.refresh()


class Progress:
    """The progress display of one command: its lines on `stream` (None: silent).

    `Progress.for_terminal(quiet)` is the one commands use: stderr when it is a terminal.
    `counted(label, total)` and `open(label, **fields)` add lines; `close()` (or leaving a
    `with` block) erases them all. While the display is up, text printed to stdout on the same
    terminal appears above it. `width` fixes the width (default: the terminal's).
    """

    def __init__(self, stream: TextIO | None = None, width: int | None = None) -> None:
        self._stream = stream
        self._width = width
        self._rich: Any = None     # the rich.progress.Progress, once a line is shown
        self._closed = stream is None

    @classmethod
    def for_terminal(cls, quiet: bool = False) -> "Progress":
        """A display on stderr when it is a terminal (TERM not dumb) and not `quiet`; else silent."""
        return cls(sys.stderr if wanted(sys.stderr, quiet) else None)

    @classmethod
    def silent(cls) -> "Progress":
        """A display that never draws."""
        return cls(None)

    @property
    def enabled(self) -> bool:
        """True while lines are drawn (not silent, not closed)."""
        return not self._closed

    def counted(self, label: str, total: float, done: float = 0) -> Line:
        """A line with a bar, done/total, percent and ETA."""
        return self._add(label, total=total, completed=done)

    def open(self, label: str, since: float | None = None, **fields: Any) -> Line:
        """A line of fields (bound, depth or horizon, nodes, states, rate) and the time elapsed since
        `since` (a time.monotonic() value; default: now)."""
        return self._add(label, total=None, since=time.monotonic() if since is None else since, **fields)

    def _add(self, label: str, **changes: Any) -> Line:
        if self._closed:
            return Line()
        if self._rich is None:
            self._rich = self._start()
        task_id = self._rich.add_task(label, **changes)
        self._rich.refresh()   # shown at once, not at the next redraw
        return Line(self, task_id)

    def _start(self) -> Any:
        from rich.console import Console
        from rich.progress import Progress as RichProgress

        class Display(RichProgress):
            def get_renderables(self) -> Iterator[Any]:
                now = time.monotonic()
                yield from (_LineView(task, now) for task in self.tasks if task.visible)

        # soft_wrap: stdout text shown above the lines is left for the terminal to wrap, as without them
        console = Console(file=self._stream, width=self._width, force_terminal=True, highlight=False,
                          soft_wrap=True)
        display = Display(console=console, transient=True, refresh_per_second=REFRESH_PER_SECOND,
                          get_time=time.monotonic, redirect_stdout=_same_terminal(sys.stdout, self._stream),
                          redirect_stderr=self._stream is sys.stderr)
        display.start()
        return display

    def close(self) -> None:
        """Erase every line and stop drawing (for good)."""
        self._closed = True
        display, self._rich = self._rich, None
        if display is not None:
            display.stop()

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


@contextmanager
def asked_display(progress: "Progress | bool | None") -> Iterator["Progress | None"]:
    """The progress display an API call's `progress=` asks for: None or False silent, True one
    on stderr when it is a terminal (closed on the way out), a Progress as given (the caller's)."""
    if progress is None or progress is False:
        yield None
    elif progress is True:
        with Progress.for_terminal() as display:
            yield display
    elif isinstance(progress, Progress):
        yield progress
    else:
        raise TypeError(f"progress: expected None, True, False or a Progress, got {type(progress).__name__}")


__all__ = ["DEFAULT_INTERVAL", "INTERVAL_VARIABLE", "Line", "Progress", "asked_display", "clock", "compact",
           "counted_text", "interval", "open_text", "wanted"]
