"""The budget every search runs under: limits, live statistics and its progress line.

Engines call `ctx.poll()` every few thousand nodes. It is cheap (a counter check) and raises
`LimitReached` when the time, state or memory limit is hit, so each engine needs no limit
logic of its own; the runner turns the exception into an honest `limit_reached` result that
keeps the statistics gathered so far (the same happens on Ctrl-C).

Progress goes to the command's display (plans/core/progress.py): `poll()` forwards the phase,
bound, depth, nodes, states and nodes/s at most every `progress.interval()` seconds as an open
line, `count()` shows a counted step (a table build) and `finish()` takes the lines away.
"""
from __future__ import annotations

import time

from puzzleplan.plans.core.memory import resident_mb
from puzzleplan.plans.core.progress import Line, Progress, interval
from puzzleplan.plans.core.types import Limits, Stats


def _seconds(limit: float) -> str:
    """A limit as the user would write it: 600, 0.5, 2.91 (what is left of one, in verify)."""
    return f"{limit:g}" if limit < 1 else f"{limit:.2f}".rstrip("0").rstrip(".")


class LimitReached(Exception):
    """Raised inside a search when a limit is hit; the message says which, and `reason` names
    the limit alone ("time limit", "memory limit of 900 MiB"), as runner.Deadline does."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


class SearchContext:
    """Limits + statistics + progress reporting for one engine run; `progress` is the
    command's display (None or a silent one: no progress)."""

    def __init__(self, limits: Limits | None = None, progress: Progress | None = None,
                 since: float | None = None) -> None:
        """`since`: when the time limit started (a `time.monotonic()` reading; default now), e.g.
        the command's start, so loading and checks before the run count toward --time-limit."""
        self.limits = Limits() if limits is None else limits
        self.stats = Stats()
        self.started = time.monotonic() if since is None else since
        self._timed_from = self.started
        self._display = progress if progress is not None and progress.enabled else None
        self._every = interval()
        self._last_progress = self.started
        self._line: Line | None = None      # the open line of the search, from its first update
        self._counted: Line | None = None   # a counted step (count()), while it runs
        self.phase = ""
        self.depth_name = "depth"   # what the progress line calls stats.depth (SAT engines: "horizon")
        self.lower_bound: int | None = None  # proved so far: no plan is shorter (engines update it)
        self._checked = False   # a check of the limits passed once

    def restart_clock(self) -> None:
        """Start the search's reported time (stats.seconds) now, e.g. after imports and checks
        before a search. The time limit keeps counting from the context's start: the checks
        (compiling a planning task can take long) are part of the run the limit bounds."""
        self._timed_from = self._last_progress = time.monotonic()

    def elapsed(self) -> float:
        """Seconds since the time limit started (the command's start, for a command's context)."""
        return time.monotonic() - self.started

    def timed(self) -> float:
        """Seconds on the clock `stats.seconds` reads (from `restart_clock`, else the start)."""
        return time.monotonic() - self._timed_from

    def remaining(self) -> float | None:
        """Seconds left under the time limit, or None when there is none."""
        if self.limits.time_limit is None:
            return None
        return max(0.0, self.limits.time_limit - self.elapsed())

    def poll(self) -> None:
        """Check every limit; raise LimitReached when one is hit. Also updates the progress line."""
        now = time.monotonic()
        self._check(now)
        if self._display is not None and now - self._last_progress >= self._every:
            self.report(now)

    def reached(self, reason: str) -> str:
        """A limit that ended a run (`reason`, as Deadline and LimitReached name it) in the words
        every engine uses: "time limit of 2 s reached", "memory limit of 900 MiB reached"."""
        return self.time_limit_reached() if reason == "time limit" else f"{reason} reached"

    def time_limit_reached(self) -> str:
        """What every engine says when the time limit ends its run: "time limit of 2 s reached"."""
        limit = self.limits.time_limit
        if limit is None:   # a limit of the caller's (verify's, a solver process's)
            return "time limit reached"
        if limit == 0:      # e.g. what verify's limit left after compiling the task
            return "time limit reached before the search began"
        return f"time limit of {_seconds(limit)} s reached"

    def _check(self, now: float) -> None:
        lim = self.limits
        if lim.time_limit is not None and now - self.started >= lim.time_limit:
            raise LimitReached(self.time_limit_reached(), "time limit")
        if lim.max_states is not None and self.stats.states > lim.max_states:
            raise LimitReached(f"state limit of {lim.max_states} reached", f"state limit of {lim.max_states}")
        if lim.memory_mb is not None:
            held = resident_mb()
            if held > lim.memory_mb:
                # over at the first check: the limit is below what loading the puzzle and engine took
                first = "" if self._checked else f" at the first check ({held:,.0f} MiB resident with the puzzle " \
                                                  "and engine loaded; give more)"
                raise LimitReached(f"memory limit of {lim.memory_mb} MiB reached{first}",
                                   f"memory limit of {lim.memory_mb} MiB")
        self._checked = True

    def reserve(self, nbytes: int, what: str) -> None:
        """LimitReached when allocating `nbytes` more would pass the memory limit: called before
        a step that allocates much at once between two polls (`what` it is, for the message)."""
        limit = self.limits.memory_mb
        if limit is not None and resident_mb() + nbytes / 2**20 > limit:
            raise LimitReached(f"memory limit of {limit} MiB reached ({what} needs {nbytes / 2**20:,.0f} MiB more)",
                               f"memory limit of {limit} MiB")

    def report(self, now: float | None = None) -> None:
        """Show the statistics now (poll() does so every interval; steps that come seldom, such
        as a horizon answered, call this to be shown at once)."""
        if self._display is None:
            return
        now = time.monotonic() if now is None else now
        self._last_progress = now
        s = self.stats
        fields = {"bound": self.lower_bound, self.depth_name: s.depth, "nodes": s.nodes, "states": s.states,
                  "rate": s.nodes / max(now - self._timed_from, 1e-9)}
        if self._line is None:
            self._line = self._display.open(self.phase or "search", since=self._timed_from, **fields)
        else:
            self._line.update(label=self.phase or "search", **fields)

    def count(self, label: str, done: int, total: int) -> None:
        """A counted step inside the search (e.g. building tables): shown as a bar with an ETA
        until done reaches total; checks the limits as poll() does (LimitReached)."""
        if self._display is not None:
            if self._counted is None and done < total:   # nothing to show when all is done (cached)
                self._counted = self._display.counted(label, total, done)
            elif self._counted is not None:
                self._counted.update(label=label, done=done, total=total)
            if done >= total and self._counted is not None:
                self._counted.remove()
                self._counted = None
        self._check(time.monotonic())

    def finish(self) -> Stats:
        """Stamp the elapsed time and take the progress lines away."""
        self.stats.seconds = time.monotonic() - self._timed_from
        for line in (self._line, self._counted):
            if line is not None:
                line.remove()
        self._line = self._counted = None
        return self.stats
