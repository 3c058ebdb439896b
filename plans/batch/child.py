"""The process one run lives in: read the puzzle, solve it under the run's limits, write the row.

The row goes to a file the supervisor named (written whole, then renamed), never through a
pipe, so a long plan cannot fill a pipe and a crash leaves no half-written row: no file means
the process died, and the supervisor says how. Two ways in, one body (`execute`):
`child_main` for a process forked by multiprocessing (the local pool's forkserver) and
`python -m puzzleplan.plans.batch.child RESULT_FILE` (the run as JSON on stdin) where a process
may not fork children of its own (a Dask worker is a daemonic process).
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sys
import time
from typing import Any

from puzzleplan.plans.batch.run import Run


def _ignore_interrupts() -> None:
    """Ctrl-C is the batch's to handle: it stops the runs itself and keeps what finished."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:   # not the main thread (never the case in a run's own process)
        pass


def peak_mb() -> float:
    """This process's peak resident memory (MiB)."""
    import resource
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kib / 1024 if sys.platform != "darwin" else kib / 2**20


def execute(run: Run) -> dict[str, Any]:
    """Run `run` in this process and return its row (every outcome is a row, never an exception)."""
    from puzzleplan.models import ModelError, load
    from puzzleplan.plans.core.context import SearchContext
    from puzzleplan.plans.core.types import Limits, Request
    from puzzleplan.plans.solve import EngineBug, solve
    row: dict[str, Any] = {**run.fixed_columns(), "host": socket.gethostname()}
    start = time.perf_counter()
    try:
        model = load(run.path, level=run.level)
        if model.metric != run.metric:   # as the command line does: the file as written, else with the metric set
            model = load(run.path, {"metric": run.metric}, level=run.level)
        loaded = time.perf_counter() - start
        options = dict(run.options)
        if run.encoding:
            options["encoding"] = run.encoding
        if run.solver:
            options["solver"] = run.solver
        limits = Limits(time_limit=run.time_limit, max_states=run.max_states, memory_mb=run.memory_mb)
        request = Request(max_moves=run.max_moves if run.max_moves is not None else model.max_moves,
                          any_plan=run.any_plan, limits=limits, options=options)
        result = solve(model, run.engine, request, SearchContext(limits))
    except EngineBug as exc:
        return {**row, "status": "error", "plan_checked": False, "error": _line(str(exc)),
                "total_seconds": time.perf_counter() - start, "peak_mb": peak_mb()}
    except (ModelError, ValueError, TypeError, KeyError, ImportError) as exc:
        return {**row, "status": "error", "error": _line(f"{type(exc).__name__}: {exc}"),
                "total_seconds": time.perf_counter() - start, "peak_mb": peak_mb()}
    total = time.perf_counter() - start
    stats = result.stats.as_dict()
    calls = stats.get("calls") or []
    built = sum(c.get("build_seconds") or 0.0 for c in calls)
    solved = sum(c.get("solve_seconds") or 0.0 for c in calls) if calls else result.stats.seconds
    plan = result.plan
    return {**row,
            # the engine's own choice where the spec left them out (the sat engine's default encoding...)
            "encoding": row["encoding"] or stats.get("encoding"), "solver": row["solver"] or stats.get("solver"),
            "status": result.status.value,
            "length": None if plan is None else plan.length,
            "cost": None if plan is None else plan.cost,
            "lower_bound": result.lower_bound,
            "nodes": result.stats.nodes, "states": result.stats.states,
            "variables": stats.get("variables"), "clauses": stats.get("constraints", stats.get("clauses")),
            "build_seconds": loaded + built, "solve_seconds": solved, "total_seconds": total,
            "peak_mb": peak_mb(),
            "plan_checked": None if plan is None else True,   # solve() replays every plan; a rejected one is EngineBug
            "plan": None if plan is None else plan.text(),
            "error": _line(result.message) or None}


def _line(text: str) -> str:
    return " ".join(str(text).split())[:400]


def write_row(row: dict[str, Any], path: str) -> None:
    """Write the row to `path` whole (a temporary name, then a rename)."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(row, f)
    os.replace(tmp, path)


def child_main(payload: dict[str, Any], result_path: str) -> None:
    """The entry of a forked run process."""
    _ignore_interrupts()
    write_row(execute(Run.from_payload(payload)), result_path)


def main() -> int:
    """`python -m puzzleplan.plans.batch.child RESULT_FILE`, the run's JSON on stdin."""
    _ignore_interrupts()
    if len(sys.argv) != 2:
        print("usage: python -m puzzleplan.plans.batch.child RESULT_FILE < RUN.json", file=sys.stderr)
        return 2
    payload = json.load(sys.stdin)
    write_row(execute(Run.from_payload(payload)), sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
