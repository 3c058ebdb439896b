"""Prove a minimal move count three ways: the native optimum, then per encoding a checked plan
of that length and an UNSAT proof that none is shorter (`puzzleplan verify`, `puzzleplan.verify`).

The encodings are, by default, per backend the family's first hand-tuned one and the first
generic one (sas-seq, cp-sas), so the generic encodings are checked beside the hand-tuned ones;
the hand-tuned rows run first.
On a task with action costs (Sokoban pushes, rules files with costs) the claim is a cost and
only the generic encodings apply; their lower-bound rows may hold only within a step horizon
(encoders/certify.py), and such a row is shown, never counted as a proof.

The verdict: `disagreement` (exit 1) only when a definite answer contradicts another; a method
that ran out of time is "unknown" and makes the verdict `limit_reached` (exit 3); a claim the
native optimum disproves is `refuted` (exit 1), whatever rows a limit left unanswered; `verified` (exit 0) when nothing contradicts the claim
and at least one row proves the lower bound for every plan (the native engine's optimum, or a
global UNSAT bound); with none, `limit_reached`. When the native search finds no plan
(unsolvable, no plan within the cap, a limit), that is the answer, with its exit code.

One time limit (`limits.time_limit`) covers the whole verification: the native search and every
certificate share it.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from puzzleplan.encoders.runner import Call, warm_children
from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.contracts import Model
from puzzleplan.plans.core.progress import Line, Progress
from puzzleplan.plans.core.types import Limits, Request, Result, Status
from puzzleplan.plans.core.words import count, metric_count

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
    optimal:      the native engine's proved minimal move count, or cost on a task with
                  action costs (None without a plan)
    claim:        the move count (cost) checked (the optimum unless one was claimed)
    agree:        no certificate contradicts another (None without a native plan)
    certificates: the rows: the native optimum, then a plan and a bound per encoding
    exit_code:    what `puzzleplan verify` exits with
    unit:         "moves", "pushes" (Sokoban's pushes metric), or "cost" when the claim is a plan cost
    proofs:       the methods whose rows prove the lower bound for every plan
    message:      the native search's message when it found no plan; what an interrupt (Ctrl-C)
                  cut short, with the rows answered before it
    """

    status: str
    optimal: int | None
    claim: int | None
    agree: bool | None
    certificates: list["Certificate"] = field(default_factory=list)
    exit_code: int = 0
    message: str = ""
    native: Result | None = field(default=None, repr=False)
    unit: str = "moves"
    proofs: list[str] = field(default_factory=list)

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
        """The JSON object of `puzzleplan verify --json`; "summary" is the verdict line printed last."""
        if self.optimal is None:
            bound = None if self.native is None else self.native.lower_bound
            return {"status": self.status, "optimal": None, "claim": self.claim, "agree": None,
                    "message": self.message, "summary": self.summary(), "lower_bound": bound, "certificates": []}
        return {"status": self.status, "optimal": self.optimal, "claim": self.claim, "agree": self.agree,
                "message": self.message, "summary": self.summary(), "unit": self.unit, "proofs": self.proofs,
                "certificates": [c.as_dict() for c in self.certificates]}

    def summary(self) -> str:
        """The verdict in one line (the last line of `puzzleplan verify`)."""
        what = {"moves": "minimal move count", "pushes": "minimal push count"}.get(self.unit, "minimal cost")
        partial = [c.method for c in self.certificates if c.kind == "bound-within" and c.answer == "holds"]
        within = (f"; {', '.join(dict.fromkeys(partial))} bound it only within a step horizon" if partial else "")
        if self.status == "verified":
            proved = f" (lower bound proved by {', '.join(self.proofs)}{within})" if self.unit != "moves" else ""
            return f"verified: the {what} is {self.claim}{proved}"
        if self.status == "refuted":
            if self.unknown or self.message:   # a limit or Ctrl-C left rows out: the native optimum refutes
                missing = self.message or f"{count(len(self.unknown), 'row')} unanswered at {self._limits_hit()}"
                return (f"refuted: the {what} is not {self.claim}; {self.certificates[0].method} proves it is "
                        f"{self.optimal} ({missing}; none contradicts it)")
            return (f"refuted: the {what} is not {self.claim}; {self.certificates[0].method} proves it is "
                    f"{self.optimal}, and no row contradicts it")   # the rows need not pin the optimum
        if self.status == "limit_reached" and self.optimal is not None:
            if self.message:   # interrupted: the rows shown are those answered before
                return f"limit_reached: {self.message}; no method contradicts the optimum {self.optimal}"
            if not self.unknown:
                return (f"limit_reached: no method proves the lower bound for every plan{within}; "
                        f"none contradicts the optimum {self.optimal}")
            return (f"limit_reached: {count(len(self.unknown), 'row')} unanswered at {self._limits_hit()}; "
                    f"no method contradicts the optimum {self.optimal}")
        if self.status == "disagreement":
            return "DISAGREEMENT"
        return f"{self.status}: {self.message}" if self.message else self.status

    def _limits_hit(self) -> str:
        """The limits the unknown rows name, in words: "the time limit", "the memory limit of 900 MiB"."""
        named = dict.fromkeys(c.result.partition("(")[2].rstrip(")") or "limit" for c in self.unknown)
        return " and ".join(f"the {what}" for what in named)

    def __repr__(self) -> str:
        """E.g. <Verification verified 24 (5 certificates)>, <Verification unsolvable: ...>."""
        if self.optimal is None:
            why = " ".join(self.message.split())
            return f"<Verification {self.status}" + (f": {why[:57] + '...' if len(why) > 60 else why}>" if why else ">")
        shown = f"{self.claim}" if self.claim == self.optimal else f"{self.claim} (optimum {self.optimal})"
        return f"<Verification {self.status} {shown} ({count(len(self.certificates), 'certificate')})>"


