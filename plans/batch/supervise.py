"""Run one batch run in a process of its own and watch it: the run's row, whatever happens.

The run's own limits stop it from inside (the engines poll time, states and memory). The
supervisor is the backstop for what polling cannot catch: a run still alive `GRACE_SECONDS`
after its time limit, or resident memory past `hard_memory_mb`, is killed and becomes a
`limit_reached` row; a process that dies without writing its row (a crash, a signal, the
kernel's OOM killer) becomes an `error` row naming how it died. Nothing a run does can take the
batch down.

Processes: a forkserver (preloaded with puzzleplan, so each run starts in milliseconds) when
this process may have children; `python -m puzzleplan.plans.batch.child` otherwise (inside a
Dask worker, a daemonic process).
"""
from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from puzzleplan.plans.batch.run import Run
from puzzleplan.plans.core.memory import resident_mb

GRACE_SECONDS = 10.0     # after the time limit, before the process is killed
POLL_SECONDS = 0.05
PRELOAD = ["puzzleplan.plans.batch.child", "puzzleplan.plans.solve", "puzzleplan.models", "numpy", "numba",
           "pysat.solvers", "ortools.sat.python.cp_model", "puzzleplan.encoders.base"]

_context_lock = threading.RLock()
_context: Any = None


def hard_memory_mb(limit_mb: int | None) -> float | None:
    """Resident MiB past which the supervisor kills a run: the run's own limit plus a margin
    (the run stops itself at its limit; the margin covers allocations between its polls)."""
    return None if limit_mb is None else limit_mb * 1.25 + 256


def _fork_context() -> Any:
    global _context
    with _context_lock:
        if _context is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
            _context = ctx
        return _context


@contextmanager
def main_hidden() -> Iterator[None]:
    """While processes start: a bare `__main__`, so multiprocessing's spawn and forkserver
    children never re-run the caller's script (which would start the batch again from each
    child, unless the script guards itself with `if __name__ == "__main__"`). Runs and Dask
    workers need nothing from the script: their code is all in puzzleplan."""
    with _context_lock:
        saved = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            sys.modules["__main__"] = saved


def _may_fork() -> bool:
    return not multiprocessing.current_process().daemon


class _Process:
    """A started run process: pid, liveness, exit description, kill."""

    def __init__(self, run: Run, result_path: str) -> None:
        payload = run.payload()
        if _may_fork():
            from puzzleplan.plans.batch.child import child_main
            # not daemonic: a run may start processes of its own (pbfs); supervise() kills it on every way out
            self._proc: Any = _fork_context().Process(target=child_main, args=(payload, result_path), daemon=False)
            with main_hidden():
                self._proc.start()
            self.pid = self._proc.pid
            self._popen = None
            self._stderr = None
        else:
            self._proc = None
            self._stderr = tempfile.TemporaryFile()   # a file, not a pipe: a chatty run cannot block on it
            self._popen = subprocess.Popen([sys.executable, "-m", "puzzleplan.plans.batch.child", result_path],
                                           stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                           stderr=self._stderr, start_new_session=True)
            assert self._popen.stdin is not None
            self._popen.stdin.write(json.dumps(payload).encode("utf-8"))
            self._popen.stdin.close()
            self.pid = self._popen.pid

    def exitcode(self) -> int | None:
        """None while running; else the exit code (negative: killed by that signal)."""
        if self._proc is not None:
            return self._proc.exitcode
        assert self._popen is not None
        return self._popen.poll()

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self._proc is not None:
            self._proc.join(5)
        elif self._popen is not None:
            self._popen.wait(5)

    def stderr_tail(self) -> str:
        """The last line the process wrote to stderr ('' when unknown)."""
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        text = self._stderr.read()[-4000:].decode("utf-8", "replace").strip().splitlines()
        self._stderr.close()
        return text[-1] if text else ""


def supervise(run: Run, stop: threading.Event | None = None,
              on_start: Callable[[Run], None] | None = None) -> dict[str, Any] | None:
    """Run `run` in its own process until it writes its row, dies, or is killed; the row.
    None when `stop` was set (Ctrl-C): the run is killed and leaves no row."""
    fd, result_path = tempfile.mkstemp(prefix="puzzleplan-run-", suffix=".json")
    os.close(fd)
    os.unlink(result_path)
    started = time.monotonic()
    proc = _Process(run, result_path)
    if on_start is not None:
        on_start(run)
    peak = 0.0
    hard = hard_memory_mb(run.memory_mb)
    deadline = None if run.time_limit is None else started + run.time_limit + GRACE_SECONDS
    killed = ""
    try:
        while proc.exitcode() is None:
            if stop is not None and stop.is_set():
                proc.kill()
                return None
            rss = resident_mb(proc.pid)
            peak = max(peak, rss)
            if hard is not None and rss > hard:
                killed = f"killed by the batch at {rss:,.0f} MiB resident (memory limit {run.memory_mb:,} MiB)"
            elif deadline is not None and time.monotonic() > deadline:
                killed = (f"killed by the batch: still running {GRACE_SECONDS:.0f} s after its time limit "
                          f"of {run.time_limit:g} s")
            if killed:
                proc.kill()
                break
            time.sleep(POLL_SECONDS)
        return _row(run, proc, result_path, killed, peak, time.monotonic() - started)
    finally:
        if proc.exitcode() is None:
            proc.kill()
        for path in (result_path, f"{result_path}.tmp"):
            if os.path.exists(path):
                os.unlink(path)


def _row(run: Run, proc: _Process, result_path: str, killed: str, peak: float, wall: float) -> dict[str, Any]:
    import socket
    if not killed and os.path.exists(result_path):
        with open(result_path, encoding="utf-8") as f:
            return json.load(f)
    row = {**run.fixed_columns(), "host": socket.gethostname(), "total_seconds": wall, "peak_mb": peak or None}
    if killed:
        return {**row, "status": "limit_reached", "error": killed}
    code = proc.exitcode()
    if code is not None and code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
        if -code == signal.SIGKILL:
            how += " (the kernel's out-of-memory killer, or someone else)"
    else:
        how = f"exited with code {code}"
    tail = proc.stderr_tail()
    return {**row, "status": "error", "error": f"the run's process died without a result: {how}"
                                               f"{': ' + tail[:200] if tail else ''}"}


__all__ = ["GRACE_SECONDS", "hard_memory_mb", "main_hidden", "supervise"]
