"""Two CP-SAT encodings of Rush Hour (both metrics) with step variables.

Both start from the `Geometry` presolve of models/rush_hour/presolve.py (shared with the SAT
encodings; cells, moves and the move notation are models/rush_hour/board.py's): offsets stay in
intervals [lo, hi], fixed vehicles and walls need no constraints at all. Shared action layer:
Shared action layer:
    mv_v_t (bool) vehicle v moves at step t; AddExactlyOne over the movers (and idle_t under
    `goal: by`). fwd_t (bool): the move is right/down; idle_t -> not fwd_t.
Cuts (options): no_reversal (step metric: no immediate move back; slide metric: a vehicle never
moves at two consecutive steps), idle_at_end (idle_t -> idle_t+1), distance_cuts (the
primary's offset at step t is within T - t of the goal offset under step, the goal at T under
slide: domain restrictions). Always on: the commuting-moves cut of the SAT encodings (moves of
vehicles u > v at t-1, t that could be swapped are forbidden; see encoders/sat/rush_hour.py).

`cp-rh-int` (RushHourInt): integer offsets and the mover's index.
    off_v_t in [lo_v, hi_v] (the primary's domain shrunk by the distance cut); mover_t in 0..n
    (n = idle) with mover_t == sum v*mv_v_t + n*idle_t. Move semantics as linear constraints
    with OnlyEnforceIf: off_v_t+1 == off_v_t unless mv_v_t; step: off_v_t+1 == off_v_t + 1
    under [mv_v_t, fwd_t], - 1 under [mv_v_t, not fwd_t]; slide: >= off_v_t + 1 / <= off_v_t - 1.
    Vehicles on one line: off_u_t + L_u <= off_v_t.
    Geometry through booleans channelled from the offsets: ge_v_k_t <-> off_v_t >= k (created
    only for the thresholds used: k = p - L + 1 and p + 1 at the crossing position p). "v covers
    its crossing cell" is ge_v_(p-L+1)_t & not ge_v_(p+1)_t, so non-overlap of two crossing
    vehicles and, under slide, "a crossed cell is free at t" are the 4-literal clauses of the
    SAT order encoding (AddBoolOr) over these channelled literals.
    A documented alternative (class attribute overlap = "2d"): per step, the *trace* of each
    vehicle (the segment from min(off_t, off_t+1) to max(off_t, off_t+1) + L - 1, i.e. both
    positions and every crossed cell) as a rectangle, and one AddNoOverlap2D over them. It is
    compact but propagates far less: on seed 000 (slide) 112 s for SAT at 49 against 2.6 s.
`cp-rh-bool` (RushHourBool): the CP form of the SAT one-hot model.
    pos_v_o_t booleans with AddExactlyOne per (v, t); go_v_o_o2_t move actions with
    sum(go of v at t) == mv_v_t; go -> pos_v_o_t, pos_v_o2_t+1 and the direction bit;
    explanatory frame pos_v_o_t & not pos_v_o_t+1 -> OR of v's moves from o (AddBoolOr).
    occ_c_t == sum of the pos literals covering cell c (so at most one vehicle per cell);
    slide: go -> not occ_c_t for each cell it crosses.
"""
from __future__ import annotations

from typing import Any


from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.cpsat.base import CpEncoding, cp_model
from puzzleplan.models.rush_hour.board import covering, crossed, trace
from puzzleplan.models.rush_hour.presolve import Geometry


