"""puzzleplan: move puzzles stated declaratively, solved three independent ways.

    >>> import puzzleplan
    >>> model = puzzleplan.load("examples/tiles/malok-safe.yaml")
    >>> result = puzzleplan.solve(model)          # the family's optimal engine, the file's cap
    >>> result
    <Result optimal 24 moves by idastar>
    >>> puzzleplan.check(model, result.plan).valid
    True
    >>> puzzleplan.solve(model, "dfs", max_moves=40, time_limit=10).status
    <Status.SOLVED: 'solved'>

What `import puzzleplan` gives:

    load(path, overrides=None, level=None)     a puzzle file -> a model (ModelError on bad input)
    loads(text)                                 the same from YAML text
    solve(model, engine=None, request=None, **keywords) -> Result
    verify(model, claim=None, encodings=None, solver="cadical195", workers=None, limits=None,
           fresh_bound=False, **limit keywords) -> Verification
                                                the optimum, proved by SAT and CP-SAT certificates
    check(model, plan, notation=None) -> CheckReport   the independent checker
    render(model, plan=None, to="svg", frame=None, seconds=0.6, scale=1.0, notation=None) -> str | bytes
    render_file(model, path, plan=None, to=None, ...) -> Rendering
                                                a picture (svg, png) or a plan's animation
                                                (svg, gif, an html player); plans/render
    show(model, state=None) -> Picture          a state's picture (default: the start) that a
                                                notebook displays; in Jupyter a model shows its
                                                start, a result its plan's player, and
                                                result.animate() gives that player's HTML page
    explore(model, workers=1, limits=None, **limit keywords) -> Exploration
    write_plan(model, plan, fmt="puzzleplan", notation=None) -> str   a plan file's text (plan: text,
                                                moves, a Plan or a Result): puzzleplan, fd (Fast Downward's plan), lurd
                                                (Sokoban), digits (tiles), seed-003 or cells (Rush Hour)
    compare(model, horizon=None, encodings=None, solvers=("cadical195", "glucose4"), repeat=1, goal=None,
            workers=None, limits=None, **limit keywords) -> list[Trial]
                                                every encoding x solver at one horizon (default:
                                                the native optimum), as `puzzleplan compare`
    export(model, to, output, horizon=None, encoding=None, goal=None, limits=None,
           **limit keywords) -> list[Path]      files for outside tools: pddl (a folder), dimacs
                                                (with its variable map) or cpsat at a horizon
    decode(model, map_text, solution_text) -> list[str]   an outside SAT model of a dimacs export
                                                read back as moves
    compile_task(model) -> Task                 the puzzle's planning task (SAS+, as `compile`)
    batch(spec, output=None, workers=None, scheduler=None, cluster=None, resume=False,
          overwrite=False, progress=None) -> BatchReport
                                                a batch spec's runs (instances x metrics x engines x
                                                encodings x repeats) on a local pool or a Dask
                                                cluster into a results table (plans/batch)
    plot(results, kind, out, x=None, y=None, metric=None, solved="answered", title=None)
                                                a results table's cactus or scatter plot, or its summary
    Request, Limits, Status, Result, Plan, Stats, ModelError, __version__

Keywords of `solve`, `verify` and `explore`:
    time_limit, max_states, memory_mb   the limits (a `Limits`); memory_mb=None lifts the memory
                                        limit, which is on by default as on the command line
    max_moves, any_plan                 (solve) the request's cap and "any plan will do"; the
                                        file's cap applies unless max_moves says otherwise
    anything else (solve)               an engine option, e.g. heuristic="pdb", workers=2,
                                        encoding="tiles-moves", solver="glucose4", native=False,
                                        rules={"corrals": False} or rules="corrals=off" (an
                                        engine's switchable rules, plans/core/engine_rules.py)
    progress                            None (default): silent; True: the command line's display
                                        on stderr when it is a terminal; or a Progress
                                        (puzzleplan.plans.core.progress), which the caller closes
Keywords given with a `request` (or `limits`) replace its fields.

An unknown engine, encoding or option is a ValueError (TypeError for an option) naming the
choices. Nothing heavy is imported until it is used: `import puzzleplan` loads neither numpy,
numba nor OR-Tools (module attributes are resolved on first access).
"""
from __future__ import annotations

import importlib
import re
from typing import TYPE_CHECKING, Any, Sequence

