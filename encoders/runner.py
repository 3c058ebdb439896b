"""Run a generator in a child process under a deadline, streaming its items back.

python-sat's CaDiCaL cannot be interrupted in-process, so SAT solving runs in a child that the
parent kills when the time limit (or Ctrl-C) comes first.

Why a fresh interpreter started as `python -m puzzleplan.encoders.solver_process` rather than
multiprocessing: a forkserver or spawn child re-imports the caller's `__main__`, so a user's
script without an `if __name__ == "__main__"` guard ran twice, and a script read from standard
input (`python - <<EOF`) could not be re-imported at all. A module of puzzleplan as the entry
point imports nothing of the caller's. (Plain fork is no option either: forking a parent that
runs solver or compiler threads can deadlock the child on a lock held by a missing thread.)

The child gets the parent's `sys.path` and then messages `(kind, pickled (fn, args))` on its
standard input: any number of "warm" calls, then one "work" generator; it sends `("item", x)`,
`("done", None)` or `("error", text)` messages back over a pipe of its own (its stdout stays
free for anything a solver prints). It dies with the parent (Linux
`PR_SET_PDEATHSIG`, plus a watchdog thread elsewhere), so no run leaves an orphan behind.

`warm_children(warmups)`: within the block a child is always started ahead of its work and runs
the warm-up calls while it waits (imports; tiles-pdb's pattern tables). `verify` opens one before
its native search, so the first row's start (0.1 s of interpreter and imports; 0.45 s more for a
15-puzzle's tables) overlaps that search, and each later row's start overlaps the row before.
`early_child()` starts one sooner still, at the top of a command, with only the solver imports:
the first `warm_children` block inside takes it over and sends it its warm-ups.
"""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import IO, Any, Callable, Iterator, Sequence

from puzzleplan.plans.core.memory import resident_mb

Call = tuple[Callable[..., Any], tuple[Any, ...]]


class Deadline(Exception):
    """The deadline passed before the child finished."""

    reason = "time limit"


class MemoryExceeded(Deadline):
    """The child and this process together held more than the memory limit."""

    def __init__(self, limit_mb: int) -> None:
        super().__init__(f"memory limit of {limit_mb} MiB reached")
        self.reason = f"memory limit of {limit_mb} MiB"


MEMORY_POLL = 0.25   # seconds between looks at the child's memory when a limit is set


@dataclass
class _Child:
    process: subprocess.Popen[bytes]
    receiver: Connection
    early: bool = False   # started by early_child, not yet taken over by a warm_children block

    @property
    def stdin(self) -> IO[bytes]:
        assert self.process.stdin is not None
        return self.process.stdin

    def warm(self, calls: Sequence[Call]) -> None:
        """Send warm-up calls, which the child runs while it waits for its work."""
        try:
            for call in calls:
                pickle.dump(("warm", pickle.dumps(call)), self.stdin)
            self.stdin.flush()
        except BrokenPipeError:
            self.close()
            raise RuntimeError("the solver process could not start") from None

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.receiver.close()


