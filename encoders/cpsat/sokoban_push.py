"""A CP-SAT encoding of Sokoban under the `pushes` metric: one push per step, the player's region
by reachability layers per step (as sok-push, encoders/sat/sokoban_push.py), the distance
bounds as linear constraints.

`cp-sok-push` (SokobanPushesCp). Horizon T counts pushes. Per step t = 0..T, booleans:
    box[c]        a box on box cell c (floor, not a dead square; the constant 0 where the
                  distance cut rules it out: near(c) > T - t);
    seat[c]       the player stands on c (the start cell at 0, after a push the cell the box
                  left), only for cells that can be seats;
    reach[k][c]   c within k steps of the seat through cells without a box, k = 1..K, defined
                  both ways (reach[0] = seat); the player's region is reach[K].
Per step t < T: push[p] for each push p = (j, d, k, b) the level allows and idle under goal
`by`, exactly one. push[p] -> box[j], -box[k], region[b] at t and -box[j], box[k], seat[j]
at t+1; frame: a box leaves or enters c only by a push of or into c; the seat moves only by a
push (idle keeps it). Frozen patterns (encoders/sat/sokoban_deadlock.py) are forbidden at every
step. Goal at T: a box on every goal; with a player goal, the region holds it.
Cuts (hold for every plan): with `distance_cuts`, sum_c near(c) * box[c] <= T - t at every t
(a push lowers the near-sum by at most 1) and the waste sum over the pushes within T minus the
start's near-sum; `idle_at_end` (goal `by`): idle_t -> idle_t+1.
`cost_bound` (set by the caller): at most that many pushes within the T steps.
Decoding: the pushes in order, expanded by the model's `plan_moves` with the shortest walks;
`step_count` counts the pushes (one horizon step each), so `verify` reads its UNSAT at C-1 as a
bound on every plan.
"""
from __future__ import annotations

from typing import Any


from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.cpsat.base import CpEncoding, cp_model
from puzzleplan.encoders.sat.sokoban import SokobanLevel
from puzzleplan.encoders.sat.sokoban_deadlock import frozen_patterns, start_near_sum
from puzzleplan.encoders.sat.sokoban_push import check_pushes, level_pushes, plan_cost


