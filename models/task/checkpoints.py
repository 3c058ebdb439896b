"""Checkpoints: long computations outside a search loop (compiling a planning task, its
analysis, a costly heuristic) poll the limits of the run that asked for them.

The poll is a SearchContext's (it raises LimitReached at the time or memory limit); `solve`
and the command line install theirs with `checkpoints`, and the computations call
`checkpoint()` now and then, so a task that takes long to build stops at the run's limits
instead of running past them. Its own module, below every compiler, so that any of them may
import it.
"""
from __future__ import annotations

import gc
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


class _Stopped(BaseException):
    """A limit the timer met inside a call: a BaseException, so the library's own `except
    Exception` (unified-planning turns errors into syntax errors) lets it through."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(cause)
        self.cause = cause


def _in_finaliser(frame: Any, depth: int = 32) -> bool:
    """Whether the code running is inside a `__del__` or a garbage-collector callback (a few
    calls deep at most), where Python prints an exception and drops it, or right in an
    `__init__` (an object stopped half-built fails in its own `__del__` later)."""
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    level = 0
    while frame is not None and level < depth:
        code = frame.f_code
        if code.co_name == "__del__" or code in callbacks or (code.co_name == "__init__" and level < 8):
            return True
        frame, level = frame.f_back, level + 1
    return False


def _importing(frame: Any) -> bool:
    """Whether a module is being imported anywhere up the stack (unified-planning imports lazily,
    mid-parse): a stop raised there leaves a module half-initialised, and the import's fallout
    (a recursion error, a missing attribute of numpy) reads as an error of the user's file."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def polled(work: Callable[[], T]) -> T:
    """`work()`, a library call with no checkpoints of its own (unified-planning's PDDL reader
    and grounder), stopped at the run's limits all the same: in the main thread, where Python
    runs signal handlers, a timer calls the poll every POLL_SECONDS, and what it raises
    (LimitReached) surfaces inside `work` (between two bytecodes of its Python code). Elsewhere,
    without a poll, or when a timer of the caller's is set (it is left alone), `work()` as it
    is, the checkpoints around it looking at the limits. A library stopped so may keep state
    of the call it was in: the run is meant to end."""
    poll = _poll.get()
    if (poll is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread()
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0):
        return work()
    armed = [True]

    def look(signum: int, frame: Any) -> None:
        # not once disarmed, nor inside a finaliser, where Python would print and swallow it,
        # nor during an import (the next tick after it raises);
        # once over a limit it raises at every tick, so a stop swallowed where Python ignores
        # exceptions (a garbage-collector callback) is raised again 0.1 s later
        if armed[0] and not _in_finaliser(frame) and not _importing(frame):
            try:
                poll()
            except Exception as exc:
                raise _Stopped(exc) from None
    previous = signal.signal(signal.SIGALRM, look)

    def restore() -> None:
        while armed[0]:
            try:
                armed[0] = False     # a tick before this store raises once more: go round again
            except _Stopped:
                continue
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, POLL_SECONDS, POLL_SECONDS)
            return work()
        finally:
            restore()
    except _Stopped as stopped:   # from `work`, or a tick just before `restore` disarmed
        restore()
        raise stopped.cause from None


__all__ = ["checkpoint", "checkpoints", "polled"]