class _Spares:
    """The warm-up calls of the open `warm_children` block and the child that has them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.warmups: Sequence[Call] | None = None
        self.child: _Child | None = None

    def take(self) -> _Child:
        """The waiting child if it is alive (a new one then starts warming for the next call),
        else a new child."""
        with self.lock:
            child, warmups = self.child, self.warmups
            self.child = None
            if warmups is not None:
                try:
                    self.child = _start(warmups)
                except (OSError, RuntimeError):   # the next call starts its own
                    pass
        if child is not None and child.process.poll() is None:
            return child
        if child is not None:
            child.close()
        return _start()

    def replace(self, warmups: Sequence[Call] | None) -> None:
        """Warm children with `warmups` from now on (None: no spare child). A child started
        early (`early_child`) and still alive is given them instead of a new one starting."""
        with self.lock:
            old, self.warmups = self.child, warmups
            self.child = None
            if warmups is not None and old is not None and old.early and old.process.poll() is None:
                old.early = False
                try:
                    old.warm(warmups)
                    self.child, old = old, None
                except RuntimeError:
                    old = None
            if warmups is not None and self.child is None:
                self.child = _start(warmups)
        if old is not None:
            old.close()

    def start_early(self, warmups: Sequence[Call]) -> None:
        """A child started now with `warmups`, for the next `replace` to warm further."""
        child = _start(warmups)
        child.early = True
        with self.lock:
            old, self.child = self.child, child
        if old is not None:
            old.close()


_spares = _Spares()


def _start(warmups: Sequence[Call] = ()) -> _Child:
    """A new child, given sys.path and `warmups` at once; its work comes later."""
    read_fd, write_fd = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "puzzleplan.encoders.solver_process", str(write_fd)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(write_fd,), close_fds=True)
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    child = _Child(process, Connection(read_fd, writable=False))
    try:
        pickle.dump(list(sys.path), child.stdin)
    except BrokenPipeError:
        child.close()
        raise RuntimeError("the solver process could not start") from None
    child.warm(warmups)
    return child


SOLVER_IMPORTS: list[Call] = [(importlib.import_module, ("pysat.solvers",)),
                               (importlib.import_module, ("puzzleplan.encoders.sat.base",))]


@contextmanager
def early_child(warmups: Sequence[Call] = SOLVER_IMPORTS) -> Iterator[None]:
    """Start a solver process now, before the caller knows what it will solve (a command still
    loading its puzzle), so its interpreter start and imports overlap that; the first
    `warm_children` block inside takes it over and sends it that block's warm-ups. A child
    nothing took over ends with the block."""
    try:
        _spares.start_early(warmups)
    except (OSError, RuntimeError):   # the first call starts its own
        pass
    try:
        yield
    finally:
        with _spares.lock:
            child = _spares.child if _spares.child is not None and _spares.child.early else None
            if child is not None:
                _spares.child = None
        if child is not None:
            child.close()


@contextmanager
def warm_children(warmups: Sequence[Call] | None) -> Iterator[None]:
    """Within the block every `stream` call finds a child already started that has run
    `warmups` (calls whose effects the work reuses: imports, caches) while it waited; the
    unused one ends with the block. None: no child is started ahead."""
    _spares.replace(warmups)
    try:
        yield
    finally:
        _spares.replace(None)


def stream(fn: Callable[..., Iterator[Any]], args: tuple[Any, ...], seconds: float | None,
           memory_mb: int | None = None) -> Iterator[Any]:
    """Yield fn(*args)'s items as the child produces them; raise Deadline when time is up, and
    MemoryExceeded when the child's resident memory plus this process's passes `memory_mb`."""
    ends = None if seconds is None else time.monotonic() + seconds
    child = _spares.take()
    try:
        try:
            pickle.dump(("work", pickle.dumps((fn, args))), child.stdin)
            child.stdin.close()
        except BrokenPipeError:
            raise RuntimeError("the solver process could not start") from None
        while True:
            wait = None if ends is None else max(0.0, ends - time.monotonic())
            if memory_mb is not None:
                wait = MEMORY_POLL if wait is None else min(wait, MEMORY_POLL)
            if not child.receiver.poll(wait):
                if memory_mb is not None and resident_mb() + resident_mb(child.process.pid) > memory_mb:
                    raise MemoryExceeded(memory_mb)
                if ends is not None and time.monotonic() >= ends:
                    raise Deadline()
                continue
            try:
                kind, payload = child.receiver.recv()
            except EOFError:
                code = child.process.wait()
                raise RuntimeError(f"the solver process died without an answer (exit code {code})") from None
            if kind == "item":
                yield payload
            elif kind == "done":
                return
            else:
                raise RuntimeError(payload)
    finally:
        child.close()
