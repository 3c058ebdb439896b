"""A lower bound on the moves left in a sliding-block state: admissible and consistent.

Two disjoint parts, summed (every move moves exactly one piece, so moves of different pieces
are different moves):

* goal pieces: each piece of a goal class counts the moves of the metric it needs, on the board
  with only walls, to reach the nearest target of its class (`relaxed distance`, a breadth-first
  table over the slot's anchors; under `piece` it is 0 or 1). With other pieces in the way it
  needs at least as many, and it ends on one of those targets. (An exact assignment of
  look-alikes to targets would be stronger by little and cost a matching per state.) The
  leaving piece of an exit goal counts its relaxed distance to the nearest anchor wholly outside.
* blockers: a piece of a class the first part does not count that covers a cell some goal
  piece must cover on its way must move at least once. For a distinct goal piece or the leaving
  piece those are its `corridor` cells: a way to the target (or out) is a chain of unit steps
  under all three metrics, so it stands at every unit-step distance below its own, and at each
  covers the cells shared by all anchors at that distance (the target's own cells at distance
  0). For look-alikes, the cells of every unoccupied target.

Consistency (so A* never reopens a state): a move changes one piece's relaxed distance by at
most 1 (one move of the metric is one relaxed move). It changes the blockers only by the moved
piece itself: a goal piece moving nearer passes every level in between, so no other piece
covered those corridor cells (the same read backwards for a move away), and one moving onto or
off a target of look-alikes needs or leaves its cells free. A target in another walls-only
component than the piece is left out of its nearest target, and a piece with none counts 0:
components never change, so such a state is never on a path to the goal and any value is
admissible there; 0 keeps the bound finite.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Sequence

from puzzleplan.models.blocks.board import Board

if TYPE_CHECKING:
    from puzzleplan.models.blocks.model import Blocks, State

_memo: "weakref.WeakKeyDictionary[Blocks, Bound]" = weakref.WeakKeyDictionary()


def bound_of(model: "Blocks") -> "Bound":
    """The model's bound, built once per model (models are immutable; the cache is weak)."""
    found = _memo.get(model)
    if found is None:
        found = _memo[model] = Bound(model)
    return found


def relaxed_distances(board: Board, slot: int, sources: Sequence[int], metric: str) -> dict[int, int]:
    """Moves of `metric` from each anchor of `slot` to the nearest of `sources` with no other
    piece on the board (moves are reversible, so a search from the sources gives them)."""
    dist = {a: 0 for a in sources}
    frontier = list(sources)
    while frontier:
        nxt = []
        for a in frontier:
            for b, _ in board.destinations(slot, a, 0, metric):
                if b not in dist:
                    dist[b] = dist[a] + 1
                    nxt.append(b)
        frontier = nxt
    return dist


def corridor_cells(board: Board, slot: int, sources: Sequence[int]) -> dict[int, int]:
    """anchor -> the cells the piece of `slot` must cover at some time on any way from that
    anchor to one of `sources`: a way is a chain of unit steps, so it stands at every unit-step
    distance d below the anchor's, on some anchor of that level, and so covers the cells all the
    anchors of level d share."""
    dist = relaxed_distances(board, slot, sources, "step")
    masks = board.masks(slot)
    shared: dict[int, int] = {}
    for a, d in dist.items():
        shared[d] = shared.get(d, masks[a]) & masks[a]
    below = [0]
    for d in range(max(dist.values(), default=0)):
        below.append(below[-1] | shared[d])
    return {a: below[d] for a, d in dist.items()}


def _table(board: Board, values: dict[int, int]) -> list[int]:
    """A dict over anchors as a list indexed by cell (0 elsewhere): faster to read."""
    out = [0] * (board.rows * board.cols)
    for a, v in values.items():
        out[a] = v
    return out


class Bound:
    """The tables of one model's bound (see module docstring); `value(state)` evaluates it."""

    def __init__(self, model: "Blocks") -> None:
        board, metric = model.board, model.metric
        cells = [_table(board, board.masks(s)) for s in range(len(board.slot_class))]
        counted: set[int] = set()
        # distinct goal pieces: (slot, target, relaxed distances to it, corridor cells)
        self.singles: list[tuple[int, int, list[int], list[int]]] = []
        # goal classes of look-alikes: (lo, hi, relaxed distances to the nearest target, [(target, its cells)])
        self.groups: list[tuple[int, int, list[int], list[tuple[int, int]]]] = []
        for k, target in model.goal:
            lo, hi = board.class_span[k]
            counted.add(k)
            near = _table(board, relaxed_distances(board, lo, target, metric))
            if hi - lo == 1 and len(target) == 1:
                self.singles.append((lo, target[0], near, _table(board, corridor_cells(board, lo, target))))
            else:
                self.groups.append((lo, hi, near, [(t, cells[lo][t]) for t in target]))
        # the leaving piece's class: (lo, hi, anchors outside, relaxed distances out, corridor
        # cells); its distance counts only when no goal class counts its pieces already, its
        # corridor only when it is alone in its class
        self.exit: tuple[int, int, frozenset[int], list[int] | None, list[int] | None] | None = None
        if model.exit_goal is not None:
            slot, outside = model.exit_goal
            k = board.slot_class[slot]
            lo, hi = board.class_span[k]
            ways = sorted(outside)
            dist = None if k in counted else _table(board, relaxed_distances(board, slot, ways, metric))
            counted.add(k)
            self.exit = (lo, hi, outside, dist, _table(board, corridor_cells(board, slot, ways)) if hi - lo == 1 else None)
        self.others = [(s, cells[s]) for s, k in enumerate(board.slot_class) if k not in counted]

    def value(self, state: "State") -> int:
        total = must = 0          # must: cells the other pieces have to leave at some time
        for slot, t, dist, corridor in self.singles:
            a = state[slot]
            if a != t:
                total += dist[a]
                must |= corridor[a]
        for lo, hi, near, ends in self.groups:
            now = state[lo:hi]
            for a in now:
                total += near[a]
            for t, cells in ends:
                if t not in now:
                    must |= cells
        if self.exit is not None:
            lo, hi, outside, dist, corridor = self.exit
            now = state[lo:hi]
            if not any(a in outside for a in now):
                if corridor is not None:
                    must |= corridor[now[0]]
                if dist is not None:
                    total += min(dist[a] for a in now)
        if must:
            total += sum(1 for s, cells in self.others if cells[state[s]] & must)
        return total
