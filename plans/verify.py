"""Prove a minimal move count three ways: the native optimum, then per encoding a checked plan
of that length and an UNSAT proof that none is shorter (`puzzleplan verify`, `puzzleplan.verify`).

The verdict: `disagreement` (exit 1) only when a definite answer contradicts another; a method
that ran out of time is "unknown" and makes the verdict `limit_reached` (exit 3); a claim every
method refutes is `refuted` (exit 1); else `verified` (exit 0). When the native search finds no
plan (unsolvable, no plan within the cap, a limit), that is the answer, with its exit code.

One time limit (`limits.time_limit`) covers the whole verification: the native search and every
certificate share it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Model
from puzzleplan.plans.core.types import Limits, Request, Result
from puzzleplan.plans.core.words import count

if TYPE_CHECKING:
    from puzzleplan.encoders.certify import Certificate

DEFAULT_SOLVER = "cadical195"
VERDICT_EXIT_CODES = {"verified": 0, "refuted": 1, "disagreement": 1, "limit_reached": 3}


class UnknownEncoding(ValueError):
    """An encoding the model's family does not declare (the message names the choices)."""


class NoEncodings(ValueError):
    """The model's family declares no encoding for its metric."""


class UnknownSolver(ValueError):
    """Not a python-sat solver name."""


