"""Two SAT encodings of Rush Hour (both metrics) with step variables.

Geometry: the presolve `Geometry` of models/rush_hour/presolve.py (each vehicle's offset
interval [lo_v, hi_v], the crossings, the vehicles on one line), shared with the CP-SAT
encodings; cells, moves and the move notation are models/rush_hour/board.py's.

Both encodings share the action layer:
    ("mv", v, t)   vehicle v moves at step t (t -> t+1); exactly one of the mv's (and ("idle", t)
                   under `goal: by`) per step (CardEnc, encoding from options.card).
    Under the step metric a moving vehicle changes its offset by exactly 1; under the slide
    metric by any amount >= 1, and every cell it crosses must be empty at step t. Only the mover
    changes, so the others' positions at t and t+1 agree.
Cuts (all sound under `goal: by`, see encoders/base.py):
    no_reversal: step metric, a vehicle does not move back at once; slide metric, a vehicle
        never moves at two consecutive steps (the two slides merge into one, or cancel).
    idle_at_end: idle(t) -> idle(t+1).
    distance_cuts (horizon-dependent): the primary at step t is within T - t moves of its goal
        offset g: step metric |off - g| <= T - t; slide metric the bound is 1, which only fixes
        the primary at step T (the goal already does).
    Commuting moves (always on, sound for every plan length): two consecutive moves of different
        vehicles u > v that could be made in either order with the same result are forbidden in
        the order (u, v). Any plan becomes one without such pairs by adjacent swaps (each swap
        removes one inversion of the vehicle order), keeping its length, its end state, and,
        for a shortest plan, the absence of reversals. Moves of two vehicles that share no cell
        always commute; crossing vehicles u, v (shared cell c) fail to commute only when they
        interact at c: under step, u leaves c and v then enters it (u covers c before its move,
        v covers c after its own); under slide, both moves' traces (the cells between a
        vehicle's old and new positions, both included) contain c. Vehicles on one line are
        left unconstrained.

`rh-order` (RushHourOrder): order-encoded offsets.
    ("ge", v, j, t)   the offset of v at step t is >= j, for lo < j <= hi (j <= lo is true,
                      j > hi false); ge(v, j+1, t) -> ge(v, j, t).
    v covers the cell at position p of its line iff ge(v, p-L+1) & -ge(v, p+1), so "not both
    u and v on the shared cell" is one 4-literal clause, and the order of two vehicles on a line
    is 2-literal clauses ge(u, j) -> ge(v, j + L_u).
    Frame: mv(v,t) | (ge(v,j,t) <-> ge(v,j,t+1)), two 3-literal clauses per bit.
    Direction: one bit ("fwd", t) per step (+ = right/down; idle -> -fwd).
    step: ge(v,j,t) -> ge(v,j-1,t+1) and ge(v,j,t+1) -> ge(v,j-1,t) for every vehicle (no
        offset changes by more than 1: 2-literal clauses); mv & fwd: ge(v,j-1,t) -> ge(v,j,t+1);
        mv & -fwd: ge(v,j,t+1) -> ge(v,j+1,t).
    slide: mv & fwd: ge(v,j,t) -> ge(v,j+1,t+1) (off' > off); mv & -fwd: ge(v,j,t+1) ->
        ge(v,j+1,t). Crossed cells: for a move forward, the rear offsets k with
        ge(v,k,t+1) & -ge(v,k,t), i.e. off < k <= off', are exactly the rear offsets of the
        cells swept by the front: the cell at position k+L-1 is crossed iff that conjunction
        holds. Backward, the cell at position p is crossed iff ge(v,p+1,t) & -ge(v,p+1,t+1)
        (off' <= p < off). So "a crossed cell is free at t" is, per cell and crossing vehicle
        u, one 4-literal clause: -ge(v,k,t+1) | ge(v,k,t) | -cov(u,c,t) (cov = two literals),
        with no mention of mv or the direction.
`rh-onehot` (RushHourOneHot): one-hot offsets and explicit move actions.
    ("pos", v, o, t)       v at offset o at step t; exactly one per (v, t).
    ("go", v, o, o2, t)    v moves from o to o2 at step t (step metric: o2 = o +- 1; slide: any
                           o2 != o); at most one per (v, t); go -> mv(v,t), mv(v,t) -> OR go.
    ("occ", c, t)          some vehicle covers cell c at step t (pos -> occ; slide only).
    Effects go -> pos(v,o,t), pos(v,o2,t+1). Explanatory frame: pos(v,o,t) & -pos(v,o,t+1) ->
    OR of v's moves from o. Non-overlap: at most one of the pos literals covering a cell
    (CardEnc). Slide: go -> -occ(c,t) for each cell crossed (cells v does not cover at t).
"""
from __future__ import annotations

