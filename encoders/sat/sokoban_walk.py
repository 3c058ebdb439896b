"""A SAT encoding of Sokoban under the `moves` metric whose steps are pushes: a step is a walk
and a push, the walk's length read off the player's reachability layers and counted in a budget.

`sok-walk` (SokobanWalks). The layers are sok-push's (encoders/sat/sokoban_push.py: boxes, the
player's seat, reachability layers reach(k, c, t) = "c within k steps of the seat through cells
without a box", one push or idle per step, idle steps last, frozen patterns). Added per step t:
    ("at", b, t)       the push of step t is made from cell b (push(p, t) -> at(p.b, t));
    ("walk", t, k)     the walk before that push is longer than k steps:
                       at(b, t) & -reach(k, b, t) -> walk(t, k), k = 0 .. K-1.
Reachability layers give shortest walks around the boxes of step t, so the walk of step t has
exactly min{k : reach(k, b, t)} moves and sum_k walk(t, k) is at least that.

The move budget. With near(c) the push distance from c to its nearest goal (empty level) and
N0 the start's near-sum, a push's waste is 1 + near(k) - near(j) >= 0
(encoders/sat/sokoban_deadlock.py). After a prefix of pushes, moves so far + near-sum now =
N0 + sum over its steps of (walk + waste), and the near-sum never exceeds the pushes (so the
moves) still to come. Hence every prefix of every plan of <= T moves has
    sum over its steps of (walk + waste) <= T - N0,                              (budget)
and for a whole plan (near-sum 0 at the goal) the moves are exactly N0 + that sum (+ the last
walk to a player goal, bounded the same way at the end). The budget is a sequential counter
over the waste and walk literals (encoders/sat/sokoban_budget.py).

Why a horizon H of pushes, far below T, proves "no plan of <= T moves" (`solve_at`): the
formula at H asks for the budget over H push steps and, at H, either the goal reached after
idle steps (a plan of <= H pushes: a plan with fewer pushes pads with idle steps at the end) or
all H steps pushes (the prefix of a plan with more pushes; the budget holds for every prefix).
Every plan of <= T moves satisfies one of the two, so UNSAT at any H >= 1 is a proof for every
plan. A model of the second kind is no plan: H grows and the solver (incremental, the layers
kept) is asked again. It ends: H pushes cost >= H moves, so with the budget no prefix of
H > T pushes exists. The first H is a lower bound on the pushes (the pushes metric's
admissible bound), only a matter of speed.

The layered contract (`initial`, `layer`, `goal`, `cuts`, used by `solve --engine sat` and
`export`) keeps the plain form: T push steps (a plan of <= T moves has <= T pushes), the goal at
T after idle steps, with the budget, in `goal(T)`; `solve_at` is what `verify` runs.
Only goal `by` is encoded (moves are not a step count here): `exact` raises ValueError.
"""
from __future__ import annotations

import time
from typing import Any, Callable

from pysat.solvers import Solver

from puzzleplan.encoders.base import Answer, EncodingOptions, HorizonResult
from puzzleplan.encoders.sat.base import Clause, _solve_limited
from puzzleplan.encoders.sat.sokoban import check_metric
from puzzleplan.encoders.sat.sokoban_budget import UnaryCounter
from puzzleplan.encoders.sat.sokoban_deadlock import start_near_sum
from puzzleplan.encoders.sat.sokoban_push import PushSteps
from puzzleplan.models.sokoban.analysis import walk_distances


