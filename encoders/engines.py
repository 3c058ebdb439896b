"""The `sat` and `cpsat` engines: an encoding, a horizon strategy, a solver, a checked plan.

Request options (all optional): encoding, solver (python-sat name), strategy (increasing |
binary | fixed), goal (by | exact), no_reversal, idle_at_end, distance_cuts, parity, card,
params (CP-SAT parameters as text), workers, hint (a list of moves to hint CP-SAT with),
max_horizon (when there is no cap).

Defaults: families with a fixed plan-length parity (tiles) use `goal: exact` (much faster
there) with the reversal cut only under the increasing sweep, where it stays sound; other
families use `goal: by`. SAT runs in a child process so time limits and Ctrl-C always work.
"""
from __future__ import annotations

from typing import Any, Iterator

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.search.common import finish
from puzzleplan.plans.core.types import Request, Result, Status

from puzzleplan.encoders import horizon as strategies
from puzzleplan.encoders.base import Answer, EncodingOptions, HorizonResult, encoding_class, encodings_for
from puzzleplan.encoders.runner import Deadline, stream
from puzzleplan.plans.core.words import count

DEFAULT_MAX_HORIZON = 200
OPTION_KEYS = ("goal", "no_reversal", "idle_at_end", "distance_cuts", "parity", "card")


def options_for(model: Any, strategy: str, overrides: dict[str, Any]) -> EncodingOptions:
    """The family default semantics for a strategy, with the user's overrides on top."""
    parity = model.plan_parity()
    if parity is not None:
        opts = EncodingOptions(goal="exact", no_reversal=strategy == "increasing")
    else:
        opts = EncodingOptions(goal="by")
    return opts.with_(**{k: v for k, v in overrides.items() if k in OPTION_KEYS and v is not None})


def pick_encoding(model: Any, backend: str, name: str | None) -> str | None:
    names = encodings_for(model.family, backend, model.metric)
    if name is None:
        return names[0] if names else None
    return name if name in names else None


def _sat_calls(model: Any, encoding: str, options: EncodingOptions, solver: str, strategy: str,
               lower: int, cap: int, mode: str, parity: int | None) -> Iterator[Any]:
    """Runs in the child: yields HorizonResults, then the Outcome."""
    from puzzleplan.encoders.sat.base import IncrementalSat, solve_fixed, supports_assumptions
    cls = encoding_class(encoding)
    if strategy == "increasing" and supports_assumptions(solver):
        incremental = IncrementalSat(cls(model, options), solver)
        solve_at = incremental.solve
    else:
        solve_at = lambda t: solve_fixed(cls(model, options), t, solver)  # noqa: E731
    yield from strategies.run(solve_at, strategy, lower, cap, mode, parity)


def _cp_calls(model: Any, encoding: str, options: EncodingOptions, request: Request, ctx: SearchContext,
              strategy: str, lower: int, cap: int, mode: str, parity: int | None) -> Iterator[Any]:
    from puzzleplan.encoders.cpsat.base import solve
    cls = encoding_class(encoding)
    opts = request.options

    def solve_at(t: int) -> HorizonResult:
        return solve(cls(model, options), t, opts.get("params"), opts.get("workers"), ctx.remaining(),
                     opts.get("hint"))
    yield from strategies.run(solve_at, strategy, lower, cap, mode, parity)