class _RushHourCp(CpEncoding):
    family = "rush-hour"
    commute = True

    def moves_of(self, v: int) -> list[tuple[int, int]]:
        return self.geo.moves_of(v, self.slide)

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.geo = Geometry(model)
        self.slide = model.metric == "slide"
        self.idle_ok = options.goal == "by"
        self._movable = set(self.geo.movable)

    def _infeasible(self) -> None:
        self.cp.AddBoolOr([self.cp.NewConstant(0)])

    def _fixed_primary_check(self, horizon: int) -> None:
        """A primary that never moves must already stand at its goal."""
        p = self.geo.primary
        if p not in self._movable and not (self.geo.start[p] == self.geo.goal and
                                           self.allowed(p, self.geo.goal, horizon, horizon)):
            self._infeasible()

    def allowed(self, v: int, o: int, t: int, horizon: int) -> bool:
        """Whether v may be at offset o at step t (the primary's distance cut)."""
        if v != self.geo.primary:
            return True
        if t == horizon and o != self.geo.goal:
            return False
        return not self.options.distance_cuts or self.geo.distance_ok(o, t, horizon, self.model.metric)

    def _actions(self, horizon: int) -> None:
        """mv, idle and fwd booleans with the exactly-one rule and the cuts between steps."""
        cp, geo = self.cp, self.geo
        false = cp.NewConstant(0)
        self.mv = [{v: cp.NewBoolVar(f"mv_{v}_t{t}") for v in geo.movable} for t in range(horizon)]
        self.idle = [cp.NewBoolVar(f"idle_t{t}") if self.idle_ok else false for t in range(horizon)]
        self.fwd = [cp.NewBoolVar(f"fwd_t{t}") for t in range(horizon)]
        for t in range(horizon):
            acts = list(self.mv[t].values()) + ([self.idle[t]] if self.idle_ok else [])
            if acts:
                cp.AddExactlyOne(acts)
            else:
                self._infeasible()                      # exact T >= 1 and nothing can move
            if self.idle_ok:
                cp.AddImplication(self.idle[t], self.fwd[t].Not())
            if t == 0:
                continue
            if self.idle_ok and self.options.idle_at_end:
                cp.AddImplication(self.idle[t - 1], self.idle[t])
            if self.options.no_reversal:
                for v in geo.movable:
                    a, b = self.mv[t - 1][v].Not(), self.mv[t][v].Not()
                    if self.slide:
                        cp.AddBoolOr([a, b])
                    else:
                        f0, f1 = self.fwd[t - 1], self.fwd[t]
                        cp.AddBoolOr([a, b, f0, f1.Not()])
                        cp.AddBoolOr([a, b, f0.Not(), f1])

    def _commute_cuts(self, horizon: int) -> None:
        """Forbid commuting moves of u > v at steps t-1, t (after the rest of the model)."""
        cp, geo = self.cp, self.geo
        if not self.commute:
            return
        for t in range(1, horizon):
            for u, v, shared in geo.ordered:
                both = [self.mv[t - 1][u], self.mv[t][v]]
                if shared is None:
                    cp.AddBoolOr([x.Not() for x in both])
                else:
                    self._interacts(u, shared[0], v, shared[1], t, both)

    def _interacts(self, u: int, pu: int, v: int, pv: int, t: int, both: list[Any]) -> None:
        raise NotImplementedError

    def _hint_actions(self, steps: list[tuple[list[int], int | None, int]]) -> None:
        for t in range(len(self.fwd)):
            _, mover, delta = steps[t] if t < len(steps) else (None, None, 0)
            if mover is None and not self.idle_ok:
                break
            self.cp.AddHint(self.fwd[t], int(delta > 0))
            if self.idle_ok:
                self.cp.AddHint(self.idle[t], int(mover is None))
            for v, b in self.mv[t].items():
                self.cp.AddHint(b, int(v == mover))

    def decode(self, solver: cp_model.CpSolver, horizon: int) -> list[str]:
        moves = []
        for t in range(horizon):
            for v, b in self.mv[t].items():
                if solver.Value(b):
                    moves.append(self.geo.move_name(v, self._delta(solver, v, t)))
        return moves

    def _delta(self, solver: cp_model.CpSolver, v: int, t: int) -> int:
        raise NotImplementedError


