"""The generic sequential SAT encoding of any planning task (`sas-seq`), and the state layer it
shares with the exists-step one (encoders/sat/sas_exists.py).

It reads only `compiled(model).task` (models/task/ir.py), so it encodes every family that
compiles: tiles, Rush Hour, Sokoban (both metrics), user classes, rules and PDDL files.

State, per step t = 0..T (SasLayers):
    ("val", v, x, t)   v = x at step t, for a variable with three or more values: exactly one
                       value per (v, t) (pysat CardEnc, `options.card`).
    ("bit", v, t)      for a two-valued variable: v = 1 at step t (v = 0 is its negation, so
                       exactly-one holds by construction).
    A fact the relaxed planning graph cannot reach by step t is the constant false, and a
    variable left with one value is a constant (encoders/sas_analysis.py): no variable, and the
    clauses it would satisfy are dropped.
Actions, per step t = 0..T-1 (SasSequential):
    ("act", i, t)      task action i is the move of step t; only the actions the relaxed graph
                       reaches by step t get one. Under `goal: by` an ("idle", t) action too.
    exactly one of them per step (CardEnc): a plan of <= T moves (`by`) or exactly T (`exact`).
    precondition   act(i,t) -> fact(v,x,t) for (v,x) in pre(i)
    effect         act(i,t) -> fact(v,x,t+1) for (v,x) in eff(i)
    frame          -fact(v,x,t) & fact(v,x,t+1) -> OR of the step's actions with effect (v,x)
                   (explanatory frame axioms: a value appears only when an action sets it;
                   with one action per step nothing else changes)
    mutexes        at most one fact of each of the task's mutex groups per step (they hold in
                   every reachable state, so this is a redundant, sound strengthening)
Goal at T: the goal facts. Cuts (options; the hand-tuned encodings' semantics apply):
    distance_cuts  -fact(v,y,t) when goal variable v needs more than T - t changes from y to
                   its goal value (its domain-transition distance; holds for every plan).
    no_reversal    act(i,t-1) -> -act(j,t) when j undoes i whatever the state (it holds for
                   shortest plans, and for cheapest plans within T steps under `by`, since
                   dropping the pair never costs more; only actions that state the old value
                   of everything they change qualify: tiles and Sokoban moves do, Rush Hour's
                   do not, as the cell a car leaves is not among its preconditions).
    idle_at_end    idle(t-1) -> idle(t).
What an answer proves is what the horizon semantics say (encoders/base.py): UNSAT at T under
`by` proves that no plan has <= T moves.

Action costs (`cost_terms`): a step's cost in unary, ("cost", t, k) true when step t's action
costs at least k, implied by the action; the count of these literals bounds the plan's cost
from above and equals it in some model, so "count <= C" (encoders/sat/cost.py) is exactly
"a plan of cost <= C within T steps".
"""
from __future__ import annotations

from typing import Any, ClassVar, Iterable

from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sas_analysis import TaskAnalysis, analysis_of
from puzzleplan.encoders.sat.base import Clause, SatEncoding
from puzzleplan.models.task.ir import Action

TRUE_KEY = ("true",)