def choose_encodings(model: Model, names: list[str] | None = None, one_per_backend: bool = True) -> list[str]:
    """The encodings to use: `names` checked against the model's (its family's and the generic
    ones), or by default, per backend, the first family encoding and the first generic one
    (`one_per_backend`), or all of them."""
    from puzzleplan.encoders.base import encoding_class, encodings_for, is_generic
    known = encodings_for(model)
    if names:
        for name in names:
            if name not in known:
                raise UnknownEncoding(f"no encoding {name!r} for {model.family} under the {model.metric} metric "
                                      f"(available: {', '.join(known) or 'none'})")
        return list(dict.fromkeys(names))   # a name given twice is verified once
    if not known:
        raise NoEncodings(f"no encodings for {model.family} under the {model.metric} metric")
    if not one_per_backend:
        return known
    tuned: list[str] = []
    generic: list[str] = []
    for backend in ("sat", "cpsat"):
        names_of = encodings_for(model, backend)
        tuned += [n for n in names_of if not is_generic(encoding_class(n))][:1]
        generic += [n for n in names_of if is_generic(encoding_class(n))][:1]
    # the hand-tuned rows first: they answer soonest, so a time limit spent on a large generic
    # grounding (six look-alike blocks: 25,138 actions) still leaves their answers
    return tuned + generic


def check_solver(name: str) -> str:
    """`name` when python-sat knows the solver, else UnknownSolver."""
    from puzzleplan.encoders.sat.base import known_solver
    if not known_solver(name):
        raise UnknownSolver(f"{name!r} is not a python-sat solver name (e.g. cadical195, glucose4)")
    return name