from typing import Any, Iterable

from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sat.base import Clause, SatEncoding
from puzzleplan.models.rush_hour.board import covering, crossed, trace
from puzzleplan.models.rush_hour.presolve import Geometry

__all__ = ["RushHourOneHot", "RushHourOrder"]

Lit = Any   # an int literal, or the constants True / False (always tested with `is`)


def neg(lit: Lit) -> Lit:
    if lit is True:
        return False
    if lit is False:
        return True
    return -lit


class _RushHourSat(SatEncoding):
    family = "rush-hour"
    commute = True      # the commuting-moves cut (a class switch, for measurements)
    idle_pads = True    # an idle step keeps every offset; no cut forbids one after the goal

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.geo = Geometry(model)
        self.slide = model.metric == "slide"
        self.idle = options.goal == "by"
        self._movable = set(self.geo.movable)

    # -- helpers ------------------------------------------------------------------------------
    def emit(self, out: list[Clause], *lits: Lit) -> None:
        """Append a clause whose literals may be the constants True / False."""
        clause = []
        for lit in lits:
            if lit is True:
                return
            if lit is not False:
                clause.append(lit)
        if not clause:  # every literal false: an unsatisfiable pair of units
            z = self.var("false")
            out += [[z], [-z]]
            return
        out.append(clause)

    def _actions(self, t: int) -> list[Clause]:
        """Movers and idle, the cuts on consecutive actions."""
        out: list[Clause] = []
        acts = [self.var("mv", v, t) for v in self.geo.movable]
        if self.idle:
            acts.append(self.var("idle", t))
            out.append([-self.var("idle", t), -self.var("fwd", t)])
            if self.options.idle_at_end and t > 0:
                out.append([-self.var("idle", t - 1), self.var("idle", t)])
        if acts:
            out += self.exactly_one(acts)
        else:
            out += [[self.var("stuck", t)], [-self.var("stuck", t)]]
        if t > 0 and self.options.no_reversal:
            for v in self.geo.movable:
                a, b = self.var("mv", v, t - 1), self.var("mv", v, t)
                if self.slide:
                    out.append([-a, -b])
                else:
                    f0, f1 = self.var("fwd", t - 1), self.var("fwd", t)
                    out += [[-a, -b, f0, -f1], [-a, -b, -f0, f1]]
        if t > 0 and self.commute:
            out += self._commute(t)
        return out

    def _commute(self, t: int) -> list[Clause]:
        """Forbid moves (u at t-1, v at t), u > v, that commute (see the module docstring)."""
        out: list[Clause] = []
        for u, v, shared in self.geo.ordered:
            a, b = -self.var("mv", u, t - 1), -self.var("mv", v, t)
            if shared is None:
                out.append([a, b])
                continue
            for lits in self._interacts(u, shared[0], v, shared[1], t):
                self.emit(out, a, b, *lits)
        return out

    def _interacts(self, u: int, pu: int, v: int, pv: int, t: int) -> Iterable[list[Lit]]:
        raise NotImplementedError

    # -- goal, cuts ---------------------------------------------------------------------------
    def goal(self, horizon: int) -> list[Clause]:
        out: list[Clause] = []
        p, g = self.geo.primary, self.geo.goal
        for lits in self.at_offset(p, g, horizon):
            self.emit(out, *lits)
        return out

    def cuts(self, horizon: int) -> list[Clause]:
        out: list[Clause] = []
        if not self.options.distance_cuts:
            return out
        p = self.geo.primary
        for t in range(horizon + 1):
            for o in range(self.geo.lo[p], self.geo.hi[p] + 1):
                if not self.geo.distance_ok(o, t, horizon, self.model.metric):
                    self.emit(out, *self.not_at_offset(p, o, t))
        return out

    def at_offset(self, v: int, o: int, t: int) -> list[list[Lit]]:
        raise NotImplementedError

    def not_at_offset(self, v: int, o: int, t: int) -> list[Lit]:
        raise NotImplementedError


