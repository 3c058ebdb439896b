"""A hand-tuned CP-SAT encoding of sliding blocks (Klotski) with step variables, all three metrics.

`cp-blocks` (BlocksCp) states the model's canonical states: per class of look-alike pieces the
SET of anchors it holds, not which piece stands where. A move of class k takes one anchor out of
the set (the piece leaving it) and puts one in (where it arrives); the other pieces of k stand
still. Tracking look-alikes one by one (the first version, measured) multiplies the states by
the orderings of each class (4! * 4! in Klotski), and the proofs with them: 3.5-6x the conflicts
for UNSAT on mini Klotski (step 20, slide 17, piece 16) and on Klotski piece 40.

Presolve (`Geometry`): a class's anchors are those its pieces' unit steps reach on the walls-only
board; a class that cannot move is constant. F = coverable cells - total piece area cells are
free at every step. One move (any metric) makes at most D_k = min(F, component size - 1) unit
steps: with the others fixed the piece's anchors all lie in the F free cells plus its own s, and
m distinct translates of one shape cover at least s + m - 1 cells (order them: each adds its last
cell), so at most F + 1 anchors, joined by a route of at most F steps.

Variables, per step t (0..T):
    at_k_a_t  class k holds anchor a; sum over a == the class's size (constants at t = 0)
    free_c_t  AddExactlyOne(free_c_t, every at literal covering c): no overlap; and the
              redundant sum of free_c_t == F (measured: 2-3x fewer conflicts on mini Klotski)
    mv_k_t (movable classes), idle_t under `by`: exactly one per step; idle only at the end
    out_k_a_t <-> at_k_a_t & !at_k_a_t+1,  in_k_b_t <-> !at_k_b_t & at_k_b_t+1; each sums to mv_k_t
    (so a class that does not move keeps its set, and a moving one swaps one anchor)
Move rule, from the leaving anchor a to the arriving anchor b, through cells "open" at t (free,
or the mover's own: free_c_t or the out literal of an anchor of k whose cells hold c):
    step:  b is a neighbour of a (b's cells are free: no overlap at t+1, the others stand still)
    slide: sl_k_d_b_t: b is reached in direction d: sl -> (out at b-d, or sl at b-d) and b's new
           cells open; in_k_b_t -> some sl_k_d_b_t
    piece: r_k_j_b_t, j = 1..D_k: b reached within j unit steps: r_j -> r_(j-1) at b or at a
           neighbour (r_0 = out_k_._t), and b's cells open; in_k_b_t -> r_D. The layers keep the
           support acyclic (a cycle of "reached" literals would justify itself); D_k layers
           suffice by the bound above (Klotski: F = 2, two layers).
Goal at T: at_k_a_T for each target a of a goal class (the size fixes the rest); exit_goal: the
leaving piece's class at one of its anchors outside.
Cuts (options): distance_cuts (walls-only distances in the metric's relaxation: a move is at most
D_k unit steps, in a line under slide, one under step; at_k_a_t needs a within t of a start of k
and, for a goal class, within T - t of a target; the sum of a goal class's distances <= T - t);
no_reversal (the piece that arrived at t does not leave at t+1 (piece), nor go straight back
(step), nor move along the same axis (slide): such a pair merges or cancels, so every shortest
plan meets it); idle_at_end. Tried and left out (conflicts and deterministic time, mini Klotski
and Klotski piece 30): on the one-by-one version a commuting-moves cut (the lower-numbered mover
first when two moves touch no common cell) cost 1.3-1.5x, cumulative progress sums (moves of p
so far >= its distance from start) slowed the LP 3-20x, "open" cells as literals of their own and
an integer anchor channelled beside the one-hot gained nothing; on this version at-most-one plus
a clause for the out/in sums gained nothing.

Solver parameters: CP-SAT's LP relaxation costs more than it prunes here. With
`linearization_level:0` and one worker (measured on mini Klotski: about 4x faster than the
default at a similar number of conflicts; a second default worker runs feasibility jump, no help on
UNSAT), Klotski under `piece` gives a plan at 81 in 312 s and UNSAT at 80 in 377 s.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Iterable


from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.cpsat.base import CpEncoding, cp_model
from puzzleplan.models.base import bits

DIRECTIONS = "UDLR"
HORIZONTAL = frozenset("LR")
Lit = Any        # a CP-SAT literal, or the constants True / False


def _bfs(sources: Iterable[int], edges: dict[int, list[int]]) -> dict[int, int]:
    dist = {a: 0 for a in sources}
    queue = deque(dist)
    while queue:
        a = queue.popleft()
        for b in edges[a]:
            if b not in dist:
                dist[b] = dist[a] + 1
                queue.append(b)
    return dist


def _neg(x: Lit) -> Lit:
    return (not x) if isinstance(x, bool) else x.Not()


class Geometry:
    """The presolve, per class: anchors, cells, neighbours, move bound, walls-only distances."""

    def __init__(self, model: Any) -> None:
        board = model.board
        self.metric = model.metric
        start = model.initial()
        self.span: tuple[tuple[int, int], ...] = tuple(board.class_span)
        self.size = [hi - lo for lo, hi in self.span]
        self.starts = [sorted(start[lo:hi]) for lo, hi in self.span]
        self.succ: list[dict[int, dict[str, int]]] = []       # k -> anchor -> direction -> anchor
        self.masks: list[dict[int, int]] = []
        component = []
        for k, (lo, _) in enumerate(self.span):
            masks = board.masks(lo)
            succ: dict[int, dict[str, int]] = {}
            largest = 0
            for a0 in self.starts[k]:
                seen = len(succ)
                todo = [a0]
                while todo:
                    a = todo.pop()
                    if a not in succ:
                        succ[a] = {d: b for d in DIRECTIONS if (b := board.step(lo, a, d)) is not None}
                        todo.extend(succ[a].values())
                largest = max(largest, len(succ) - seen)
            self.succ.append(succ)
            self.masks.append({a: masks[a] for a in succ})
            component.append(largest)
        self.pred = [{b: {d: a for a, out in succ.items() for d, x in out.items() if x == b} for b in succ}
                     for succ in self.succ]
        self.cells = sorted({c for m in self.masks for mask in m.values() for c in bits(mask)})
        area = sum(len(bits(self.masks[k][a])) for k in range(len(self.span)) for a in self.starts[k])
        self.free = len(self.cells) - area
        self.movable = [k for k in range(len(self.span)) if len(self.succ[k]) > self.size[k]]
        self.depth = [max(1, min(self.free, n - 1)) for n in component]
        self.covers: dict[int, list[tuple[int, int]]] = {c: [] for c in self.cells}   # cell -> (k, a)
        for k, masks in enumerate(self.masks):
            for a, mask in masks.items():
                for c in bits(mask):
                    self.covers[c].append((k, a))
        self.targets = self._targets(model)
        self.from_start = [self.distances(k, self.starts[k]) for k in range(len(self.span))]
        self.to_goal = {k: self.distances(k, ts) for k, ts in self.targets.items()}

    def _targets(self, model: Any) -> dict[int, list[int]]:
        """Goal class -> the anchors its pieces must all stand on (targets), or for the leaving
        piece's class the anchors outside, one of which it must reach."""
        out = {k: list(anchors) for k, anchors in model.goal}
        exit_goal = getattr(model, "exit_goal", None)
        if exit_goal is not None:
            k = model.board.slot_class[exit_goal[0]]
            out[k] = sorted(a for a in exit_goal[1] if a in self.succ[k] and (k not in out or a in out[k]))
        return out

    def moves_of(self, k: int, a: int) -> list[int]:
        """Where one move of class k's piece from a goes on the walls-only board, at most D_k unit
        steps (in one line under slide, one under step): the relaxation behind the distance cuts."""
        succ = self.succ[k]
        if self.metric == "step":
            return list(succ[a].values())
        if self.metric == "slide":
            out = []
            for d in DIRECTIONS:
                b = a
                for _ in range(self.depth[k]):
                    if d not in succ[b]:
                        break
                    b = succ[b][d]
                    out.append(b)
            return out
        near = _bfs([a], {x: list(succ[x].values()) for x in succ})
        return [b for b, j in near.items() if 0 < j <= self.depth[k]]

    def line(self, k: int, d: str) -> list[int]:
        """Class k's anchors that a step in direction d enters, each after the one it comes from."""
        out = []
        for a in self.succ[k]:
            if d not in self.pred[k][a]:
                while d in self.succ[k][a]:
                    a = self.succ[k][a][d]
                    out.append(a)
        return out

    def distances(self, k: int, sources: list[int]) -> dict[int, int]:
        """Walls-only moves from the nearest source to every anchor of class k (the relaxation
        is symmetric: a move's reverse is a move); unreachable anchors are left out."""
        edges = {a: self.moves_of(k, a) for a in self.succ[k]}
        return _bfs([a for a in sources if a in edges], edges)


