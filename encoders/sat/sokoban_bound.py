"""Pattern tables of small box sets for sok-onehot's per-step bound clauses (moves metric), and
the wall paths its shortcut cut reads.

`pattern_moves(model, boxable, size)`: for every set S of `size` box cells and player cell p
(not in S), the fewest moves (walks and pushes) that bring the boxes of S, alone on the level,
onto goals (distinct ones), the player starting on p; a backward breadth-first search over
(S, p) from the solved sets, by reverse walks and pulls. `pattern_reach`: the fewest moves from
the start to (S, p), S's boxes starting on any `size` of the start's box cells, alone on the
level; a forward breadth-first search.

Why they bound every plan: take a plan through a state whose boxes include S, the player on p.
Replay its letters on the level holding only S's boxes (for the part before the state: only
the boxes that end on S, from their start cells). A walk stays a walk (its cell held no box at
all); a push of another box becomes a walk onto that box's cell, which is floor; a push of a
box of S needs the cell beyond it free of boxes, so free of S's. The replay is a plan of the
pattern alone with the same number of moves: the moves after the state are at least
pattern_moves(S, p), the moves before it at least pattern_reach(S, p). `PatternBounds` keeps
patterns smaller than the level's box count, so the tables are a relaxation, never the level
solved in advance, and turns them into (pattern, player, step) triples to forbid under a
horizon.
"""
from __future__ import annotations

from collections import deque
from itertools import combinations
from typing import Any, Callable, Iterable, Iterator, Sequence

from puzzleplan.models.sokoban.analysis import INF
from puzzleplan.models.sokoban.level import OPPOSITE

State = tuple[tuple[int, ...], int]


def pattern_moves(model: Any, boxable: Sequence[bool], size: int) -> dict[State, int]:
    """Fewest moves from each (sorted box cells, player) of `size` boxes to all of them on goals
    (states missing from the result: never; boxes only on `boxable` cells)."""
    nbr = model.nbr
    goals = [g for g in model.goal_cells if boxable[g]]

    def before(state: State) -> Iterator[State]:
        """The states one move before `state`: a walk into q, or a push into q (a pull back)."""
        boxes, q = state
        for e in range(4):
            p = nbr[q][e]
            if p >= 0 and p not in boxes:
                yield boxes, p                      # a walk from p into q (q held no box either)
            k = nbr[q][OPPOSITE[e]]                 # a push from q onto k, the player from p
            if p >= 0 and k >= 0 and k in boxes and boxable[q]:
                pulled = tuple(sorted(q if b == k else b for b in boxes))
                if p not in pulled:
                    yield pulled, p

    seeds = ((placed, p) for placed in combinations(sorted(goals), size)
             for p in range(model.ncells) if p not in placed)
    return _breadth_first(seeds, before)


def pattern_reach(model: Any, boxable: Sequence[bool], size: int) -> dict[State, int]:
    """Fewest moves from the start to each (sorted box cells, player) of `size` boxes: the boxes
    starting on any `size` of the start's box cells, alone on the level (missing: never)."""
    nbr = model.nbr
    starts = [c for c in range(model.ncells) if model.start_boxes >> c & 1 and boxable[c]]

    def after(state: State) -> Iterator[State]:
        """The states one move after `state`: a walk, or a push onto a free boxable cell."""
        boxes, p = state
        for d in range(4):
            q = nbr[p][d]
            if q < 0:
                continue
            if q not in boxes:
                yield boxes, q
                continue
            k = nbr[q][d]
            if k >= 0 and boxable[k] and k not in boxes:
                yield tuple(sorted(k if b == q else b for b in boxes)), q

    return _breadth_first(((placed, model.start_player) for placed in combinations(starts, size)), after)


def _breadth_first(seeds: Iterable[State], successors: Callable[[State], Iterator[State]]) -> dict[State, int]:
    """Breadth-first distances from `seeds` (distance 0) along `successors`."""
    dist: dict[State, int] = {}
    queue: deque[State] = deque()
    for seed in seeds:
        if seed not in dist:
            dist[seed] = 0
            queue.append(seed)
    while queue:
        state = queue.popleft()
        step = dist[state] + 1
        for nxt in successors(state):
            if nxt not in dist:
                dist[nxt] = step
                queue.append(nxt)
    return dist