@dataclass
class Verification:
    """The outcome of `verify`: the verdict, the proved optimum, and every certificate.

    status:       verified | refuted | disagreement | limit_reached, or the native search's
                  status when it found no plan (unsolvable, no_plan_within_cap, ...)
    optimal:      the native engine's proved minimal move count (None without a plan)
    claim:        the move count checked (the optimum unless one was claimed)
    agree:        no certificate contradicts another (None without a native plan)
    certificates: the rows: the native optimum, then a plan and a bound per encoding
    exit_code:    what `puzzleplan verify` exits with
    """

    status: str
    optimal: int | None
    claim: int | None
    agree: bool | None
    certificates: list["Certificate"] = field(default_factory=list)
    exit_code: int = 0
    message: str = ""
    native: Result | None = field(default=None, repr=False)

    @property
    def conflicting(self) -> list["Certificate"]:
        """The certificates whose definite answer contradicts the native optimum."""
        if self.optimal is None:
            return []
        return [c for c in self.certificates if c.contradicts(self.optimal)]

    @property
    def unknown(self) -> list["Certificate"]:
        """The certificates a limit cut short."""
        return [c for c in self.certificates if c.answer == "unknown"]

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of `puzzleplan verify --json`."""
        if self.optimal is None:
            return {"status": self.status, "optimal": None, "claim": self.claim, "agree": None,
                    "message": self.message, "certificates": []}
        return {"status": self.status, "optimal": self.optimal, "claim": self.claim, "agree": self.agree,
                "certificates": [c.as_dict() for c in self.certificates]}

    def summary(self) -> str:
        """The verdict in one line (the last line of `puzzleplan verify`)."""
        if self.status == "verified":
            return f"verified: the minimal move count is {self.claim}"
        if self.status == "refuted":
            return (f"refuted: the minimal move count is not {self.claim}; "
                    f"every method agrees it is {self.optimal}")
        if self.status == "limit_reached" and self.optimal is not None:
            return (f"limit_reached: {count(len(self.unknown), 'method')} gave up before the time limit; "
                    f"no method contradicts the optimum {self.optimal}")
        if self.status == "disagreement":
            return "DISAGREEMENT"
        return f"{self.status}: {self.message}" if self.message else self.status

    def __repr__(self) -> str:
        """E.g. <Verification verified 24 (5 certificates)>, <Verification unsolvable: ...>."""
        if self.optimal is None:
            why = " ".join(self.message.split())
            return f"<Verification {self.status}" + (f": {why[:57] + '...' if len(why) > 60 else why}>" if why else ">")
        shown = f"{self.claim}" if self.claim == self.optimal else f"{self.claim} (optimum {self.optimal})"
        return f"<Verification {self.status} {shown} ({count(len(self.certificates), 'certificate')})>"


def choose_encodings(model: Model, names: list[str] | None = None, one_per_backend: bool = True) -> list[str]:
    """The encodings to use: `names` checked against the family's declared ones, or by default
    the first SAT and the first CP-SAT encoding (`one_per_backend`) or all of them."""
    from puzzleplan.encoders.base import encodings_for
    known = encodings_for(model.family, metric=model.metric)
    if names:
        for name in names:
            if name not in known:
                raise UnknownEncoding(f"no encoding {name!r} for {model.family} "
                                      f"(available: {', '.join(known) or 'none'})")
        return list(names)
    if not known:
        raise NoEncodings(f"no encodings for {model.family} under the {model.metric} metric")
    if one_per_backend:
        return [n for b in ("sat", "cpsat") for n in encodings_for(model.family, b, model.metric)[:1]]
    return known


def check_solver(name: str) -> str:
    """`name` when python-sat knows the solver, else UnknownSolver."""
    from puzzleplan.encoders.sat.base import known_solver
    if not known_solver(name):
        raise UnknownSolver(f"{name!r} is not a python-sat solver name (e.g. cadical195, glucose4)")
    return name


def native_optimum(model: Model, limits: Limits | None = None, time_limit: float | None = None,
                   quiet: bool = True) -> Result:
    """The family's optimal engine on `model` (the file's cap applies), under `limits` with the
    time limit replaced by `time_limit` when given; progress on a terminal unless `quiet`."""
    from puzzleplan.plans.solve import solve
    limits = limits if limits is not None else Limits()
    if time_limit is not None:
        limits = replace(limits, time_limit=time_limit)
    ctx = SearchContext.for_terminal(limits, quiet=quiet)
    return solve(model, getattr(model, "default_engine", "bfs"), Request(limits=limits), ctx)


def verify(model: Model, claim: int | None = None, encodings: list[str] | None = None,
           solver: str = DEFAULT_SOLVER, workers: int | None = None, limits: Limits | None = None,
           quiet: bool = True) -> Verification:
    """Prove (or refute) that `claim` (default: the native optimum) is the minimal move count.

    encodings: names of the family's encodings (default: its first SAT and first CP-SAT one);
    solver: the python-sat solver of the SAT encodings; workers: CP-SAT threads; limits: as for
    `solve`, its time limit covering the whole verification. Unknown encodings or solvers raise
    ValueError (UnknownEncoding, NoEncodings, UnknownSolver) naming the choices.
    """
    from puzzleplan.encoders.certify import Certificate, certify
    limits = limits if limits is not None else Limits()
    chosen = choose_encodings(model, encodings, one_per_backend=True)
    check_solver(solver)
    ends = None if limits.time_limit is None else time.monotonic() + limits.time_limit

    def remaining() -> float | None:
        return None if ends is None else max(0.0, ends - time.monotonic())

    native = native_optimum(model, limits, remaining(), quiet)
    if native.plan is None or not native.status.has_plan:
        return Verification(native.status.value, None, claim, None, [], native.status.exit_code,
                            native.message, native)
    optimum = native.plan.length
    claim = optimum if claim is None else claim
    holds = optimum == claim
    rows = [Certificate(native.engine, f"optimum {claim}", "holds" if holds else f"fails: optimum is {optimum}",
                        native.stats.seconds, list(native.plan.moves), holds, kind="optimum",
                        horizon=claim, answer="holds" if holds else "fails")]
    rows += certify(model, claim, chosen, solver, workers, remaining)
    conflicting = [r for r in rows if r.contradicts(optimum)]
    if conflicting:
        verdict = "disagreement"
    elif any(r.answer == "unknown" for r in rows):
        verdict = "limit_reached"
    elif holds:
        verdict = "verified"
    else:
        verdict = "refuted"
    return Verification(verdict, optimum, claim, not conflicting, rows, VERDICT_EXIT_CODES[verdict], "", native)


__all__ = ["NoEncodings", "UnknownEncoding", "UnknownSolver", "Verification", "check_solver", "choose_encodings",
           "native_optimum", "verify"]
