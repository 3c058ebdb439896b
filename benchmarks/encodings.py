"""Encoding benchmark: `puzzleplan compare` on the issue's instances, every encoding x solver.

Run by hand:  .venv/bin/python benchmarks/encodings.py [--time-limit 120] [--quick]
For each instance it asks every encoding at the optimal horizon L (a plan must be found) and,
for the proof, at L-1 (`by` semantics) or L-2 (tiles: exact semantics, parity rules out L-1),
and prints one table per instance. Figures go to README.md by hand.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from puzzleplan.encoders.certify import compare, proof_options, sat_options
from puzzleplan.models import load
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Request

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = [
    ("examples/tiles/malok-safe.yaml", None),
    ("examples/rush-hour/seed-000-hardest.yaml", "slide"),
    ("examples/rush-hour/seed-000-hardest.yaml", "step"),
    ("examples/tiles/korf-079.yaml", None),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=120.0, help="per solver call")
    parser.add_argument("--solvers", nargs="+", default=["cadical195", "glucose4"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="only the first two instances")
    args = parser.parse_args()
    for path, metric in INSTANCES[:2] if args.quick else INSTANCES:
        model = load(ROOT / path, {"metric": metric} if metric else None)
        optimum = solve(model, getattr(model, "default_engine", "bfs"), Request()).plan.length
        prove, offset = proof_options(model)
        print(f"\n{path} ({model.metric}), optimum {optimum}")
        print(f"{'encoding':16} {'solver':14} {'T':>4} {'vars':>8} {'clauses':>9} {'build s':>8} {'solve s':>8} result")
        for horizon, options in ((optimum, sat_options(model)), (optimum - offset, prove)):
            for t in compare(model, horizon, _encodings(model), args.solvers, 1, options, args.workers,
                             args.time_limit):
                print(f"{t.encoding:16} {t.solver:14} {t.horizon:>4} {t.variables:>8} {t.constraints:>9} "
                      f"{t.build_seconds:>8.3f} {t.solve_seconds:>8.3f} {t.result}", flush=True)
    return 0


def _encodings(model) -> list[str]:
    from puzzleplan.encoders.base import encodings_for
    return encodings_for(model)


if __name__ == "__main__":
    sys.exit(main())
