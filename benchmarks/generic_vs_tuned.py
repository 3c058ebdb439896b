"""Generic (planning-task) encodings against the hand-tuned ones, on the issue's instances.

Run by hand:  .venv/bin/python benchmarks/generic_vs_tuned.py [--time-limit 60] [--solver cadical195]
                                                             [--only safe|rush|sokoban]
For each instance (the safe, seed 000 under step and slide, five Sokoban levels under moves) it
finds the optimum L natively, then asks every encoding that applies — the family's hand-tuned
ones and the generic ones — for a plan at horizon L and for the proof at the proof horizon (L-1
under `by` semantics; L-2 for tiles, whose parity rules out L-1), with one SAT solver and CP-SAT,
and prints variables, clauses/constraints, build and solve seconds and the answer (with the
plan's moves: `sas-exists` counts T in parallel steps, so a plan at the proof horizon may hold
more moves than T and proves nothing; its proofs are its UNSATs). A plan is checked by the
independent checker before it counts. Figures go to README.md by hand.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from puzzleplan.encoders.base import encoding_class, encodings_for, is_generic
from puzzleplan.encoders.certify import compare, proof_options, sat_options
from puzzleplan.models import load
from puzzleplan.plans.core.types import Request
from puzzleplan.plans.solve import solve

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = {
    "safe": [("examples/tiles/malok-safe.yaml", None)],
    "rush": [("examples/rush-hour/seed-000-hardest.yaml", "slide"),
             ("examples/rush-hour/seed-000-hardest.yaml", "step")],
    "sokoban": [(f"examples/sokoban/{name}.yaml", "moves")
                for name in ("seed-004", "two-boxes", "three", "pocket", "storage")],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="per solver call (seconds)")
    parser.add_argument("--solver", default="cadical195", help="the python-sat solver of the SAT rows")
    parser.add_argument("--workers", type=int, default=2, help="CP-SAT worker threads")
    parser.add_argument("--only", choices=sorted(INSTANCES), help="one group of instances")
    args = parser.parse_args()
    groups = [args.only] if args.only else list(INSTANCES)
    print(f"{'instance':28} {'encoding':14} {'kind':7} {'T':>4} {'vars':>8} {'clauses':>9} "
          f"{'build s':>8} {'solve s':>8} result (moves)")
    for group in groups:
        for path, metric in INSTANCES[group]:
            model = load(ROOT / path, {"metric": metric} if metric else None)
            native = solve(model, getattr(model, "default_engine", "bfs"), Request())
            optimum = native.plan.length
            prove, offset = proof_options(model)
            label = f"{Path(path).stem} {model.metric} L={optimum}"
            for name in encodings_for(model):
                kind = "generic" if is_generic(encoding_class(name)) else "tuned"
                for horizon, options in ((optimum, sat_options(model)), (optimum - offset, prove)):
                    for t in compare(model, horizon, [name], [args.solver], 1, options, args.workers,
                                     args.time_limit):
                        print(f"{label:28} {t.encoding:14} {kind:7} {t.horizon:>4} {t.variables:>8} "
                              f"{t.constraints:>9} {t.build_seconds:>8.3f} {t.solve_seconds:>8.3f} {t.result}"
                              + ("" if t.length is None else f" ({t.length})"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