class RushHourInt(_RushHourCp):
    """Integer offsets and mover index; geometry through channelled "offset >= k" literals."""

    name = "cp-rh-int"
    overlap = "cells"      # or "2d": one AddNoOverlap2D of trace rectangles per step (slower)

    def build(self, horizon: int) -> cp_model.CpModel:
        self.cp = cp = cp_model.CpModel()
        geo, T = self.geo, horizon
        n = geo.n
        self.true, self.false = cp.NewConstant(1), cp.NewConstant(0)
        self._ge: dict[tuple[int, int, int], Any] = {}
        self.off: list[dict[int, Any]] = []
        for t in range(T + 1):
            self.tick()
            row = {}
            for v in geo.movable:
                values = [o for o in range(geo.lo[v], geo.hi[v] + 1) if self.allowed(v, o, t, T)]
                if t == 0:
                    values = [geo.start[v]] if geo.start[v] in values else []
                if not values:
                    values = [geo.lo[v]]
                    self._infeasible()
                row[v] = cp.NewIntVarFromDomain(cp_model.Domain.FromValues(values), f"off_{v}_t{t}")
            self.off.append(row)
        self._fixed_primary_check(T)
        self._actions(T)
        self.mover = [cp.NewIntVar(0, n, f"mover_t{t}") for t in range(T)]
        for t in range(T):
            self.tick()
            cp.Add(self.mover[t] == sum(v * b for v, b in self.mv[t].items()) + n * self.idle[t])
        for u, v in geo.same_line:
            for t in range(T + 1):
                cp.Add(self.off[t][u] + geo.length[u] <= self.off[t][v])
        for t in range(T):
            for v in geo.movable:
                a, b, m, fwd = self.off[t][v], self.off[t + 1][v], self.mv[t][v], self.fwd[t]
                cp.Add(b == a).OnlyEnforceIf(m.Not())
                if self.slide:
                    cp.Add(b >= a + 1).OnlyEnforceIf([m, fwd])
                    cp.Add(b <= a - 1).OnlyEnforceIf([m, fwd.Not()])
                else:
                    cp.Add(b == a + 1).OnlyEnforceIf([m, fwd])
                    cp.Add(b == a - 1).OnlyEnforceIf([m, fwd.Not()])
        if self.overlap == "2d":
            self._traces(T)
        else:
            self._cells(T)
        self._commute_cuts(T)
        return cp

    # -- geometry -------------------------------------------------------------------------------
    def ge(self, v: int, k: int, t: int) -> Any:
        """The literal off_v_t >= k (channelled once, cached); constants outside (lo, hi]."""
        if k <= self.geo.lo[v]:
            return self.true
        if k > self.geo.hi[v]:
            return self.false
        key = (v, k, t)
        if key not in self._ge:
            b = self._ge[key] = self.cp.NewBoolVar(f"ge_{v}_{k}_t{t}")
            self.cp.Add(self.off[t][v] >= k).OnlyEnforceIf(b)
            self.cp.Add(self.off[t][v] <= k - 1).OnlyEnforceIf(b.Not())
        return self._ge[key]

    def _neg(self, x: Any) -> Any:
        return self.false if x is self.true else self.true if x is self.false else x.Not()

    def _clause(self, lits: list[Any]) -> None:
        if any(x is self.true for x in lits):
            return
        lits = [x for x in lits if x is not self.false]
        if lits:
            self.cp.AddBoolOr(lits)
        else:
            self._infeasible()

    def _off(self, v: int, p: int, t: int) -> list[Any]:
        """Two literals, one of which holds unless v covers position p of its line at step t."""
        offsets = covering(self.geo.length[v], p)
        return [self._neg(self.ge(v, offsets.start, t)), self.ge(v, offsets.stop, t)]

    def _cells(self, horizon: int) -> None:
        """Crossing vehicles never share their cell; slide: crossed cells are free (clauses)."""
        geo, L = self.geo, self.geo.length
        for t in range(horizon + 1):
            for u, pu, v, pv in geo.crossings:
                lits = self._off(u, pu, t) + self._off(v, pv, t)
                if t > 0:
                    self._clause(lits)
                if self.slide and t < horizon:
                    for mover, p, other, q in ((u, pu, v, pv), (v, pv, u, pu)):
                        free = self._off(other, q, t)
                        k = p - L[mover] + 1
                        self._clause([self._neg(self.ge(mover, k, t + 1)), self.ge(mover, k, t)] + free)
                        self._clause([self._neg(self.ge(mover, p + 1, t)), self.ge(mover, p + 1, t + 1)] + free)

    def _traces(self, horizon: int) -> None:
        """The alternative: trace rectangles of each step in one AddNoOverlap2D."""
        cp, geo = self.cp, self.geo
        for t in range(horizon):
            xs, ys = [], []
            for v in geo.movable:
                a, b = self.off[t][v], self.off[t + 1][v]
                lo, hi, L = geo.lo[v], geo.hi[v], geo.length[v]
                start = cp.NewIntVar(lo, hi, f"trace_start_{v}_t{t}")
                end = cp.NewIntVar(lo + L, hi + L, f"trace_end_{v}_t{t}")
                size = cp.NewIntVar(L, hi - lo + L, f"trace_size_{v}_t{t}")
                cp.AddMinEquality(start, [a, b])
                cp.AddMaxEquality(end, [a + L, b + L])
                along = cp.NewIntervalVar(start, size, end, f"trace_{v}_t{t}")
                across = cp.NewFixedSizeIntervalVar(geo.vehicles[v].line, 1, f"line_{v}_t{t}")
                xs.append(along if geo.vehicles[v].horizontal else across)
                ys.append(across if geo.vehicles[v].horizontal else along)
            if len(xs) > 1:
                cp.AddNoOverlap2D(xs, ys)

    def _interacts(self, u: int, pu: int, v: int, pv: int, t: int, both: list[Any]) -> None:
        cp, L = self.cp, self.geo.length
        if not self.slide:
            # u covered the shared cell before its move, v covers it after its own
            for w, p, s in ((u, pu, t - 1), (v, pv, t + 1)):
                cp.Add(self.off[s][w] >= p - L[w] + 1).OnlyEnforceIf(both)
                cp.Add(self.off[s][w] <= p).OnlyEnforceIf(both)
            return
        for w, p, s in ((u, pu, t - 1), (v, pv, t)):
            # the trace of w over step s contains p
            cp.Add(self.off[s][w] + L[w] - 1 >= p).OnlyEnforceIf(both + [self.fwd[s].Not()])
            cp.Add(self.off[s + 1][w] <= p).OnlyEnforceIf(both + [self.fwd[s].Not()])
            cp.Add(self.off[s][w] <= p).OnlyEnforceIf(both + [self.fwd[s]])
            cp.Add(self.off[s + 1][w] + L[w] - 1 >= p).OnlyEnforceIf(both + [self.fwd[s]])

    def _delta(self, solver: cp_model.CpSolver, v: int, t: int) -> int:
        return solver.Value(self.off[t + 1][v]) - solver.Value(self.off[t][v])

    def decode(self, solver: cp_model.CpSolver, horizon: int) -> list[str]:
        moves = []
        for t in range(horizon):
            v = solver.Value(self.mover[t])
            if v < self.geo.n:
                moves.append(self.geo.move_name(v, self._delta(solver, v, t)))
        return moves

    def add_hint(self, moves: list[str]) -> None:
        steps = self.geo.replay(moves)
        for t, row in enumerate(self.off):
            offsets = steps[min(t, len(steps) - 1)][0]
            if t >= len(steps) and not self.idle_ok:
                break
            for v, x in row.items():
                self.cp.AddHint(x, offsets[v])
        for t, x in enumerate(self.mover):
            if t < len(steps) - 1 or self.idle_ok:
                mover = steps[t][1] if t < len(steps) - 1 else None
                self.cp.AddHint(x, self.geo.n if mover is None else mover)
        self._hint_actions(steps)


