"""The `sat` and `cpsat` engines: an encoding, a horizon strategy, a solver, a checked plan.

Request options (all optional): encoding, solver (python-sat name), strategy (increasing |
binary | fixed), goal (by | exact), no_reversal, idle_at_end, distance_cuts, parity, card,
params (CP-SAT parameters as text), workers, hint (a list of moves to hint CP-SAT with),
max_horizon (when there is no cap).

Defaults: families with a fixed plan-length parity (tiles) use `goal: exact` (much faster
there) with the reversal cut only under the increasing sweep, where it stays sound; other
families use `goal: by`. SAT runs in a child process so time limits and Ctrl-C always work.
The default encoding is the family's first hand-tuned one for the backend; a family without
one (a user class, rules, PDDL) gets the generic ones (sas-seq, cp-sas).

After the horizon strategy come the phases of encoders/phases.py: fewest moves for a parallel
encoding, and for a task with action costs (generic encodings on Sokoban pushes, rules files
with costs) the cheapest plan within a step horizon. There a cap (`--max-moves`) bounds the
COST, as the checker reads it, and the status is OPTIMAL only when the proof covers every plan
(stats.extra["cost_proof"] says what was proved); otherwise SOLVED.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.search.common import finish
from puzzleplan.plans.core.types import Request, Result, Status

from puzzleplan.encoders import horizon as strategies
from puzzleplan.encoders.base import (Answer, EncodingOptions, HorizonResult, counts_own_steps, encoding_class,
                                      encodings_for, family_encodings, is_generic, padded_parity, plan_steps)
from puzzleplan.encoders.detours import without_detours
from puzzleplan.encoders.horizon import Outcome
from puzzleplan.encoders.phases import (CostAsk, cheapest, cost_proof, cost_results, drain, fewest_moves,
                                        plan_actions)
from puzzleplan.encoders.runner import Deadline, stream
from puzzleplan.plans.core.words import count, metric_count

DEFAULT_MAX_HORIZON = 200
OPTION_KEYS = ("goal", "no_reversal", "idle_at_end", "distance_cuts", "parity", "card")


def options_for(model: Any, strategy: str, overrides: dict[str, Any]) -> EncodingOptions:
    """The family default semantics for a strategy, with the user's overrides on top."""
    parity = padded_parity(model)
    if parity is not None:
        opts = EncodingOptions(goal="exact", no_reversal=strategy == "increasing")
    else:
        opts = EncodingOptions(goal="by")
    return opts.with_(**{k: v for k, v in overrides.items() if k in OPTION_KEYS and v is not None})


def pick_encoding(model: Any, backend: str, name: str | None) -> str | None:
    """`name` when it is an encoding of `backend` for the model, else None; without a name the
    model's first one (a family's hand-tuned encodings come before the generic ones). The
    generic ones are looked at only when needed: deciding whether they apply compiles the task."""
    own = family_encodings(model, backend)
    if name is None and own:
        return own[0]
    if name in own:
        return name
    names = encodings_for(model, backend)
    if name is None:
        return names[0] if names else None
    return name if name in names else None


@dataclass(frozen=True)
class Phases:
    """What the engine asks after the horizon strategy (see encoders/phases.py)."""

    fewest_moves: bool             # a parallel encoding: make the plan move-optimal
    move_cap: int | None           # any-plan with a cap: a plan of at most this many moves (or
                                   # pushes, for an encoding counting them) will do
    cost: CostAsk | None           # a task with action costs: the cost phase


def _sat_calls(model: Any, encoding: str, options: EncodingOptions, solver: str, strategy: str,
               lower: int, cap: int, mode: str, parity: int | None, phases: Phases) -> Iterator[Any]:
    """Runs in the child: yields HorizonResults, then the Outcome."""
    from puzzleplan.encoders.sat.base import IncrementalSat, solve_fixed, supports_assumptions
    cls = encoding_class(encoding)

    def solver_at(opts: EncodingOptions, how: str) -> Any:
        if how == "increasing" and supports_assumptions(solver):
            return IncrementalSat(cls(model, opts), solver).solve
        return lambda t: solve_fixed(cls(model, opts), t, solver)

    outcome = yield from drain(strategies.run(solver_at(options, strategy), strategy, lower, cap, mode, parity))
    outcome = yield from _fewest(outcome, phases, lambda how: solver_at(options.with_(parallel=False), how),
                                 mode, parity)
    ask = phases.cost
    if ask is not None and outcome.moves is not None:
        from puzzleplan.encoders.sas_analysis import analysis_of
        from puzzleplan.encoders.sat.cost import minimise_cost

        def minimise(H: int, upper: int) -> Iterator[HorizonResult]:
            return minimise_cost(cls(model, options.with_(goal="by")), H, solver, upper, ask.floor)
        outcome = yield from drain(cheapest(outcome, ask, analysis_of(model).task, minimise))
    yield outcome