def _run(model: Any, request: Request, ctx: SearchContext, backend: str) -> Result:
    engine = backend
    opts = request.options
    encoding = pick_encoding(model, backend, opts.get("encoding"))
    if encoding is None:
        wanted = opts.get("encoding")
        known = ", ".join(encodings_for(model.family, backend, model.metric)) or "none"
        return finish(ctx, engine, model, Status.UNSUPPORTED,
                      message=f"no {backend} encoding {wanted!r} for {model.family} under {model.metric} "
                              f"(available: {known})" if wanted else
                              f"no {backend} encoding for {model.family} under the {model.metric} metric")
    strategy = opts.get("strategy") or ("fixed" if request.any_plan and request.max_moves is not None else "increasing")
    options = options_for(model, strategy, opts)
    parity = model.plan_parity()
    mode = strategies.proof_mode(options, parity)
    if strategy == "binary" and mode == "sweep":
        return finish(ctx, engine, model, Status.UNSUPPORTED,
                      message="binary search needs UNSAT answers that are proofs: use goal by, or exact without "
                              "the reversal cut on a family with a parity rule")
    cap = request.max_moves if request.max_moves is not None else int(opts.get("max_horizon") or DEFAULT_MAX_HORIZON)
    lower = getattr(model, "cheap_h", model.h)(model.initial())  # never a costly table build here
    stats = ctx.stats
    stats.extra.update({"encoding": encoding, "strategy": strategy, "semantics": options.goal, "calls": []})
    if backend == "sat":
        from puzzleplan.encoders.sat.base import known_solver
        solver = opts.get("solver") or "cadical195"
        if not known_solver(solver):
            raise ValueError(f"--solver: {solver!r} is not a python-sat solver name (e.g. cadical195, glucose4, "
                             "minisat22, lingeling, maplechrono, kissat)")
        stats.extra["solver"] = solver
        calls = stream(_sat_calls, (model, encoding, options, solver, strategy, lower, cap, mode, parity),
                       ctx.remaining())
    else:
        calls = _cp_calls(model, encoding, options, request, ctx, strategy, lower, cap, mode, parity)
    ctx.lower_bound = lower
    outcome = None
    try:
        for item in calls:
            if isinstance(item, HorizonResult):
                stats.extra["calls"].append(_call_summary(item))
                stats.depth = item.horizon
                stats.extra["variables"] = item.variables
                stats.extra["constraints"] = item.constraints
                ctx.lower_bound = max(ctx.lower_bound, item.extra.get("no_plan_up_to", lower - 1) + 1)
                ctx.poll()
            else:
                outcome = item
    except Deadline:
        return finish(ctx, engine, model, Status.LIMIT_REACHED, lower_bound=ctx.lower_bound,
                      message=f"time limit reached (every plan needs at least {count(ctx.lower_bound, 'move')})")
    except RuntimeError as exc:  # the solver process failed: say so in one line, no traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unknown failure"
        return finish(ctx, engine, model, Status.UNSUPPORTED, lower_bound=ctx.lower_bound,
                      message=f"the {stats.extra.get('solver', backend)} solver failed: {first}")
    assert outcome is not None
    proved = outcome.no_plan_up_to
    if outcome.moves is not None:
        status = Status.OPTIMAL if outcome.optimal else Status.SOLVED
        return _decoded(ctx, engine, model, status, outcome.moves, len(outcome.moves) if outcome.optimal else proved + 1)
    if proved is not None and proved >= cap:
        if request.max_moves is None:
            return finish(ctx, engine, model, Status.LIMIT_REACHED, lower_bound=proved + 1,
                          message=f"no plan up to horizon {cap} (max_horizon); give --max-moves to make it a cap")
        return finish(ctx, engine, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=proved + 1,
                      message=f"no plan within {count(cap, 'move')} (UNSAT proof)")
    last = outcome.calls[-1].answer if outcome.calls else Answer.UNKNOWN
    why = ("the solver gave up (time limit)" if last is Answer.UNKNOWN else
           "UNSAT under exact-T semantics with shortest-plan cuts proves nothing about shorter plans")
    return finish(ctx, engine, model, Status.LIMIT_REACHED, lower_bound=(proved or lower - 1) + 1, message=why)


def _decoded(ctx: SearchContext, engine: str, model: Any, status: Status, moves: list[str], lower: int) -> Result:
    """A Result from decoded move strings (the runner replays them with the checker)."""
    from puzzleplan.plans.core.types import Plan
    cost_of = getattr(model, "plan_cost_of_moves", None)
    plan = Plan.of(moves, cost_of(moves) if cost_of else None)
    return Result(status, engine, plan, lower, ctx.finish())


def _call_summary(r: HorizonResult) -> dict[str, Any]:
    return {"horizon": r.horizon, "answer": r.answer.value, "variables": r.variables,
            "constraints": r.constraints, "build_seconds": round(r.build_seconds, 4),
            "solve_seconds": round(r.solve_seconds, 4)}


def _supports(model: Any, backend: str) -> str | None:
    if pick_encoding(model, backend, None) is None:
        return f"no {backend} encoding for {model.family} under the {model.metric} metric"
    return None


def supports_sat(model: Any) -> str | None:
    """None when the family declares a SAT encoding for this metric, else why not."""
    return _supports(model, "sat")


def supports_cpsat(model: Any) -> str | None:
    """None when the family declares a CP-SAT encoding for this metric, else why not."""
    return _supports(model, "cpsat")


def run_sat(model: Any, request: Request, ctx: SearchContext) -> Result:
    return _run(model, request, ctx, "sat")


def run_cpsat(model: Any, request: Request, ctx: SearchContext) -> Result:
    return _run(model, request, ctx, "cpsat")
