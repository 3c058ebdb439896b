"""Two SAT encodings of sliding tiles (faces may repeat) with step variables.

Shared state variables, one-hot by face (repeated faces share a face index, so identical tiles
are never told apart):
    ("at", f, c, t)   cell c holds face f at step t (f = 0 is the blank); exactly one f per (c, t).
Step 0 is the start (unit clauses); the goal is unit clauses on step T. Under `goal: by` an
("idle", t) action lets a plan finish early.

`tiles-moves` (TilesMoves): explicit move actions and explanatory frame axioms.
    ("move", c, d, t)   the blank at c moves in direction d (the tile at c' = c+d slides into c);
    exactly one of the moves and idle per step (CardEnc). Precondition at(0,c,t); effects
    at(0,c',t+1) and at(f,c',t) -> at(f,c,t+1). Frame: a cell keeps its face unless a move
    touches it: at(f,c,t) & -at(f,c,t+1) -> OR(moves touching c).
`tiles-dirs` (TilesDirections): factored direction actions and positional frames.
    ("dir", k, t)       the blank moves in direction k (U R D L); exactly one direction or idle.
    A direction whose target is off the board is forbidden where the blank is: at(0,c,t) -> -dir.
    Effects: at(0,c,t) & dir(k,t) -> at(0,c+k,t+1) and at(0,c,t) & dir(k,t) & at(f,c+k,t) ->
    at(f,c,t+1); idle keeps the blank. Frame: a tile stays unless its cell becomes the blank:
    at(f,c,t) -> at(f,c,t+1) | at(0,c,t+1), for f != 0 (2-3 literals per clause, no action lists).
Cuts (options): no immediate reversal; idle only at the end; distance cuts (a face at cell c at
step t needs the distance to its nearest goal cell <= T - t, likewise the blank); under `exact`,
the blank's cell colour at step t is fixed by parity (unit clauses).
"""
from __future__ import annotations

from typing import Any

from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sat.base import Clause, SatEncoding

DIRS = "URDL"


class _TilesSat(SatEncoding):
    family = "tiles"

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.n = model.n
        self.faces = range(len(model.faces))
        self.nbr = model.neighbours
        self.cols = model.cols
        self.to_goal = model.board.face_distances(model.goal)
        self.idle = options.goal == "by"

    def at(self, f: int, c: int, t: int) -> int:
        return self.var("at", f, c, t)

    def _state(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        for c in range(self.n):
            out += self.exactly_one([self.at(f, c, t) for f in self.faces])
        return out

    def initial(self) -> list[Clause]:
        return self._state(0) + [[self.at(f, c, 0)] for c, f in enumerate(self.model.start)]

    def goal(self, horizon: int) -> list[Clause]:
        return [[self.at(f, c, horizon)] for c, f in enumerate(self.model.goal)]

    def cuts(self, horizon: int) -> list[Clause]:
        out: list[Clause] = []
        if self.options.distance_cuts:
            for t in range(horizon + 1):
                for f in self.faces:
                    for c in range(self.n):
                        if self.to_goal[f][c] > horizon - t:
                            out.append([-self.at(f, c, t)])
        if self.options.parity and not self.idle:
            colour0 = sum(divmod(self.model.start.index(0), self.cols)) % 2
            for t in range(horizon + 1):
                for c in range(self.n):
                    if (sum(divmod(c, self.cols)) + colour0 + t) % 2:
                        out.append([-self.at(0, c, t)])
        return out


class TilesMoves(_TilesSat):
    """State-based one-hot encoding with one action per (blank cell, direction)."""

    name = "tiles-moves"

    def move(self, c: int, d: int, t: int) -> int:
        return self.var("move", c, d, t)

    def _moves(self, t: int) -> list[tuple[int, int, int]]:
        return [(c, d, c2) for c in range(self.n) for d, c2 in enumerate(self.nbr[c]) if c2 >= 0]

    def layer(self, t: int) -> list[Clause]:
        moves = self._moves(t)
        acts = [self.move(c, d, t) for c, d, _ in moves]
        if self.idle:
            acts.append(self.var("idle", t))
        out = self._state(t + 1) + self.exactly_one(acts)
        touching: dict[int, list[int]] = {c: [] for c in range(self.n)}
        for c, d, c2 in moves:
            m = self.move(c, d, t)
            touching[c].append(m)
            touching[c2].append(m)
            out.append([-m, self.at(0, c, t)])
            out.append([-m, self.at(0, c2, t + 1)])
            for f in self.faces:
                if f:
                    out.append([-m, -self.at(f, c2, t), self.at(f, c, t + 1)])
            if self.options.no_reversal and t > 0:
                # the blank arrived at c from c2 at step t-1: moving back is a reversal
                out.append([-m, -self.move(c2, (d + 2) % 4, t - 1)])
        for c in range(self.n):
            for f in self.faces:
                out.append([-self.at(f, c, t), self.at(f, c, t + 1)] + touching[c])
        if self.idle and self.options.idle_at_end and t > 0:
            out.append([-self.var("idle", t - 1), self.var("idle", t)])
        return out

    def decode(self, true: set[int], horizon: int) -> list[str]:
        moves = []
        for t in range(horizon):
            for c, d, _ in self._moves(t):
                if self.move(c, d, t) in true:
                    moves.append(DIRS[d])
        return moves


class TilesDirections(_TilesSat):
    """Blank-centric encoding with four factored direction actions per step."""

    name = "tiles-dirs"

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.reversal_cut = bool(options.no_reversal)   # the blank never goes straight back
        self.idle_tail = bool(options.idle_at_end)      # idle steps only after the last move

    def direction(self, k: int, t: int) -> int:
        return self.var("dir", k, t)

    def layer(self, t: int) -> list[Clause]:
        acts = [self.direction(k, t) for k in range(4)]
        if self.idle:
            acts.append(self.var("idle", t))
        out = self._state(t + 1) + self.exactly_one(acts)
        out += self.exactly_one([self.at(0, c, t + 1) for c in range(self.n)])  # no tile may vanish
        for c in range(self.n):
            blank = self.at(0, c, t)
            for k, c2 in enumerate(self.nbr[c]):
                dk = self.direction(k, t)
                if c2 < 0:
                    out.append([-blank, -dk])
                    continue
                out.append([-blank, -dk, self.at(0, c2, t + 1)])
                for f in self.faces:
                    if f:
                        out.append([-blank, -dk, -self.at(f, c2, t), self.at(f, c, t + 1)])
            if self.idle:
                out.append([-blank, -self.var("idle", t), self.at(0, c, t + 1)])
            for f in self.faces:
                if f:
                    out.append([-self.at(f, c, t), self.at(f, c, t + 1), self.at(0, c, t + 1)])
        if self.reversal_cut and t > 0:
            for k in range(4):
                out.append([-self.direction(k, t - 1), -self.direction((k + 2) % 4, t)])
        if self.idle and self.idle_tail and t > 0:
            out.append([-self.var("idle", t - 1), self.var("idle", t)])
        return out

    def decode(self, true: set[int], horizon: int) -> list[str]:
        return [DIRS[k] for t in range(horizon) for k in range(4) if self.direction(k, t) in true]
