"""Rush Hour timings on seed 000's board (the 93-move, 24132-configuration classic).

Run by hand from the repository root:

    .venv/bin/python benchmarks/rush_hour.py [--repeat 5] [--also 'java -cp /tmp/javarh RushHour']

It prints one table: a full breadth-first exploration and the plans of `bfs`, `astar` and
`plan` under the step and slide metrics, in process (best of --repeat runs: the engine's own
`seconds` and the wall time of the `solve`/`explore` call), then the whole-process time of the
`puzzleplan` command (interpreter start-up, imports, parsing, search, printing; best of
--repeat). Only the repository's own example file is read. Figures and the comparison with the
seed's Java program are in benchmarks/README-rush-hour.md.
"""
from __future__ import annotations

import argparse
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

from puzzleplan.models import load
from puzzleplan.plans.core import engines
from puzzleplan.plans.explore import explore
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Request

ROOT = Path(__file__).resolve().parent.parent
BOARD = ROOT / "examples" / "rush-hour" / "seed-000-hardest.yaml"
ENGINES = ("bfs", "astar", "plan")
METRICS = ("step", "slide")


def best_of(repeat: int, call: Callable[[], Any]) -> tuple[Any, float]:
    """The result of the fastest of `repeat` calls and its wall time."""
    best: tuple[Any, float] | None = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = call()
        wall = time.perf_counter() - t
        if best is None or wall < best[1]:
            best = (out, wall)
    assert best is not None
    return best


def command() -> list[str]:
    """The installed `puzzleplan` script beside this interpreter, else the CLI module."""
    script = Path(sys.executable).with_name("puzzleplan")
    return [str(script)] if script.exists() else [sys.executable, "-m", "puzzleplan.plans.cli"]


def whole_process(argv: list[str], repeat: int) -> tuple[int, float, float]:
    """(exit code, best, median wall seconds) of running `argv` `repeat` times."""
    walls, code = [], 0
    for _ in range(repeat):
        t = time.perf_counter()
        code = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        walls.append(time.perf_counter() - t)
    walls.sort()
    return code, walls[0], walls[len(walls) // 2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per figure; the best is shown (default 5)")
    ap.add_argument("--also", action="append", default=[], metavar="COMMAND",
                    help="another whole command to time the same way, e.g. 'java -cp /tmp/javarh RushHour'")
    args = ap.parse_args(argv)

    print(f"seed 000's board ({BOARD.relative_to(ROOT)}), {platform.python_implementation()} "
          f"{platform.python_version()}, {platform.machine()}, best of {args.repeat}")
    head = f"{'metric':6}  {'what':8}  {'result':18}  {'nodes':>8}  {'states':>8}  {'search s':>9}  {'wall s':>8}"
    print(head)
    print("-" * len(head))
    for metric in METRICS:
        model = load(BOARD, {"metric": metric})
        out, wall = best_of(args.repeat, lambda: explore(model))
        s = out.stats
        result = f"{out.reachable} reachable" if out.complete else "incomplete"
        print(f"{metric:6}  {'explore':8}  {result:18}  {s.nodes:>8}  {s.states:>8}  {s.seconds:>9.3f}  {wall:>8.3f}")
        for name in ENGINES:
            res, wall = best_of(args.repeat, lambda: solve(model, name, Request()))
            s = res.stats
            result = f"{res.status.value} {res.plan.length}" if res.plan else res.status.value
            print(f"{metric:6}  {name:8}  {result:18}  {s.nodes:>8}  {s.states:>8}  {s.seconds:>9.3f}  {wall:>8.3f}")

    print()
    print(f"whole process ({' '.join(Path(c).name for c in command())} ..., cwd = repository root), "
          f"best and median of {args.repeat}")
    board = str(BOARD.relative_to(ROOT))
    runs = [["solve", board], ["solve", board, "--metric", "slide"], ["explore", board],
            ["solve", board, "--engine", "plan"], ["solve", board, "--engine", "plan", "--metric", "slide"]]
    for run in runs:
        code, best, median = whole_process(command() + run, args.repeat)
        print(f"  puzzleplan {' '.join(run):62}  exit {code}  {best:.3f} s  (median {median:.3f})")
    for other in args.also:   # e.g. the seed's Java program, built by hand outside the repository
        code, best, median = whole_process(shlex.split(other), args.repeat)
        print(f"  {other:73}  exit {code}  {best:.3f} s  (median {median:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
