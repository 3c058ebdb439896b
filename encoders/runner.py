"""Run a generator in a child process under a deadline, streaming its items back.

python-sat's CaDiCaL cannot be interrupted in-process, so SAT solving runs in a child that the
parent kills when the time limit (or Ctrl-C) comes first. Children come from a forkserver, not
a plain fork: forking a parent that already runs solver or compiler threads (CP-SAT, numba) can
deadlock the child on a lock held by a thread that does not exist there. Arguments and items
must therefore be picklable.
"""
from __future__ import annotations

import multiprocessing
import time
import traceback
from typing import Any, Callable, Iterator


class Deadline(Exception):
    """The deadline passed before the child finished."""


def _child(conn: Any, fn: Callable[..., Iterator[Any]], args: tuple[Any, ...]) -> None:
    try:
        for item in fn(*args):
            conn.send(("item", item))
        conn.send(("done", None))
    except BaseException as exc:  # report, never hang the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
    finally:
        conn.close()


def stream(fn: Callable[..., Iterator[Any]], args: tuple[Any, ...], seconds: float | None) -> Iterator[Any]:
    """Yield fn(*args)'s items as the child produces them; raise Deadline when time is up."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["pysat.solvers", "pysat.card", "puzzleplan.encoders.sat.base"])
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sender, fn, args), daemon=True)
    process.start()
    sender.close()
    ends = None if seconds is None else time.monotonic() + seconds
    try:
        while True:
            wait = None if ends is None else max(0.0, ends - time.monotonic())
            if not receiver.poll(wait):
                raise Deadline()
            try:
                kind, payload = receiver.recv()
            except EOFError:
                raise RuntimeError("the solver process died without an answer") from None
            if kind == "item":
                yield payload
            elif kind == "done":
                return
            else:
                raise RuntimeError(payload)
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
