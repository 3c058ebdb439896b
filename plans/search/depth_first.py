"""The generic depth-first searcher behind IDA* and capped DFS, for any model.

A model may offer a compiled searcher with the same `bounded` method (`model.native_searcher()`);
this one works on the plain protocol. Paths never revisit a state already on the path.
"""
from __future__ import annotations

from typing import Any

from ..context import SearchContext
from .common import POLL_EVERY


class GenericDepthFirst:
    """Bounded depth-first search over `model.successors`, pruning on g + h > bound."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.h0 = model.h(model.initial())

    def _children(self, state: Any, ordered: bool, ctx: SearchContext) -> list[tuple[int, Any, Any]]:
        kids = [(self.model.h(child), action, child) for action, child in self.model.successors(state)]
        ctx.stats.generated += len(kids)
        if ordered:
            kids.sort(key=lambda k: k[0])
        kids.reverse()  # popped from the end
        return kids

    def bounded(self, bound: int, ctx: SearchContext, ordered: bool = False) -> tuple[list[Any] | None, int | None]:
        """Every path with g + h <= bound. Returns (actions, None) or (None, next bound or None)."""
        model = self.model
        start = model.initial()
        if self.h0 > bound:
            return None, self.h0
        if model.is_goal(start):
            return [], None
        stats = ctx.stats
        next_bound: int | None = None
        on_path = {start}
        path_states = [start]
        actions: list[Any] = []
        stack = [self._children(start, ordered, ctx)]
        stats.nodes += 1
        while stack:
            kids = stack[-1]
            if not kids:
                stack.pop()
                on_path.discard(path_states.pop())
                if actions:
                    actions.pop()
                continue
            h, action, child = kids.pop()
            f = len(stack) + h
            if f > bound:
                if next_bound is None or f < next_bound:
                    next_bound = f
                continue
            if child in on_path:
                continue
            if model.is_goal(child):
                return actions + [action], None
            stats.nodes += 1
            if stats.nodes % POLL_EVERY == 0:
                ctx.poll()
            actions.append(action)
            on_path.add(child)
            path_states.append(child)
            stack.append(self._children(child, ordered, ctx))
        return None, next_bound


def searcher_for(model: Any, ctx: SearchContext, options: dict[str, Any]) -> Any:
    """The model's compiled searcher when it has one (unless options["native"] is False), else
    the generic one. Building its tables (pattern databases) polls the context's limits."""
    if options.get("native", True) and hasattr(model, "native_searcher"):
        started = ctx.elapsed()
        extra = {"partition": options["partition"]} if options.get("partition") else {}
        def building(done: int, total: int) -> None:
            ctx.phase = f"building pattern databases {100 * done // max(total, 1)}%"
            ctx.poll()
        fast = (model.native_searcher(options.get("heuristic"), progress=building, **extra)
                if _takes_options(model.native_searcher) else model.native_searcher())
        if fast is not None:
            ctx.stats.extra["setup_seconds"] = round(ctx.elapsed() - started, 6)  # tables, compiled kernels
            for key in ("heuristic_name", "pdb_seconds"):
                if hasattr(fast, key):
                    ctx.stats.extra[key.replace("_name", "")] = getattr(fast, key)
            return fast
    return GenericDepthFirst(model)


def _takes_options(method: Any) -> bool:
    """Built-in families take (heuristic, progress); a user's class may define none."""
    import inspect
    try:
        return "progress" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
