"""Parallel breadth-first exploration: threads over packed arrays and processes, against one thread.

Run by hand from the repository root:

    .venv/bin/python benchmarks/pbfs.py [--workers 1 2] [--repeat 1] [--small]

The space: a 3x4 sliding-tiles board whose faces repeat (four pairs, one triple, the blank), so
every one of its 12!/(2**4 * 3!) = 4,989,600 layouts is reachable. `--small` uses a 2x5 board
with distinct faces instead (10!/2 = 1,814,400 states). Rows: `explore` per state (the model's
`successors` and a set: the reference), `explore` over packed uint64 arrays on 1..N threads
(what `puzzleplan explore --workers N` runs for tiles and Rush Hour), and `explore_parallel` on
1..N processes (what it runs for the other families). Each run explores the whole space
once; the table gives the wall time (best of --repeat), states per second, the speed-up over the
serial explorer, the peak resident memory of the parent plus its workers (sampled every 0.2 s,
so a rough figure), the time to start the workers (not in `seconds`) and the CPU seconds each
worker used (on a busy machine the wall time says little; the CPU split shows the balance and
the overhead). The counts of every run are checked against the serial one.
"""
from __future__ import annotations

import argparse
import os
import platform
import threading
import time
from typing import Any

from puzzleplan.models.tiles.model import TilesPuzzle
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.memory import resident_mb
from puzzleplan.plans.explore import explore
from puzzleplan.plans.parallel.pbfs import WorkerGroup, explore_parallel, start_method

BIG = ("a a b b / c c d d / e e e _", "_ a b c / d e a b / c d e e")
SMALL = ("1 2 3 4 5 / 6 7 8 9 _", "_ 9 8 7 6 / 5 4 3 2 1")


def board(spec: tuple[str, str]) -> TilesPuzzle:
    rows = lambda text: [row.split() for row in text.split("/")]
    return TilesPuzzle.from_grids(rows(spec[0]), rows(spec[1]), name="benchmark")


class PeakMemory:
    """Samples the resident memory of this process (plus a worker group) in a thread."""

    def __init__(self, group: WorkerGroup | None = None) -> None:
        self.group = group
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            now = self.group.memory_mb() if self.group is not None else resident_mb()
            self.peak = max(self.peak, now)
            self._stop.wait(0.2)

    def __enter__(self) -> "PeakMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


def run_serial(model: TilesPuzzle, native: bool = False, workers: int = 1) -> tuple[Any, float, float, str]:
    """`explore` in this process: per state (native=False) or over packed arrays on `workers` threads."""
    with PeakMemory() as memory:
        t, cpu = time.perf_counter(), time.process_time()
        out = explore(model, SearchContext(), native=native, workers=workers)
        wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    return out, wall, memory.peak, f"{cpu:.1f}"


def run_parallel(model: TilesPuzzle, workers: int) -> tuple[Any, float, float, str, float]:
    t = time.perf_counter()
    with WorkerGroup(workers) as group:
        started = time.perf_counter() - t
        with PeakMemory(group) as memory:
            before = group.cpu_seconds()
            t = time.perf_counter()
            out = explore_parallel(model, ctx=SearchContext(), group=group)
            wall = time.perf_counter() - t
            cpu = [b - a for a, b in zip(before, group.cpu_seconds())]
    return out, wall, memory.peak, "+".join(f"{c:.1f}" for c in cpu), started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], metavar="N")
    parser.add_argument("--repeat", type=int, default=1, metavar="K")
    parser.add_argument("--small", action="store_true", help="a 2x5 board of 1.8 million states")
    parser.add_argument("--no-serial", action="store_true", help="skip the serial explorer")
    args = parser.parse_args()
    model = board(SMALL if args.small else BIG)
    print(f"# {model.rows}x{model.cols} tiles, faces {' '.join(sorted(set(model.render(model.start).split())))}; "
          f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}, start method {start_method()}")
    print(f"{'method':22} {'workers':>7} {'states':>11} {'depth':>5} {'seconds':>8} {'states/s':>10} "
          f"{'speed-up':>8} {'peak MiB':>9} {'start s':>7}  worker CPU s")
    reference = None
    serial_wall = None
    if not args.no_serial:
        best = None
        for _ in range(args.repeat):
            run = run_serial(model)
            if best is None or run[1] < best[1]:
                best = run
        out, serial_wall, peak, cpu = best
        reference = out
        print(f"{'explore (per state)':22} {'-':>7} {out.reachable:>11,} {out.max_depth:>5} {serial_wall:>8.2f} "
              f"{out.reachable / serial_wall:>10,.0f} {1.0:>8.2f} {peak:>9,.0f} {'-':>7}  {cpu} (in process)",
              flush=True)
    for workers in args.workers:   # the packed array sweep, on threads (what `explore --workers` runs)
        out, wall, peak, cpu = min((run_serial(model, True, workers) for _ in range(args.repeat)),
                                   key=lambda run: run[1])
        reference = reference or out
        assert (out.reachable, out.per_depth) == (reference.reachable, reference.per_depth), "counts differ"
        speedup = f"{serial_wall / wall:>8.2f}" if serial_wall else f"{'-':>8}"
        print(f"{'explore (packed)':22} {workers:>7} {out.reachable:>11,} {out.max_depth:>5} {wall:>8.2f} "
              f"{out.reachable / wall:>10,.0f} {speedup} {peak:>9,.0f} {'-':>7}  {cpu} (threads)", flush=True)
    for workers in args.workers:
        best = None
        for _ in range(args.repeat):
            run = run_parallel(model, workers)
            if best is None or run[1] < best[1]:
                best = run
        out, wall, peak, cpu, started = best
        if reference is None:
            reference = out
        assert out.complete, out.message
        assert (out.reachable, out.per_depth, out.goal_distance) == \
               (reference.reachable, reference.per_depth, reference.goal_distance), "counts differ"
        speedup = f"{serial_wall / wall:>8.2f}" if serial_wall else f"{'-':>8}"
        print(f"{'explore_parallel':22} {workers:>7} {out.reachable:>11,} {out.max_depth:>5} {wall:>8.2f} "
              f"{out.reachable / wall:>10,.0f} {speedup} {peak:>9,.0f} {started:>7.2f}  {cpu}", flush=True)


if __name__ == "__main__":
    main()
