"""A plan under a cap: `solve --any` and `solve --engine dfs` on seed 000 and seed 002's safe.

Run by hand from the repository root:

    .venv/bin/python benchmarks/cap.py [--repeat 3] [--time-limit 120]

Cases: Rush Hour seed 000 (examples/rush-hour/seed-000-hardest.yaml; optimum 93 under step, 49
under slide) at its optimum and at caps 93, 100, 120 and 200, and one below the optimum (92 /
48: "no plan within the cap" must be proved); the tiles safe (examples/tiles/malok-safe.yaml,
optimum 24) at its cap 59 and at 23. Each case goes through `plans.solve.solve` as the command
line does (`Request(max_moves=cap, any_plan=True)` for --any, the engine named for dfs; every
plan checked by the independent checker there). One warm-up solve per file first (it loads or
compiles the tiles kernels and pattern databases), then the best of --repeat runs: plan length,
status, nodes, stored states and the wall seconds of the `solve` call. A line fails (`!!`) when
the answer is wrong: a plan over the cap, a missing plan within it, or a cap below the optimum
that is not proved.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from puzzleplan.models import load
from puzzleplan.plans.solve import default_engine, solve
from puzzleplan.plans.core.types import Limits, Request, Result, Status

ROOT = Path(__file__).resolve().parent.parent
SEED000 = ROOT / "examples" / "rush-hour" / "seed-000-hardest.yaml"
SAFE = ROOT / "examples" / "tiles" / "malok-safe.yaml"
CASES: list[tuple[Path, str, int, tuple[int, ...]]] = [  # file, metric, optimum, caps
    (SEED000, "step", 93, (93, 100, 120, 200, 92)),
    (SEED000, "slide", 49, (49, 93, 100, 120, 200, 48)),
    (SAFE, "step", 24, (59, 23)),
]
MODES = ("--any", "--engine dfs")


def run(model: Any, mode: str, cap: int, limits: Limits) -> Result:
    """One solve as the command line runs it."""
    if mode == "--any":
        return solve(model, None, Request(max_moves=cap, any_plan=True, limits=limits))
    return solve(model, "dfs", Request(max_moves=cap, limits=limits))


def verdict(result: Result, cap: int, optimum: int) -> str:
    """'ok' when the answer is right for the cap, else what is wrong."""
    if cap < optimum:
        proved = result.status is Status.NO_PLAN_WITHIN_CAP and (result.lower_bound or 0) > cap
        return "ok" if proved else "!! not proved"
    if result.plan is None:
        return "!! no plan"
    return "ok" if result.plan.cost <= cap else "!! over the cap"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the fastest is shown")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per run")
    args = parser.parse_args(argv)
    limits = Limits(time_limit=args.time_limit)
    header = (f"{'puzzle':<18} {'metric':<6} {'cap':>4} {'mode':<13} {'engine':<8} {'status':<19}"
              f" {'length':>6} {'nodes':>8} {'states':>8} {'seconds':>8}  check")
    print(header)
    print("-" * len(header))
    failures = 0
    for path, metric, optimum, caps in CASES:
        model = load(path, {"metric": metric})
        solve(model, None, Request(max_moves=optimum, any_plan=True, limits=limits))  # warm-up
        for cap in caps:
            for mode in MODES:
                best: tuple[Result, float] | None = None
                for _ in range(max(1, args.repeat)):
                    started = time.perf_counter()
                    result = run(model, mode, cap, limits)
                    wall = time.perf_counter() - started
                    if best is None or wall < best[1]:
                        best = (result, wall)
                assert best is not None
                result, wall = best
                check = verdict(result, cap, optimum)
                failures += check != "ok"
                length = result.plan.cost if result.plan is not None else "-"
                print(f"{path.stem:<18} {metric:<6} {cap:>4} {mode:<13} {result.engine:<8}"
                      f" {result.status.value:<19} {length:>6} {result.stats.nodes:>8,} {result.stats.states:>8,}"
                      f" {wall:>8.4f}  {check}", flush=True)
    any_engines = {f"{p.stem}/{m}": default_engine(load(p, {"metric": m}), Request(max_moves=c[0], any_plan=True))
                   for p, m, _, c in CASES}
    print(f"\n--any under a cap runs: {', '.join(f'{k} {v}' for k, v in any_engines.items())}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
