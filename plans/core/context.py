"""The budget every search runs under: limits, live statistics and a progress line.

Engines call `ctx.poll()` every few thousand nodes. It is cheap (a counter check) and raises
`LimitReached` when the time, state or memory limit is hit, so each engine needs no limit
logic of its own; the runner turns the exception into an honest `limit_reached` result that
keeps the statistics gathered so far (the same happens on Ctrl-C).
"""
from __future__ import annotations

import sys
import time
from typing import TextIO

from puzzleplan.plans.core.memory import resident_mb
from puzzleplan.plans.core.types import Limits, Stats


class LimitReached(Exception):
    """Raised inside a search when a limit is hit; the message says which."""


class SearchContext:
    """Limits + statistics + progress reporting for one engine run."""

    PROGRESS_EVERY = 0.5  # seconds between progress lines

    def __init__(self, limits: Limits | None = None, progress: TextIO | None = None) -> None:
        self.limits = Limits() if limits is None else limits
        self.stats = Stats()
        self.started = time.monotonic()
        self._progress = progress
        self._last_progress = self.started
        self.phase = ""
        self.lower_bound: int | None = None  # proved so far: no plan is shorter (engines update it)

    @classmethod
    def for_terminal(cls, limits: Limits, quiet: bool = False) -> "SearchContext":
        """A context that shows progress on stderr only when stderr is a terminal."""
        stream = sys.stderr if (not quiet and sys.stderr.isatty()) else None
        return cls(limits, stream)

    def restart_clock(self) -> None:
        """Start timing (and the time limit) now, e.g. after imports and checks before a search."""
        self.started = self._last_progress = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def remaining(self) -> float | None:
        """Seconds left under the time limit, or None when there is none."""
        if self.limits.time_limit is None:
            return None
        return max(0.0, self.limits.time_limit - self.elapsed())

    def poll(self) -> None:
        """Check every limit; raise LimitReached when one is hit. Also prints progress."""
        now = time.monotonic()
        lim = self.limits
        if lim.time_limit is not None and now - self.started >= lim.time_limit:
            raise LimitReached(f"time limit of {lim.time_limit:g} s reached")
        if lim.max_states is not None and self.stats.states > lim.max_states:
            raise LimitReached(f"state limit of {lim.max_states} reached")
        if lim.memory_mb is not None and resident_mb() > lim.memory_mb:
            raise LimitReached(f"memory limit of {lim.memory_mb} MiB reached")
        if self._progress is not None and now - self._last_progress >= self.PROGRESS_EVERY:
            self._last_progress = now
            s = self.stats
            rate = s.nodes / max(now - self.started, 1e-9)
            self._progress.write(
                f"\r  {self.phase} depth {s.depth}  nodes {s.nodes:,}  states {s.states:,}"
                f"  {rate:,.0f} nodes/s  {now - self.started:.1f}s   "
            )
            self._progress.flush()

    def finish(self) -> Stats:
        """Stamp the elapsed time and clear the progress line."""
        self.stats.seconds = self.elapsed()
        if self._progress is not None:
            self._progress.write("\r" + " " * 100 + "\r")
            self._progress.flush()
        return self.stats
