"""The one breadth-first loop over `model.successors`: layer after layer from the start.

`bfs` (parents, goal test on generation), `explore` (a visited set, counts) and the counting
pass of `all_optimal` (shortest-path counts per state) are this loop with different hooks:

    visit(state, action, child, depth) -> bool   each generated child; True: it joins the next
                                                 layer (it was first reached now, at `depth`)
    on_state(state, depth)                       each state of a layer, before it is expanded
    on_layer(layer, depth) -> bool               each layer (the start's is depth 0) before it
                                                 is expanded; True ends the sweep
    table                                        what the search stores: `stats.states` is set
                                                 to its size whenever the limits are polled

A hook ends the sweep at once by raising `Stop(value)`. The loop keeps the statistics the
engines report (nodes expanded, children generated, the depth being generated) and polls the
context's limits every POLL_EVERY nodes, so `LimitReached` surfaces from inside it.

Packed states (uint64 keys, numpy layers) have their own fast path, `plans.search.layered`;
the process-parallel sweep is `plans.parallel`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sized

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Action, Model, State
from puzzleplan.plans.search.common import POLL_EVERY

EXHAUSTED = "exhausted"   # a layer came out empty: every reachable state was generated
CAPPED = "capped"         # the next layer would lie beyond the cap
STOPPED = "stopped"       # a hook ended the sweep (on_layer returned True, or Stop was raised)


class Stop(Exception):
    """Raised by a hook to end the sweep; `value` comes back in `Sweep.value`."""

    def __init__(self, value: Any = None) -> None:
        super().__init__()
        self.value = value


@dataclass
class Sweep:
    """How a sweep ended: EXHAUSTED, CAPPED or STOPPED, at which depth, with a hook's value."""

    ended: str
    depth: int          # the depth of the layer being (or about to be) expanded
    value: Any = None


def sweep(model: Model, ctx: SearchContext, start: Iterable[State],
          visit: Callable[[State, Action, State, int], bool], *, cap: int | None = None,
          table: Sized | None = None, on_state: Callable[[State, int], None] | None = None,
          on_layer: Callable[[list[State], int], bool] | None = None) -> Sweep:
    """Expand layer by layer from the states `start` (depth 0). See the module docstring."""
    stats = ctx.stats
    successors = model.successors
    layer = list(start)
    depth = 0
    nodes, generated = stats.nodes, stats.generated   # counted here, written back to stats before
    next_poll = nodes + generated + POLL_EVERY
    try:                                              # every poll and when the sweep ends
        while layer:
            if on_layer is not None and on_layer(layer, depth):
                return Sweep(STOPPED, depth)
            if cap is not None and depth >= cap:
                return Sweep(CAPPED, depth)
            nxt: list[State] = []
            keep = nxt.append
            depth += 1
            stats.depth = depth
            for state in layer:
                if on_state is not None:
                    on_state(state, depth - 1)
                nodes += 1
                if nodes + generated >= next_poll:   # by work done: one state may have thousands of children
                    next_poll = nodes + generated + POLL_EVERY
                    stats.nodes, stats.generated = nodes, generated
                    if table is not None:
                        stats.states = len(table)
                    ctx.poll()
                for action, child in successors(state):
                    generated += 1
                    if visit(state, action, child, depth):
                        keep(child)
            layer = nxt
    except Stop as stop:
        return Sweep(STOPPED, depth, stop.value)
    finally:
        stats.nodes, stats.generated = nodes, generated
    return Sweep(EXHAUSTED, depth)
