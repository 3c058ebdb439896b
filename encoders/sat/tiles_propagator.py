"""A CaDiCaL external propagator (IPASIR-UP, python-sat's `connect_propagator`) that puts the
lower bound of pattern tables (the native pattern databases; small numpy tables on boards of up
to 3x3; Manhattan + linear conflicts where neither applies) into a tiles SAT formula, and
steers the search forward in time as IDA* does.

It watches only the action variables of each step (the four directions and idle). Whenever the
actions of steps 0..t-1 are all assigned, it knows the state at step t (it replays the moves),
and when that state's lower bound h exceeds T - t it hands the solver a clause: "these tiles are
not on these cells at step t", naming only the tiles of the pattern tables whose values already
exceed T - t (all tiles when the bound comes from Manhattan + conflicts). The clause holds for
every plan of at most T moves, because h never overestimates the moves left; so it cuts no plan
and UNSAT keeps its meaning. Under incremental horizons each clause carries the negated
activation literal of its horizon (a state too far for T may be near enough for T + 2).

Its decisions: the first step whose action is open gets a direction, the child with the least
h first (ties in direction order), so the solver walks plans from the start like a depth-first
search, and every dead end it meets becomes a learnt clause over state variables (a state at
step t, however reached, is refuted once).
"""
from __future__ import annotations

import bisect
from typing import Any, Callable

import numpy as np

from pysat.engines import Propagator

from puzzleplan.encoders.sat.tiles_patterns import PatternBound, partition

IDLE = 4


class ManhattanBound:
    """Each tile's Manhattan distance to the nearest goal cell of its face, summed (admissible
    with repeated faces), plus linear conflicts among faces with one goal cell; pure Python, so
    nothing is compiled or loaded for it."""

    label = "Manhattan + linear conflicts"

    def __init__(self, model: Any) -> None:
        cells: dict[int, list[int]] = {}
        for c, f in enumerate(model.goal):
            cells.setdefault(f, []).append(c)
        to_goal = model.board.face_distances(model.goal)
        self._dist = [to_goal[f] if f else [0] * model.n for f in range(len(model.faces))]
        self._lines = model.board.lines()
        # per line, face -> its goal's place along the line, for faces whose one goal cell is on it
        self._goal_place = [{f: line.index(g[0]) for f, g in cells.items() if f and len(g) == 1 and g[0] in line}
                            for line in self._lines]

    def _conflicts(self, board: Any) -> int:
        """2 x (tiles in their goal line - the longest run of them already in goal order), per line."""
        extra = 0
        for line, place in zip(self._lines, self._goal_place):
            seq = [place[board[c]] for c in line if board[c] in place]
            if len(seq) > 1:
                extra += 2 * (len(seq) - _longest_increasing(seq))
        return extra

    def value(self, board: Any) -> int:
        dist = self._dist
        return sum(dist[f][c] for c, f in enumerate(board)) + self._conflicts(board)

    def witness(self, board: Any, bound: int) -> list[tuple[int, int]] | None:
        """None when the bound holds; the farthest tiles whose distances alone exceed it, or,
        when the conflicts are needed too, every tile."""
        dist = self._dist
        far = sorted(((dist[f][c], f, c) for c, f in enumerate(board) if f), reverse=True)
        total, out = 0, []
        for d, f, c in far:
            if total > bound or d == 0:
                break
            total += d
            out.append((f, c))
        if total > bound:
            return out
        if total + self._conflicts(board) > bound:
            return [(f, c) for c, f in enumerate(board) if f]
        return None


def _longest_increasing(seq: list[int]) -> int:
    best: list[int] = []
    for x in seq:
        i = bisect.bisect_left(best, x)
        best[i:i + 1] = [x]
    return len(best)


class LowerBound:
    """The native heuristic of a tiles model (its default tables: pattern databases where they
    are cached or cheap to build, else Manhattan + linear conflicts), with witnesses."""

    label = "the native heuristic's tables"

    def __init__(self, model: Any) -> None:
        from puzzleplan.models.tiles.heuristic_kernels import root_parts
        from puzzleplan.models.tiles.heuristic_tables import default_tables
        tables = default_tables(model)
        self._parts = root_parts
        self._board, self._pdb = tables.board_arrays, tables.pdb
        self._copies = tables.gcnt
        pgcnt, vface = tables.pdb[3], tables.pdb[5]
        self._faces = [[sorted({int(vface[v, p, g]) for g in range(pgcnt.shape[1]) if pgcnt[p, g]})
                        for p in range(pgcnt.shape[0])] for v in range(vface.shape[0])]

    def value(self, board: bytearray) -> int:
        _, _, _, _, _, psum, mlc = self._parts(np.frombuffer(board, dtype=np.uint8), self._board, self._pdb)
        return int(max(mlc, psum.max(initial=0)))

    def witness(self, board: bytearray, bound: int) -> list[tuple[int, int]] | None:
        """None when h(board) <= bound; else (face, cell) pairs whose tiles alone force h above
        `bound`: the tiles of the largest pattern values of one view, or every tile."""
        pos, _, _, _, pval, psum, mlc = self._parts(np.frombuffer(board, dtype=np.uint8), self._board, self._pdb)
        views = [v for v in range(psum.shape[0]) if psum[v] > bound]
        if views:
            v = max(views, key=lambda w: psum[w])
            total, faces = 0, []
            for p in sorted(range(pval.shape[1]), key=lambda q: -pval[v, q]):
                total += int(pval[v, p])
                faces += self._faces[v][p]
                if total > bound:
                    break
        elif mlc > bound:
            faces = list(range(1, pos.shape[0]))
        else:
            return None
        return [(f, int(pos[f, j])) for f in faces for j in range(int(self._copies[f]))]