from puzzleplan.plans.core.options import COMPARE_SOLVERS, ENGINE_OPTIONS   # public: the engine keywords solve() takes
from puzzleplan.plans.core.progress import asked_display


def _numba_cache_folder() -> None:
    """A read-only installation still compiles its kernels (plans/core/numba_cache.py)."""
    from importlib.util import find_spec
    from pathlib import Path

    from puzzleplan.plans.core.numba_cache import use_writable_cache
    spec = find_spec("puzzleplan.models")
    if spec is not None and spec.submodule_search_locations:
        use_writable_cache(Path(list(spec.submodule_search_locations)[0]))


_numba_cache_folder()

if TYPE_CHECKING:
    from puzzleplan.encoders.certify import Trial
    from puzzleplan.plans.check import CheckReport
    from puzzleplan.plans.core.progress import Progress
    from puzzleplan.plans.core.types import Limits, Request, Result
    from puzzleplan.plans.explore import Exploration
    from puzzleplan.plans.verify import Verification

_FALLBACK_VERSION = "0.2.0"   # when the distribution's metadata cannot be read (pyproject's version)

# name -> "module:attr", imported on first access
_LAZY: dict[str, str] = {
    "load": "puzzleplan.models:load",
    "loads": "puzzleplan.models:loads",
    "ModelError": "puzzleplan.models.base:ModelError",
    "Request": "puzzleplan.plans.core.types:Request",
    "Limits": "puzzleplan.plans.core.types:Limits",
    "Status": "puzzleplan.plans.core.types:Status",
    "Result": "puzzleplan.plans.core.types:Result",
    "Plan": "puzzleplan.plans.core.types:Plan",
    "Stats": "puzzleplan.plans.core.types:Stats",
    "check_plan": "puzzleplan.plans.check:check_plan",
    "CheckReport": "puzzleplan.plans.check:CheckReport",
    "Verification": "puzzleplan.plans.verify:Verification",
    "Exploration": "puzzleplan.plans.explore:Exploration",
    "render": "puzzleplan.plans.render:render",
    "render_file": "puzzleplan.plans.render:render_file",
    "show": "puzzleplan.plans.render.notebook:picture",
    "write_plan": "puzzleplan.plans.planfile:write_plan",
    "decode": "puzzleplan.encoders.export:decode_dimacs",
    "compile_task": "puzzleplan.models.task.compile:task_of",
    "batch": "puzzleplan.plans.batch:batch",
    "plot": "puzzleplan.plans.batch.plot:plot_results",
}

