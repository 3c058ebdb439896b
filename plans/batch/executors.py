"""Where a batch's runs execute: a local pool, or a Dask distributed cluster.

Both hand each run to `supervise` (a process of its own, watched) and report rows as runs
finish, in the order they finish; the table is sorted in run order when it is written, so one
spec gives the same table on either executor.

- `LocalPool(workers)`: `workers` runs at a time on this machine, each supervised from a thread.
- `DaskExecutor(scheduler=ADDRESS)` or `DaskExecutor(local_workers=N)`: one Dask task per run,
  submitted as futures and collected with `as_completed`. On a worker the task supervises the
  run's process the same way. Where the workers declare a `memory_mb` resource
  (`dask worker ADDRESS --resources memory_mb=16000`; the LocalCluster started here declares
  its share), each task asks for its run's memory limit, so the scheduler never places more
  runs on a machine than its memory holds. Ctrl-C sets a `distributed.Event` the running tasks
  watch: they kill their processes at once.
"""
from __future__ import annotations

import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Callable, Iterable

from puzzleplan.plans.batch.run import Run
from puzzleplan.plans.batch.supervise import main_hidden, supervise
from puzzleplan.plans.core.memory import DEFAULT_SHARE, available_mb
from puzzleplan.plans.warmup import compile_first

RowSink = Callable[[dict[str, Any]], None]
RESOURCE = "memory_mb"


class ExecutorError(Exception):
    """The executor cannot start (no scheduler at the address, a worker without puzzleplan, ...)."""


class ExecutorLost(Exception):
    """The executor went away mid-batch (the Dask scheduler's connection was lost): the runs not
    answered yet are not failures of theirs, so the batch stops as if interrupted."""


def safe_supervise(run: Run, stop: Any = None) -> dict[str, Any] | None:
    """`supervise`, with a failure to start or watch the process turned into the run's error row."""
    try:
        return supervise(run, stop)
    except Exception as exc:   # e.g. no process could be started (resource exhaustion)
        import socket
        return {**run.fixed_columns(), "host": socket.gethostname(), "status": "error",
                "error": f"the run could not be supervised: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"}


def share_of_memory(slots: int) -> int | None:
    """The default memory limit of one run when `slots` run at once: 75 % of the memory
    available now, split between them (None where the machine's memory cannot be read)."""
    free = available_mb()
    return None if free is None else max(256, int(free * DEFAULT_SHARE / max(1, slots)))


class LocalPool:
    """`workers` runs at a time on this machine."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self.description = f"local pool, {self.workers} process{'es' if self.workers > 1 else ''} at a time"

    def __enter__(self) -> "LocalPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def default_memory_mb(self) -> int | None:
        return share_of_memory(self.workers)

    def run(self, runs: Iterable[Run], on_row: RowSink) -> None:
        """Run everything, calling `on_row` (in this thread) as runs finish. KeyboardInterrupt
        kills the running processes and is raised again once they are gone. Kernels not compiled
        yet are compiled first (plans/warmup.compile_first)."""
        runs = list(runs)
        compile_first(run.family for run in runs)
        stop = threading.Event()
        with ThreadPoolExecutor(self.workers, thread_name_prefix="puzzleplan-run") as pool:
            futures = [pool.submit(safe_supervise, run, stop) for run in runs]
            try:
                for future in as_completed(futures):
                    row = future.result()
                    if row is not None:
                        on_row(row)
            except BaseException:
                stop.set()
                for future in futures:
                    future.cancel()
                raise


class _EventStop:
    """A Dask `Event` read at most once a second (supervise asks every 50 ms)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._event: Any = None
        self._checked = 0.0
        self._set = False

    def is_set(self) -> bool:
        now = time.monotonic()
        if not self._set and now - self._checked >= 1.0:
            self._checked = now
            try:
                if self._event is None:
                    from distributed import Event
                    self._event = Event(self.name)
                self._set = bool(self._event.is_set())
            except Exception:   # the scheduler is gone: the batch is over
                self._set = True
        return self._set


def run_on_worker(payload: dict[str, Any], stop_name: str) -> dict[str, Any] | None:
    """The Dask task of one run (importable on every worker: puzzleplan must be installed there)."""
    return safe_supervise(Run.from_payload(payload), _EventStop(stop_name))