class SasLayers(SatEncoding):
    """The state variables of a task per step, the goal, the cuts and decoding (no actions)."""

    family: ClassVar[str] = ""
    generic: ClassVar[bool] = True
    metrics: ClassVar[tuple[str, ...] | None] = None      # every metric: costs come from the task
    parallel: ClassVar[bool] = False                      # True: several moves per step

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.info: TaskAnalysis = analysis_of(model)
        self.task = self.info.task
        self.idle = options.goal == "by"
        self.true = self.var(*TRUE_KEY)

    # -- literals -------------------------------------------------------------------------------
    def fact(self, v: int, x: int, t: int) -> int:
        """The literal of v = x at step t (+-self.true for a constant)."""
        info = self.info
        if not info.reachable(v, x, t):
            return -self.true
        size = info.sizes[v]
        if size == 1:
            return self.true
        if size == 2:
            other = 1 - x
            if not info.reachable(v, other, t):
                return self.true
            bit = self.var("bit", v, t)
            return bit if x == 1 else -bit
        if len(info.values_at(v, t)) == 1:
            return self.true
        return self.var("val", v, x, t)

    def act(self, i: int, t: int) -> int:
        return self.var("act", i, t)

    def clause(self, lits: Iterable[int]) -> Clause | None:
        """The clause without constant-false literals; None when a constant makes it true."""
        out: Clause = []
        for lit in lits:
            if lit == self.true:
                return None
            if lit != -self.true and lit not in out:
                out.append(lit)
        return out or [-self.true]

    def clauses_of(self, raw: Iterable[Iterable[int]]) -> list[Clause]:
        return [c for c in (self.clause(lits) for lits in raw) if c is not None]

    # -- state ----------------------------------------------------------------------------------
    def state(self, t: int) -> list[Clause]:
        """Exactly one value per many-valued variable at step t, and the mutex groups."""
        out: list[Clause] = []
        for v, size in enumerate(self.info.sizes):
            if size >= 3:
                values = self.info.values_at(v, t)
                if len(values) >= 2:
                    out += self.exactly_one([self.fact(v, x, t) for x in values])
        for group in self.task.mutexes:
            lits = [lit for lit in (self.fact(v, x, t) for v, x in group) if lit != -self.true]
            fixed = lits.count(self.true)
            if fixed > 1:
                out.append([-self.true])           # two facts of the group are forced: no state here
            elif fixed == 1:
                out += [[-lit] for lit in lits if lit != self.true]
            elif len(set(lits)) >= 2:
                out += self.at_most_one(sorted(set(lits)))
        return out

    def initial(self) -> list[Clause]:
        units = [[self.true]]
        for v, x in enumerate(self.task.init):
            lit = self.fact(v, x, 0)
            if lit != self.true:
                units.append([lit])
        return units + self.state(0)

    def transition(self, t: int, acts: dict[int, int]) -> list[Clause]:
        """Preconditions, effects and explanatory frames of step t for the action literals
        `acts` (task action index -> literal)."""
        raw: list[list[int]] = []
        setters: dict[tuple[int, int], list[int]] = {}
        for i, lit in acts.items():
            a = self.task.actions[i]
            raw += [[-lit, self.fact(v, x, t)] for v, x in a.pre]
            raw += [[-lit, self.fact(v, x, t + 1)] for v, x in a.eff]
            for fact in a.eff:
                setters.setdefault(fact, []).append(lit)
        for v, size in enumerate(self.info.sizes):
            for x in self.info.values_at(v, t + 1):
                now, after = self.fact(v, x, t), self.fact(v, x, t + 1)
                if now == after or now == self.true or after == -self.true:
                    continue
                raw.append([now, -after] + setters.get((v, x), []))
        return self.clauses_of(raw)

    def goal(self, horizon: int) -> list[Clause]:
        return self.clauses_of([[self.fact(v, x, horizon)] for v, x in self.task.goal])

    def cuts(self, horizon: int) -> list[Clause]:
        if not self.options.distance_cuts:
            return []
        raw = []
        for v, dist in self.info.goal_distance.items():
            for t in range(horizon + 1):
                for x in self.info.values_at(v, t):
                    if dist[x] > horizon - t:
                        raw.append([-self.fact(v, x, t)])
        return self.clauses_of(raw)

    def idle_cuts(self, t: int) -> list[Clause]:
        if self.idle and self.options.idle_at_end and t > 0:
            return [[-self.var("idle", t - 1), self.var("idle", t)]]
        return []

    # -- plans ----------------------------------------------------------------------------------
    def decode_actions(self, true: set[int], horizon: int) -> list[Action]:
        """The task actions of a model, step by step (within a step in the encoding's order)."""
        out: list[Action] = []
        for t in range(horizon):
            taken = [i for i in self.step_order(t) if self.pool.obj2id.get(("act", i, t)) in true]
            out += [self.task.actions[i] for i in taken]
        return out

    def step_order(self, t: int) -> list[int]:
        return self.info.actions_at(t)

    def decode(self, true: set[int], horizon: int) -> list[str]:
        return [a.name for a in self.decode_actions(true, horizon)]

    def cost_terms(self, horizon: int) -> tuple[list[int], list[Clause]]:
        """Unit literals whose count is (at least, and in some model exactly) the plan's cost,
        and the clauses defining them."""
        terms: list[int] = []
        raw: list[list[int]] = []
        for t in range(horizon):
            acts = self.step_actions(t)
            top = max((self.task.actions[i].cost for i in acts), default=0)
            for k in range(1, top + 1):
                y = self.var("cost", t, k)
                terms.append(y)
                raw += [[-self.act(i, t), y] for i in acts if self.task.actions[i].cost >= k]
        return terms, self.clauses_of(raw)

    def step_actions(self, t: int) -> list[int]:
        return self.info.actions_at(t)

    def names(self) -> dict[int, str]:
        """DIMACS variable -> readable key, with the task's variable, value and action names."""
        task = self.task
        out = {}
        for v, key in self.pool.id2obj.items():
            if not isinstance(key, tuple):
                continue
            kind = key[0]
            if kind == "val":
                out[v] = f"{task.variables[key[1]].name}={task.variables[key[1]].values[key[2]]} @{key[3]}"
            elif kind == "bit":
                out[v] = f"{task.variables[key[1]].name}={task.variables[key[1]].values[1]} @{key[2]}"
            elif kind == "act":
                out[v] = f"act {key[1]} {task.actions[key[1]].name} @{key[2]}"
            else:
                out[v] = " ".join(str(x) for x in key)
        return out


class SasSequential(SasLayers):
    """Generic sequential encoding: one-hot SAS+ values, one action per step, explanatory frames."""

    name = "sas-seq"
    idle_pads = True    # idle: no action, so the explanatory frames keep every value

    def layer(self, t: int) -> list[Clause]:
        acts = {i: self.act(i, t) for i in self.step_actions(t)}
        choice = list(acts.values()) + ([self.var("idle", t)] if self.idle else [])
        out = self.state(t + 1) + (self.exactly_one(choice) if choice else [[-self.true]])
        out += self.transition(t, acts)
        if self.options.no_reversal and t > 0:
            before = set(self.step_actions(t - 1))
            reversals = self.info.reversals
            out += [[-self.act(i, t - 1), -acts[j]] for i in before for j in reversals[i] if j in acts]
        return out + self.idle_cuts(t)
