"""Batches: many runs (instances x metrics x engine configurations x repeats) from one spec,
on a local pool or a Dask cluster, into one results table, cross-checked and plotted.

The modules, one job each: `spec` (the YAML spec -> runs), `run` (one run as plain data),
`child` (the process a run lives in), `supervise` (start it, watch its limits, its row whatever
happens), `executors` (local pool, Dask), `driver` (resume, journal, progress, Ctrl-C),
`table` (the columns; Parquet and CSV), `crosscheck` (summary, disagreements), `plot`
(cactus, scatter, table pictures).

Why a process per run, not a pool of long-lived workers: a run that crashes, leaks or blows its
memory takes only its own process down, memory is measured per run, and one run's heap never
carries into the next; the forkserver keeps the start of each process to milliseconds.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from puzzleplan.plans.batch.driver import BatchReport, OutputExists, run_batch
from puzzleplan.plans.batch.spec import Spec, load_spec
from puzzleplan.plans.core.progress import asked_display


def default_workers() -> int:
    """Runs at a time by default: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:   # not Linux
        return max(1, os.cpu_count() or 1)


def make_executor(workers: int | None = None, scheduler: str | None = None, cluster: str | None = None) -> Any:
    """The executor asked for: a Dask cluster at `scheduler`, a Dask LocalCluster of `workers`
    (`cluster="local"`), else a local pool of `workers` processes."""
    from puzzleplan.plans.batch.executors import DaskExecutor, LocalPool
    if scheduler is not None and cluster is not None:
        raise ValueError("give a scheduler address or cluster='local', not both")
    if cluster not in (None, "local"):
        raise ValueError(f"cluster: expected 'local', got {cluster!r}")
    if scheduler is not None:
        return DaskExecutor(scheduler=scheduler)
    if cluster == "local":
        return DaskExecutor(local_workers=workers or default_workers())
    return LocalPool(workers or default_workers())


def batch(spec: str | Path | Spec, output: str | Path | None = None, workers: int | None = None,
          scheduler: str | None = None, cluster: str | None = None, resume: bool = False,
          overwrite: bool = False, progress: Any = None) -> BatchReport:
    """Run a batch spec (a file or a parsed Spec) into its results table; the report.

    output: the table (.parquet or .csv; default the spec's `output:`, else SPEC_STEM.parquet
    beside the spec). workers: runs at a time (local pool) or LocalCluster workers.
    scheduler: a Dask scheduler address (tcp://HOST:PORT); cluster="local": a Dask LocalCluster.
    resume: keep the table's rows of the spec's runs and run the rest (rows of runs the spec no
    longer makes are dropped, with a warning and `dropped` in the report); overwrite: start again.
    progress: None (silent), True (a display on stderr when it is a terminal) or a Progress
    (puzzleplan.plans.core.progress)."""
    parsed = spec if isinstance(spec, Spec) else load_spec(spec)
    target = Path(output) if output is not None else default_output(parsed)
    with make_executor(workers, scheduler, cluster) as executor, asked_display(progress) as display:
        ready = parsed.with_memory_default(executor.default_memory_mb())
        return run_batch(ready, target, executor, resume=resume, overwrite=overwrite, progress=display)


def default_output(spec: Spec) -> Path:
    """The spec's `output:` (`..` folded: `specs/../out/t.parquet` is `out/t.parquet`), else
    SPEC_STEM.parquet beside the spec."""
    if spec.output is not None:
        return Path(os.path.normpath(spec.output))
    source = Path(spec.source)
    return source.with_name(f"{source.stem}.parquet")


__all__ = ["BatchReport", "OutputExists", "Spec", "batch", "default_output", "default_workers", "load_spec",
           "make_executor", "run_batch"]