def _worker_version() -> str:
    import puzzleplan
    return str(puzzleplan.__version__)


def _missing(paths: list[str]) -> list[str]:
    import os
    return [p for p in paths if not os.path.isfile(p)]


def _ignore_interrupt_plugin_base() -> type:
    try:
        from distributed.diagnostics.plugin import WorkerPlugin
    except ImportError:   # pragma: no cover - without distributed the executor is refused earlier
        return object
    return WorkerPlugin


class _IgnoreInterrupt(_ignore_interrupt_plugin_base()):  # type: ignore[misc]
    """Makes the worker processes of a LocalCluster we started ignore SIGINT (and log only
    errors, as the batch's own process does). Ctrl-C (or `timeout -s INT`) reaches the whole
    process group: the batch's own process stops the runs and closes the cluster, while each
    worker, interrupted mid-task, printed its tracebacks (about 65 lines a Ctrl-C)."""

    def setup(self, worker: Any) -> None:
        import logging
        import signal
        import threading
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        # a lost scheduler is the batch's to say, in one line (distributed's loggers, such as
        # distributed.client, carry levels of their own)
        for name in ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]:
            logging.getLogger(name).setLevel(logging.CRITICAL)   # a run cancelled at Ctrl-C is no news


class DaskExecutor:
    """Runs as Dask tasks: on the cluster at `scheduler` (tcp://HOST:PORT), or on a LocalCluster
    of `local_workers` worker processes started here (one thread each) and closed at the end."""

    def __init__(self, scheduler: str | None = None, local_workers: int | None = None) -> None:
        if (scheduler is None) == (local_workers is None):
            raise ValueError("DaskExecutor takes a scheduler address or a number of local workers")
        self.scheduler = scheduler
        self.local_workers = local_workers
        self.client: Any = None
        self.cluster: Any = None
        self.description = (f"Dask cluster at {scheduler}" if scheduler else
                            f"Dask LocalCluster, {local_workers} worker{'s' if local_workers != 1 else ''}")

    def __enter__(self) -> "DaskExecutor":
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorError("the Dask executor needs dask.distributed (pip install 'dask[distributed]')") from None
        import logging
        # a lost scheduler is the batch's to say, in one line (distributed's loggers, such as
        # distributed.client, carry levels of their own)
        for name in ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]:
            logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            if self.scheduler is not None:
                self.client = Client(self.scheduler, timeout="10s")
            else:
                import dask
                share = share_of_memory(self.local_workers or 1)
                # non-daemonic workers may fork: runs start from the preloaded forkserver, as locally
                with dask.config.set({"distributed.worker.daemon": False}), main_hidden():
                        self.cluster = LocalCluster(n_workers=self.local_workers, threads_per_worker=1, processes=True,
                                                memory_limit=0, dashboard_address=None,
                                                resources={RESOURCE: share} if share else None)
                self.client = Client(self.cluster)
                self.client.register_plugin(_IgnoreInterrupt(), name="puzzleplan-ignore-sigint")
        except (OSError, TimeoutError) as exc:
            self.close()
            raise ExecutorError(f"cannot reach the Dask scheduler {self.scheduler or '(local)'}: "
                                f"{' '.join(str(exc).split())[:200]}") from None
        self._check_workers()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        for thing in (self.client, self.cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:
                    pass
        self.client = self.cluster = None

    def _workers(self) -> dict[str, Any]:
        return dict(self.client.scheduler_info(n_workers=-1).get("workers", {}))

    def _check_workers(self) -> None:
        if not self._workers():
            try:
                self.client.wait_for_workers(1, timeout=30)
            except (TimeoutError, OSError) as exc:   # distributed's WorkerStartTimeoutError is a TimeoutError
                self.close()
                raise ExecutorError(f"the Dask scheduler {self.scheduler or '(local)'} has no workers "
                                    f"({' '.join(str(exc).split())[:120]})") from None
        mine = _worker_version()
        try:
            versions = self.client.run(_worker_version)
        except Exception as exc:
            raise ExecutorError(f"a Dask worker cannot import puzzleplan (install it on every worker): "
                                f"{' '.join(str(exc).split())[:200]}") from None
        other = {w: v for w, v in versions.items() if v != mine}
        if other:
            worker, version = next(iter(other.items()))
            raise ExecutorError(f"Dask worker {worker} has puzzleplan {version}, this machine {mine}; "
                                "install the same version everywhere")

    def check_files(self, paths: list[str]) -> None:
        """Every worker must read the instance files at the same paths (a shared filesystem)."""
        missing = {w: m for w, m in self.client.run(_missing, sorted(set(paths))).items() if m}
        if missing:
            worker, files = next(iter(missing.items()))
            raise ExecutorError(f"Dask worker {worker} cannot read {files[0]}"
                                f"{f' (and {len(files) - 1} more)' if len(files) > 1 else ''}; the workers need the "
                                "instance files at the same paths (a shared filesystem)")

    def default_memory_mb(self) -> int | None:
        """A run's memory limit when the spec states none: a share of the workers' declared
        `memory_mb` resource, else of their memory limit, that lets each worker run as many runs
        as it has threads."""
        if self.cluster is not None:
            return share_of_memory(self.local_workers or 1)
        workers = self._workers().values()
        if workers and all(RESOURCE in (w.get("resources") or {}) for w in workers):
            return int(min(w["resources"][RESOURCE] / max(1, w.get("nthreads", 1)) for w in workers))
        shares = [w["memory_limit"] * DEFAULT_SHARE / 2**20 / max(1, w.get("nthreads", 1))
                  for w in workers if w.get("memory_limit")]
        return int(min(shares)) if shares else None

    def run(self, runs: Iterable[Run], on_row: RowSink) -> None:
        from distributed import Event, as_completed as dask_completed
        runs = list(runs)
        self.check_files([r.path for r in runs])
        workers = self._workers().values()
        declared = all(RESOURCE in (w.get("resources") or {}) for w in workers)
        if declared:   # a run asking for more than any worker offers would wait forever
            largest = max(w["resources"][RESOURCE] for w in workers)
            hungry = max(runs, key=lambda r: r.memory_mb or 0)
            if (hungry.memory_mb or 0) > largest:
                raise ExecutorError(f"run {hungry.index + 1} ({hungry.instance}) has a memory limit of "
                                    f"{hungry.memory_mb:,} MiB, more than any Dask worker's {RESOURCE} "
                                    f"resource ({largest:,.0f}); lower memory_limit or give the workers more")
        self._compile_first({run.family for run in runs})
        stop_name = f"puzzleplan-stop-{uuid.uuid4().hex}"
        futures = {}
        for run in runs:
            resources = {RESOURCE: run.memory_mb or 0} if declared else None
            future = self.client.submit(run_on_worker, run.payload(), stop_name, pure=False,
                                        key=f"puzzleplan-run-{run.run_id}-{uuid.uuid4().hex[:8]}", resources=resources)
            futures[future] = run
        try:
            for future in dask_completed(list(futures)):
                on_row(self._row(future, futures[future]))
        except BaseException:
            try:
                Event(stop_name, client=self.client).set()
                self.client.cancel(list(futures))
            except Exception:
                pass
            raise

    def _compile_first(self, names: set[str]) -> None:
        """Kernels not compiled yet, compiled before the runs: here for a LocalCluster (its
        workers share this machine's cache), else on one worker of each host in turn (the
        workers of a host share its cache; compiling one cache at once from two processes can
        crash them)."""
        if self.cluster is not None:
            compile_first(names)
            return
        hosts: dict[str, str] = {}
        for address, worker in self._workers().items():
            hosts.setdefault(str(worker.get("host", address)), address)
        for address in hosts.values():
            self.client.run(compile_first, sorted(names), workers=[address])

    @staticmethod
    def _row(future: Any, run: Run) -> dict[str, Any]:
        from concurrent.futures import CancelledError
        try:
            row = future.result()
        except CancelledError as exc:   # only the scheduler cancels while we wait: it lost us, or is gone
            raise ExecutorLost(f"the Dask scheduler cancelled the runs ({' '.join(str(exc).split())[:160]})") from None
        except Exception as exc:   # the task itself failed: the worker died (KilledWorker), ...
            import socket
            return {**run.fixed_columns(), "host": socket.gethostname(), "status": "error",
                    "error": f"the Dask task failed: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}"}
        return row if row is not None else {**run.fixed_columns(), "status": "error", "error": "stopped"}


__all__ = ["DaskExecutor", "ExecutorError", "ExecutorLost", "LocalPool", "run_on_worker", "safe_supervise", "share_of_memory"]
