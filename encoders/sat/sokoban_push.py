"""A SAT encoding of Sokoban under the `pushes` metric: one push per step, the player's region
computed per step by reachability layers, deadlock knowledge as clauses.

`sok-push` (SokobanPushes; its layers, `PushSteps`, are shared with sok-walk, the moves metric
over push steps, encoders/sat/sokoban_walk.py). Cells, box cells (floor cells that are not dead squares) and the
near-goal push distances as in encoders/sat/sokoban.py. Horizon T counts pushes.

Variables, step t = 0..T:
    ("box", c, t)       a box on box cell c.
    ("seat", c, t)      the player stands on c: the start cell at t = 0, after a push the cell
                        the pushed box left; one per step.
    ("reach", k, c, t)  c is reachable from the seat within k steps through cells without a
                        box, k = 1..K, K = (cells - boxes - 1), the longest a shortest walk can
                        be. Defined exactly (both directions, so it propagates):
                        reach(k,c) <-> reach(k-1,c) | (c free & some neighbour has reach(k-1)),
                        reach(0,c) = seat(c). The player's region is reach(K, .).
    ("push", j, d, t)   step t pushes the box on j in direction d (to k, the next cell), for
                        pushes whose player cell b (behind j) and target k are floor and k is not
                        a dead square; ("idle", t) under `goal: by`. Exactly one per step.
Step t: push(j,d,t) -> box(j,t), -box(k,t), reach(K,b,t), -box(j,t+1), box(k,t+1), seat(j,t+1);
idle keeps the seat. Frame: a box leaves c only by a push of c, and appears on c only by a push
into c; with one action per step the number of boxes stays the same. Goal at T: a box on every
goal, and with a player goal, the player's region holding it (the last walk is free).
Deadlock clauses (encoders/sat/sokoban_deadlock.py, sound for every plan): no box variable on
dead squares, every frozen pattern forbidden at every step, and with `distance_cuts` a box on c
at step t only when near(c) <= T - t, and the waste budget (the near-sum bound) over the pushes.
`idle_at_end` (goal `by`): idle(t) -> idle(t+1). `no_reversal` does not apply: pushing a box
back does not in general restore the player's region.
Decoding: the pushes (j, d) in order, expanded by the model's `plan_moves` into LURD letters with
the shortest walks between them (as the native engine's plans are). `step_count(moves)` counts
the pushes (the horizon steps a plan uses, encoders/base.py `counts_own_steps`); `cost_terms`/`decode_actions` let the cost phase
(encoders/sat/cost.py) count pushes too.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sat.base import Clause, SatEncoding
from puzzleplan.encoders.sat.sokoban import SokobanLevel
from puzzleplan.encoders.sat.sokoban_budget import waste_budget
from puzzleplan.encoders.sat.sokoban_deadlock import frozen_patterns, push_waste, start_near_sum
from puzzleplan.models.sokoban.level import OPPOSITE


class Push(NamedTuple):
    """One push the level allows: the box on j goes d to k, the player standing on b."""

    j: int
    d: int
    k: int
    b: int
    waste: int


class Letter(NamedTuple):
    """A decoded move letter and its cost under pushes (what the cost phase reads)."""

    name: str
    cost: int


def check_pushes(model: Any, name: str) -> None:
    if getattr(model, "metric", "moves") != "pushes":
        raise ValueError(f"{name}: encodes the pushes metric only (got {model.metric!r})")


def level_pushes(model: Any, boxable: list[bool], near: list[int]) -> list[Push]:
    """Every push of a box between box cells, with its waste."""
    out = []
    for j in range(model.ncells):
        if not boxable[j]:
            continue
        for d in range(4):
            waste = push_waste(model, near, j, d)
            k = model.nbr[j][d]
            if waste is None or not boxable[k]:
                continue
            out.append(Push(j, d, k, model.nbr[j][OPPOSITE[d]], waste))
    return out


def plan_cost(moves: list[str]) -> int:
    """The pushes in a LURD plan (the steps of this encoding's horizon it uses)."""
    return sum(1 for m in moves if m.isupper())


class PushSteps(SokobanLevel, SatEncoding):
    """The layers shared by the push-step encodings (sok-push, sok-walk): one push or idle per
    step, boxes, seats and the player's region by reachability layers, frozen patterns."""

    family = "sokoban"

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.read_level(model, options)
        self.pushes = level_pushes(model, self.boxable, self.near)
        self.out_of = {c: [p for p in self.pushes if p.j == c] for c in range(self.n)}
        self.into = {c: [p for p in self.pushes if p.k == c] for c in range(self.n)}
        self.layers = max(0, self.n - len(self.start_boxes) - 1)
        self.patterns = frozen_patterns(model, self.boxable)
        self.seats = {model.start_player} | {p.j for p in self.pushes}

    # -- variables ------------------------------------------------------------------------------
    def box(self, c: int, t: int) -> int:
        return self.var("box", c, t)

    def seat(self, c: int, t: int) -> int:
        return self.var("seat", c, t)

    def reach(self, k: int, c: int, t: int) -> int:
        return self.seat(c, t) if k == 0 else self.var("reach", k, c, t)

    def region(self, c: int, t: int) -> int:
        return self.reach(self.layers, c, t)

    def push(self, p: Push, t: int) -> int:
        return self.var("push", p.j, p.d, t)

    # -- the state at one step ------------------------------------------------------------------
    def _state(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        for c in range(self.n):
            if c not in self.seats:
                out.append([-self.seat(c, t)])
            elif self.boxable[c]:
                out.append([-self.seat(c, t), -self.box(c, t)])
        for k in range(1, self.layers + 1):
            for c in range(self.n):
                now, before = self.reach(k, c, t), self.reach(k - 1, c, t)
                near = [self.reach(k - 1, m, t) for m in self.nbr[c] if m >= 0]
                out.append([-now, before] + near)
                out.append([-before, now])
                free = [] if not self.boxable[c] else [self.box(c, t)]
                if free:
                    out.append([-now, before, -free[0]])
                for lit in near:
                    out.append([-lit, now] + free)
        for pattern in self.patterns:
            out.append([-self.box(c, t) for c in pattern])
        return out

    def initial(self) -> list[Clause]:
        out = self._state(0)
        out += [[self.seat(c, 0) if c == self.model.start_player else -self.seat(c, 0)] for c in range(self.n)]
        if self.hopeless or any(not self.boxable[c] for c in self.start_boxes):
            return out + [[]]        # a box starts on a dead square or stray: unsolvable
        start = set(self.start_boxes)
        out += [[self.box(c, 0) if c in start else -self.box(c, 0)] for c in range(self.n) if self.boxable[c]]
        return out

    def layer(self, t: int) -> list[Clause]:
        out = self._state(t + 1)
        acts = [self.push(p, t) for p in self.pushes]
        idle = self.var("idle", t) if self.idle else None
        if idle is not None:
            acts.append(idle)
            if self.options.idle_at_end and t > 0:
                out.append([-self.var("idle", t - 1), idle])
        out += self.exactly_one(acts) if acts else [[]]
        for p in self.pushes:
            x = self.push(p, t)
            out += [[-x, self.box(p.j, t)], [-x, -self.box(p.k, t)], [-x, self.region(p.b, t)],
                    [-x, -self.box(p.j, t + 1)], [-x, self.box(p.k, t + 1)], [-x, self.seat(p.j, t + 1)]]
        for c in range(self.n):
            if self.boxable[c]:
                x0, x1 = self.box(c, t), self.box(c, t + 1)
                out.append([-x0, x1] + [self.push(p, t) for p in self.out_of[c]])
                out.append([x0, -x1] + [self.push(p, t) for p in self.into[c]])
            if c not in self.seats:
                continue
            here = [self.push(p, t) for p in self.out_of[c]]
            s0, s1 = self.seat(c, t), self.seat(c, t + 1)
            if idle is None:
                out.append([-s1] + here)
            else:
                out += [[-s1, idle] + here, [-s1, s0] + here, [-idle, -s0, s1]]
        return out

    # -- decoding -------------------------------------------------------------------------------
    def decode_pushes(self, true: set[int], horizon: int) -> list[tuple[int, int]]:
        """The pushes of a model, in order, as the model's actions (box cell, direction)."""
        return [(p.j, p.d) for t in range(horizon) for p in self.pushes if self.push(p, t) in true]


class SokobanPushes(PushSteps):
    """One push per step; the player's region by reachability layers (pushes metric)."""

    name = "sok-push"
    metrics = ("pushes",)
    preferred_solver = "glucose42"   # what `verify` runs unless asked otherwise (certify.solver_for)
    idle_pads = True    # idle steps come only after the last push; every cut holds for padded plans

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        check_pushes(model, self.name)
        super().__init__(model, options)

    # -- goal and cuts --------------------------------------------------------------------------
    def goal(self, horizon: int) -> list[Clause]:
        out = [[self.box(g, horizon)] for g in self.model.goal_cells]
        if self.model.pg is not None:
            out.append([self.region(self.model.pg, horizon)])
        return out

    def cuts(self, horizon: int) -> list[Clause]:
        if not self.options.distance_cuts:
            return []
        out: list[Clause] = []
        for t in range(horizon + 1):
            out += [[-self.box(c, t)] for c in range(self.n) if self.boxable[c] and self.near[c] > horizon - t]
        total = start_near_sum(self.model, self.near)
        if total is None:
            return out + [[]]
        steps = [[([self.push(p, t)], p.waste) for p in self.pushes] for t in range(horizon)]
        return out + waste_budget(lambda t, v: self.var("waste", horizon, t, v), steps, horizon - total)

    # -- decoding -------------------------------------------------------------------------------
    def decode(self, true: set[int], horizon: int) -> list[str]:
        return list(self.model.plan_moves(self.decode_pushes(true, horizon)))

    step_count = staticmethod(plan_cost)   # one push a step (encoders/base.py counts_own_steps)

    def cost_terms(self, horizon: int) -> tuple[list[int], list[Clause]]:
        """One literal per step that pushes (the plan's cost), and their definitions."""
        if self.idle:
            return [-self.var("idle", t) for t in range(horizon)], []
        terms = [self.var("step", t) for t in range(horizon)]
        return terms, [[x] for x in terms]

    def decode_actions(self, true: set[int], horizon: int) -> list[Letter]:
        return [Letter(m, 1 if m.isupper() else 0) for m in self.decode(true, horizon)]