_LIMIT_KEYS = ("time_limit", "max_states", "memory_mb")


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    spec = _LAZY.get(name)
    if spec is None:
        raise AttributeError(f"module 'puzzleplan' has no attribute {name!r}")
    module, _, attr = spec.partition(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value   # resolved once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover - Python < 3.8
        return _FALLBACK_VERSION
    try:
        return version("puzzleplan")
    except PackageNotFoundError:
        return _FALLBACK_VERSION


def _limits(limits: Any, keywords: dict[str, Any]) -> "Limits":
    """`limits` (default Limits()) with the limit keywords popped from `keywords` applied."""
    from dataclasses import replace
    from puzzleplan.plans.core.types import Limits
    changes = {k: keywords.pop(k) for k in _LIMIT_KEYS if k in keywords}
    base = limits if limits is not None else Limits()
    return replace(base, **changes) if changes else base


def solve(model: Any, engine: str | None = None, request: "Request | None" = None,
          progress: "Progress | bool | None" = None, **keywords: Any) -> "Result":
    """Solve `model` with `engine` (default: the family's optimal one; greedy for any_plan
    without a cap). The plan in the result has been replayed by the independent checker.

    Keywords: max_moves, any_plan, time_limit, max_states, memory_mb, and engine options (see
    the module docstring); they replace the fields of `request` when both are given.
    progress: None (silent), True (a display on stderr when it is a terminal) or a Progress.
    """
    from dataclasses import replace
    from puzzleplan.plans.core.context import SearchContext
    from puzzleplan.plans.core.types import Request
    from puzzleplan.plans.solve import check_engine_name, solve as run
    if engine is not None:
        check_engine_name(engine)
    request = request if request is not None else Request()
    fields: dict[str, Any] = {k: keywords.pop(k) for k in ("max_moves", "any_plan") if k in keywords}
    if any(k in keywords for k in _LIMIT_KEYS):
        fields["limits"] = _limits(request.limits, keywords)
    unknown = sorted(set(keywords) - ENGINE_OPTIONS)
    if unknown:
        raise TypeError(f"solve() got an unexpected keyword {unknown[0]!r}; expected max_moves, any_plan, "
                        f"{', '.join(_LIMIT_KEYS)} or an engine option ({', '.join(sorted(ENGINE_OPTIONS))})")
    if keywords:
        fields["options"] = {**request.options, **keywords}
    if fields:
        request = replace(request, **fields)
    if request.options.get("partition") is not None:   # '1 2 3 / 4 5 6' as on the command line, or lists
        from puzzleplan.plans.core.options import partition_groups
        request = replace(request, options={**request.options,
                                            "partition": partition_groups(request.options["partition"])})
    if request.options.get("encoding") is not None:
        _check_encoding(model, request.options["encoding"])
    if request.options:   # their values, and options the engine does not read, refused before any search
        from puzzleplan.plans.core.options import check_heuristic, check_options
        from puzzleplan.plans.solve import default_engine
        chosen = engine or default_engine(model, request)
        check_options(chosen, request.options)
        if request.options.get("heuristic") is not None:
            check_heuristic(model, chosen, request.options["heuristic"])
    with asked_display(progress) as display:
        return run(model, engine, request, SearchContext(request.limits, display))


def _check_encoding(model: Any, name: str) -> None:
    from puzzleplan.encoders.base import encodings_for
    known = encodings_for(model)
    if name not in known:
        raise ValueError(f"no encoding {name!r} for {model.family} under the {model.metric} metric; "
                         f"expected one of {', '.join(known) or '(none)'}")


def verify(model: Any, claim: int | None = None, encodings: list[str] | None = None, solver: str = "cadical195",
           workers: int | None = None, limits: "Limits | None" = None, progress: "Progress | bool | None" = None,
           fresh_bound: bool = False, **keywords: Any) -> "Verification":
    """Prove (or refute) the minimal move count: the native optimum, then per encoding a checked
    plan of that length and an UNSAT proof below it. One time limit covers it all.
    Returns a Verification (status verified | refuted | disagreement | limit_reached, ...).
    progress: None (silent), True (a display on stderr when it is a terminal) or a Progress.
    fresh_bound: ask each proof on a fresh solver, not on the one that found the plan."""
    from puzzleplan.plans.verify import verify as run
    limits = _limits(limits, keywords)
    if keywords:
        raise TypeError(f"verify() got an unexpected keyword {sorted(keywords)[0]!r}")
    with asked_display(progress) as display:
        return run(model, claim, encodings, solver, workers, limits, display, fresh_bound)


def check(model: Any, plan: Any, notation: str | None = None) -> "CheckReport":
    """Replay `plan` with the independent checker: text as a user writes it, a list of moves,
    or a Plan (or a Result holding one, read in the notation the engines print)."""
    from dataclasses import replace
    from puzzleplan.plans.check import PlanNotationError, check_notation, check_plan
    from puzzleplan.plans.core.types import Plan, Result, plan_moves
    check_notation(model, notation)
    if isinstance(plan, (Plan, Result)):
        return check_plan(model, plan_moves(plan), notation or "printed")
    if not isinstance(plan, (str, list, tuple)):
        raise TypeError(f"plan: expected text, a list of moves, a Plan or a Result, got {type(plan).__name__}")
    if not isinstance(plan, str):
        odd = [m for m in plan if not isinstance(m, (str, int)) or isinstance(m, bool)]
        if odd:
            raise TypeError(f"plan: expected moves as text (or whole numbers, as tiles' digits), got {odd[0]!r}")
        plan = [str(m) for m in plan]
    try:
        report = check_plan(model, plan, notation)
    except PlanNotationError as exc:   # said with this function's parameter, not the command's flag
        raise PlanNotationError(_as_parameter(str(exc))) from None
    return report if report.error is None else replace(report, error=_as_parameter(report.error))


def _as_parameter(text: str) -> str:
    """A checker's message naming `--notation X|Y` as check()'s parameter `notation='X'`."""
    return re.sub(r"--notation ([\w|]+)", lambda m: " or ".join(f"notation={w!r}" for w in m.group(1).split("|")),
                  text)


def compare(model: Any, horizon: int | None = None, encodings: list[str] | None = None,
            solvers: Sequence[str] | None = None, repeat: int = 1, goal: str | None = None,
            workers: int | None = None, limits: "Limits | None" = None, **keywords: Any) -> list["Trial"]:
    """Every encoding (default: all of the model's) x SAT solver (default: cadical195 and
    glucose4, as the command line) at one horizon (default: the native optimum), `repeat` times, as `puzzleplan compare`: one row (a Trial) each, its plan
    checked. goal: the horizon semantics, "by" or "exact" (default: the proof's); one time limit
    covers the whole call. ValueError for an unknown encoding or solver, or no optimum to use."""
    import time
    from puzzleplan.encoders.certify import compare as rows, proof_options, with_goal
    from puzzleplan.plans.core.context import SearchContext
    from puzzleplan.plans.core.types import Result
    from puzzleplan.plans.verify import check_solver, choose_encodings, compare_horizon
    limits = _limits(limits, keywords)
    if keywords:
        raise TypeError(f"compare() got an unexpected keyword {sorted(keywords)[0]!r}")
    started = time.monotonic()
    from puzzleplan.encoders.base import fitting_goal
    try:   # of the defaults, those that encode the goal; one named that does not is an error
        chosen, _ = fitting_goal(choose_encodings(model, encodings, one_per_backend=False), goal, bool(encodings))
    except ValueError as exc:
        raise ValueError(f"goal: {exc}") from None
    solvers = COMPARE_SOLVERS if solvers is None else solvers
    for solver in solvers:
        check_solver(solver)
    asked = compare_horizon(model, horizon, limits, since=started)
    if isinstance(asked, Result):
        raise ValueError(f"no proved optimum to use as the horizon ({asked.status.value}"
                         f"{': ' + asked.message if asked.message else ''}); give horizon=")
    remaining = SearchContext(limits, since=started).remaining
    options = with_goal(proof_options(model)[0], goal)
    return [t for name in chosen for t in rows(model, asked.of(name), [name], list(solvers), repeat, options, workers,
                                                remaining=remaining, memory_mb=limits.memory_mb)]


def export(model: Any, to: str, output: Any, horizon: int | None = None,
           encoding: str | None = None, goal: str | None = None, limits: "Limits | None" = None,
           **keywords: Any) -> list[Any]:
    """Write the puzzle for outside tools, as `puzzleplan export`: "pddl" (domain.pddl and
    problem.pddl in the folder `output`), or a formula at `horizon`: "dimacs" (`output` and its
    variable map) or "cpsat" (the model proto). Returns the paths written, each whole or not at
    all. ValueError for what does not fit; LimitReached (or Deadline) when a limit comes first."""
    from puzzleplan.encoders.export import export as write
    from puzzleplan.plans.core.context import SearchContext
    limits = _limits(limits, keywords)
    if keywords:
        raise TypeError(f"export() got an unexpected keyword {sorted(keywords)[0]!r}")
    ctx = SearchContext(limits)
    return write(model, to, output, horizon, encoding, goal, ctx.remaining(), limits.memory_mb, ctx.poll)


def explore(model: Any, workers: int = 1, limits: "Limits | None" = None,
            progress: "Progress | bool | None" = None, **keywords: Any) -> "Exploration":
    """Every state reachable from the start, breadth-first: counts per depth, the nearest goal.
    A limit ends it with partial counts (complete=False). workers > 1: threads over packed
    states where the family has them, else processes. progress: None (silent), True (a
    display on stderr when it is a terminal) or a Progress."""
    from puzzleplan.plans.core.context import SearchContext
    from puzzleplan.plans.explore import counted_space, explore as run
    limits = _limits(limits, keywords)
    if keywords:
        raise TypeError(f"explore() got an unexpected keyword {sorted(keywords)[0]!r}")
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers: expected a whole number >= 1, got {workers!r}")
    with asked_display(progress) as display:
        ctx = SearchContext(limits, display)
        if workers > 1:
            from puzzleplan.plans.search.layered import packed_space
            if packed_space(counted_space(model)) is None:
                from puzzleplan.plans.parallel.pbfs import explore_parallel
                return explore_parallel(model, workers, ctx)
        return run(model, ctx, workers=workers)


__all__ = ["CheckReport", "Exploration", "Limits", "ModelError", "Plan", "Request", "Result", "Stats", "Status",
           "Verification", "__version__", "batch", "check", "check_plan", "compare", "compile_task", "decode",
           "explore", "export", "load", "loads", "plot", "render", "render_file", "show", "solve", "verify",
           "write_plan"]