class SokobanWalks(PushSteps):
    """Push steps with their walks counted: the moves metric over a horizon of pushes."""

    name = "sok-walk"
    metrics = ("moves",)
    goals = ("by",)    # the horizon counts pushes: "exactly T moves" has no meaning here

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        check_metric(model, self.name)
        if options.goal != "by":
            raise ValueError(f"{self.name}: encodes goal 'by' only (its horizon counts pushes, not moves)")
        super().__init__(model, options.with_(idle_at_end=True))   # the prefix test needs idle steps last
        self.start_sum = start_near_sum(model, self.near)
        self.push_cells = sorted({p.b for p in self.pushes})
        self.wall_dist = {b: walk_distances(model.nbr, b) for b in self.push_cells}
        self._walk_model: Any = None

    # -- variables ------------------------------------------------------------------------------
    def at(self, b: int, t: int) -> int:
        return self.var("at", b, t)

    def walk(self, t: int, k: int) -> int:
        return self.var("walk", t, k)

    # -- layers ---------------------------------------------------------------------------------
    def layer(self, t: int) -> list[Clause]:
        out = super().layer(t)
        out += [[-self.push(p, t), self.at(p.b, t)] for p in self.pushes]
        for b in self.push_cells:
            out += [[-self.at(b, t), self.reach(k, b, t), self.walk(t, k)] for k in range(self.layers)]
            # implied: the walk is at least the distance around the walls alone (direct, so it
            # propagates from the seat and the push without going through the layers)
            for s in self.seats:
                d = self.wall_dist[b][s]
                if 0 < d <= self.layers:
                    out.append([-self.seat(s, t), -self.at(b, t), self.walk(t, d - 1)])
        out += [[-self.walk(t, k), self.walk(t, k - 1)] for k in range(1, self.layers)]
        return out

    def slack(self, horizon: int) -> int:
        """T - N0: what walks and waste may add up to in a plan of <= T moves (-1: none)."""
        return -1 if self.start_sum is None else horizon - self.start_sum

    def cost(self, t: int, c: int) -> int:
        return self.var("cost", t, c)

    def step_costs(self, t: int) -> tuple[list[Clause], list[int]]:
        """Step t's cost (walk + waste) in unary: cost(t, c) is forced true when it is >= c."""
        out: list[Clause] = []
        top = self.layers + max((p.waste for p in self.pushes), default=0)
        for p in self.pushes:
            x = self.push(p, t)
            for c in range(1, top + 1):
                if c <= p.waste:
                    out.append([-x, self.cost(t, c)])
                elif c - p.waste - 1 < self.layers:    # walk longer than c - waste - 1 (never K)
                    out.append([-x, -self.walk(t, c - p.waste - 1), self.cost(t, c)])
        return out, [self.cost(t, c) for c in range(1, top + 1)]

    def budget(self, horizon: int, steps: int, key: Any) -> tuple[list[Clause], int | None]:
        """The budget over `steps` push steps for plans of <= `horizon` moves, and the counter's
        last index (None when the slack is negative: the clauses are then unsatisfiable)."""
        slack = self.slack(horizon)
        if slack < 0:
            return [[]], None
        counter = UnaryCounter(lambda i, v: self.var("count", key, i, v), slack)
        out: list[Clause] = []
        for t in range(steps):
            clauses, costs = self.step_costs(t)
            out += clauses + counter.add(costs)
        return out, counter.index

    def end(self, horizon: int, steps: int, key: Any, last: int | None) -> list[Clause]:
        """The goal at `steps` (boxes on goals; with a player goal, its walk within the budget)."""
        out = [[self.box(g, steps)] for g in self.model.goal_cells]
        pg = self.model.pg
        if pg is None:
            return out
        out.append([self.region(pg, steps)])
        slack = self.slack(horizon)
        for k in range(min(self.layers, slack + 1)):
            # a last walk longer than k: the count before it is at most slack - (k + 1)
            if slack - k <= 0 or last is None:
                out.append([self.reach(k, pg, steps)])
            elif last > 0:      # (no counter: the count is 0)
                out.append([self.reach(k, pg, steps), -self.var("count", key, last, slack - k)])
        return out

    def goal(self, horizon: int) -> list[Clause]:
        clauses, last = self.budget(horizon, horizon, ("T", horizon))
        return clauses + self.end(horizon, horizon, ("T", horizon), last)

    # -- the pushes horizon that proves a moves bound --------------------------------------------
    def first_steps(self) -> int:
        """An admissible lower bound on the pushes of any plan (at least 1)."""
        try:
            pushes = self.model.with_metric("pushes")
            bound = int(pushes.h(pushes.initial()))
        except Exception:   # a start the bound calls dead: the formula says UNSAT by itself
            bound = 0
        return max(1, bound, self.start_sum or 0)

    def solve_at(self, horizon: int, solver_name: str = "cadical195", time_limit: float | None = None,
                 trace: Callable[[int, bool | None, float], None] | None = None) -> HorizonResult:
        """"Is there a plan of <= `horizon` moves?" over growing push horizons (docstring);
        `trace(push steps, answer, seconds)` is called after each solver call."""
        started = time.perf_counter()
        built = solve_time = 0.0
        clauses = 0
        with Solver(name=solver_name) as solver:
            never = self.var("never")
            solver.add_clause([-never])

            def add(cs: list[Clause]) -> None:
                nonlocal clauses
                for c in cs:   # an empty clause as a false literal: some solvers drop [] when added
                    solver.add_clause(c or [never])
                clauses += len(cs)
            add(self.initial())
            slack = self.slack(horizon)
            if slack < 0:      # the near-sum alone rules out every plan of <= horizon moves
                add([[]])
            counter = UnaryCounter(lambda i, v: self.var("count", horizon, i, v), slack)
            layers, steps, asked = 0, self.first_steps(), []
            while True:
                mark = time.perf_counter()
                while layers < steps:    # the budget's clauses hold for every prefix: no guard
                    clauses_t, costs = self.step_costs(layers)
                    add(self.layer(layers) + clauses_t + counter.add(costs))
                    layers += 1
                act = self.var("activate", steps)
                done = -self.var("idle", steps - 1)     # every step a push: a prefix
                last = counter.index if slack >= 0 else None
                add([[-act, done] + c for c in self.end(horizon, steps, horizon, last)])
                built += time.perf_counter() - mark
                mark = time.perf_counter()
                left = None if time_limit is None else time_limit - (mark - started)
                outcome = _solve_limited(solver, [act], left)
                solve_time += time.perf_counter() - mark
                if trace is not None:
                    trace(steps, outcome, time.perf_counter() - mark)
                asked.append(steps)
                if outcome is None or not outcome:
                    answer = Answer.UNKNOWN if outcome is None else Answer.UNSAT
                    return HorizonResult(horizon, answer, None, self.pool.top, clauses, built, solve_time,
                                         {"push_steps": asked})
                true = {lit for lit in solver.get_model() if lit > 0}
                # a prefix is decoded only once it is at the goal: its walk to a player goal
                # exists only then (a box may stand in the way before)
                if -done in true or self._at_goal(true, steps):
                    moves = self.decode(true, steps)
                    if -done in true or len(moves) <= horizon:
                        return HorizonResult(horizon, Answer.SAT, moves, self.pool.top, clauses, built, solve_time,
                                             {"push_steps": asked})
                add([[-act]])
                steps += max(1, steps // 8)

    def _at_goal(self, true: set[int], steps: int) -> bool:
        """Whether a prefix model ends at the goal (a plan all the same, if within the horizon's
        moves): every box on a goal after its last push and, with a player goal, the player's
        region holding it."""
        pg = self.model.pg
        return all(self.box(g, steps) in true for g in self.model.goal_cells) and (
            pg is None or self.region(pg, steps) in true)

    # -- decoding -------------------------------------------------------------------------------
    def decode(self, true: set[int], horizon: int) -> list[str]:
        if self._walk_model is None:
            self._walk_model = self.model.with_metric("pushes")
        return list(self._walk_model.plan_moves(self.decode_pushes(true, horizon)))
