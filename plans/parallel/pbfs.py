"""Parallel breadth-first search: level-synchronous, over worker processes, partitioned by state hash.

Each of W workers owns the states whose stable hash maps to its id and keeps its own visited set
(or, when a plan is wanted, its own parent pointers). For every layer the parent process tells
all workers to expand; each worker expands the states of the layer it owns, sends the children
owned by others straight to their owners' inboxes, takes in what the others sent it, drops what
it has seen and reports how many new states it kept (and any goal among them). The parent sums
the counts, checks the limits and starts the next layer. A plan is read back from the goal by
asking, state by state, the owner of each parent pointer.

The parts: `partition` (who owns a state, layers packed for the trip), `worker` (a worker's
share of a layer and its command loop), `group` (the parent side: processes, queues, limits),
and this module: the layer loop both entry points share, the exploration and the engine.

The exchange costs CPU: with 2 workers each spends about two thirds of the single worker's time
on the 3x4 benchmark (benchmarks/pbfs.py), since the model's own Python `successors` stays the
largest share and the rest (partition, send, dedupe) grows. Worth it on idle cores only.

Families with packed states (Rush Hour, tiles up to 15 cells) do not need processes: `run` (and
`puzzleplan explore --workers N`) hands them to the array search of plans.search.layered on N
threads, 6x faster than this on the 3x4 benchmark. `explore_parallel` itself always uses processes.

Public entry points:
    explore_parallel(model, workers, ctx) -> Exploration     like plans.explore.explore
    run(model, request, ctx) -> Result                        the `pbfs` engine (optimal plans)
    supports(model) -> None | reason                          what the engine runs
    WorkerGroup(workers)                                      the pool itself, reusable by jobs
"""
from __future__ import annotations

from dataclasses import dataclass

from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.contracts import Model, State
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import all_explored, count
from puzzleplan.plans.explore import Exploration, counted_space
from puzzleplan.plans.parallel.group import (WAIT_SECONDS, WorkerDied, WorkerError, WorkerGroup, default_workers,
                                             start_method)
from puzzleplan.plans.parallel.partition import owner_function, stable_hash
from puzzleplan.plans.parallel.worker import LayerReport
from puzzleplan.plans.search.common import finish, unit_cost_reason

ENGINE = "pbfs"

__all__ = ["ENGINE", "LayerReport", "WAIT_SECONDS", "WorkerDied", "WorkerError", "WorkerGroup", "default_workers",
           "explore_parallel", "owner_function", "run", "stable_hash", "start_method", "supports"]


def supports(model: Model) -> str | None:
    """Every unit-cost model: its states travel to the workers pickled (the built-in families' and user
    families' do), and packed states take the threaded array search instead."""
    return unit_cost_reason(model)


@dataclass
class Layer:
    """What the workers reported for one new layer, summed."""

    depth: int          # of the new layer
    new: int            # states first reached in it
    goals: int          # goal states among them
    goal: State | None  # one of them, else None


def _next_layer(group: WorkerGroup, ctx: SearchContext, depth: int) -> Layer:
    """Have the workers expand layer `depth`; count its nodes and children in ctx.stats."""
    ctx.poll()
    reports = group.expand(depth, ctx)
    stats = ctx.stats
    stats.nodes += sum(r.nodes for r in reports)
    stats.generated += sum(r.generated for r in reports)
    goals = sum(r.goals for r in reports)
    return Layer(depth + 1, sum(r.new for r in reports), goals,
                 next((r.goal for r in reports if r.goals), None))


def _interrupted(exc: BaseException) -> str:
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (Ctrl-C)"
    if isinstance(exc, MemoryError):
        return str(exc) or "out of memory"
    return str(exc)


def explore_parallel(model: Model, workers: int | None = None, ctx: SearchContext | None = None,
                     group: WorkerGroup | None = None) -> Exploration:
    """Every state reachable from the start, counted by `workers` processes (see plans.explore).

    Limits are checked between layers (time, states) and every 0.1 s while a layer runs (time,
    memory of parent + workers). A limit, Ctrl-C or a dead worker ends it with partial counts
    (complete=False). `group`: an existing WorkerGroup to use (left running), else a new one.
    """
    ctx = ctx or SearchContext()
    model = counted_space(model)
    own = group is None
    out = Exploration()
    stats = ctx.stats
    start = model.initial()
    out.per_depth.append(1)  # the start, known before any worker is up
    stats.states = 1
    if model.is_goal(start):
        out.goals, out.goal_distance = 1, 0
    try:
        if group is None:
            group = WorkerGroup(workers or default_workers())
        stats.extra["workers"] = group.size
        ctx.phase = f"pbfs explore x{group.size}"
        group.load(model, track=False, ctx=ctx)
        group.seed(start, ctx)
        depth = 0
        while True:
            layer = _next_layer(group, ctx, depth)
            if layer.new == 0:
                break
            depth = layer.depth
            out.per_depth.append(layer.new)
            if layer.goals and out.goal_distance is None:
                out.goal_distance = depth
            out.goals += layer.goals
            stats.states = sum(out.per_depth)
            stats.depth = depth
        if not own:
            group.drop(ctx)
    except (LimitReached, KeyboardInterrupt, MemoryError, WorkerDied) as exc:
        out.complete = False
        out.message = _interrupted(exc)
    finally:
        if own and group is not None:
            group.close()
    out.reachable = sum(out.per_depth)
    stats.states = out.reachable
    out.stats = ctx.finish()
    return out


def run(model: Model, request: Request, ctx: SearchContext) -> Result:
    """`solve --engine pbfs --workers N`: optimal (first goal layer), plan traced across owners."""
    workers = request.options.get("workers") or default_workers()
    if request.options.get("native", True):
        from puzzleplan.plans.search.layered import packed_space
        space = packed_space(model)
        if space is not None:   # packed states: threads over array layers beat processes (plans.search.layered)
            from puzzleplan.plans.search.bfs import run_packed
            ctx.stats.extra["workers"] = workers
            return run_packed(model, space, request, ctx, ENGINE, workers)
    start = model.initial()
    cap = request.max_moves
    stats = ctx.stats
    stats.extra["workers"] = workers
    ctx.phase = f"pbfs x{workers}"
    if model.is_goal(start):
        return finish(ctx, ENGINE, model, Status.OPTIMAL, [], 0)
    try:
        with WorkerGroup(workers) as group:
            group.load(model, track=True, ctx=ctx)
            group.seed(start, ctx)
            depth = 0
            stats.states = 1
            while True:
                if cap is not None and depth >= cap:
                    return finish(ctx, ENGINE, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=depth + 1,
                                  message=f"no plan within {count(cap, 'move')}")
                layer = _next_layer(group, ctx, depth)
                depth = layer.depth
                stats.depth = depth
                stats.states += layer.new
                if layer.goal is not None:
                    return finish(ctx, ENGINE, model, Status.OPTIMAL, group.trace_back(layer.goal, ctx), depth)
                if layer.new == 0:
                    return finish(ctx, ENGINE, model, Status.UNSOLVABLE,
                                  message=all_explored(stats.states))
                ctx.lower_bound = depth + 1
    except WorkerDied as exc:
        return Result(Status.LIMIT_REACHED, ENGINE, None, ctx.lower_bound, ctx.finish(), str(exc))
