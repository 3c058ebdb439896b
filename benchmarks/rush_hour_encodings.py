"""Rush Hour encodings on seed 000 (issue L): what each cut and solver setting of `rh-order` is
worth, at the optimum (SAT) and one below (UNSAT, the proof `verify` needs).

Run by hand:  .venv/bin/python benchmarks/rush_hour_encodings.py [--metric step|slide] [--only LABEL]
                  [--shared] [--seeds K]
Each row builds the whole formula for one horizon and solves it with CaDiCaL 1.9.5 (or the
solver a row names); it prints the solve time in CPU seconds of this process (less sensitive to
a busy machine than wall time) and CaDiCaL's conflict count (-1 for Kissat, which exposes
none). `--shared` asks the bound as `verify` now does: on the solver that found the plan, under
the assumptions of `fewer_steps` (its conflicts are those of the second solve alone).
`--seeds K` repeats each row with K numberings of the variables (seed 0: the encoding's own;
the others shuffle variables and clauses) and prints the median: one numbering is a single
draw from a wide spread. Figures go to README.md by hand.
"""
from __future__ import annotations

import argparse
import random
import statistics
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


def renumbering(top: int, seed: int) -> list[int]:
    """A permutation of the variables 1..top (the identity for seed 0), as a lookup list."""
    order = list(range(top + 1))
    if seed:
        tail = order[1:]
        random.Random(seed).shuffle(tail)
        order[1:] = tail
    return order


def solve_clauses(variant: Variant, clauses: list[list[int]], asked: list[list[int]],
                  top: int, seed: int) -> list[tuple[bool | None, float, int]]:
    """Solve `clauses` once per assumption list in `asked`, on one solver, under numbering
    `seed`: per solve (answer, CPU seconds, conflicts of that solve)."""
    order = renumbering(top, seed)

    def lit(x: int) -> int:
        return order[x] if x > 0 else -order[-x]
    renamed = [[lit(x) for x in clause] for clause in clauses]
    if seed:
        random.Random(seed).shuffle(renamed)
    out = []
    with Solver(name=variant.solver) as solver:
        if variant.cadical:
            solver.solver.configure(variant.cadical)
        for clause in renamed:
            solver.add_clause(clause)
        before = 0
        for assumptions in asked:
            started = time.process_time()
            answer = solver.solve(assumptions=[lit(x) for x in assumptions])
            seconds = time.process_time() - started
            try:
                conflicts = solver.accum_stats().get("conflicts", 0)
            except NotImplementedError:   # Kissat exposes no statistics in python-sat
                conflicts = -1
            out.append((answer, seconds, conflicts - before if conflicts >= 0 else -1))
            before = max(conflicts, 0)
    return out


def encoding(model: Any, variant: Variant) -> Any:
    enc = encoding_class(variant.encoding)(model, variant.options)
    enc.commute = variant.commute
    return enc


def run(model: Any, variant: Variant, horizon: int, seed: int = 0) -> tuple[bool | None, float, int, int]:
    """(answer, CPU seconds of the solve, conflicts, clauses) of one formula."""
    enc = encoding(model, variant)
    clauses = enc.clauses(horizon)
    answer, seconds, conflicts = solve_clauses(variant, clauses, [[]], enc.pool.top, seed)[0]
    return answer, seconds, conflicts, len(clauses)


def run_shared(model: Any, variant: Variant, horizon: int,
               seed: int = 0) -> tuple[tuple[bool | None, float, int, int], tuple[bool | None, float, int, int]]:
    """The plan at `horizon`, then fewer steps on the same solver: two rows as `run` gives."""
    enc = encoding(model, variant)
    clauses = enc.clauses(horizon)
    assumptions, extra = enc.fewer_steps(horizon)
    clauses += extra
    found, proof = solve_clauses(variant, clauses, [[], assumptions], enc.pool.top, seed)
    return found + (len(clauses),), proof + (len(clauses),)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metric", choices=("step", "slide"), default="step")
    parser.add_argument("--only", nargs="*", help="variant labels to run (default: all)")
    parser.add_argument("--shared", action="store_true", help="the bound on the plan's solver, as verify asks it")
    parser.add_argument("--seeds", type=int, default=1, help="numberings per row; the median is printed")
    args = parser.parse_args()
    model = load(SEED_000, {"metric": args.metric})
    optimum = solve(model, "bfs", Request()).plan.length
    print(f"seed 000, {args.metric}: optimum {optimum}" + (", bound on the plan's solver" if args.shared else "")
          + (f", median of {args.seeds} numberings" if args.seeds > 1 else ""))
    print(f"{'variant':26} {'clauses':>8} {'SAT s':>7} {'confl':>8} {'UNSAT s':>8} {'confl':>8} {'sum s':>6}")
    for variant in VARIANTS:
        if args.only and variant.label not in args.only:
            continue
        rows = []
        for seed in range(args.seeds):
            if args.shared:
                found, proof = run_shared(model, variant, optimum, seed)
            else:
                found, proof = run(model, variant, optimum, seed), run(model, variant, optimum - 1, seed)
            assert found[0] is True and proof[0] is False, (variant.label, seed, found[0], proof[0])
            rows.append((found[1], found[2], proof[1], proof[2], found[1] + proof[1], found[3]))
        sat_s, sat_c, unsat_s, unsat_c, total, clauses = (statistics.median(column) for column in zip(*rows))
        print(f"{variant.label:26} {clauses:>8.0f} {sat_s:>7.2f} {sat_c:>8.0f} {unsat_s:>8.2f} {unsat_c:>8.0f}"
              f" {total:>6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
