"""Two CP-SAT encodings of sliding tiles (faces may repeat) with step variables.

`cp-tiles-table` (TilesTable): integer positions with table and element constraints.
    blank_t in cells, act_t in {U,R,D,L} (+ idle under `goal: by`), face_c_t in the faces.
    (blank_t, act_t, blank_t+1) is in the table of legal blank moves. is_blank_c_t <-> blank_t == c
    <-> face_c_t == 0. moved_t = face[blank_t+1]_t (element). A cell that is the blank at t but
    not at t+1 receives moved_t; a cell that is the blank at neither keeps its face.
    Distance cuts shrink the integer domains: face f is not in face_c_t's domain when its
    nearest goal cell is farther than T - t (likewise the blank); under `exact` the blank's
    domain at t keeps only cells of the right colour.
`cp-tiles-bool` (TilesBool): boolean channeling, the factored-direction model in CP form.
    at_f_c_t booleans (AddExactlyOne per cell), dir_k_t (+ idle) AddExactlyOne per step,
    effects and the positional frame as clauses (AddBoolOr), plus a linear distance cut that
    SAT cannot state cheaply: sum over tiles of (distance to the nearest goal cell of its
    face) <= T - t at every step (admissible with repeated faces: it is at most the matched
    Manhattan distance).
Both: no immediate reversal and idle-only-at-the-end as forbidden pairs of actions (options).
"""
from __future__ import annotations

from typing import Any


from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.cpsat.base import CpEncoding, cp_model

DIRS = "URDL"
IDLE = 4


class _TilesCp(CpEncoding):
    family = "tiles"

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.n, self.cols = model.n, model.cols
        self.nbr = model.neighbours
        self.nfaces = len(model.faces)
        self.to_goal = model.board.face_distances(model.goal)
        self.idle = options.goal == "by"
        self.colour0 = sum(divmod(model.start.index(0), self.cols)) % 2

    def near(self, f: int, c: int) -> int:
        return self.to_goal[f][c]

    def allowed(self, f: int, c: int, t: int, horizon: int) -> bool:
        """Whether face f may stand on cell c at step t (distance and parity cuts)."""
        if self.options.distance_cuts and self.near(f, c) > horizon - t:
            return False
        if f == 0 and self.options.parity and not self.idle:
            return (sum(divmod(c, self.cols)) + self.colour0 + t) % 2 == 0
        return True

    def _action_cuts(self, acts: list[Any]) -> None:
        for t in range(len(acts) - 1):
            pairs = []
            if self.options.no_reversal:
                pairs += [(k, (k + 2) % 4) for k in range(4)]
            if self.idle and self.options.idle_at_end:
                pairs += [(IDLE, k) for k in range(4)]
            if pairs:
                self.cp.AddForbiddenAssignments([acts[t], acts[t + 1]], pairs)


class TilesTable(_TilesCp):
    """Integer blank position and cell faces, linked by a move table and element constraints."""

    name = "cp-tiles-table"

    def build(self, horizon: int) -> cp_model.CpModel:
        self.cp = cp = cp_model.CpModel()
        T = horizon
        self.blank = []
        self.face: list[list[Any]] = []
        is_blank: list[list[Any]] = []
        for t in range(T + 1):
            self.tick()
            cells = [c for c in range(self.n) if self.allowed(0, c, t, T)] or [0]
            self.blank.append(cp.NewIntVarFromDomain(cp_model.Domain.FromValues(cells), f"blank_t{t}"))
            row, brow = [], []
            for c in range(self.n):
                faces = [f for f in range(self.nfaces) if self.allowed(f, c, t, T)] or [0]
                x = cp.NewIntVarFromDomain(cp_model.Domain.FromValues(faces), f"face_{c}_t{t}")
                b = cp.NewBoolVar(f"is_blank_{c}_t{t}")
                cp.Add(self.blank[t] == c).OnlyEnforceIf(b)
                cp.Add(self.blank[t] != c).OnlyEnforceIf(b.Not())
                cp.Add(x == 0).OnlyEnforceIf(b)
                cp.Add(x != 0).OnlyEnforceIf(b.Not())
                row.append(x)
                brow.append(b)
            self.face.append(row)
            is_blank.append(brow)
        table = [(c, k, c2) for c in range(self.n) for k, c2 in enumerate(self.nbr[c]) if c2 >= 0]
        if self.idle:
            table += [(c, IDLE, c) for c in range(self.n)]
        self.act = [cp.NewIntVar(0, IDLE if self.idle else 3, f"act_t{t}") for t in range(T)]
        for t in range(T):
            self.tick()
            cp.AddAllowedAssignments([self.blank[t], self.act[t], self.blank[t + 1]], table)
            moved = cp.NewIntVar(0, self.nfaces - 1, f"moved_t{t}")
            cp.AddElement(self.blank[t + 1], self.face[t], moved)
            for c in range(self.n):
                was, now = is_blank[t][c], is_blank[t + 1][c]
                cp.Add(self.face[t + 1][c] == self.face[t][c]).OnlyEnforceIf([was.Not(), now.Not()])
                cp.Add(self.face[t + 1][c] == moved).OnlyEnforceIf([was, now.Not()])
        self._action_cuts(self.act)
        for c, f in enumerate(self.model.start):
            cp.Add(self.face[0][c] == f)
        for c, f in enumerate(self.model.goal):
            cp.Add(self.face[T][c] == f)
        return cp

    def decode(self, solver: cp_model.CpSolver, horizon: int) -> list[str]:
        return [DIRS[v] for v in (solver.Value(a) for a in self.act) if v != IDLE]

    def add_hint(self, moves: list[str]) -> None:
        for t, a in enumerate(self.act):
            self.cp.AddHint(a, DIRS.index(moves[t]) if t < len(moves) else IDLE)


