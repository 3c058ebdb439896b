"""Run a generator in a child process under a deadline, streaming its items back.

python-sat's CaDiCaL cannot be interrupted in-process, so SAT solving runs in a child that the
parent kills when the time limit (or Ctrl-C) comes first.

Why a fresh interpreter started as `python -m puzzleplan.encoders.solver_process` rather than
multiprocessing: a forkserver or spawn child re-imports the caller's `__main__`, so a user's
script without an `if __name__ == "__main__"` guard ran twice, and a script read from standard
input (`python - <<EOF`) could not be re-imported at all. A module of puzzleplan as the entry
point imports nothing of the caller's. (Plain fork is no option either: forking a parent that
runs solver or compiler threads can deadlock the child on a lock held by a missing thread.)

The child gets the parent's `sys.path` and then the pickled `(fn, args)` on its standard input,
and sends `("item", x)`, `("done", None)` or `("error", text)` messages back over a pipe of its
own (its stdout stays free for anything a solver prints). It dies with the parent (Linux
`PR_SET_PDEATHSIG`, plus a watchdog thread elsewhere), so no run leaves an orphan behind.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from multiprocessing.connection import Connection
from typing import Any, Callable, Iterator


class Deadline(Exception):
    """The deadline passed before the child finished."""


def stream(fn: Callable[..., Iterator[Any]], args: tuple[Any, ...], seconds: float | None) -> Iterator[Any]:
    """Yield fn(*args)'s items as the child produces them; raise Deadline when time is up."""
    ends = None if seconds is None else time.monotonic() + seconds
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
    receiver = Connection(read_fd, writable=False)
    try:
        assert process.stdin is not None
        try:
            process.stdin.write(pickle.dumps((list(sys.path), pickle.dumps((fn, args)))))
            process.stdin.close()
        except BrokenPipeError:
            raise RuntimeError("the solver process could not start") from None
        while True:
            wait = None if ends is None else max(0.0, ends - time.monotonic())
            if not receiver.poll(wait):
                raise Deadline()
            try:
                kind, payload = receiver.recv()
            except EOFError:
                code = process.wait()
                raise RuntimeError(f"the solver process died without an answer (exit code {code})") from None
            if kind == "item":
                yield payload
            elif kind == "done":
                return
            else:
                raise RuntimeError(payload)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        receiver.close()
