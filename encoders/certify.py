"""Certificates of a minimal move count (or cost), and side-by-side runs of encodings (verify,
compare).

`verify` rests on two facts per encoding: a plan of length L (SAT at horizon L, replayed by the
checker) and a proof that no plan is shorter. The proof is UNSAT at L-1 under the `by`
semantics, or, for a family with a fixed plan-length parity (tiles), UNSAT at L-2 under the
`exact` semantics without shortest-plan cuts (L-1 has the wrong parity, and any plan of length
<= L-2 could be padded by reversal pairs to exactly L-2). Options that would make UNSAT prove
less (exact with the reversal cut) are never used here.

A parallel encoding (sas-exists) is asked at the same horizons in steps. Its UNSAT proves the
same bound (every plan of L moves is a parallel plan of L steps), but its SAT answer may hold
more moves than steps: then the row asks again with one action per step (`parallel` off, an
exact form of "at most T moves") and says so in its result.

On a task with action costs (Sokoban pushes, rules files with costs; generic encodings only)
the claim is a cost C and the rows are: "a plan of cost <= C within L steps" (L: the native
plan's length), a real certificate (kind "plan"), and "no plan of cost <= C-1 within H steps".
That second row proves a global bound (kind "bound") only when every action costs at least 1
and H >= (C-1) // min-cost, or C-1 is below the model's admissible bound; otherwise it is kind
"bound-within": what it proved holds within H steps only, it never contradicts a global
optimum, and `verify` does not count it as a proof of the lower bound.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterator

from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.words import metric_count

from puzzleplan.encoders.base import (Answer, EncodingOptions, HorizonResult, counts_own_steps, encoding_class,
                                      padded_parity, plan_steps)
from puzzleplan.encoders.runner import Deadline, stream


@dataclass
class Certificate:
    """One row of the verify table.

    `kind` says what the row asserts about the minimal move count (or cost) m: "plan" (a
    checked plan of `horizon` moves or cost, so m <= horizon), "bound" (UNSAT: m > horizon),
    "bound-within" (UNSAT: no plan of at most `steps` steps has m <= horizon, which says
    nothing about longer plans) or "optimum" (the native engine's m == horizon). `answer` is
    "holds", "fails", "unknown" (a limit came first) or "invalid" (a decoded plan the checker
    rejects).
    """

    method: str          # e.g. "idastar", "sat tiles-moves cadical195"
    claim: str           # e.g. "plan of 24", "no plan <= 23"
    result: str          # the answer in words, e.g. "holds", "fails: no such plan", "unknown (time limit)"
    seconds: float
    plan: list[str] | None = field(default=None, repr=False)   # the plan found, if any
    holds: bool = False
    kind: str = "optimum"
    horizon: int = 0
    answer: str = "unknown"
    exact: bool = False  # a "plan" row asked under exact-T semantics with shortest-plan cuts
    steps: int | None = None   # the step horizon of a cost row

    def as_dict(self) -> dict[str, Any]:
        """The row as JSON: `holds` is null while the answer is unknown (a limit came first),
        so a row that failed (false) and one never answered read apart."""
        row = asdict(self)
        if self.answer == "unknown":
            row["holds"] = None
        return row

    @property
    def proves_bound(self) -> bool:
        """True when this row proves, for every plan, that none is below the claim."""
        return self.answer == "holds" and self.kind in ("bound", "optimum")

    def contradicts(self, optimum: int) -> bool:
        """True when this row's definite answer cannot be right if the minimal count is `optimum`."""
        if self.answer == "invalid":
            return True
        if self.answer not in ("holds", "fails"):
            return False
        if self.kind == "plan" and self.exact and self.answer == "fails":
            return optimum == self.horizon  # "none of exactly T with the cuts" refutes only T = optimum
        if self.kind == "bound-within":
            # holds: nothing about longer plans; fails: a checked plan of cost <= horizon exists
            return self.answer == "fails" and optimum > self.horizon
        if self.kind == "plan":       # holds: a plan of <= horizon moves exists
            truth = optimum <= self.horizon
        elif self.kind == "bound":    # holds: no plan of <= horizon moves
            truth = optimum > self.horizon
        else:
            truth = optimum == self.horizon
        return (self.answer == "holds") != truth


def proof_options(model: Any) -> tuple[EncodingOptions, int]:
    """Options whose UNSAT is a proof, and the horizon offset below L to ask (1 or 2)."""
    if padded_parity(model) is not None:
        return EncodingOptions(goal="exact", no_reversal=False, idle_at_end=False), 2
    return EncodingOptions(goal="by"), 1


def with_goal(options: EncodingOptions, goal: str | None) -> EncodingOptions:
    """`options` under the horizon semantics a user asked (`--goal`): under "exact" without the
    cuts that hold for shortest plans only (the reversal cut), so UNSAT at T says that no plan
    of exactly T moves exists (a plan of 9 may undo a move to reach the goal at step 9)."""
    if goal is None:
        return options
    return options.with_(goal=goal, **({"no_reversal": False} if goal == "exact" else {}))


def sat_options(model: Any) -> EncodingOptions:
    """Options for finding the plan of length L (cuts allowed: a found plan is checked anyway)."""
    if padded_parity(model) is not None:
        return EncodingOptions(goal="exact", no_reversal=True)
    return EncodingOptions(goal="by")


def costed(model: Any) -> bool:
    """True when the model's planning task has action costs other than 1 (its claims are costs)."""
    from puzzleplan.models.task.compile import supports
    if supports(model) is not None:
        return False
    from puzzleplan.encoders.sas_analysis import analysis_of
    return not analysis_of(model).unit_cost


def _solve_one(model: Any, encoding: str, options: EncodingOptions, horizon: int, solver: str,
               workers: int | None, time_limit: float | None, cost_bound: int | None = None,
               memory_mb: int | None = None) -> Iterator[HorizonResult]:
    cls = encoding_class(encoding)
    if cls.backend == "sat":
        from puzzleplan.encoders.sat.base import solve_fixed
        if cost_bound is None:
            enc = cls(model, options)
            # an encoding may drive its own solver calls for one horizon (sok-walk: growing push steps)
            own = getattr(enc, "solve_at", None)
            yield solve_fixed(enc, horizon, solver) if own is None else own(horizon, solver)
            return
        from puzzleplan.encoders.sat.cost import minimise_cost
        yield next(iter(minimise_cost(cls(model, options), horizon, solver, cost_bound, -1)))
    else:
        from puzzleplan.encoders.cpsat.base import solve
        from puzzleplan.plans.core.context import LimitReached, SearchContext
        from puzzleplan.plans.core.types import Limits
        budget = SearchContext(Limits(time_limit=time_limit, memory_mb=memory_mb))   # the build is held to them too
        enc = cls(model, options)
        if cost_bound is not None:
            enc.cost_bound = cost_bound
        enc.budget = budget.poll
        try:
            result = solve(enc, horizon, workers=workers, time_limit=budget.remaining(), memory_mb=memory_mb)
        except LimitReached as exc:
            yield HorizonResult(horizon, Answer.UNKNOWN, extra={"reason": exc.reason})
            return
        if cost_bound is not None and result.moves is not None:
            from puzzleplan.encoders.phases import plan_actions
            result.extra["cost"] = sum(a.cost for a in plan_actions(enc.task, result.moves))
        yield result


def warm_up(model: Any, encoding: str) -> None:
    """What a solver process can do before it knows its horizon (runner.warm_children): import
    the encoding and run its `prepare(model)` where it has one."""
    prepare = getattr(encoding_class(encoding), "prepare", None)
    if prepare is not None:
        prepare(model)


def solve_one(model: Any, encoding: str, options: EncodingOptions, horizon: int, solver: str = "cadical195",
              workers: int | None = None, time_limit: float | None = None,
              cost_bound: int | None = None, memory_mb: int | None = None) -> HorizonResult:
    """One horizon, one encoding; SAT in a killable child process (whose memory, with this
    process's, is held to `memory_mb`), CP-SAT here with its own time limit (and `memory_mb`). `cost_bound` (generic
    encodings on a task with costs): plans of cost <= it only. A limit gives UNKNOWN with
    extra["reason"] naming it."""
    if time_limit is not None and time_limit <= 0:
        return HorizonResult(horizon, Answer.UNKNOWN, extra={"reason": "time limit"})
    args = (model, encoding, options, horizon, solver, workers, time_limit, cost_bound)
    if encoding_class(encoding).backend == "cpsat":   # in this process, watched for the memory limit
        return next(_solve_one(*args, memory_mb))
    try:
        for result in stream(_solve_one, args, time_limit, memory_mb):
            return result
        reason = "no answer"
    except Deadline as stop:
        reason = stop.reason
    return HorizonResult(horizon, Answer.UNKNOWN, extra={"reason": reason})


def _sequential_again(model: Any, name: str, options: EncodingOptions, horizon: int, solver: str,
                      workers: int | None, remaining: Callable[[], float | None],
                      found: HorizonResult, memory_mb: int | None = None) -> tuple[HorizonResult, str]:
    """A parallel encoding's model held more moves than steps: ask one action per step."""
    if not getattr(encoding_class(name), "parallel", False) or found.moves is None or len(found.moves) <= horizon:
        return found, ""
    note = (f" (asked again one move per step: the {horizon} parallel steps held a plan of "
            f"{len(found.moves)} moves)")
    return solve_one(model, name, options.with_(parallel=False), horizon, solver, workers, remaining(),
                     memory_mb=memory_mb), note


def certify(model: Any, optimum: int, encodings: list[str], solver: str, workers: int | None,
            remaining: Callable[[], float | None] = lambda: None,
            step: Callable[[str], None] = lambda what: None, fresh_bound: bool = False,
            memory_mb: int | None = None) -> Iterator[Certificate]:
    """For each encoding: a checked plan of length `optimum` and a proof that none is shorter
    (on a task with costs: `optimum` is a cost, see `certify_cost`). The rows come one by one
    as they are answered, so a caller interrupted keeps those already made.

    `remaining()` gives the seconds left for the whole command (None: no limit), so one time
    limit covers every certificate; `memory_mb` holds each SAT solver process, with this one, to
    the memory limit. A row a limit cut short is "unknown (the limit)", never a "fails".
    `step(what)` is called before each solver call (a progress display's hook).
    Where `shares_solver` allows, the bound is asked on the solver that found the plan, which
    keeps what it learnt (`_shared_rows`); `fresh_bound` asks it on a fresh one everywhere.
    """
    parity = model.plan_parity()
    if parity is not None and optimum % 2 != parity:  # the claim is ruled out before any solver
        kind = "odd" if parity else "even"
        yield Certificate("parity rule", f"optimum {optimum}", f"fails: every plan has {kind} length", 0.0,
                          kind="optimum", horizon=optimum, answer="fails")
        return
    find = sat_options(model)
    prove, offset = proof_options(model)
    asked = solver
    for name in encodings:
        solver = solver_for(name, asked)
        label = _label(name, solver)
        # an encoding counting its own steps (sok-push: pushes) says its unit in the claims
        units = (lambda n: metric_count(model.metric, n)) if counts_steps(name) else str
        plan_claim = f"plan of {units(optimum)}"
        below = optimum - offset
        claim = f"no plan <= {units(optimum - 1)}" + (f" (UNSAT at {below}, parity rules out {optimum - 1})" if offset == 2 else "")
        if optimum == 0:
            claim = "no shorter plan (none is shorter than 0)"
        step(f"{label}: {plan_claim}")
        if not fresh_bound and offset == 1 and optimum >= 1 and shares_solver(name, find, solver):
            yield from _shared_rows(model, name, find, optimum, solver, label, (plan_claim, claim), remaining, step,
                                    memory_mb)
            continue
        started = time.perf_counter()
        found = solve_one(model, name, find, optimum, solver, workers, remaining(), memory_mb=memory_mb)
        found, note = _sequential_again(model, name, find, optimum, solver, workers, remaining, found, memory_mb)
        row = Certificate(label, plan_claim, found.answer.value, time.perf_counter() - started,
                          kind="plan", horizon=optimum, exact=find.goal == "exact")
        _plan_answer(model, row, found, optimum, note)
        yield row
        started = time.perf_counter()
        if below < 0 or optimum == 0:
            start_is_goal = model.is_goal(model.initial())
            holds = optimum == 0 or not start_is_goal
            yield Certificate(label, claim, "holds" if holds else "fails", 0.0, holds=holds, kind="bound",
                              horizon=optimum - 1, answer="holds" if holds else "fails")
            continue
        step(f"{label}: {claim}")
        proof = solve_one(model, name, prove, below, solver, workers, remaining(), memory_mb=memory_mb)
        proof, note = _sequential_again(model, name, prove, below, solver, workers, remaining, proof, memory_mb)
        row = Certificate(label, claim, proof.answer.value, time.perf_counter() - started, kind="bound",
                          horizon=optimum - 1)
        _bound_answer(row, proof, note)
        yield row


def shares_solver(name: str, options: EncodingOptions, solver: str) -> bool:
    """Whether verify asks encoding `name`'s plan and bound on one solver (solve_then_fewer):
    a SAT encoding whose `fewer_steps` can restrict its formula to shorter plans, one action
    a step, a solver that takes assumptions."""
    from puzzleplan.encoders.sat.base import supports_assumptions
    cls = encoding_class(name)
    return (cls.backend == "sat" and getattr(cls, "idle_pads", False) and options.goal == "by"
            and not getattr(cls, "parallel", False) and getattr(cls, "solve_at", None) is None
            and supports_assumptions(solver))


def _solve_shared(model: Any, encoding: str, options: EncodingOptions, horizon: int,
                  solver: str, time_limit: float | None) -> Iterator[HorizonResult]:
    from puzzleplan.encoders.sat.base import solve_then_fewer
    yield from solve_then_fewer(encoding_class(encoding)(model, options), horizon, solver, time_limit)


def _shared_rows(model: Any, name: str, options: EncodingOptions, optimum: int, solver: str, label: str,
                 claims: tuple[str, str], remaining: Callable[[], float | None],
                 step: Callable[[str], None], memory_mb: int | None = None) -> Iterator[Certificate]:
    """The plan row and the bound row of `certify` (their `claims`), from one solver in one
    child process: the plan at `optimum`, then "no plan <= optimum - 1" under assumptions
    (sat/base.py's fewer_steps says why that UNSAT is the same proof). A row a limit came
    before is unknown, naming the limit; the plan row comes as soon as it is answered."""
    plan_claim, claim = claims
    plan = Certificate(label, plan_claim, "", 0.0, kind="plan", horizon=optimum)
    bound = Certificate(label, claim, "", 0.0, kind="bound", horizon=optimum - 1)
    limit = remaining()
    answers = stream(_solve_shared, (model, name, options, optimum, solver, limit), limit, memory_mb)
    reason = "time limit"
    found = proof = None
    try:
        started = time.perf_counter()
        if limit is None or limit > 0:
            try:
                found = next(answers, None)
            except Deadline as stop:
                reason = stop.reason
        plan.seconds = time.perf_counter() - started
        if found is None:
            plan.result = f"unknown ({reason})"
        else:
            _plan_answer(model, plan, found, optimum)
        yield plan
        started = time.perf_counter()
        if found is not None:
            step(f"{label}: {claim} (on the same solver)")
            try:
                proof = next(answers, None)
            except Deadline as stop:
                reason = stop.reason
            bound.seconds = time.perf_counter() - started
    finally:
        answers.close()   # the solver process ends here, whatever came
    if proof is None:
        bound.result = f"unknown ({reason})"
    else:
        _bound_answer(bound, proof, " (on the plan's solver)")
    yield bound


DEFAULT_SAT_SOLVER = "cadical195"


def solver_for(name: str, solver: str) -> str:
    """The SAT solver for encoding `name`: the one its class prefers (`preferred_solver`, e.g.
    sok-onehot: glucose42, measured about twice as fast on Microban) when the caller left the
    default, else the caller's. The row's label names the solver used."""
    preferred = getattr(encoding_class(name), "preferred_solver", None)
    return preferred if preferred and solver == DEFAULT_SAT_SOLVER else solver


def counts_steps(name: str) -> bool:
    """True for an encoding whose horizon counts the metric's cost, one unit a step
    (base.counts_own_steps: sok-push, one push a step): its UNSAT at cost - 1 is a global bound."""
    return counts_own_steps(encoding_class(name))


def _label(name: str, solver: str) -> str:
    backend = encoding_class(name).backend
    return f"{backend} {name}" + (f" {solver}" if backend == "sat" else "")


def _plan_answer(model: Any, row: Certificate, found: HorizonResult, bound: int, note: str = "",
                 size: Callable[[HorizonResult], int] = plan_steps) -> None:
    """Fill a "plan" row from a solver answer: a checked plan within `bound` holds (its size
    in the claim's unit: `plan_steps`, the moves or the steps its encoding counts)."""
    if found.answer is Answer.SAT:
        report = check_plan(model, found.moves, "printed")
        row.plan = found.moves
        row.holds = report.valid and size(found) <= bound
        row.answer = "holds" if row.holds else "invalid"
        row.result = ("holds" + note) if row.holds else f"invalid plan: {report.error or 'over the claim'}"
    elif found.answer is Answer.UNSAT:
        row.answer, row.result = "fails", "fails: no such plan"
    else:
        row.result = f"unknown ({found.extra.get('reason', 'limit')})"


def _bound_answer(row: Certificate, proof: HorizonResult, note: str = "") -> None:
    """Fill a "bound" row: UNSAT holds; a model (a plan within the bound) refutes it."""
    row.holds = proof.answer is Answer.UNSAT
    row.answer = {Answer.UNSAT: "holds", Answer.SAT: "fails"}.get(proof.answer, "unknown")
    row.result = ("holds" + note) if row.holds else (f"unknown ({proof.extra.get('reason', 'limit')})"
                                                     if proof.answer is Answer.UNKNOWN else "fails: a shorter plan exists")
    if proof.answer is Answer.SAT:
        row.plan = proof.moves


def certify_cost(model: Any, optimum: int, steps: int, encodings: list[str], solver: str, workers: int | None,
                 remaining: Callable[[], float | None] = lambda: None,
                 step: Callable[[str], None] = lambda what: None,
                 memory_mb: int | None = None) -> Iterator[Certificate]:
    """Cost certificates for a claimed minimal cost `optimum`, whose native plan has `steps`
    moves: per generic encoding, a plan of cost <= optimum within `steps` steps, and "no plan
    of cost <= optimum-1" within the step horizon that makes it global where one exists
    (every action costs >= 1), else within `steps` (kind "bound-within"; see the docstring).
    When optimum-1 is below the model's admissible bound h, one more row says so (a global
    bound that rests on h, not on an encoding). `step`, `memory_mb` and the rows coming one by one:
    as for `certify`."""
    from puzzleplan.encoders.sas_analysis import analysis_of
    info = analysis_of(model)
    floor = getattr(model, "cheap_h", model.h)(model.initial())
    options = EncodingOptions(goal="by")
    bound = optimum - 1
    if info.min_cost >= 1:
        below_steps, kind = max(bound, 0) // info.min_cost, "bound"
    else:
        below_steps, kind = steps, "bound-within"
    if 0 <= bound < floor:
        yield Certificate("admissible bound h", f"no plan of cost <= {bound}", f"holds (h = {floor})", 0.0,
                          holds=True, kind="bound", horizon=bound, answer="holds")
    for name in encodings:
        label = _label(name, solver)
        step(f"{label}: plan of cost <= {optimum}")
        started = time.perf_counter()
        found = solve_one(model, name, options, steps, solver, workers, remaining(), cost_bound=optimum,
                          memory_mb=memory_mb)
        row = Certificate(label, f"plan of cost <= {optimum} within {steps} steps", found.answer.value,
                          time.perf_counter() - started, kind="plan", horizon=optimum, steps=steps)
        _plan_answer(model, row, found, optimum, size=lambda r: int(r.extra.get("cost", optimum + 1)))
        yield row
        if bound < 0:
            yield Certificate(label, "no plan of negative cost", "holds", 0.0, holds=True, kind="bound",
                              horizon=bound, answer="holds")
            continue
        within = "" if kind == "bound" else f" within {below_steps} steps"
        step(f"{label}: no plan of cost <= {bound}")
        started = time.perf_counter()
        proof = solve_one(model, name, options, below_steps, solver, workers, remaining(), cost_bound=bound,
                          memory_mb=memory_mb)
        row = Certificate(label, f"no plan of cost <= {bound}{within}", proof.answer.value,
                          time.perf_counter() - started, kind=kind, horizon=bound, steps=below_steps)
        _bound_answer(row, proof)
        if row.answer == "holds" and kind == "bound-within":
            row.result = "holds (not beyond)"
        elif row.answer == "fails":
            row.result = "fails: a cheaper plan exists"
        yield row


@dataclass
class Trial:
    """One row of the compare table.

    `result` is "sat", "unsat" or, for a row a limit stopped, "unknown (<the limit>)" with
    `limit` naming it (HorizonResult.extra["reason"]: "time limit", "memory limit of 900 MiB";
    None for an answered row). `seconds` is the row's wall time here (a SAT row's includes its
    solver process's start). A row stopped before its solver reported its formula (a SAT
    process killed at a limit, a row with no time left) is not `reported`: its variables,
    constraints and build/solve seconds are unknown (0 here).
    """

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
    seconds: float = 0.0
    limit: str | None = None

    @property
    def reported(self) -> bool:
        """False when the solver never reported the formula's size and times (see the class)."""
        return self.limit is None or self.variables != 0 or self.constraints != 0


def compare(model: Any, horizon: int, encodings: list[str], solvers: list[str], repeat: int,
            options: EncodingOptions | None, workers: int | None, time_limit: float | None = None,
            remaining: Callable[[], float | None] | None = None, memory_mb: int | None = None) -> Iterator[Trial]:
    """Every encoding x solver at one horizon, `repeat` times each. A plan counts as valid when
    it is legal and reaches the goal (a parallel encoding's plan may exceed the file's cap);
    on a task with costs, extra["cost"] holds the plan's cost.

    `time_limit` holds each row; `remaining()`, when given, replaces it with the seconds left
    for the caller's whole run (None: no limit), so one limit covers every row and a row it
    leaves no time is unknown at once. `memory_mb` holds each SAT solver process (with this
    one) and each CP-SAT search to the memory limit."""
    opts = options or proof_options(model)[0]
    encodings, solvers = list(dict.fromkeys(encodings)), list(dict.fromkeys(solvers))   # a name given twice runs once
    task = None
    if costed(model):
        from puzzleplan.encoders.sas_analysis import analysis_of
        task = analysis_of(model).task
    for name in encodings:
        backend = encoding_class(name).backend
        for solver in (solvers if backend == "sat" else [f"cp-sat/{workers}w" if workers else "cp-sat"]):
            for k in range(repeat):
                limit = time_limit if remaining is None else remaining()
                started = time.perf_counter()
                r = solve_one(model, name, opts, horizon, solver, workers, limit, memory_mb=memory_mb)
                seconds = time.perf_counter() - started
                valid = None
                # what the row ran under: the horizon's semantics, and a bound an encoding attaches or could not
                extra: dict[str, Any] = {"goal": opts.goal, **{k: v for k, v in r.extra.items() if k == "bound"}}
                if r.moves is not None:
                    report = check_plan(model, r.moves, "printed")
                    valid = report.valid or (report.goal_reached and report.within_cap is False)
                    if task is not None and valid:
                        from puzzleplan.encoders.phases import plan_actions
                        extra["cost"] = sum(a.cost for a in plan_actions(task, r.moves))
                stopped = str(r.extra.get("reason", "limit")) if r.answer is Answer.UNKNOWN else None
                result = r.answer.value if stopped is None else f"unknown ({stopped})"
                yield Trial(name, solver, horizon, r.variables, r.constraints, r.build_seconds, r.solve_seconds,
                            result, None if r.moves is None else len(r.moves), valid, k + 1, extra,
                            seconds, stopped)
