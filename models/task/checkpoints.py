"""Checkpoints: long computations outside a search loop (compiling a planning task, its
analysis, a costly heuristic) poll the limits of the run that asked for them.

The poll is a SearchContext's (it raises LimitReached at the time or memory limit); `solve`
and the command line install theirs with `checkpoints`, and the computations call
`checkpoint()` now and then, so a task that takes long to build stops at the run's limits
instead of running past them. Its own module, below every compiler, so that any of them may
import it.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

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


__all__ = ["checkpoint", "checkpoints"]