def native_optimum(model: Model, limits: Limits | None = None, progress: Progress | None = None,
                   since: float | None = None) -> Result:
    """The family's optimal engine on `model` (the file's cap applies), under `limits`, the time
    limit counted from `since` (a `time.monotonic()` reading; default now); its progress on the
    `progress` display."""
    from puzzleplan.plans.solve import solve
    limits = limits if limits is not None else Limits()
    ctx = SearchContext(limits, progress, since=since)
    return solve(model, getattr(model, "default_engine", "bfs"), Request(limits=limits), ctx)


@dataclass(frozen=True)
class CompareHorizon:
    """The horizon `compare` asks of every encoding, in the encoding's own unit."""

    moves: int          # of the encodings counting moves
    own_steps: int      # of those counting their own steps (sok-push: pushes)

    def of(self, encoding: str) -> int:
        from puzzleplan.encoders.certify import counts_steps
        return self.own_steps if counts_steps(encoding) else self.moves


def compare_horizon(model: Model, horizon: int | None, limits: Limits, since: float | None = None,
                    progress: Progress | None = None) -> CompareHorizon | Result:
    """A given horizon (asked of every encoding in its own unit), else the native optimum: its
    moves, and its cost for the encodings counting their own steps. The native Result when it
    has no plan (a limit, or no plan at all)."""
    if horizon is not None:
        return CompareHorizon(horizon, horizon)
    native = native_optimum(model, limits, progress=progress, since=since)
    if native.plan is None or not native.status.has_plan:
        return native
    return CompareHorizon(native.plan.length, native.plan.cost)


def verify(model: Model, claim: int | None = None, encodings: list[str] | None = None,
           solver: str = DEFAULT_SOLVER, workers: int | None = None, limits: Limits | None = None,
           progress: Progress | None = None, fresh_bound: bool = False, since: float | None = None) -> Verification:
    """Prove (or refute) that `claim` (default: the native optimum) is the minimal move count
    (the minimal cost, on a task with action costs).

    encodings: names of the model's encodings (default: per backend, the family's first and the
    first generic one);
    solver: the python-sat solver of the SAT encodings; workers: CP-SAT threads; limits: as for
    `solve`, its time limit covering the whole verification; progress: a display for a bar over
    the rows (`Progress.for_terminal()`; default none); fresh_bound: ask each bound on a fresh
    solver, not on the one that found the plan (encoders.certify.shares_solver says where it
    is shared; the CLI's --fresh-bound); since: when the time limit started (a `time.monotonic()`
    reading, e.g. the command's start; default now). Unknown encodings or solvers raise
    ValueError (UnknownEncoding, NoEncodings, UnknownSolver) naming the choices.
    """
    limits = limits if limits is not None else Limits()
    started = time.monotonic() if since is None else since
    chosen = choose_encodings(model, encodings, one_per_backend=True)   # may compile the task: seconds; counted
    check_solver(solver)
    rows_bar = (progress or Progress.silent()).counted("verify: native optimum", 1 + 2 * len(chosen))
    try:
        with warm_children(_warmups(model, chosen)):
            return _verify(model, claim, chosen, solver, workers, limits, progress, rows_bar, fresh_bound, started)
    finally:
        rows_bar.remove()


def _warmups(model: Model, chosen: list[str]) -> list[Call] | None:
    """What each SAT row's solver process does while it waits for its row (runner.py): the
    imports and the `prepare` of every SAT encoding chosen. None: no SAT row."""
    from puzzleplan.encoders.base import encoding_class
    from puzzleplan.encoders.certify import warm_up
    sat = [name for name in chosen if encoding_class(name).backend == "sat"]
    return [(warm_up, (model, name)) for name in sat] or None