def _fewest(outcome: Outcome, phases: Phases, solver_at: Any, mode: str, parity: int | None) -> Any:
    """Phase 2 when it applies (a parallel plan not yet move-optimal, or over an any-plan cap)."""
    if outcome.moves is None or outcome.optimal or not phases.fewest_moves:
        return outcome
    if phases.move_cap is not None and outcome.steps is not None and outcome.steps <= phases.move_cap:
        return outcome
    how = "increasing" if phases.move_cap is None else "fixed"
    return (yield from drain(fewest_moves(outcome, solver_at(how), mode, parity, phases.move_cap)))


def _cp_calls(model: Any, encoding: str, options: EncodingOptions, request: Request, ctx: SearchContext,
              strategy: str, lower: int, cap: int, mode: str, parity: int | None, phases: Phases) -> Iterator[Any]:
    from puzzleplan.encoders.cpsat.base import solve
    cls = encoding_class(encoding)
    opts = request.options

    def solve_at(t: int) -> HorizonResult:
        enc = cls(model, options)
        enc.budget = ctx.poll     # the limits hold while the model is built, too
        return solve(enc, t, opts.get("params"), opts.get("workers"), ctx.remaining(), opts.get("hint"),
                     request.limits.memory_mb)
    outcome = yield from drain(strategies.run(solve_at, strategy, lower, cap, mode, parity))
    ask = phases.cost
    if ask is not None and outcome.moves is not None:
        from puzzleplan.encoders.sas_analysis import analysis_of
        first = outcome.moves

        def minimise(H: int, upper: int) -> Iterator[HorizonResult]:
            enc = cls(model, options.with_(goal="by"))
            enc.objective, enc.cost_bound = not ask.any_plan, upper
            result = solve(enc, H, opts.get("params"), opts.get("workers"), ctx.remaining(), first,
                           request.limits.memory_mb)
            result.extra["cost_optimal"] = result.extra.get("cp_status") == "OPTIMAL" and enc.objective
            return cost_results([result], enc.task, upper)
        outcome = yield from drain(cheapest(outcome, ask, analysis_of(model).task, minimise))
    yield outcome


@dataclass(frozen=True)
class Schedule:
    """How one run goes: the horizon strategy and its range, the phases after it."""

    strategy: str
    lower: int                     # an admissible lower bound in the horizon's unit (moves, steps, pushes)
    cap: int                       # the largest horizon asked
    cap_from_cost: bool            # the cap comes from a cost cap (so UNSAT up to it is a proof)
    phases: Phases
    floor: int                     # the model's admissible bound h (a cost bound on a task with costs)
    task: Any                      # the planning task (generic encodings), else None


def _loop_free_steps(task: Any, limit: int) -> int | None:
    """The task's states less one (every variable's domain multiplied), or None above `limit`:
    a cheapest plan never needs more steps."""
    states = 1
    for size in task.sizes:
        states *= size
        if states - 1 > limit:
            return None
    return states - 1


