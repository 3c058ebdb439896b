"""Breadth-first exploration of the whole reachable space from the start.

The per-state sweep is the shared loop of `plans.search.breadth_first`; packed states go
through the array layers of `plans.search.layered`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.contracts import Action, Model, PackedSpace, State
from puzzleplan.plans.core.types import Stats
from puzzleplan.plans.search.breadth_first import sweep
from puzzleplan.plans.search.layered import Layer, next_layer, packed_space, worker_pool


@dataclass
class Exploration:
    """Counts from a full (or, when a limit hit first, partial) breadth-first sweep."""

    reachable: int = 0
    per_depth: list[int] = field(default_factory=list)
    goal_distance: int | None = None   # depth of the nearest goal state, None if none reached
    goals: int = 0                     # goal states among the reachable ones
    complete: bool = True
    message: str = ""
    stats: Stats = field(default_factory=Stats)

    @property
    def max_depth(self) -> int:
        return len(self.per_depth) - 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": "complete" if self.complete else "limit_reached",
            "reachable": self.reachable,
            "per_depth": self.per_depth,
            "goal_distance": self.goal_distance,
            "goals": self.goals,
            "max_depth": self.max_depth,
            "message": self.message,
            "stats": self.stats.as_dict(),
        }


def counted_space(model: Model) -> Model:
    """The puzzle whose states `explore` counts: every legal move, moves into the dead positions
    a family's search prunes included (`whole_space`); the one rule of every way of exploring."""
    whole = getattr(model, "whole_space", None)
    return whole() if whole is not None else model


def explore(model: Model, ctx: SearchContext | None = None, native: bool = True, workers: int = 1) -> Exploration:
    """Every state reachable from the start, layer by layer (limits end it cleanly, partial),
    dead positions a family's search prunes included (`whole_space`).

    Models with a packed space (`plans.search.layered`) are swept over arrays, keeping only the
    layers the duplicate check needs, on `workers` threads; others through `successors` and a set.
    When a limit stops a sweep mid-layer, `reachable` and `per_depth` count the whole layers,
    and `stats.states` also the part of the next layer stored so far (for a packed sweep an upper
    bound: pieces of a layer are merged only at its end).
    """
    ctx = ctx or SearchContext()
    model = counted_space(model)
    space = packed_space(model) if native else None
    if space is not None:
        return _explore_packed(model, space, ctx, workers)
    out = Exploration()
    start = model.initial()
    seen = {start}
    add = seen.add
    is_goal = model.is_goal
    ctx.phase = "explore"

    def on_layer(layer: list[State], depth: int) -> bool:
        out.per_depth.append(len(layer))
        return False

    def on_state(state: State, depth: int) -> None:
        if is_goal(state):
            out.goals += 1
            if out.goal_distance is None:
                out.goal_distance = depth

    def visit(state: State, action: Action, child: State, depth: int) -> bool:
        if child in seen:
            return False
        add(child)
        return True

    try:
        sweep(model, ctx, [start], visit, table=seen, on_state=on_state, on_layer=on_layer)
    except (LimitReached, KeyboardInterrupt, MemoryError) as exc:
        out.complete = False
        out.message = str(exc) or ("out of memory" if isinstance(exc, MemoryError) else "interrupted (Ctrl-C)")
    out.reachable = len(seen) if out.complete else sum(out.per_depth)   # whole layers, as the packed sweep
    ctx.stats.states = len(seen)
    ctx.stats.depth = out.max_depth   # the deepest layer reached (the sweep counts the one it generates)
    out.stats = ctx.finish()
    return out


def _explore_packed(model: Model, space: PackedSpace, ctx: SearchContext, workers: int) -> Exploration:
    out = Exploration()
    stats = ctx.stats
    stats.extra["kernel"] = "packed layers"
    if workers > 1:
        stats.extra["workers"] = workers
    ctx.phase = "explore (packed)"
    layers = [Layer(np.array([space.pack(model.initial())], dtype=np.uint64))]
    try:
        with worker_pool(workers) as pool:
            while layers[-1].keys.size:
                depth = len(out.per_depth)
                keys = layers[-1].keys
                out.per_depth.append(int(keys.size))
                out.reachable += int(keys.size)
                stats.states = out.reachable
                stats.depth = depth
                goals = int(np.count_nonzero(space.goal_mask(keys)))
                if goals:
                    out.goals += goals
                    if out.goal_distance is None:
                        out.goal_distance = depth
                ctx.poll()
                layers.append(next_layer(space, layers, ctx, False, pool, workers))
                if space.reversible:
                    layers = layers[-2:]
    except (LimitReached, KeyboardInterrupt, MemoryError) as exc:
        out.complete = False
        out.message = str(exc) or ("out of memory" if isinstance(exc, MemoryError) else "interrupted (Ctrl-C)")
    out.stats = ctx.finish()
    return out
