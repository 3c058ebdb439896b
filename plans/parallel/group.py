"""The parent side of pbfs: W worker processes, their queues, and the commands of a search.

Workers are started with the "forkserver" start method ("spawn" where there is none), never a
plain fork: the parent may hold OR-Tools or numba threads. Models travel to the workers
pickled; the built-in families and user families pickle. While a layer runs the parent checks,
every WAIT_SECONDS, that every worker is alive and that the limits hold (time, and the memory
of the parent and every worker). A plan is read back from the goal by asking, state by state,
the owner of each parent pointer.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import queue
import signal
from typing import Any, Callable

from puzzleplan.models.base import ModelError

from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.contracts import Action, Model, State
from puzzleplan.plans.core.memory import resident_mb
from puzzleplan.plans.parallel.partition import owner_function
from puzzleplan.plans.parallel.worker import LayerReport, worker_main

WAIT_SECONDS = 0.1          # how often the parent checks limits and workers while a layer runs


class WorkerError(RuntimeError):
    """A worker raised an exception (e.g. in the model's own code); carries its traceback."""


class WorkerDied(RuntimeError):
    """A worker process ended without a word (killed, e.g. by the out-of-memory killer)."""


def start_method() -> str:
    """forkserver where the platform has it, else spawn (never plain fork)."""
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


class WorkerGroup:
    """W worker processes and their queues; one search job at a time. Use as a context manager."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"expected at least 1 worker, got {workers}")
        mpctx = mp.get_context(start_method())
        self.size = workers
        self.control = [mpctx.Queue() for _ in range(workers)]
        self.inboxes = [mpctx.Queue() for _ in range(workers)]
        self.results = mpctx.Queue()
        self.broken = False
        self.owner: Callable[[Any], int] = lambda state: 0
        self.procs = [mpctx.Process(target=worker_main, name=f"pbfs-worker-{i}", daemon=True,
                                    args=(i, workers, self.control[i], self.inboxes, self.results))
                      for i in range(workers)]
        self._started: list[Any] = []
        try:
            for proc in self.procs:
                proc.start()
                self._started.append(proc)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "WorkerGroup":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- commands ---------------------------------------------------------------------------------
    def _all(self, command: tuple[Any, ...], ctx: SearchContext | None) -> list[Any]:
        if self.broken:
            raise RuntimeError("this worker group was interrupted mid-layer; start a new one")
        for q in self.control:
            q.put(command)
        return self._collect(self.size, ctx)

    def _collect(self, count: int, ctx: SearchContext | None) -> list[Any]:
        replies: dict[int, Any] = {}
        try:
            while len(replies) < count:
                try:
                    kind, wid, answer = self.results.get(timeout=WAIT_SECONDS)
                except queue.Empty:
                    self._check_workers()
                    if ctx is not None:
                        self._check_limits(ctx)
                    continue
                if kind == "model_error":
                    raise ModelError(answer)
                if kind == "error":
                    raise WorkerError(f"pbfs worker {wid} failed:\n{answer}")
                replies[wid] = answer
        except BaseException:
            self.broken = True
            raise
        return [replies[w] for w in sorted(replies)]

    def _check_workers(self) -> None:
        for i, proc in enumerate(self.procs):
            if not proc.is_alive():
                code = proc.exitcode
                why = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                hint = " (out of memory?)" if code == -signal.SIGKILL else ""
                raise WorkerDied(f"pbfs worker {i} died: {why}{hint}")

    def memory_mb(self) -> float:
        """Resident memory of the parent plus every worker, MiB."""
        return resident_mb() + sum(resident_mb(p.pid) for p in self.procs if p.pid is not None)

    def cpu_seconds(self) -> list[float]:
        """CPU time (user + system) each worker has used so far (Linux /proc; 0 elsewhere)."""
        ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        out = []
        for proc in self.procs:
            try:
                with open(f"/proc/{proc.pid}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                out.append((int(fields[11]) + int(fields[12])) / ticks)
            except (OSError, ValueError, IndexError):
                out.append(0.0)
        return out

    def _check_limits(self, ctx: SearchContext) -> None:
        ctx.poll()
        limit = ctx.limits.memory_mb
        if limit is not None and self.memory_mb() > limit:
            raise LimitReached(f"memory limit of {limit} MiB reached (parent and {self.size} workers)")

    def load(self, model: Model, track: bool, ctx: SearchContext | None = None) -> None:
        """Hand every worker the model; `track` keeps parent pointers (for plans)."""
        blob = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
        self._all(("load", blob, track), ctx)

    def seed(self, start: Any, ctx: SearchContext | None = None) -> list[LayerReport]:
        self.owner = owner_function(self.size, start)
        return self._all(("seed", start), ctx)

    def expand(self, layer: int, ctx: SearchContext | None = None) -> list[LayerReport]:
        return self._all(("expand", layer), ctx)

    def parent_of(self, state: Any, ctx: SearchContext | None = None) -> Any:
        """(parent, action) of a state reached with track=True, or None for the start."""
        if self.broken:
            raise RuntimeError("this worker group was interrupted mid-layer; start a new one")
        self.control[self.owner(state)].put(("parent", state))
        return self._collect(1, ctx)[0]

    def trace_back(self, state: State, ctx: SearchContext | None = None) -> list[Action]:
        """The actions from the start to `state`, following parent pointers across owners."""
        actions = []
        link = self.parent_of(state, ctx)
        while link is not None:
            state, action = link
            actions.append(action)
            link = self.parent_of(state, ctx)
        actions.reverse()
        return actions

    def drop(self, ctx: SearchContext | None = None) -> None:
        """Free the workers' tables (the group stays up for another job)."""
        self._all(("drop",), ctx)

    def close(self) -> None:
        """Stop every worker: politely when idle, by force when interrupted mid-layer."""
        procs = self._started
        if not self.broken:
            for q in self.control:
                try:
                    q.put(("stop",))
                except (OSError, ValueError):
                    pass
            for proc in procs:
                proc.join(timeout=5)
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        for proc in procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        for q in [*self.control, *self.inboxes, self.results]:
            q.cancel_join_thread()
            q.close()
        self.procs, self._started = [], []
        self.broken = True


def default_workers() -> int:
    return os.cpu_count() or 1