class TilesBool(_TilesCp):
    """Boolean one-hot faces and factored directions, with a linear distance cut per step."""

    name = "cp-tiles-bool"

    def build(self, horizon: int) -> cp_model.CpModel:
        self.cp = cp = cp_model.CpModel()
        T = horizon
        false = cp.NewConstant(0)
        at: dict[tuple[int, int, int], Any] = {}
        for t in range(T + 1):
            self.tick()
            for c in range(self.n):
                row = []
                for f in range(self.nfaces):
                    v = cp.NewBoolVar(f"at_{f}_{c}_t{t}") if self.allowed(f, c, t, T) else false
                    at[f, c, t] = v
                    row.append(v)
                cp.AddExactlyOne(row)
            cp.AddExactlyOne(at[0, c, t] for c in range(self.n))
            if self.options.distance_cuts:
                cp.Add(sum(self.near(f, c) * at[f, c, t] for f in range(1, self.nfaces)
                           for c in range(self.n)) <= T - t)
        self.dirs = [[cp.NewBoolVar(f"dir_{DIRS[k]}_t{t}") for k in range(4)] for t in range(T)]
        idle = [cp.NewBoolVar(f"idle_t{t}") if self.idle else false for t in range(T)]
        for t in range(T):
            self.tick()
            cp.AddExactlyOne(self.dirs[t] + ([idle[t]] if self.idle else []))
            for c in range(self.n):
                blank = at[0, c, t]
                for k, c2 in enumerate(self.nbr[c]):
                    d = self.dirs[t][k]
                    if c2 < 0:
                        cp.AddBoolOr([blank.Not(), d.Not()])
                        continue
                    cp.AddBoolOr([blank.Not(), d.Not(), at[0, c2, t + 1]])
                    for f in range(1, self.nfaces):
                        cp.AddBoolOr([blank.Not(), d.Not(), at[f, c2, t].Not(), at[f, c, t + 1]])
                if self.idle:
                    cp.AddBoolOr([blank.Not(), idle[t].Not(), at[0, c, t + 1]])
                for f in range(1, self.nfaces):
                    cp.AddBoolOr([at[f, c, t].Not(), at[f, c, t + 1], at[0, c, t + 1]])
            if t > 0:
                if self.options.no_reversal:
                    for k in range(4):
                        cp.AddBoolOr([self.dirs[t - 1][k].Not(), self.dirs[t][(k + 2) % 4].Not()])
                if self.idle and self.options.idle_at_end:
                    cp.AddImplication(idle[t - 1], idle[t])
        for c, f in enumerate(self.model.start):
            cp.Add(at[f, c, 0] == 1)
        for c, f in enumerate(self.model.goal):
            cp.Add(at[f, c, T] == 1)
        return cp

    def decode(self, solver: cp_model.CpSolver, horizon: int) -> list[str]:
        return [DIRS[k] for t in range(horizon) for k in range(4) if solver.Value(self.dirs[t][k])]

    def add_hint(self, moves: list[str]) -> None:
        for t, row in enumerate(self.dirs):
            for k, d in enumerate(row):
                self.cp.AddHint(d, int(t < len(moves) and moves[t] == DIRS[k]))
