"""Static facts of a Rush Hour board that hold in every reachable state: the presolve the SAT
and CP-SAT encodings share (encoders/sat/rush_hour.py, encoders/cpsat/rush_hour.py).

`Geometry`. A vehicle v of length L moves along one line; its offset (rear cell) is confined to
an interval [lo_v, hi_v]: start from the whole line and shrink to a fixpoint, where a vehicle
cannot pass a wall, cannot pass the *core* of another vehicle (the cells it covers at every
offset of its interval: positions hi..lo+L-1), and vehicles on one line keep their order
(off_u + L_u <= off_v when u comes first, so lo_v >= lo_u + L_u and hi_u <= hi_v - L_u). A
vehicle with lo = hi never moves and is a constant. Walls therefore need no clauses, and
non-overlap is only stated for a cell and a pair of vehicles that can both cover it: two
crossing vehicles (perpendicular lines, one shared cell), or two vehicles on one line (their
order). The cells, moves and exits are board.py's; the model is passed in (anything with a
`board`), never imported.
"""
from __future__ import annotations

from typing import Protocol

from puzzleplan.models.rush_hour.board import Board, covering, entered, move_name, offset_moves, parse_move


class HasBoard(Protocol):
    """What the presolve reads of a model: its board."""

    board: Board


class Geometry:
    """Static facts of a board: offset intervals, which vehicles can cover which cells."""

    def __init__(self, model: "HasBoard") -> None:
        board = model.board
        self.model = model
        self.board = board
        self.vehicles = board.vehicles
        self.n = len(self.vehicles)
        self.length = [v.length for v in self.vehicles]
        self.span = list(board.spans)
        self.start = list(board.start())
        self.primary = board.primary
        self.goal = board.goal_offset
        self._presolve()
        self.movable = [v for v in range(self.n) if self.lo[v] < self.hi[v]]
        # coverers[cell]: (vehicle, position of the cell along its line) for vehicles that can cover it
        self.coverers: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for v in range(self.n):
            for p in range(self.lo[v], self.hi[v] + self.length[v]):
                self.coverers.setdefault(self.cell(v, p), []).append((v, p))
        # crossings: (u, pu, v, pv) with u < v perpendicular, both movable, sharing a coverable cell
        self.crossings: list[tuple[int, int, int, int]] = []
        self.crossing_of: dict[tuple[int, int], tuple[int, int]] = {}
        for cell, cov in sorted(self.coverers.items()):
            for i, (u, pu) in enumerate(cov):
                for v, pv in cov[i + 1:]:
                    a, b = (u, pu), (v, pv)
                    if a[0] > b[0]:
                        a, b = b, a
                    if self.vehicles[a[0]].horizontal != self.vehicles[b[0]].horizontal:
                        self.crossings.append((a[0], a[1], b[0], b[1]))
                        self.crossing_of[a[0], b[0]] = (a[1], b[1])
        # same_line: (u, v) on one line, u before v, both movable
        self.same_line = [(u, v) for u in self.movable for v in self.movable
                          if u != v and self._same_line(u, v) and self.start[u] < self.start[v]]
        # ordered: (u, v, shared) for movable u > v on different lines, v-major: the pairs the
        # commuting-moves cut of the encodings looks at (moves of u at t-1 and v at t); shared is
        # (pu, pv), the positions of their one shared cell, or None when they share no cell
        self.ordered: list[tuple[int, int, tuple[int, int] | None]] = []
        for v in self.movable:
            for u in self.movable:
                if u > v and not self._same_line(u, v):
                    pv_pu = self.crossing_of.get((v, u))
                    self.ordered.append((u, v, None if pv_pu is None else (pv_pu[1], pv_pu[0])))

    def cell(self, v: int, p: int) -> tuple[int, int]:
        """The cell (row, col) at position p of vehicle v's line."""
        return self.vehicles[v].cell(p)

    def _same_line(self, u: int, v: int) -> bool:
        return self.vehicles[u].same_line(self.vehicles[v])

    def _presolve(self) -> None:
        n, L = self.n, self.length
        lo = [0] * n
        hi = [self.span[v] - L[v] for v in range(n)]
        walls = set(self.board.walls)
        pairs = [(u, v) for u in range(n) for v in range(n)
                 if u != v and self._same_line(u, v) and self.start[u] < self.start[v]]
        changed = True
        while changed:
            changed = False
            core: dict[tuple[int, int], int] = {}
            for v in range(n):
                for p in range(hi[v], lo[v] + L[v]):
                    core[self.cell(v, p)] = v
            for v in range(n):
                def free(p: int) -> bool:
                    c = self.cell(v, p)
                    return c not in walls and core.get(c, v) == v
                a = b = self.start[v]
                while a - 1 >= lo[v] and free(entered(a, L[v], -1)):
                    a -= 1
                while b + 1 <= hi[v] and free(entered(b, L[v], 1)):
                    b += 1
                if (a, b) != (lo[v], hi[v]):
                    lo[v], hi[v], changed = a, b, True
            for u, v in pairs:
                if lo[v] < lo[u] + L[u]:
                    lo[v], changed = lo[u] + L[u], True
                if hi[u] > hi[v] - L[u]:
                    hi[u], changed = hi[v] - L[u], True
        self.lo, self.hi = lo, hi

    def goal_reachable(self) -> bool:
        p = self.primary
        return self.lo[p] <= self.goal <= self.hi[p]

    def covering_offsets(self, v: int, p: int) -> range:
        """Offsets of v (within its interval) at which it covers position p of its line."""
        return covering(self.length[v], p, self.lo[v], self.hi[v])

    def distance_ok(self, offset: int, t: int, horizon: int, metric: str) -> bool:
        """Whether the primary may be at `offset` at step t (distance cut)."""
        dist = abs(offset - self.goal)
        if metric == "slide":
            dist = min(dist, 1)
        return dist <= horizon - t

    def move_name(self, v: int, delta: int) -> str:
        return move_name(self.vehicles[v].name, delta)

    def replay(self, moves: list[str]) -> list[tuple[list[int], int | None, int]]:
        """(offsets at step t, mover or None, delta) for each step of a plan, then the end; the
        replay stops at the first move naming no vehicle (no other check: for solver hints)."""
        index = {v.name: i for i, v in enumerate(self.vehicles)}
        offsets = list(self.start)
        steps: list[tuple[list[int], int | None, int]] = []
        for move in moves:
            parsed = parse_move(move)
            if parsed is None or parsed[0] not in index:
                break
            v, delta = index[parsed[0]], parsed[1]
            steps.append((list(offsets), v, delta))
            offsets[v] += delta
        steps.append((list(offsets), None, 0))
        return steps

    def moves_of(self, v: int, slide: bool) -> list[tuple[int, int]]:
        """Every (from, to) offset pair of one move of v within its interval."""
        return offset_moves(self.lo[v], self.hi[v], slide)
