"""Certificates of a minimal move count, and side-by-side runs of encodings (verify, compare).

`verify` rests on two facts per backend: a plan of length L (SAT at horizon L, replayed by the
checker) and a proof that no plan is shorter. The proof is UNSAT at L-1 under the `by`
semantics, or, for a family with a fixed plan-length parity (tiles), UNSAT at L-2 under the
`exact` semantics without shortest-plan cuts (L-1 has the wrong parity, and any plan of length
<= L-2 could be padded by reversal pairs to exactly L-2). Options that would make UNSAT prove
less (exact with the reversal cut) are never used here.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator

from puzzleplan.plans.check import check_plan

from puzzleplan.encoders.base import Answer, EncodingOptions, HorizonResult, encoding_class
from puzzleplan.encoders.runner import Deadline, stream


@dataclass
class Certificate:
    """One row of the verify table.

    `kind` says what the row asserts about the minimal move count m: "plan" (a checked plan of
    `horizon` moves, so m <= horizon), "bound" (UNSAT: m > horizon) or "optimum" (the native
    engine's m == horizon). `answer` is "holds", "fails", "unknown" (a limit came first) or
    "invalid" (a decoded plan the checker rejects).
    """

    method: str          # e.g. "idastar", "sat tiles-moves cadical195"
    claim: str           # e.g. "plan of 24", "no plan <= 23"
    result: str          # the answer in words, e.g. "holds", "fails: no such plan", "unknown (limit)"
    seconds: float
    plan: list[str] | None = field(default=None, repr=False)   # the plan found, if any
    holds: bool = False
    kind: str = "optimum"
    horizon: int = 0
    answer: str = "unknown"
    exact: bool = False  # a "plan" row asked under exact-T semantics with shortest-plan cuts

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def contradicts(self, optimum: int) -> bool:
        """True when this row's definite answer cannot be right if the minimal count is `optimum`."""
        if self.answer == "invalid":
            return True
        if self.answer not in ("holds", "fails"):
            return False
        if self.kind == "plan" and self.exact and self.answer == "fails":
            return optimum == self.horizon  # "none of exactly T with the cuts" refutes only T = optimum
        if self.kind == "plan":       # holds: a plan of <= horizon moves exists
            truth = optimum <= self.horizon
        elif self.kind == "bound":    # holds: no plan of <= horizon moves
            truth = optimum > self.horizon
        else:
            truth = optimum == self.horizon
        return (self.answer == "holds") != truth


def proof_options(model: Any) -> tuple[EncodingOptions, int]:
    """Options whose UNSAT is a proof, and the horizon offset below L to ask (1 or 2)."""
    if model.plan_parity() is not None:
        return EncodingOptions(goal="exact", no_reversal=False, idle_at_end=False), 2
    return EncodingOptions(goal="by"), 1


def sat_options(model: Any) -> EncodingOptions:
    """Options for finding the plan of length L (cuts allowed: a found plan is checked anyway)."""
    if model.plan_parity() is not None:
        return EncodingOptions(goal="exact", no_reversal=True)
    return EncodingOptions(goal="by")


def _solve_one(model: Any, encoding: str, options: EncodingOptions, horizon: int, solver: str,
               workers: int | None, time_limit: float | None) -> Iterator[HorizonResult]:
    cls = encoding_class(encoding)
    if cls.backend == "sat":
        from puzzleplan.encoders.sat.base import solve_fixed
        yield solve_fixed(cls(model, options), horizon, solver)
    else:
        from puzzleplan.encoders.cpsat.base import solve
        yield solve(cls(model, options), horizon, workers=workers, time_limit=time_limit)


def solve_one(model: Any, encoding: str, options: EncodingOptions, horizon: int, solver: str = "cadical195",
              workers: int | None = None, time_limit: float | None = None) -> HorizonResult:
    """One horizon, one encoding; SAT in a killable child process, CP-SAT with its own limit."""
    if time_limit is not None and time_limit <= 0:
        return HorizonResult(horizon, Answer.UNKNOWN, extra={"reason": "time limit"})
    if encoding_class(encoding).backend == "cpsat":
        return next(_solve_one(model, encoding, options, horizon, solver, workers, time_limit))
    try:
        for result in stream(_solve_one, (model, encoding, options, horizon, solver, workers, time_limit),
                             time_limit):
            return result
    except Deadline:
        pass
    return HorizonResult(horizon, Answer.UNKNOWN, extra={"reason": "time limit"})


def certify(model: Any, optimum: int, encodings: list[str], solver: str, workers: int | None,
            remaining: Callable[[], float | None] = lambda: None) -> list[Certificate]:
    """For each encoding: a checked plan of length `optimum` and a proof that none is shorter.

    `remaining()` gives the seconds left for the whole command (None: no limit), so one time
    limit covers every certificate; a row whose time is up is "unknown", never a "fails".
    """
    parity = model.plan_parity()
    if parity is not None and optimum % 2 != parity:  # the claim is ruled out before any solver
        kind = "odd" if parity else "even"
        return [Certificate("parity rule", f"optimum {optimum}", f"fails: every plan has {kind} length", 0.0,
                            kind="optimum", horizon=optimum, answer="fails")]
    rows = []
    find = sat_options(model)
    prove, offset = proof_options(model)
    for name in encodings:
        backend = encoding_class(name).backend
        label = f"{backend} {name}" + (f" {solver}" if backend == "sat" else "")
        started = time.perf_counter()
        found = solve_one(model, name, find, optimum, solver, workers, remaining())
        row = Certificate(label, f"plan of {optimum}", found.answer.value, time.perf_counter() - started,
                          kind="plan", horizon=optimum, exact=find.goal == "exact")
        if found.answer is Answer.SAT:
            report = check_plan(model, found.moves, "printed")
            row.plan = found.moves
            row.holds = report.valid and len(found.moves) <= optimum
            row.answer = "holds" if row.holds else "invalid"
            row.result = "holds" if row.holds else f"invalid plan: {report.error}"
        elif found.answer is Answer.UNSAT:
            row.answer, row.result = "fails", "fails: no such plan"
        else:
            row.result = "unknown (limit)"
        rows.append(row)
        below = optimum - offset
        claim = f"no plan <= {optimum - 1}" + (f" (UNSAT at {below}, parity rules out {optimum - 1})" if offset == 2 else "")
        started = time.perf_counter()
        if below < 0 or optimum == 0:
            start_is_goal = model.is_goal(model.initial())
            holds = optimum == 0 or not start_is_goal
            rows.append(Certificate(label, claim, "holds" if holds else "fails", 0.0, holds=holds, kind="bound",
                                    horizon=optimum - 1, answer="holds" if holds else "fails"))
            continue
        proof = solve_one(model, name, prove, below, solver, workers, remaining())
        row = Certificate(label, claim, proof.answer.value, time.perf_counter() - started, kind="bound",
                          horizon=optimum - 1)
        row.holds = proof.answer is Answer.UNSAT
        row.answer = {Answer.UNSAT: "holds", Answer.SAT: "fails"}.get(proof.answer, "unknown")
        row.result = "holds" if row.holds else ("unknown (limit)" if proof.answer is Answer.UNKNOWN else
                                                "fails: a shorter plan exists")
        if proof.answer is Answer.SAT:
            row.plan = proof.moves
        rows.append(row)
    return rows


@dataclass
class Trial:
    """One row of the compare table."""

    encoding: str
    solver: str
    horizon: int
    variables: int
    constraints: int
    build_seconds: float
    solve_seconds: float
    result: str
    length: int | None
    valid: bool | None = None
    repeat: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


def compare(model: Any, horizon: int, encodings: list[str], solvers: list[str], repeat: int,
            options: EncodingOptions | None, workers: int | None, time_limit: float | None) -> Iterator[Trial]:
    """Every encoding x solver at one horizon, `repeat` times each."""
    opts = options or proof_options(model)[0]
    for name in encodings:
        backend = encoding_class(name).backend
        for solver in (solvers if backend == "sat" else [f"cp-sat/{workers or 'default'}w"]):
            for k in range(repeat):
                r = solve_one(model, name, opts, horizon, solver, workers, time_limit)
                valid = check_plan(model, r.moves, "printed").valid if r.moves is not None else None
                yield Trial(name, solver, horizon, r.variables, r.constraints, r.build_seconds, r.solve_seconds,
                            r.answer.value, None if r.moves is None else len(r.moves), valid, k + 1)