class BlocksCp(CpEncoding):
    """Anchor sets per class and step, free-cell literals, reach literals per metric."""

    family = "blocks"
    name = "cp-blocks"
    # the CP-SAT parameters it runs best with (see the module docstring), under the caller's own:
    # without the LP relaxation, and one worker (a second default worker only runs feasibility
    # jump, which cannot help an UNSAT proof)
    parameters = "linearization_level:0 num_workers:1"

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        reason = self.supports(model)
        if reason is not None:
            raise ValueError(reason)
        self.geo = Geometry(model)
        self.idle_ok = options.goal == "by"

    @classmethod
    def supports(cls, model: Any) -> str | None:
        """None for a sliding-block model, else why not."""
        if getattr(model, "family", None) != "blocks":
            return f"{cls.__name__} encodes blocks, not {getattr(model, 'family', '?')}"
        board = model.board
        for lo, hi in board.class_span:
            if any(board.masks(slot) != board.masks(lo) for slot in range(lo + 1, hi)):
                return f"{cls.__name__} needs look-alike pieces to share their anchors"
        return None

    # -- literals with constants folded ---------------------------------------------------------
    def _clause(self, lits: Iterable[Lit]) -> None:
        kept = []
        for x in lits:
            if x is True:
                return
            if x is not False:
                kept.append(x)
        self.cp.AddBoolOr(kept or [self.cp.NewConstant(0)])

    def _sum_is(self, lits: Iterable[Lit], total: Any) -> None:
        """sum(lits) == total (a number or a literal), constants folded."""
        lits = list(lits)
        known = sum(1 for x in lits if x is True)
        rest = [x for x in lits if not isinstance(x, bool)]
        if isinstance(total, bool) or isinstance(total, int):
            need = int(total) - known
            if need < 0 or need > len(rest):
                self._clause([])
            elif need == 0:
                for x in rest:
                    self._clause([x.Not()])
            elif need == len(rest):
                for x in rest:
                    self._clause([x])
            elif need == 1:
                self.cp.AddExactlyOne(rest)
            else:
                self.cp.Add(sum(rest) == need)
        elif known == 0 and len(rest) <= 1:
            self._clause([_neg(total)] + rest)
            for x in rest:
                self._clause([x.Not(), total])
        else:
            self.cp.Add(sum(rest) + known == total)

    def _var(self, name: str) -> Lit:
        return self.cp.NewBoolVar(name)

    def at(self, k: int, a: int, t: int) -> Lit:
        return self.pos[t][k].get(a, False)

    def _and_not(self, x: Lit, y: Lit, name: str) -> Lit:
        """A literal equal to x & !y."""
        if x is False or y is True:
            return False
        if y is False:
            return x
        z = self._var(name)
        self._clause([_neg(z), x])
        self._clause([_neg(z), _neg(y)])
        self._clause([z, _neg(x), y])
        return z

    # -- the model ------------------------------------------------------------------------------
    def allowed(self, k: int, a: int, t: int, horizon: int) -> bool:
        """Whether class k may hold anchor a at step t (the distance cuts)."""
        if not self.options.distance_cuts:
            return True
        geo = self.geo
        if k in geo.targets and geo.to_goal[k].get(a, horizon + 1) > horizon - t:
            return False
        return geo.from_start[k].get(a, t + 1) <= t

    def build(self, horizon: int) -> cp_model.CpModel:
        self.cp = cp_model.CpModel()
        self.horizon = T = horizon
        geo = self.geo
        self._sets(T)
        self._cells(T)
        self._actions(T)
        slide_axes = geo.metric == "slide" and self.options.no_reversal
        self.horizontal = [self._var(f"horizontal_t{t}") for t in range(T)] if slide_axes else []
        rule = {"step": self._step, "slide": self._slide, "piece": self._piece}[geo.metric]
        for t in range(T):
            self.tick()
            for k in geo.movable:
                rule(k, t)
        self._goal(T)
        if self.options.no_reversal:
            self._no_reversal(T)
        return self.cp

    def _sets(self, T: int) -> None:
        """at_k_a_t with the class's size; constants at t = 0 and for classes that never move."""
        geo = self.geo
        self.pos: list[list[dict[int, Lit]]] = []
        for t in range(T + 1):
            row = []
            for k in range(len(geo.span)):
                if t == 0 or k not in geo.movable:
                    lits: dict[int, Lit] = {a: True for a in geo.starts[k]}
                    if not all(self.allowed(k, a, t, T) for a in lits):
                        self._clause([])
                else:
                    lits = {a: self._var(f"at_{k}_{a}_t{t}") for a in geo.succ[k] if self.allowed(k, a, t, T)}
                    self._sum_is(lits.values(), geo.size[k])
                row.append(lits)
            self.pos.append(row)

    def _cells(self, T: int) -> None:
        """free_c_t: exactly one of it and the anchors covering c; F cells free at every step."""
        geo = self.geo
        self.free: list[dict[int, Lit]] = []
        for t in range(T + 1):
            row: dict[int, Lit] = {}
            for c in geo.cells:
                cover = [x for x in (self.at(k, a, t) for k, a in geo.covers[c]) if x is not False]
                if any(x is True for x in cover):
                    row[c] = False
                elif not cover:
                    row[c] = True
                else:
                    row[c] = self._var(f"free_{c}_t{t}")
                self._sum_is(cover + [row[c]], 1)
            self.free.append(row)
            self._sum_is(row.values(), geo.free)

    def _actions(self, T: int) -> None:
        """mv_k_t and idle_t (exactly one per step), the frame, out_k_a_t and in_k_b_t."""
        geo = self.geo
        self.mv = [{k: self._var(f"mv_{k}_t{t}") for k in geo.movable} for t in range(T)]
        self.idle = [self._var(f"idle_t{t}") if self.idle_ok else False for t in range(T)]
        self.out: list[dict[int, dict[int, Lit]]] = []
        self.into: list[dict[int, dict[int, Lit]]] = []
        for t in range(T):
            self._sum_is(list(self.mv[t].values()) + [self.idle[t]], 1)
            if t > 0 and self.idle_ok and self.options.idle_at_end:
                self._clause([_neg(self.idle[t - 1]), self.idle[t]])
            outs: dict[int, dict[int, Lit]] = {}
            ins: dict[int, dict[int, Lit]] = {}
            for k, m in self.mv[t].items():
                anchors = set(self.pos[t][k]) | set(self.pos[t + 1][k])
                outs[k], ins[k] = {}, {}
                for a in sorted(anchors):
                    x, y = self.at(k, a, t), self.at(k, a, t + 1)
                    outs[k][a] = self._and_not(x, y, f"out_{k}_{a}_t{t}")
                    ins[k][a] = self._and_not(y, x, f"in_{k}_{a}_t{t}")
                    self._clause([m, _neg(outs[k][a])])
                    self._clause([m, _neg(ins[k][a])])
                self._sum_is(outs[k].values(), m)
                self._sum_is(ins[k].values(), m)
            self.out.append(outs)
            self.into.append(ins)

    def _open(self, k: int, c: int, t: int) -> list[Lit]:
        """Literals one of which holds when cell c is free at t or the mover of class k held it."""
        return [self.free[t][c]] + [self.out[t][k].get(a, False) for q, a in self.geo.covers[c] if q == k]

    def _step(self, k: int, t: int) -> None:
        """step: the arriving anchor neighbours the leaving one."""
        outs = self.out[t][k]
        for b, y in self.into[t][k].items():
            self._clause([_neg(y)] + [outs.get(a, False) for a in self.geo.pred[k][b].values()])

    def _slide(self, k: int, t: int) -> None:
        """slide: sl_k_d_b_t chains back to the leaving anchor in direction d over open cells."""
        geo, outs = self.geo, self.out[t][k]
        sl: dict[tuple[str, int], Lit] = {}
        for d in DIRECTIONS:
            for b in geo.line(k, d):
                a = geo.pred[k][b][d]
                back = [outs.get(a, False), sl.get((d, a), False)]
                if all(x is False for x in back):
                    continue
                s = sl[d, b] = self._var(f"sl_{k}_{d}_{b}_t{t}")
                self._clause([_neg(s)] + back)
                for c in bits(geo.masks[k][b] & ~geo.masks[k][a]):
                    self._clause([_neg(s)] + self._open(k, c, t))
                if self.horizontal:
                    h = self.horizontal[t]
                    self._clause([_neg(s), h if d in HORIZONTAL else _neg(h)])
        for b, y in self.into[t][k].items():
            self._clause([_neg(y)] + [sl.get((d, b), False) for d in DIRECTIONS])

    def _piece(self, k: int, t: int) -> None:
        """piece: r_k_j_b_t, b within j unit steps of the leaving anchor over open cells."""
        geo = self.geo
        prev: dict[int, Lit] = dict(self.out[t][k])
        for j in range(1, geo.depth[k] + 1):
            layer: dict[int, Lit] = {}
            for b in geo.succ[k]:
                support = [prev.get(b, False)] + [prev.get(a, False) for a in geo.pred[k][b].values()]
                if all(x is False for x in support):
                    continue
                r = layer[b] = self._var(f"r_{k}_{j}_{b}_t{t}")
                self._clause([_neg(r)] + support)
                for c in bits(geo.masks[k][b]):
                    self._clause([_neg(r)] + self._open(k, c, t))
            prev = layer
        for b, y in self.into[t][k].items():
            self._clause([_neg(y), prev.get(b, False)])

    # -- goal and cuts --------------------------------------------------------------------------
    def _goal(self, T: int) -> None:
        """Every target of a goal class held at T; the leaving piece at one of its anchors."""
        geo = self.geo
        exit_class = None
        exit_goal = getattr(self.model, "exit_goal", None)
        if exit_goal is not None:
            exit_class = self.model.board.slot_class[exit_goal[0]]
            self._clause([self.at(exit_class, a, T) for a in geo.targets[exit_class]])
        for k, anchors in self.model.goal:
            for a in anchors:
                self._clause([self.at(k, a, T)])
        if not self.options.distance_cuts:
            return
        for k in geo.targets:
            if geo.size[k] < 2 or k == exit_class or k not in geo.movable:
                continue
            for t in range(1, T):
                terms = [(geo.to_goal[k][a], x) for a, x in self.pos[t][k].items() if geo.to_goal[k][a]]
                if terms:
                    self.cp.Add(sum(d * x for d, x in terms) <= T - t)

    def _no_reversal(self, T: int) -> None:
        """The piece that arrived at t does not leave at t+1 (piece), not back (step), not along
        the same axis (slide)."""
        geo = self.geo
        for t in range(1, T):
            for k in geo.movable:
                for b, y in self.into[t - 1][k].items():
                    leave = self.out[t][k].get(b, False)
                    if geo.metric == "piece":
                        self._clause([_neg(y), _neg(leave)])
                    elif geo.metric == "slide":
                        h0, h1 = self.horizontal[t - 1], self.horizontal[t]
                        self._clause([_neg(y), _neg(leave), h0, h1])
                        self._clause([_neg(y), _neg(leave), _neg(h0), _neg(h1)])
                    else:
                        for a in geo.pred[k][b].values():
                            self._clause([_neg(y), _neg(leave), _neg(self.out[t - 1][k].get(a, False)),
                                          _neg(self.into[t][k].get(a, False))])

    # -- reading a solution ---------------------------------------------------------------------
    def state(self, solver: cp_model.CpSolver, t: int) -> tuple[int, ...]:
        """The model's (canonical) state at step t of a solution."""
        out: list[int] = []
        for row in self.pos[t]:
            out.extend(sorted(a for a, x in row.items() if x is True or (x is not False and solver.BooleanValue(x))))
        return tuple(out)

    def decode(self, solver: cp_model.CpSolver, horizon: int) -> list[str]:
        """Replay the solution through the model: at each step the move whose child is the next
        state."""
        model = self.model
        state, moves = model.initial(), []
        for t in range(horizon):
            nxt = self.state(solver, t + 1)
            if nxt == state:
                continue
            action = next(act for act, child in model.successors(state) if child == nxt)
            moves.extend(model.plan_moves([action]))
            state = nxt
        return moves

    def add_hint(self, moves: list[str]) -> None:
        """Hint a plan given as the model's move strings."""
        model, span = self.model, self.geo.span
        states, movers = [model.initial()], []
        for move in moves:
            action, child = next((act, ch) for act, ch in model.successors(states[-1])
                                 if model.plan_moves([act]) == [move])
            movers.append(model.board.slot_class[action[0]])
            states.append(child)
        for t, row in enumerate(self.pos):
            if t >= len(states) and not self.idle_ok:
                break
            state = states[min(t, len(states) - 1)]
            for k, lits in enumerate(row):
                held = set(state[span[k][0]:span[k][1]])
                for a, x in lits.items():
                    if not isinstance(x, bool):
                        self.cp.AddHint(x, int(a in held))
            if t < len(self.mv):
                mover = movers[t] if t < len(movers) else None
                for k, x in self.mv[t].items():
                    self.cp.AddHint(x, int(k == mover))
                if self.idle_ok:
                    self.cp.AddHint(self.idle[t], int(mover is None))