class RushHourBool(_RushHourCp):
    """Boolean one-hot offsets, explicit move actions and cell occupancy sums."""

    name = "cp-rh-bool"

    def build(self, horizon: int) -> cp_model.CpModel:
        self.cp = cp = cp_model.CpModel()
        geo, T = self.geo, horizon
        self.false = cp.NewConstant(0)
        self.pos: dict[tuple[int, int, int], Any] = {}     # only the offsets not cut away
        for t in range(T + 1):
            self.tick()
            for v in geo.movable:
                for o in range(geo.lo[v], geo.hi[v] + 1):
                    if self.allowed(v, o, t, T) and (t > 0 or o == geo.start[v]):
                        self.pos[v, o, t] = cp.NewBoolVar(f"pos_{v}_{o}_t{t}")
                row = [self.at(v, o, t) for o in range(geo.lo[v], geo.hi[v] + 1)]
                cp.AddExactlyOne(row)
        self._fixed_primary_check(T)
        self.occ: dict[tuple[tuple[int, int], int], Any] = {}
        for t in range(T + 1):
            for cell, cov in geo.coverers.items():
                lits = [self.pos[v, o, t] for v, q in cov if v in self._movable
                        for o in geo.covering_offsets(v, q) if (v, o, t) in self.pos]
                if len(lits) > 1 or self.slide:
                    x = self.occ[cell, t] = cp.NewBoolVar(f"occ_{cell[0]}_{cell[1]}_t{t}")
                    cp.Add(x == sum(lits))
        self._actions(T)
        self.go: list[dict[tuple[int, int, int], Any]] = []
        for t in range(T):
            self.tick()
            gos = {}
            for v in geo.movable:
                m = self.mv[t][v]
                leaving: dict[int, list[Any]] = {}
                for o, o2 in self.moves_of(v):
                    g = gos[v, o, o2] = cp.NewBoolVar(f"go_{v}_{o}_{o2}_t{t}")
                    leaving.setdefault(o, []).append(g)
                    cp.AddImplication(g, self.at(v, o, t))
                    cp.AddImplication(g, self.at(v, o2, t + 1))
                    cp.AddImplication(g, self.fwd[t] if o2 > o else self.fwd[t].Not())
                    if self.slide:
                        for q in crossed(o, o2, geo.length[v]):
                            cp.AddImplication(g, self.occ[geo.cell(v, q), t].Not())
                    elif self.options.no_reversal and t > 0:
                        cp.AddBoolOr([g.Not(), self.go[t - 1][v, o2, o].Not()])
                cp.Add(sum(leaving_g for gs in leaving.values() for leaving_g in gs) == m)
                for o in range(geo.lo[v], geo.hi[v] + 1):
                    if (v, o, t) in self.pos:
                        cp.AddBoolOr([self.pos[v, o, t].Not(), self.at(v, o, t + 1)] + leaving[o])
            self.go.append(gos)
        self._commute_cuts(T)
        return cp

    def at(self, v: int, o: int, t: int) -> Any:
        return self.pos.get((v, o, t), self.false)

    def _interacts(self, u: int, pu: int, v: int, pv: int, t: int, both: list[Any]) -> None:
        geo, cp = self.geo, self.cp
        nots = [x.Not() for x in both]
        if not self.slide:
            for w, p, s in ((u, pu, t - 1), (v, pv, t + 1)):
                cp.AddBoolOr(nots + [self.at(w, o, s) for o in geo.covering_offsets(w, p)])
            return
        for w, p, s in ((u, pu, t - 1), (v, pv, t)):
            L = geo.length[w]
            cp.AddBoolOr(nots + [self.go[s][w, o, o2] for o, o2 in self.moves_of(w) if p in trace(o, o2, L)])

    def _delta(self, solver: cp_model.CpSolver, v: int, t: int) -> int:
        for o, o2 in self.moves_of(v):
            if solver.Value(self.go[t][v, o, o2]):
                return o2 - o
        raise AssertionError("a mover without a move")

    def add_hint(self, moves: list[str]) -> None:
        steps = self.geo.replay(moves)
        geo = self.geo
        T = len(self.fwd)
        for t in range(T + 1):
            if t >= len(steps) and not self.idle_ok:
                break
            offsets = steps[min(t, len(steps) - 1)][0]
            for v in geo.movable:
                for o in range(geo.lo[v], geo.hi[v] + 1):
                    if (v, o, t) in self.pos:
                        self.cp.AddHint(self.pos[v, o, t], int(offsets[v] == o))
            if t < T:
                _, mover, delta = steps[t] if t < len(steps) else (None, None, 0)
                for (v, o, o2), g in self.go[t].items():
                    self.cp.AddHint(g, int(v == mover and o == offsets[v] and o2 == o + delta))
        self._hint_actions(steps)
