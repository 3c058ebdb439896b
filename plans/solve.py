"""Run one engine on one model: decide trivial cases first, honour limits, check every plan."""
from __future__ import annotations

from dataclasses import replace

from puzzleplan.models.task.checkpoints import checkpoints
from puzzleplan.plans.check import CheckReport, check_plan, reads_runs
from puzzleplan.plans.core import engine_rules, engines
from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.contracts import Model
from puzzleplan.plans.core.types import Request, Result, Stats, Status


class EngineBug(RuntimeError):
    """An engine returned a plan the independent checker rejects (never shown as a solution)."""


def default_engine(model: Model, request: Request) -> str:
    """The family's preferred engine: its optimal one, or a fast one for --any.

    --any without a cap: greedy best-first on h (which counts moves: a puzzle whose actions cost
    other than 1 gets its own cost-aware engine). --any with a cap: the family's optimal engine.
    It is complete (an optimal plan is within the cap whenever any plan is), its exhausted search
    proves "no plan within the cap", and --any is then never slower than asking for the optimum.
    Each any-plan engine loses somewhere on the catalogue: on Rush Hour seed 000 at cap 93 the
    table DFS takes 0.4 s and greedy 1.2 s, the packed layered BFS 0.03 s; a bounded pass of the
    tiles DFS kernel can expand 50x IDA*'s nodes at a loose cap (Korf 12, cap 100); on Sokoban
    greedy expands up to 1.8x A*'s states below the optimum (though up to 8x fewer above it).
    They stay available by name (`dfs`: a table DFS under a cap; `greedy`: best-first reopening
    states reached shallower) for instances too hard to solve optimally.

    Options only IDA* reads (a heuristic, a pattern partition) ask for IDA* where the family's
    engine reads none (a small tiles board, whose default is the breadth-first sweep).
    """
    if request.any_plan and request.max_moves is None and getattr(model, "unit_cost", True) is not False:
        return "greedy"
    engine = getattr(model, "default_engine", "bfs")
    if not engines.reads_heuristic(engine) and ("heuristic" in request.options or "partition" in request.options):
        return "idastar"
    return engine


def check_engine_name(name: str) -> str:
    """`name` when it names an engine, else ValueError naming the choices (built-in engines are
    found without reading other packages' entry points)."""
    engines.spec(name)
    return name


def solve(model: Model, engine_name: str | None = None, request: Request | None = None,
          ctx: SearchContext | None = None) -> Result:
    """Solve `model` with `engine_name` (default: the family's). The plan is checked before return.

    As on the command line, the file's cap (`model.max_moves`) applies unless the request names
    another, and the default limits apply (`Limits()`: the memory limit is on by default).
    An engine that declares it cannot run this model (`supports`) gives an `unsupported`
    result carrying its reason; an unknown engine name is a ValueError naming the choices, and
    so is a rule the engine does not declare (options["rules"], plans/core/engine_rules.py).
    """
    request = request if request is not None else Request()
    if request.max_moves is None and getattr(model, "max_moves", None) is not None:
        request = replace(request, max_moves=model.max_moves)
    name = check_engine_name(engine_name or default_engine(model, request))
    if "rules" in request.options:
        request = replace(request, options=engine_rules.applied(name, request.options))
    ctx = ctx or SearchContext(request.limits)
    with checkpoints(ctx.poll):   # compiling the task (in supports or the run) stops at the limits
        try:
            reason = engines.supports(name, model)
        except LimitReached as exc:
            return replace(_gave_up(name, ctx, f"{exc} while compiling the planning task"), model=model)
        if reason is not None:
            return Result(Status.UNSUPPORTED, name, stats=ctx.finish(), message=reason, model=model)
        run = engines.engine(name)  # imported before the clock starts: stats.seconds is the search's own time
        reason = model.unsolvable_reason()
        if reason is not None:
            return Result(Status.UNSOLVABLE, name, stats=ctx.finish(), message=reason, model=model)
        ctx.restart_clock()
        try:
            result = run(model, request, ctx)
        except LimitReached as exc:
            result = _gave_up(name, ctx, str(exc))
        except KeyboardInterrupt:
            result = _gave_up(name, ctx, "interrupted (Ctrl-C)")
        except MemoryError:
            result = _gave_up(name, ctx, "out of memory")
    if result.status is Status.LIMIT_REACHED and result.lower_bound is None and hasattr(model, "cheap_h"):
        # stopped before its first bound (building tables): the model's cheap admissible one
        result = replace(result, lower_bound=int(model.cheap_h(model.initial())))
    if result.plan is not None:
        report = verify_plan(model, result)
        if not report.valid:
            raise EngineBug(f"engine {name} returned a plan the checker rejects: {report.error}")
        if not reads_runs(model):   # its text must read back as these moves
            result = replace(result, plan=replace(result.plan, spaced=True))
    return replace(result, model=model)   # for pictures in a notebook (Result._repr_html_)


def verify_plan(model: Model, result: Result) -> CheckReport:
    """Replay the result's plan with the independent checker."""
    assert result.plan is not None
    return check_plan(model, list(result.plan.moves), "printed")


def _gave_up(name: str, ctx: SearchContext, why: str) -> Result:
    stats: Stats = ctx.finish()
    return Result(Status.LIMIT_REACHED, name, None, ctx.lower_bound, stats, why)


__all__ = ["EngineBug", "check_engine_name", "default_engine", "solve", "verify_plan"]
