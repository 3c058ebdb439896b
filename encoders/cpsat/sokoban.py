"""A CP-SAT encoding of Sokoban under the `moves` metric: an integer player on a move table,
boolean boxes with enforced effects, and a linear box count and distance bound per step.

`cp-sok` (SokobanCp). Cells and box cells as in encoders/sat/sokoban.py (box cells: floor cells
that are not dead squares).
    pos_t in the floor cells (domain cut by the player-goal distance), act_t in {u, d, l, r}
        (0..3) plus idle (4) under `goal: by`; (pos_t, act_t, pos_t+1) is in the table of legal
        steps (a wall never appears in it; idle keeps the cell).
    at_c_t <-> pos_t == c and dir_k_t <-> act_t == k, channelled with AddMapDomain.
    box_c_t booleans for the box cells (a constant 0 where the distance cut rules the cell out).
    push_t = box[pos_t+1]_t (element): the player steps onto a cell that held a box.
    Never on a box: at_c_t -> -box_c_t.
    Effects, enforced on (at_c_t+1, box_c_t, dir_d_t): the box moves on to k, the cell beyond c
        in d: box_k_t+1 and -box_k_t (infeasible when k is a wall or a dead square).
    Frame: box_c_t -> box_c_t+1 | at_c_t+1 (a box stays unless the player steps onto it).
    Count: sum_c box_c_t == number of boxes at every step, which with the frame and the effects
        leaves no room for a box to appear anywhere but where it was pushed.
    Frozen patterns (every plan, every step): OR_c -box_c_t over each set of box cells that
        freezes with a box off a goal (encoders/sat/sokoban_deadlock.py).
Cuts (options):
    distance_cuts: box_c_t is the constant 0 when the push distance from c to the nearest goal
        exceeds T - t, the player's domain at t keeps the cells within T - t walking steps of
        the player goal, and sum_c near(c) * box_c_t <= T - t (every push changes one box's
        nearest-goal push distance by at most one, so the sum bounds the moves left).
        Pattern bounds (encoders/sat/sokoban_bound.py, the tables sok-onehot reads): for one
        box, and for two when the level has three or more, with the player on p, the fewest
        moves that pattern alone needs to reach goals and to be reached from the start. Every
        plan replayed on the level holding only the pattern's boxes is a plan of the pattern
        with the same moves (pushes of other boxes become walks), so a plan of <= T moves never
        has the pattern with the player on p at step t when the first exceeds T - t or the
        second exceeds t. Per pattern and step: box_c_t constant 0 (one box, every player cell
        ruled out), OR -box (two boxes, every cell ruled out), or, enforced by the pattern's
        boxes, pos_t in the cells left (one linear constraint on pos_t instead of a clause per
        cell).
    no_reversal (`goal: by` only): a walk d at t-1 followed by the opposite direction at t.
    idle_at_end (`goal: by`): idle_t -> idle_t+1.
    parity: every move takes the player to a neighbouring cell, so its cell's chessboard colour
        changes at every move. Under `exact`, pos_t's domain keeps the start's colour exactly
        when t is even; under `by` with idle_at_end (idle steps come last, so a step that is not
        idle follows only moves), -idle_t enforces that colour rule on pos_t+1. Holds for every
        plan (padded with idle at the end), so UNSAT still proves no plan of <= T moves.
Only the `moves` metric is encoded: under `pushes` the constructor raises ValueError.
`add_hint(moves)` replays the plan (padding with idle) and hints pos, act and the boxes.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any


from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sat.sokoban import SokobanLevel, check_metric
from puzzleplan.encoders.sat.sokoban_bound import PatternBounds
from puzzleplan.encoders.sat.sokoban_deadlock import frozen_patterns
from puzzleplan.encoders.cpsat.base import CpEncoding, cp_model
from puzzleplan.models.sokoban.analysis import INF
from puzzleplan.models.sokoban.level import DIRS, OPPOSITE, PUSH, WALK, steps

IDLE = 4


class SokobanCp(SokobanLevel, CpEncoding):
    """Integer player on a step table, boolean boxes, a box count and a distance sum per step,
    pattern bounds and the player's chessboard parity."""

    family = "sokoban"
    name = "cp-sok"
    metrics = ("moves",)

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        check_metric(model, self.name)
        super().__init__(model, options)
        self.read_level(model, options)
        self.pos: list[Any] = []
        self.act: list[Any] = []
        self.box: list[dict[int, Any]] = []
        self._false: Any = None
        self.patterns = frozen_patterns(model, self.boxable)
        self.bounds = PatternBounds(model, self.boxable, len(self.start_boxes)) if options.distance_cuts else None
        self._off: dict[int, set[int]] = {}
        self._ruled_out: dict[int, dict[tuple[int, ...], set[int]]] = {}

    def _box_allowed(self, c: int, t: int, horizon: int) -> bool:
        if not self.boxable[c] or c in self._off.get(t, ()):
            return False
        return not (self.options.distance_cuts and self.near[c] > horizon - t)

    def _player_cells(self, t: int, horizon: int) -> list[int]:
        pg_dist = self.model.pg_dist
        # `exact`: the colour is fixed by t alone
        cells = self.colour_cells(t) if self.options.parity and not self.idle else list(range(self.n))
        if not self.options.distance_cuts or pg_dist is None:
            return cells
        return [c for c in cells if pg_dist[c] <= horizon - t]

    def _read_bounds(self, horizon: int) -> None:
        """Sort the pattern bounds' forbidden (boxes, player, step) triples: single boxes with
        every player cell ruled out (constant 0) and, per step and pattern, the player's cells
        ruled out (None: all of them)."""
        self._off = defaultdict(set)
        self._ruled_out = defaultdict(dict)
        if self.bounds is None:
            return
        for cells, p, t in self.bounds.forbidden(horizon):
            if p is None and len(cells) == 1:
                self._off[t].add(cells[0])
                continue
            players = self._ruled_out[t].setdefault(cells, set())
            if p is None:
                players.update(range(self.n))
            else:
                players.add(p)

    def _add_bounds(self, t: int, cells: list[int], boxes: dict[int, Any]) -> None:
        """The pattern bounds at step t: the player is off the ruled-out cells while the
        pattern's boxes stand (no box variable: nothing to forbid)."""
        cp = self.cp
        for pattern, players in self._ruled_out.get(t, {}).items():
            lits = [boxes[c] for c in pattern]
            if any(b is self._false for b in lits):
                continue
            left = [c for c in cells if c not in players and c not in pattern]
            if not left:
                cp.AddBoolOr([b.Not() for b in lits])
            elif len(left) < len(cells):
                cp.AddLinearExpressionInDomain(self.pos[t], cp_model.Domain.FromValues(left)).OnlyEnforceIf(lits)

    def _add_parity(self, t: int, dt: list[Any]) -> None:
        """Under `by` with idle_at_end: a step t that is not idle puts the player at t+1 on the
        start's colour when t+1 is even, else on the other one."""
        if not (self.options.parity and self.idle and self.options.idle_at_end):
            return
        self.cp.AddLinearExpressionInDomain(self.pos[t + 1], cp_model.Domain.FromValues(self.colour_cells(t + 1))
                                            ).OnlyEnforceIf(dt[IDLE].Not())

    def build(self, horizon: int) -> cp_model.CpModel:
        self.cp = cp = cp_model.CpModel()
        T, n, nbr = horizon, self.n, self.nbr
        self._false = false = cp.NewConstant(0)
        nboxes = len(self.start_boxes)
        top = IDLE if self.idle else 3
        self._read_bounds(T)
        self.pos, self.act, self.box = [], [], []
        at: list[list[Any]] = []
        for t in range(T + 1):
            self.tick()
            cells = self._player_cells(t, T) or [self.model.start_player]
            p = cp.NewIntVarFromDomain(cp_model.Domain.FromValues(cells), f"pos_t{t}")
            row = [cp.NewBoolVar(f"at_{c}_t{t}") for c in range(n)]
            cp.AddMapDomain(p, row)
            boxes = {c: cp.NewBoolVar(f"box_{c}_t{t}") if self._box_allowed(c, t, T) else false
                     for c in range(n)}
            for c in range(n):
                if self.boxable[c]:
                    cp.AddImplication(row[c], boxes[c].Not())
            cp.Add(sum(boxes.values()) == nboxes)
            for pattern in self.patterns:
                if all(boxes[c] is not false for c in pattern):
                    cp.AddBoolOr([boxes[c].Not() for c in pattern])
            if self.options.distance_cuts:
                cp.Add(sum(self.near[c] * b for c, b in boxes.items() if self.near[c] < INF) <= T - t)
            self.pos.append(p)
            at.append(row)
            self.box.append(boxes)
            self._add_bounds(t, cells, boxes)
        table = [(c, d, j) for c in range(n) for d, j in enumerate(nbr[c]) if j >= 0]
        if self.idle:
            table += [(c, IDLE, c) for c in range(n)]
        pushes = []
        dirs: list[list[Any]] = []
        for t in range(T):
            self.tick()
            a = cp.NewIntVar(0, top, f"act_t{t}")
            self.act.append(a)
            cp.AddAllowedAssignments([self.pos[t], a, self.pos[t + 1]], table)
            dt = [cp.NewBoolVar(f"dir_{k}_t{t}") for k in range(top + 1)]
            cp.AddMapDomain(a, dt)
            dirs.append(dt)
            self._add_parity(t, dt)
            push = cp.NewBoolVar(f"push_t{t}")
            cp.AddElement(self.pos[t + 1], [self.box[t][c] for c in range(n)], push)
            pushes.append(push)
            for c in range(n):
                if not self.boxable[c]:
                    continue
                x0, x1, enter = self.box[t][c], self.box[t + 1][c], at[t + 1][c]
                cp.AddBoolOr([x0.Not(), x1, enter])
                for d in range(4):
                    k = nbr[c][d]
                    when = [enter, x0, dt[d]]
                    if k < 0 or not self.boxable[k]:
                        cp.AddBoolOr([lit.Not() for lit in when])
                    else:
                        cp.AddBoolAnd([self.box[t + 1][k], self.box[t][k].Not()]).OnlyEnforceIf(when)
            if t > 0 and self.idle:
                if self.options.no_reversal:
                    for d in range(4):
                        cp.AddBoolOr([dirs[t - 1][d].Not(), pushes[t - 1], dt[OPPOSITE[d]].Not()])
                if self.options.idle_at_end:
                    cp.AddImplication(dirs[t - 1][IDLE], dt[IDLE])
        cp.Add(self.pos[0] == self.model.start_player)
        if self.hopeless:
            cp.Add(false == 1)            # a stray box or goal: unsolvable
        start = set(self.start_boxes)
        for c in range(n):
            b = self.box[0][c]
            if c in start and b is false:
                cp.Add(false == 1)        # a box starts on a dead square (or out of reach)
            elif b is not false:
                cp.Add(b == int(c in start))
        for g in self.model.goal_cells:
            cp.Add(self.box[T][g] == 1)
        if self.model.pg is not None:
            cp.Add(self.pos[T] == self.model.pg)
        return cp

    def decode(self, solver: cp_model.CpSolver, horizon: int) -> list[str]:
        moves = []
        for t, a in enumerate(self.act):
            d = solver.Value(a)
            if d == IDLE:
                continue
            j = self.nbr[solver.Value(self.pos[t])][d]
            push = j >= 0 and bool(solver.Value(self.box[t][j]))
            moves.append(PUSH[d] if push else WALK[d])
        return moves

    def add_hint(self, moves: list[str]) -> None:
        """Hint a plan (LURD letters); steps past its end are idle. Illegal letters stop the hint."""
        p, boxes = self.model.start_player, self.model.start_boxes
        for t in range(len(self.pos)):
            self._hint_state(t, p, boxes)
            if t >= len(self.act):
                break
            if t < len(moves):
                d = DIRS.find(moves[t].lower())
                step = next((s for s in steps(self.model.ahead, p, boxes) if s[0] == d), None)
                if step is None:
                    return
                _, j, k = step
                if k >= 0:
                    boxes ^= (1 << j) ^ (1 << k)
                p = j
            elif self.idle:
                d = IDLE
            else:
                return
            self.cp.AddHint(self.act[t], d)

    def _hint_state(self, t: int, p: int, boxes: int) -> None:
        self.cp.AddHint(self.pos[t], p)
        for c, b in self.box[t].items():
            if b is self._false:
                continue
            self.cp.AddHint(b, boxes >> c & 1)