def _verify(model: Model, claim: int | None, chosen: list[str], solver: str, workers: int | None, limits: Limits,
            progress: Progress | None, rows_bar: Line, fresh_bound: bool, started: float) -> Verification:
    """verify() once its arguments are checked; `rows_bar` counts the solver calls; the time
    limit counts from `started`."""
    from puzzleplan.encoders.certify import Certificate, certify
    remaining = SearchContext(limits, since=started).remaining   # the seconds left of the whole verification

    native = native_optimum(model, limits, progress=progress, since=started)
    if native.plan is None or not native.status.has_plan:
        return Verification(native.status.value, None, claim, None, [], native.status.exit_code,
                            native.message, native)
    from puzzleplan.encoders.certify import costed, certify_cost
    try:
        cost_claim = costed(model)   # compiles the planning task: seconds, under the limits
    except LimitReached as exc:
        return Verification(Status.LIMIT_REACHED.value, None, claim, None, [], Status.LIMIT_REACHED.exit_code,
                            f"{exc} while compiling the planning task, before any encoding ran", native)
    optimum = native.plan.cost if cost_claim else native.plan.length
    claim = optimum if claim is None else claim
    holds = optimum == claim
    native_proves = native.status is Status.OPTIMAL
    unit = "moves" if not cost_claim else "pushes" if model.metric == "pushes" else "cost"

    def said(n: int) -> str:
        return {"moves": str(n), "pushes": metric_count("pushes", n)}.get(unit, f"cost {n}")
    if native_proves:
        first = Certificate(native.engine, f"optimum {said(claim)}",
                            "holds" if holds else f"fails: optimum is {said(optimum)}", native.stats.seconds,
                            list(native.plan.moves), holds, kind="optimum", horizon=claim,
                            answer="holds" if holds else "fails")
    else:   # a plan, not proved optimal: it bounds the optimum from above only
        first = Certificate(native.engine, f"plan of {said(optimum)}", f"holds ({native.status.value}, not a proof)",
                            native.stats.seconds, list(native.plan.moves), True, kind="plan", horizon=optimum,
                            answer="holds")
    rows = [first]
    finished = itertools.count(1)   # solver calls done: the native search, then one per step
    doing = [""]                    # the solver call under way, for a Ctrl-C's message

    def step(what: str) -> None:
        doing[0] = what
        rows_bar.update(label=f"verify: {what}", done=next(finished))
    memory = limits.memory_mb
    if cost_claim:
        from puzzleplan.encoders.certify import counts_steps
        stepped = [name for name in chosen if counts_steps(name)]   # one unit of cost per step
        made = itertools.chain(certify(model, claim, stepped, solver, workers, remaining, step, fresh_bound, memory),
                               certify_cost(model, claim, native.plan.length, [n for n in chosen if n not in stepped],
                                            solver, workers, remaining, step, memory))
    else:
        made = certify(model, claim, chosen, solver, workers, remaining, step, fresh_bound, memory)
    interrupted = ""
    try:
        rows.extend(made)    # row by row: an interrupt keeps those made
    except KeyboardInterrupt:
        interrupted = "interrupted (Ctrl-C)" + (f" during {doing[0]}" if doing[0] else "")
    conflicting = [r for r in rows if r.contradicts(optimum)]
    # what proves, for every plan, that none is cheaper than the optimum: an optimal native
    # engine (whatever the claim), and the bound rows that hold
    proofs = list(dict.fromkeys(([native.engine] if native_proves else []) +
                                [r.method for r in rows[1:] if r.proves_bound]))
    if conflicting:
        verdict = "disagreement"
    elif not holds and native_proves:
        verdict = "refuted"   # the native optimum disproves the claim: rows a limit cut short cannot undo that
    elif interrupted or any(r.answer == "unknown" for r in rows):
        verdict = "limit_reached"
    elif holds and not proofs:
        verdict = "limit_reached"   # nothing proves the lower bound for every plan
    elif holds:
        verdict = "verified"
    else:
        verdict = "refuted"
    return Verification(verdict, optimum, claim, not conflicting, rows, VERDICT_EXIT_CODES[verdict], interrupted,
                        native, unit, proofs)


__all__ = ["NoEncodings", "UnknownEncoding", "UnknownSolver", "Verification", "check_solver", "choose_encodings",
           "native_optimum", "verify"]