class PatternBounds:
    """The one- and two-box tables of a level (only sizes below its box count; pairs only on
    levels small enough), both ways, and the (boxes, player, step) combinations they rule out
    within a horizon."""

    PAIR_STATES = 100_000   # pair tables only up to this many (pair, player) states (all of Microban)

    def __init__(self, model: Any, boxable: Sequence[bool], boxes: int) -> None:
        self.n = model.ncells
        self.cells = [c for c in range(self.n) if boxable[c]]
        pairs = len(self.cells) * (len(self.cells) - 1) // 2 * self.n
        sizes = [size for size in (1, 2) if size < boxes and (size == 1 or pairs <= self.PAIR_STATES)]
        self.to_go = [pattern_moves(model, boxable, size) for size in sizes]
        self.from_start = [pattern_reach(model, boxable, size) for size in sizes]

    def window(self, size: int, boxes: tuple[int, ...], player: int, horizon: int) -> tuple[int, int]:
        """The steps t at which the pattern may stand in a plan of <= horizon moves: reached from
        the start within t moves and solvable within horizon - t."""
        state = (boxes, player)
        return (self.from_start[size - 1].get(state, INF),
                horizon - self.to_go[size - 1].get(state, INF))

    def forbidden(self, horizon: int) -> Iterator[tuple[tuple[int, ...], int | None, int]]:
        """(boxes, player, t), t = 0..horizon, for each pattern outside its window there; player
        None: outside with every player cell (the steps before the earliest window or after
        the latest). A pair only at steps where neither of its boxes is ruled out alone."""
        if not self.to_go:
            return
        single: dict[tuple[int, int], tuple[int, int]] = {}
        span: dict[int, tuple[int, int]] = {}
        for b in self.cells:
            windows = {p: self.window(1, (b,), p, horizon) for p in range(self.n) if p != b}
            lo, hi = _hull(windows.values(), horizon)
            span[b] = (lo, hi)
            yield from (((b,), None, t) for t in _outside(0, horizon, lo, hi))
            for p, (wlo, whi) in windows.items():
                single[b, p] = (max(wlo, lo), min(whi, hi))
                yield from (((b,), p, t) for t in _outside(lo, hi, wlo, whi))
        if len(self.to_go) < 2:
            return
        for i, a in enumerate(self.cells):
            for b in self.cells[i + 1:]:
                lo, hi = max(span[a][0], span[b][0]), min(span[a][1], span[b][1])
                if lo > hi:
                    continue
                windows = {p: self.window(2, (a, b), p, horizon) for p in range(self.n) if p != a and p != b}
                plo, phi = _hull(windows.values(), horizon)
                yield from (((a, b), None, t) for t in _outside(lo, hi, plo, phi))
                for p, inner in windows.items():
                    # the steps where the pair's window alone rules the player's cell out
                    both = (max(single[a, p][0], single[b, p][0], plo),
                            min(single[a, p][1], single[b, p][1], phi))
                    yield from (((a, b), p, t) for t in _outside(max(lo, both[0]), min(hi, both[1]), *inner))


def _hull(windows: Iterable[tuple[int, int]], horizon: int) -> tuple[int, int]:
    """The steps from the earliest non-empty window's start to the latest one's end, within
    0..horizon (an empty range when every window is empty)."""
    spans = [(lo, hi) for lo, hi in windows if lo <= hi]
    if not spans:
        return 0, -1
    return max(0, min(lo for lo, _ in spans)), min(horizon, max(hi for _, hi in spans))


def _outside(lo: int, hi: int, inner_lo: int, inner_hi: int) -> Iterator[int]:
    """The steps of lo..hi outside inner_lo..inner_hi (all of them when that is empty)."""
    if inner_lo > inner_hi:
        yield from range(lo, hi + 1)
        return
    yield from range(lo, min(hi, inner_lo - 1) + 1)
    yield from range(max(lo, inner_hi + 1), hi + 1)


def wall_paths(nbr: Sequence[Sequence[int]]) -> list[tuple[int, int, list[int]]]:
    """(c, e, path) for every two distinct cells: a shortest path from c to e around the walls
    alone (breadth-first, the cells after c up to e)."""
    out = []
    for c in range(len(nbr)):
        before = {c: c}
        queue = deque([c])
        while queue:
            x = queue.popleft()
            for y in nbr[x]:
                if y >= 0 and y not in before:
                    before[y] = x
                    queue.append(y)
        for e in before:
            if e == c:
                continue
            path = [e]
            while before[path[-1]] != c:
                path.append(before[path[-1]])
            out.append((c, e, path[::-1]))
    return out
