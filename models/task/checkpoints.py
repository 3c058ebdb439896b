"""Checkpoints: long computations outside a search loop (compiling a planning task, its
analysis, a costly heuristic) poll the limits of the run that asked for them.

The poll is a SearchContext's (it raises LimitReached at the time or memory limit); `solve`
and the command line install theirs with `checkpoints`, and the computations call
`checkpoint()` now and then, so a task that takes long to build stops at the run's limits
instead of running past them. Its own module, below every compiler, so that any of them may
import it.
"""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, TypeVar

T = TypeVar("T")

_poll: ContextVar[Callable[[], None] | None] = ContextVar("checkpoint_poll", default=None)


@contextmanager
def checkpoints(poll: Callable[[], None] | None) -> Iterator[None]:
    """Computations inside this block call `poll` at their checkpoints (a limit is no answer:
    `compiled` remembers nothing when LimitReached passes through it)."""
    token = _poll.set(poll)
    try:
        yield
    finally:
        _poll.reset(token)


def checkpoint() -> None:
    """Call the current run's poll, if any (see `checkpoints`)."""
    poll = _poll.get()
    if poll is not None:
        poll()


POLL_SECONDS = 0.1   # how often `polled` looks at the limits during a call without checkpoints


def polled(work: Callable[[], T]) -> T:
    """`work()`, a library call with no checkpoints of its own (unified-planning's PDDL reader
    and grounder), stopped at the run's limits all the same: in the main thread, where Python
    runs signal handlers, a timer calls the poll every POLL_SECONDS, and its LimitReached
    surfaces inside `work` (between two bytecodes of its Python code). Elsewhere, or without a
    poll, `work()` as it is, the checkpoints around it looking at the limits."""
    poll = _poll.get()
    if poll is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return work()

    def look(signum: int, frame: Any) -> None:
        # not inside a finaliser, where Python would print the limit and swallow it: the next tick raises
        if frame is None or frame.f_code.co_name != "__del__":
            poll()
    previous = signal.signal(signal.SIGALRM, look)
    signal.setitimer(signal.ITIMER_REAL, POLL_SECONDS, POLL_SECONDS)
    try:
        return work()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


__all__ = ["checkpoint", "checkpoints", "polled"]