def _schedule(model: Any, request: Request, cls: Any) -> Schedule:
    """The strategy, horizons and phases of a run of encoding class `cls` on `model`."""
    opts = request.options
    info = None
    if is_generic(cls):
        from puzzleplan.encoders.sas_analysis import analysis_of
        info = analysis_of(model)
    h = getattr(model, "cheap_h", model.h)(model.initial())  # never a costly table build here
    limit = int(DEFAULT_MAX_HORIZON if opts.get("max_horizon") is None else opts["max_horizon"])   # 0 is a horizon
    parallel = bool(getattr(cls, "parallel", False))
    if info is not None and not info.unit_cost:
        # the cap bounds the cost: the horizons are steps, up to max_horizon, or fewer when every
        # action costs at least 1 (then a plan within the cost cap has at most cap // min-cost steps)
        lower = max(info.lower_steps(), -(-h // info.max_cost) if info.max_cost else 0)
        longest = _loop_free_steps(info.task, limit)
        cap, from_cost = limit if longest is None else longest, False
        if request.max_moves is not None and info.min_cost >= 1 and request.max_moves // info.min_cost <= cap:
            cap, from_cost = request.max_moves // info.min_cost, True
        ask = CostAsk(limit, opts.get("max_horizon"), request.max_moves, h, info.min_cost, request.any_plan, longest)
        phases = Phases(False, None, ask)
        return Schedule(opts.get("strategy") or "increasing", lower, cap, from_cost, phases, h, info.task)
    strategy = opts.get("strategy") or ("fixed" if request.any_plan and request.max_moves is not None else "increasing")
    cap = request.max_moves if request.max_moves is not None else limit
    lower = h if info is None else max(h, info.lower_steps())
    # a parallel plan is made move-optimal unless any plan will do (with a cap: any plan within it)
    fewest = parallel and (not request.any_plan or request.max_moves is not None)
    phases = Phases(fewest, request.max_moves if request.any_plan else None, None)
    return Schedule(strategy, lower, cap, False, phases, h, None if info is None else info.task)


def _run(model: Any, request: Request, ctx: SearchContext, backend: str) -> Result:
    engine = backend
    opts = request.options
    encoding = pick_encoding(model, backend, opts.get("encoding"))
    if encoding is None:
        wanted = opts.get("encoding")
        known = ", ".join(encodings_for(model, backend)) or "none"
        return finish(ctx, engine, model, Status.UNSUPPORTED,
                      message=f"no {backend} encoding {wanted!r} for {model.family} under {model.metric} "
                              f"(available: {known})" if wanted else
                              f"no {backend} encoding for {model.family} under the {model.metric} metric")
    run = _schedule(model, request, encoding_class(encoding))
    strategy, lower, cap, phases = run.strategy, run.lower, run.cap, run.phases
    costed = phases.cost is not None
    options = options_for(model, strategy, opts)
    parity = padded_parity(model)
    mode = strategies.proof_mode(options, parity)
    if strategy == "binary" and mode == "sweep":
        return finish(ctx, engine, model, Status.UNSUPPORTED,
                      message="binary search needs UNSAT answers that are proofs: use goal by, or exact without "
                              "the reversal cut on a family with a parity rule")
    stats = ctx.stats
    stats.extra.update({"encoding": encoding, "strategy": strategy, "semantics": options.goal, "calls": []})
    if backend == "sat":
        from puzzleplan.encoders.sat.base import known_solver
        solver = opts.get("solver") or "cadical195"
        if not known_solver(solver):
            raise ValueError(f"--solver: {solver!r} is not a python-sat solver name (e.g. cadical195, glucose4, "
                             "minisat22, lingeling, maplechrono, kissat)")
        stats.extra["solver"] = solver
        calls = stream(_sat_calls, (model, encoding, options, solver, strategy, lower, cap, mode, parity, phases),
                       ctx.remaining(), request.limits.memory_mb)
    else:
        calls = _cp_calls(model, encoding, options, request, ctx, strategy, lower, cap, mode, parity, phases)
    ctx.lower_bound = run.floor if costed else lower
    ctx.phase, ctx.depth_name = f"{engine} {encoding}", "horizon"
    ctx.report()   # horizons come seldom: each answer is shown at once
    outcome = None
    best: tuple[int, list[str]] | None = None     # (size, moves): what a limit leaves us; the size in
                                                  # the cap's unit (moves, pushes, cost: _size)
    try:
        for item in calls:
            if isinstance(item, HorizonResult):
                stats.extra["calls"].append(_call_summary(item))
                stats.depth = item.horizon
                stats.extra["variables"] = item.variables
                stats.extra["constraints"] = item.constraints
                if item.moves is not None:
                    size = _size(item, run.task if costed else None)
                    if (request.max_moves is None or size <= request.max_moves) and (best is None or size < best[0]):
                        best = (size, item.moves)
                if not costed:
                    ctx.lower_bound = max(ctx.lower_bound, item.extra.get("no_plan_up_to", lower - 1) + 1)
                ctx.report()
                ctx.poll()
            else:
                outcome = item
    except Deadline as stop:
        return _gave_up(ctx, engine, model, best, costed, stop.reason)
    except RuntimeError as exc:  # the solver process failed: say so in one line, no traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unknown failure"
        return finish(ctx, engine, model, Status.UNSUPPORTED, lower_bound=ctx.lower_bound,
                      message=f"the {stats.extra.get('solver', backend)} solver failed: {first}")
    assert outcome is not None
    if phases.cost is not None:
        return _cost_result(ctx, engine, model, outcome, phases.cost, request, cap, run.cap_from_cost)
    unit = model.metric if counts_own_steps(encoding_class(encoding)) else "moves"
    return _length_result(ctx, engine, model, outcome, request, cap, lower, unit)


def _size(result: HorizonResult, task: Any) -> int:
    """A found plan's size in the cap's unit: its cost on a task with costs, else its length."""
    if task is None:
        return plan_steps(result)
    if "cost" not in result.extra:
        result.extra["cost"] = sum(a.cost for a in plan_actions(task, result.moves or ()))
    return int(result.extra["cost"])


def _gave_up(ctx: SearchContext, engine: str, model: Any, best: tuple[int, list[str]] | None,
             costed: bool, reason: str = "time limit") -> Result:
    """A limit (`reason`: the time limit, or the memory limit of the solver process) came
    first: the best plan seen (within the cap) as SOLVED, else nothing. `best` is (size,
    moves), the size in the horizon's unit (cost, pushes for sok-push, moves)."""
    if best is not None:
        if costed:
            ctx.stats.extra["cost_proof"] = f"none ({reason})"
        return _decoded(ctx, engine, model, Status.SOLVED, best[1], ctx.lower_bound, best[0],
                        f"{ctx.reached(reason)} before a proof that no plan is shorter or cheaper")
    return finish(ctx, engine, model, Status.LIMIT_REACHED, lower_bound=ctx.lower_bound,
                  message=ctx.reached(reason))


def _reason(call: HorizonResult | None) -> str:
    """The limit an unanswered solver call names (extra["reason"]); the time limit by default."""
    return "time limit" if call is None else str(call.extra.get("reason", "time limit"))


def _length_result(ctx: SearchContext, engine: str, model: Any, outcome: Outcome, request: Request, cap: int,
                   lower: int, unit: str) -> Result:
    """The Result of a horizon strategy; horizons, caps and proofs count `unit` (moves, or the
    metric an encoding counts its own steps in: pushes for sok-push)."""
    proved = outcome.no_plan_up_to
    size = outcome.steps
    if outcome.moves is not None and size is not None and (request.max_moves is None or size <= request.max_moves):
        if outcome.optimal:
            return _decoded(ctx, engine, model, Status.OPTIMAL, outcome.moves, size, size)
        bound = (proved if proved is not None else lower - 1) + 1
        moves, note = outcome.moves, ""
        if size == len(moves):   # a plan counted in moves (not sok-push's pushes) may be cut
            moves = without_detours(model, moves)
            if len(moves) < size:
                note = f"cut from the solver's {metric_count(unit, size)}: its detours left out"
        return _decoded(ctx, engine, model, Status.SOLVED, moves, bound, len(moves) if note else size, note)
    if proved is not None and proved >= cap:
        if request.max_moves is None:
            return finish(ctx, engine, model, Status.LIMIT_REACHED, lower_bound=proved + 1,
                          message=f"no plan up to horizon {cap} (max_horizon); give --max-moves to make it a cap")
        return finish(ctx, engine, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=proved + 1,
                      message=f"no plan within {metric_count(unit, cap)} (UNSAT proof)")
    last = outcome.calls[-1] if outcome.calls else None
    why = (ctx.reached(_reason(last)) if last is None or last.answer is Answer.UNKNOWN else
           "UNSAT under exact-T semantics with shortest-plan cuts proves nothing about shorter plans")
    bound = (proved if proved is not None else lower - 1) + 1
    return finish(ctx, engine, model, Status.LIMIT_REACHED, lower_bound=bound, message=why)


def _cost_result(ctx: SearchContext, engine: str, model: Any, outcome: Outcome, ask: CostAsk, request: Request,
                 cap: int, cap_from_cost: bool) -> Result:
    """The Result of a task with action costs: OPTIMAL only on a global proof (see phases)."""
    stats = ctx.stats
    stats.extra["cost_horizon"] = outcome.cost_horizon
    stats.extra["cost_proof"] = cost_proof(outcome, ask)
    if outcome.moves is None:
        proved = outcome.no_plan_up_to
        if proved is not None and proved >= cap:
            if ask.longest is not None and proved >= ask.longest:
                return finish(ctx, engine, model, Status.UNSOLVABLE, message=(
                    f"no plan at all: none has <= {count(ask.longest, 'step')}, the task's states less one "
                    f"(UNSAT proof; a plan need not visit a state twice)"))
            if cap_from_cost:
                assert request.max_moves is not None
                return finish(ctx, engine, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=request.max_moves + 1,
                              message=f"no plan costs <= {request.max_moves}: none has <= {count(cap, 'step')} "
                                      f"(UNSAT proof; every action costs at least {ask.min_cost})")
            return finish(ctx, engine, model, Status.LIMIT_REACHED, lower_bound=ctx.lower_bound,
                          message=f"no plan up to horizon {cap} (max_horizon)")
        return finish(ctx, engine, model, Status.LIMIT_REACHED, lower_bound=ctx.lower_bound,
                      message=ctx.reached(_reason(outcome.calls[-1] if outcome.calls else None)))
    assert outcome.cost is not None
    if ask.cap is not None and outcome.cost > ask.cap:
        if outcome.cost_global:
            why = (f"the admissible bound is {ask.floor}" if ask.cap < ask.floor else
                   f"UNSAT within {outcome.cost_horizon} steps, and no plan that cheap is longer")
            return finish(ctx, engine, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=ask.cap + 1,
                          message=f"{stats.extra['cost_proof']} ({why})")
        return finish(ctx, engine, model, Status.LIMIT_REACHED, lower_bound=ctx.lower_bound,
                      message=f"{stats.extra['cost_proof']}; the cheapest plan found costs {outcome.cost}")
    status = Status.OPTIMAL if outcome.cost_global else Status.SOLVED
    return _decoded(ctx, engine, model, status, outcome.moves, outcome.cost if outcome.cost_global else ctx.lower_bound,
                    outcome.cost)


def _decoded(ctx: SearchContext, engine: str, model: Any, status: Status, moves: list[str], lower: int,
             cost: int | None = None, message: str = "") -> Result:
    """A Result from decoded move strings (the runner replays them with the checker); `cost`
    in the metric's unit (a task's action costs, sok-push's pushes), else the plan's length."""
    from puzzleplan.plans.core.types import Plan
    return Result(status, engine, Plan.of(moves, cost), lower, ctx.finish(), message)


def _call_summary(r: HorizonResult) -> dict[str, Any]:
    out = {"horizon": r.horizon, "answer": r.answer.value, "variables": r.variables,
           "constraints": r.constraints, "build_seconds": round(r.build_seconds, 4),
           "solve_seconds": round(r.solve_seconds, 4)}
    out.update({k: r.extra[k] for k in ("cost_bound", "cost") if k in r.extra})
    return out


def _supports(model: Any, backend: str) -> str | None:
    if pick_encoding(model, backend, None) is None:
        from puzzleplan.encoders.base import generic_reason
        why = generic_reason(model)
        return f"no {backend} encoding for {model.family} under the {model.metric} metric" + (f" ({why})" if why else "")
    return None


def supports_sat(model: Any) -> str | None:
    """None when a SAT encoding applies (the family's own for this metric, or a generic one
    when the model compiles to a planning task), else why not."""
    return _supports(model, "sat")


def supports_cpsat(model: Any) -> str | None:
    """None when a CP-SAT encoding applies (the family's own, or the generic one), else why not."""
    return _supports(model, "cpsat")


def run_sat(model: Any, request: Request, ctx: SearchContext) -> Result:
    return _run(model, request, ctx, "sat")


def run_cpsat(model: Any, request: Request, ctx: SearchContext) -> Result:
    return _run(model, request, ctx, "cpsat")
