"""Rush Hour encodings on seed 000 (issue L): what each cut and solver setting of `rh-order` is
worth, at the optimum (SAT) and one below (UNSAT, the proof `verify` needs).

Run by hand:  .venv/bin/python benchmarks/rush_hour_encodings.py [--metric step|slide] [--only LABEL]
Each row builds the whole formula for one horizon (as `verify` does) and solves it with
CaDiCaL 1.9.5 (or the solver a row names); it prints the solve time in CPU seconds of this
process (less sensitive to a busy machine than wall time) and CaDiCaL's conflict count (-1 for
Kissat, which exposes none). Figures go to README.md by hand.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pysat.solvers import Solver

from puzzleplan.encoders.base import EncodingOptions, encoding_class
from puzzleplan.models import load
from puzzleplan.plans.core.types import Request
from puzzleplan.plans.solve import solve

ROOT = Path(__file__).resolve().parent.parent
SEED_000 = ROOT / "examples" / "rush-hour" / "seed-000-hardest.yaml"


@dataclass(frozen=True)
class Variant:
    """One configuration: an encoding, its options, the commuting-moves cut, the solver and its
    options (CaDiCaL's)."""

    label: str
    encoding: str = "rh-order"
    options: EncodingOptions = EncodingOptions()
    commute: bool = True
    cadical: dict[str, int] = field(default_factory=dict)
    solver: str = "cadical195"


VARIANTS = [
    Variant("rh-order"),
    Variant("no commuting-moves cut", commute=False),
    Variant("no reversal cut", options=EncodingOptions(no_reversal=False)),
    Variant("no idle-at-end cut", options=EncodingOptions(idle_at_end=False)),
    Variant("exactly-one: ladder", options=EncodingOptions(card="ladder")),
    Variant("exactly-one: totalizer", options=EncodingOptions(card="totalizer")),
    Variant("exactly-one: pairwise", options=EncodingOptions(card="pairwise")),
    Variant("exactly-one: bitwise", options=EncodingOptions(card="bitwise")),
    Variant("cadical stabilize=0", cadical={"stabilize": 0}),
    Variant("cadical elim=0", cadical={"elim": 0}),
    Variant("kissat404", solver="kissat404"),
    Variant("cadical300", solver="cadical300"),
    Variant("rh-onehot", encoding="rh-onehot"),
]


def run(model: Any, variant: Variant, horizon: int) -> tuple[bool | None, float, int, int]:
    """(answer, CPU seconds of the solve, conflicts, clauses) of one formula."""
    enc = encoding_class(variant.encoding)(model, variant.options)
    enc.commute = variant.commute
    clauses = enc.clauses(horizon)
    with Solver(name=variant.solver) as solver:
        if variant.cadical:
            solver.solver.configure(variant.cadical)
        for clause in clauses:
            solver.add_clause(clause)
        started = time.process_time()
        answer = solver.solve()
        seconds = time.process_time() - started
        try:
            conflicts = solver.accum_stats().get("conflicts", 0)
        except NotImplementedError:   # Kissat exposes no statistics in python-sat
            conflicts = -1
    return answer, seconds, conflicts, len(clauses)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metric", choices=("step", "slide"), default="step")
    parser.add_argument("--only", nargs="*", help="variant labels to run (default: all)")
    args = parser.parse_args()
    model = load(SEED_000, {"metric": args.metric})
    optimum = solve(model, "bfs", Request()).plan.length
    print(f"seed 000, {args.metric}: optimum {optimum}")
    print(f"{'variant':26} {'clauses':>8} {'SAT s':>7} {'confl':>8} {'UNSAT s':>8} {'confl':>8}")
    for variant in VARIANTS:
        if args.only and variant.label not in args.only:
            continue
        found = run(model, variant, optimum)
        proof = run(model, variant, optimum - 1)
        assert found[0] is True and proof[0] is False, (variant.label, found[0], proof[0])
        print(f"{variant.label:26} {found[3]:>8} {found[1]:>7.2f} {found[2]:>8} {proof[1]:>8.2f} {proof[2]:>8}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