class SokobanPushesCp(SokobanLevel, CpEncoding):
    """One push per step, boolean boxes, seats and reachability layers (pushes metric)."""

    family = "sokoban"
    name = "cp-sok-push"
    metrics = ("pushes",)
    parameters = "linearization_level:0"

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        check_pushes(model, self.name)
        super().__init__(model, options)
        self.read_level(model, options)
        self.pushes = level_pushes(model, self.boxable, self.near)
        self.layers = max(0, self.n - len(self.start_boxes) - 1)
        self.patterns = frozen_patterns(model, self.boxable)
        self.seats = {model.start_player} | {p.j for p in self.pushes}
        self.acts: list[dict[Any, Any]] = []
        self.cost_bound: int | None = None   # set by the caller: plans of at most this many pushes

    @property
    def task(self) -> Any:
        """The model's planning task (what the caller prices a decoded plan with)."""
        from puzzleplan.encoders.sas_analysis import analysis_of
        return analysis_of(self.model).task

    def _box_allowed(self, c: int, t: int, horizon: int) -> bool:
        return self.boxable[c] and not (self.options.distance_cuts and self.near[c] > horizon - t)

    def _state(self, cp: cp_model.CpModel, t: int, horizon: int, false: Any) -> tuple[dict[int, Any], dict[int, Any], Any]:
        """The booleans of step t: boxes, seats and the region (reach[K])."""
        self.tick()
        boxes = {c: cp.NewBoolVar(f"box_{c}_t{t}") if self._box_allowed(c, t, horizon) else false
                 for c in range(self.n)}
        seat = {c: cp.NewBoolVar(f"seat_{c}_t{t}") if c in self.seats else false for c in range(self.n)}
        for c in self.seats:
            if boxes[c] is not false:
                cp.AddBoolOr([seat[c].Not(), boxes[c].Not()])
        layer = seat
        for k in range(1, self.layers + 1):
            now = {c: cp.NewBoolVar(f"reach_{k}_{c}_t{t}") for c in range(self.n)}
            for c in range(self.n):
                near = [layer[m] for m in self.nbr[c] if m >= 0 and layer[m] is not false]
                before = layer[c]
                grow = [before] if before is not false else []
                cp.AddBoolOr([now[c].Not()] + grow + near)
                if before is not false:
                    cp.AddImplication(before, now[c])
                if boxes[c] is not false:    # a box on c: c is reached only if it already was
                    cp.AddBoolOr([now[c].Not(), boxes[c].Not()] + grow)
                    for lit in near:
                        cp.AddBoolOr([lit.Not(), now[c], boxes[c]])
                else:
                    for lit in near:
                        cp.AddImplication(lit, now[c])
            layer = now
        for pattern in self.patterns:
            if all(boxes[c] is not false for c in pattern):
                cp.AddBoolOr([boxes[c].Not() for c in pattern])
        if self.options.distance_cuts:
            cp.Add(sum(self.near[c] * b for c, b in boxes.items() if b is not false) <= horizon - t)
        return boxes, seat, layer

    def build(self, horizon: int) -> cp_model.CpModel:
        self.cp = cp = cp_model.CpModel()
        T = horizon
        false = cp.NewConstant(0)
        states = [self._state(cp, t, T, false) for t in range(T + 1)]
        boxes0, seat0, _ = states[0]
        start = set(self.start_boxes)
        if self.hopeless:
            cp.Add(false == 1)            # a stray box or goal: unsolvable
        for c in range(self.n):
            if c in start and boxes0[c] is false:
                cp.Add(false == 1)        # a box starts on a dead square (or out of reach)
            elif boxes0[c] is not false:
                cp.Add(boxes0[c] == int(c in start))
            if seat0[c] is not false:
                cp.Add(seat0[c] == int(c == self.model.start_player))
        self.acts = []
        wasted = []
        for t in range(T):
            self.tick()
            (box, seat, region), (nbox, nseat, _) = states[t], states[t + 1]
            acts: dict[Any, Any] = {p: cp.NewBoolVar(f"push_{p.j}_{p.d}_t{t}") for p in self.pushes}
            idle = cp.NewBoolVar(f"idle_t{t}") if self.idle else None
            cp.AddExactlyOne(list(acts.values()) + ([idle] if idle is not None else []))
            for p, x in acts.items():
                cp.AddBoolAnd([box[p.j], box[p.k].Not(), region[p.b], nbox[p.j].Not(), nbox[p.k],
                               nseat[p.j]]).OnlyEnforceIf(x)
                wasted.append(p.waste * x)
            for c in range(self.n):
                if box[c] is not false or nbox[c] is not false:
                    out_of = [x for p, x in acts.items() if p.j == c]
                    into = [x for p, x in acts.items() if p.k == c]
                    cp.AddBoolOr([box[c].Not(), nbox[c]] + out_of)
                    cp.AddBoolOr([box[c], nbox[c].Not()] + into)
                if nseat[c] is false:
                    continue
                here = [x for p, x in acts.items() if p.j == c]
                if idle is None:
                    cp.AddBoolOr([nseat[c].Not()] + here)
                else:
                    cp.AddBoolOr([nseat[c].Not(), idle] + here)
                    cp.AddBoolOr([nseat[c].Not(), seat[c]] + here)
                    cp.AddBoolOr([idle.Not(), seat[c].Not(), nseat[c]])
            if idle is not None and t > 0 and self.options.idle_at_end:
                cp.AddImplication(self.acts[-1]["idle"], idle)
            self.acts.append({"idle": idle, **{p: x for p, x in acts.items()}})
        boxes_T, _, region_T = states[T]
        for g in self.model.goal_cells:
            cp.Add(boxes_T[g] == 1)
        if self.model.pg is not None:
            cp.Add(region_T[self.model.pg] == 1)
        if self.cost_bound is not None:
            cp.Add(sum(x for acts in self.acts for p, x in acts.items() if p != "idle") <= self.cost_bound)
        if self.options.distance_cuts:
            total = start_near_sum(self.model, self.near)
            cp.Add(sum(wasted) <= T - (total if total is not None else T + 1))
        return cp

    def decode(self, solver: cp_model.CpSolver, horizon: int) -> list[str]:
        pushes = [(p.j, p.d) for acts in self.acts for p, x in acts.items()
                  if p != "idle" and solver.Value(x)]
        return list(self.model.plan_moves(pushes))

    step_count = staticmethod(plan_cost)   # one push a step (encoders/base.py counts_own_steps)