SMALL_BOARD = 9   # cells: up to here no compiled table is loaded


def bound_for(model: Any) -> "PatternBound | ManhattanBound | LowerBound":
    """The bound a propagator uses: on boards of up to SMALL_BOARD cells the small additive
    pattern tables built in numpy (encoders/sat/tiles_patterns.py; loading the compiled tables
    takes about a second per solver process, more than the whole search there: measured on the
    8-puzzle's distance-31 instance), or Manhattan + conflicts in pure Python where no partition
    fits; the native tables on larger boards."""
    if model.n <= SMALL_BOARD:
        groups = partition(model)
        return ManhattanBound(model) if groups is None else PatternBound(model, groups)
    return LowerBound(model)


class BoundPropagator(Propagator):  # type: ignore[misc]
    """Lazy lower-bound clauses and forward decisions for one horizon of a tiles formula.

    `actions[t][k]` is the variable of direction k (U R D L) at step t, `actions[t][4]` that of
    idle (0 when the formula has none); `at(face, cell, t)` the state variable; `bound` the
    heuristic; `guard` the activation literal of the horizon
    (None for a formula of one horizon)."""

    def __init__(self, start: bytes, neighbours: tuple[tuple[int, ...], ...], horizon: int,
                 actions: list[list[int]], at: Callable[[int, int, int], int],
                 bound: "PatternBound | ManhattanBound | LowerBound", guard: int | None) -> None:
        super().__init__()
        self.horizon = horizon
        self.nbr = neighbours
        self.at = at
        self.bound = bound
        self.guard = guard
        self.step_of: dict[int, tuple[int, int]] = {}
        for t, row in enumerate(actions):
            for k, v in enumerate(row):
                if v:
                    self.step_of[v] = (t, k)
        self.actions = actions
        self.chosen: list[int] = [-1] * horizon         # the true action of each step, -1 open
        self.false: list[set[int]] = [set() for _ in range(horizon)]
        self.trail: list[tuple[int, int, bool]] = []   # (step, action, value) in assignment order
        self.levels: list[int] = []
        self.boards = [bytearray(start)]
        self.blanks = [start.index(0)]
        self.pending: list[list[int]] = []
        self.started = False
        self.clauses = 0

    # -- what the solver tells ------------------------------------------------------------------
    def on_assignment(self, lit: int, fixed: bool = False) -> None:
        t, k = self.step_of[abs(lit)]
        if lit > 0:
            self.chosen[t] = k
        else:
            self.false[t].add(k)
        self.trail.append((t, k, lit > 0))

    def on_new_level(self) -> None:
        self.levels.append(len(self.trail))

    def on_backtrack(self, to: int) -> None:
        keep = self.levels[to] if to < len(self.levels) else len(self.trail)
        for t, k, value in self.trail[keep:]:
            if value:
                self.chosen[t] = -1
                del self.boards[t + 1:]
                del self.blanks[t + 1:]
            else:
                self.false[t].discard(k)
        del self.trail[keep:]
        del self.levels[to:]
        self.pending.clear()

    def check_model(self, model: list[int]) -> bool:
        return True   # every bound clause is added before the actions are complete

    # -- what it answers ------------------------------------------------------------------------
    def _extend(self) -> None:
        """Replay the assigned actions after the known prefix; queue a clause at a dead state."""
        if not self.started:
            self.started = True
            self._check(0)
        while len(self.boards) <= self.horizon and not self.pending:
            t = len(self.boards) - 1
            if t >= self.horizon or self.chosen[t] < 0:
                return
            k = self.chosen[t]
            board, blank = self.boards[t], self.blanks[t]
            if k != IDLE:
                cell = self.nbr[blank][k]
                board = bytearray(board)
                board[blank], board[cell] = board[cell], 0
                blank = cell
            self.boards.append(board)
            self.blanks.append(blank)
            self._check(t + 1)

    def _check(self, t: int) -> None:
        board = self.boards[t]
        tiles = self.bound.witness(board, self.horizon - t)
        if tiles is None:
            return
        clause = [-self.at(f, c, t) for f, c in tiles]
        if self.guard is not None:
            clause.append(-self.guard)
        self.pending.append(clause)
        self.clauses += 1

    def propagate(self) -> list[int]:
        self._extend()
        return []

    def provide_reason(self, lit: int) -> list[int]:
        return []

    def has_clause(self) -> bool:
        self._extend()
        return bool(self.pending)

    def add_clause(self) -> list[int]:
        return self.pending.pop()

    def decide(self) -> int:
        t = len(self.boards) - 1
        if t >= self.horizon or self.chosen[t] >= 0:
            return 0
        board, blank = self.boards[t], self.blanks[t]
        best, best_h = 0, None
        for k in range(4):
            cell = self.nbr[blank][k]
            v = self.actions[t][k]
            if cell < 0 or k in self.false[t] or not v:
                continue
            child = bytearray(board)
            child[blank], child[cell] = child[cell], 0
            value = self.bound.value(child)
            if best_h is None or value < best_h:
                best, best_h = v, value
        if best:
            return best
        idle = self.actions[t][IDLE]
        return idle if idle and IDLE not in self.false[t] else 0