class RushHourOrder(_RushHourSat):
    """Order-encoded offsets ("offset >= j" bits), mover and direction bits."""

    name = "rh-order"

    def ge(self, v: int, j: int, t: int) -> Lit:
        if j <= self.geo.lo[v]:
            return True
        if j > self.geo.hi[v]:
            return False
        return self.var("ge", v, j, t)

    def cov(self, v: int, p: int, t: int) -> tuple[Lit, Lit]:
        """v covers position p at t iff a & -b for the returned (a, b)."""
        offsets = covering(self.geo.length[v], p)
        return self.ge(v, offsets.start, t), self.ge(v, offsets.stop, t)

    def at_offset(self, v: int, o: int, t: int) -> list[list[Lit]]:
        return [[self.ge(v, o, t)], [neg(self.ge(v, o + 1, t))]]

    def not_at_offset(self, v: int, o: int, t: int) -> list[Lit]:
        return [neg(self.ge(v, o, t)), self.ge(v, o + 1, t)]

    def offset(self, true: set[int], v: int, t: int) -> int:
        o = self.geo.lo[v]
        while o < self.geo.hi[v] and self.var("ge", v, o + 1, t) in true:
            o += 1
        return o

    def _state(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        geo = self.geo
        for v in geo.movable:
            for j in range(geo.lo[v] + 1, geo.hi[v]):
                out.append([-self.var("ge", v, j + 1, t), self.var("ge", v, j, t)])
        for u, pu, v, pv in geo.crossings:
            a, b = self.cov(u, pu, t)
            c, d = self.cov(v, pv, t)
            self.emit(out, neg(a), b, neg(c), d)
        for u, v in geo.same_line:
            for j in range(geo.lo[u] + 1, geo.hi[u] + 1):
                self.emit(out, neg(self.ge(u, j, t)), self.ge(v, j + geo.length[u], t))
        return out

    def initial(self) -> list[Clause]:
        out = self._state(0)
        for v in self.geo.movable:
            for lits in self.at_offset(v, self.geo.start[v], 0):
                self.emit(out, *lits)
        return out

    def layer(self, t: int) -> list[Clause]:
        geo = self.geo
        out = self._state(t + 1) + self._actions(t)
        fwd = self.var("fwd", t)
        for v in geo.movable:
            m = self.var("mv", v, t)
            lo, hi = geo.lo[v], geo.hi[v]
            for j in range(lo + 1, hi + 1):
                x, y = self.var("ge", v, j, t), self.var("ge", v, j, t + 1)
                out += [[m, -x, y], [m, x, -y]]
            if self.slide:
                for j in range(lo, hi + 1):
                    self.emit(out, -m, -fwd, neg(self.ge(v, j, t)), self.ge(v, j + 1, t + 1))
                    self.emit(out, -m, fwd, neg(self.ge(v, j, t + 1)), self.ge(v, j + 1, t))
            else:
                for j in range(lo + 1, hi + 1):
                    self.emit(out, neg(self.ge(v, j, t)), self.ge(v, j - 1, t + 1))
                    self.emit(out, neg(self.ge(v, j, t + 1)), self.ge(v, j - 1, t))
                for j in range(lo + 1, hi + 2):
                    self.emit(out, -m, -fwd, neg(self.ge(v, j - 1, t)), self.ge(v, j, t + 1))
                for j in range(lo, hi + 1):
                    self.emit(out, -m, fwd, neg(self.ge(v, j, t + 1)), self.ge(v, j + 1, t))
        if self.slide:
            out += self._crossed(t)
        return out

    def _crossed(self, t: int) -> list[Clause]:
        """Slide: every cell a mover crosses is free at step t (one clause per cell and crosser)."""
        out: list[Clause] = []
        geo = self.geo
        for u, pu, v, pv in geo.crossings:
            for mover, p, other, q in ((u, pu, v, pv), (v, pv, u, pu)):
                a, b = self.cov(other, q, t)
                k = p - geo.length[mover] + 1      # forward: rear offset k with off < k <= off'
                self.emit(out, neg(self.ge(mover, k, t + 1)), self.ge(mover, k, t), neg(a), b)
                # backward: off' <= p < off
                self.emit(out, neg(self.ge(mover, p + 1, t)), self.ge(mover, p + 1, t + 1), neg(a), b)
        return out

    def _interacts(self, u: int, pu: int, v: int, pv: int, t: int) -> Iterable[list[Lit]]:
        L = self.geo.length
        if not self.slide:
            a, b = self.cov(u, pu, t - 1)          # u covered the shared cell before its move
            c, d = self.cov(v, pv, t + 1)          # v covers it after its move
            return [[a], [neg(b)], [c], [neg(d)]]
        out = []
        for w, p, s in ((u, pu, t - 1), (v, pv, t)):
            # the trace of w over step s contains p: not both offsets > p, not both < p-L+1
            out.append([neg(self.ge(w, p + 1, s)), neg(self.ge(w, p + 1, s + 1))])
            out.append([self.ge(w, p - L[w] + 1, s), self.ge(w, p - L[w] + 1, s + 1)])
        return out

    def decode(self, true: set[int], horizon: int) -> list[str]:
        moves = []
        for t in range(horizon):
            for v in self.geo.movable:
                if self.var("mv", v, t) in true:
                    delta = self.offset(true, v, t + 1) - self.offset(true, v, t)
                    moves.append(self.geo.move_name(v, delta))
        return moves


class RushHourOneHot(_RushHourSat):
    """One-hot offsets and explicit (vehicle, from, to) move actions."""

    name = "rh-onehot"

    def pos(self, v: int, o: int, t: int) -> Lit:
        if not self.geo.lo[v] <= o <= self.geo.hi[v]:
            return False
        if self.geo.lo[v] == self.geo.hi[v]:
            return True
        return self.var("pos", v, o, t)

    def at_offset(self, v: int, o: int, t: int) -> list[list[Lit]]:
        return [[self.pos(v, o, t)]]

    def not_at_offset(self, v: int, o: int, t: int) -> list[Lit]:
        return [neg(self.pos(v, o, t))]

    def moves_of(self, v: int) -> list[tuple[int, int]]:
        return self.geo.moves_of(v, self.slide)

    def go(self, v: int, o: int, o2: int, t: int) -> int:
        return self.var("go", v, o, o2, t)

    def covers(self, v: int, p: int, t: int) -> list[Lit]:
        """The pos literals of v covering position p of its line at step t."""
        return [self.pos(v, o, t) for o in self.geo.covering_offsets(v, p)]

    def _state(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        geo = self.geo
        for v in geo.movable:
            out += self.exactly_one([self.var("pos", v, o, t) for o in range(geo.lo[v], geo.hi[v] + 1)])
        for cell, cov in geo.coverers.items():
            lits = [x for v, p in cov if v in self._movable for x in self.covers(v, p, t)]
            out += self.at_most_one(lits)
            if self.slide:
                for x in lits:
                    out.append([-x, self.var("occ", cell, t)])
        return out

    def initial(self) -> list[Clause]:
        out = self._state(0)
        for v in self.geo.movable:
            out.append([self.var("pos", v, self.geo.start[v], 0)])
        return out

    def layer(self, t: int) -> list[Clause]:
        geo = self.geo
        out = self._state(t + 1) + self._actions(t)
        fwd = self.var("fwd", t)
        for v in geo.movable:
            m = self.var("mv", v, t)
            moves = self.moves_of(v)
            gos = [self.go(v, o, o2, t) for o, o2 in moves]
            out.append([-m] + gos)
            out += self.at_most_one(gos)
            leaving: dict[int, list[int]] = {}
            for (o, o2), g in zip(moves, gos):
                leaving.setdefault(o, []).append(g)
                out += [[-g, m], [-g, self.var("pos", v, o, t)], [-g, self.var("pos", v, o2, t + 1)],
                        [-g, fwd if o2 > o else -fwd]]
                if self.slide:
                    for p in crossed(o, o2, geo.length[v]):
                        out.append([-g, -self.var("occ", geo.cell(v, p), t)])
                elif self.options.no_reversal and t > 0:
                    out.append([-g, -self.go(v, o2, o, t - 1)])
            for o in range(geo.lo[v], geo.hi[v] + 1):
                out.append([-self.var("pos", v, o, t), self.var("pos", v, o, t + 1)] + leaving[o])
        return out

    def _interacts(self, u: int, pu: int, v: int, pv: int, t: int) -> Iterable[list[Lit]]:
        geo = self.geo
        if not self.slide:
            return [self.covers(u, pu, t - 1), self.covers(v, pv, t + 1)]
        out = []
        for w, p, s in ((u, pu, t - 1), (v, pv, t)):
            L = geo.length[w]
            out.append([self.go(w, o, o2, s) for o, o2 in self.moves_of(w) if p in trace(o, o2, L)])
        return out

    def decode(self, true: set[int], horizon: int) -> list[str]:
        moves = []
        for t in range(horizon):
            for v in self.geo.movable:
                for o, o2 in self.moves_of(v):
                    if self.go(v, o, o2, t) in true:
                        moves.append(self.geo.move_name(v, o2 - o))
        return moves
