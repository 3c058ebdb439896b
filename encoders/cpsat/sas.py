"""The generic CP-SAT encoding of any planning task (`cp-sas`), over `compiled(model).task`.

    s_v_t        an integer per (variable v, step t), its domain v's values that the relaxed
                 planning graph reaches by step t (encoders/sas_analysis.py), cut further by
                 the goal distance when `distance_cuts` is on (a goal variable keeps the values
                 within T - t changes of its goal value); a single value makes it a constant.
    v=x@t        a Boolean channelled to it (s_v_t == x OnlyEnforceIf it, != x OnlyEnforceIf
                 its negation), made for the values that actions and frames mention.
    a_i_t        a Boolean per (action i, step t), for the actions reachable by step t; with
                 an idle_t Boolean under `goal: by`, exactly one per step (AddExactlyOne):
                 plans of <= T moves (`by`) or exactly T (`exact`).
    precondition a_i_t -> v=x@t for (v, x) in pre(i)   (the enforced s_v_t == x, as an
                 implication on the channel literal)
    effect       a_i_t -> v=x@t+1 for (v, x) in eff(i)
    frame        touch_v_t is the sum of the step's actions with an effect on v (0 or 1, one
                 action per step); without it v keeps its value: per value x,
                 v=x@t & -touch_v_t -> v=x@t+1 and back (s_v_t+1 == s_v_t); a variable no
                 action of the step sets gets s_v_t+1 == s_v_t outright.
    Stated as enforced linear equalities on the integers (`s_v_t+1 == s_v_t OnlyEnforceIf
    -touch`) the frame propagated too weakly: Rush Hour seed 3 took 2.3 s for UNSAT at 15
    against 0.5 s with the channel literals.
Goal: s_v_T == x for the goal facts. Cuts: `no_reversal` (a_i_t-1 and a_j_t not both, where
j undoes i: see encoders/sat/sas.py), `idle_at_end` (idle_t -> idle_t+1), the distance cut in
the domains. What UNSAT at T proves is the horizon semantics' (encoders/base.py).

Costs: `objective = True` (set by the engine's cost phase) minimises the sum of the action
costs over the T steps; an OPTIMAL answer then proves "no plan of at most T steps is cheaper",
not a global optimum (encoders/sat/cost.py says when it is one). `cost_bound` adds sum <= C.
`add_hint(moves)` replays a plan on the task and hints the actions and states.
"""
from __future__ import annotations

from typing import Any, ClassVar


from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.cpsat.base import CpEncoding, cp_model
from puzzleplan.encoders.sas_analysis import TaskAnalysis, analysis_of


class CpSas(CpEncoding):
    """Generic integer state per variable and step, Boolean actions with enforced effects."""

    family: ClassVar[str] = ""
    name = "cp-sas"
    generic: ClassVar[bool] = True
    metrics: ClassVar[tuple[str, ...] | None] = None
    parallel: ClassVar[bool] = False

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.info: TaskAnalysis = analysis_of(model)
        self.task = self.info.task
        self.idle = options.goal == "by"
        self.objective = False
        self.cost_bound: int | None = None
        self.state: list[list[Any]] = []
        self.acts: list[dict[int, Any]] = []
        self.idles: list[Any] = []

    def _domain(self, v: int, t: int, horizon: int) -> list[int]:
        cut = horizon if self.options.distance_cuts else None
        return [x for x in range(self.info.sizes[v]) if self.info.allowed(v, x, t, cut)]

    def build(self, horizon: int) -> cp_model.CpModel:
        self.cp = cp = cp_model.CpModel()
        task, T = self.task, horizon
        self.state = []
        self._eq: dict[tuple[int, int, int], Any] = {}
        self._true, self._false = cp.NewConstant(1), cp.NewConstant(0)
        self._domains: list[list[list[int]]] = []
        self._bounds: list[list[tuple[int, int]]] = []
        for t in range(T + 1):
            self.tick()
            row = []
            self._domains.append([])
            self._bounds.append([])
            for v, var in enumerate(task.variables):
                values = self._domain(v, t, T)
                if not values:                # the distance cut leaves no value: infeasible
                    cp.Add(cp.NewConstant(0) == 1)
                    values = [0]
                self._domains[-1].append(values)
                self._bounds[-1].append((min(values), max(values)))
                if len(values) == 1:
                    row.append(cp.NewConstant(values[0]))
                else:
                    row.append(cp.NewIntVarFromDomain(cp_model.Domain.FromValues(values), f"{var.name}@{t}"))
            self.state.append(row)
        for v, x in enumerate(task.init):
            cp.Add(self.state[0][v] == x)
        self.acts, self.idles = [], []
        for t in range(T):
            self.tick()
            acts = {i: cp.NewBoolVar(f"{task.actions[i].name}#{i}@{t}") for i in self.info.actions_at(t)}
            self.acts.append(acts)
            choice = list(acts.values())
            if self.idle:
                self.idles.append(cp.NewBoolVar(f"idle@{t}"))
                choice.append(self.idles[-1])
            cp.AddExactlyOne(choice)
            touching: dict[int, list[Any]] = {}
            for i, lit in acts.items():
                a = task.actions[i]
                for v, x in a.pre:
                    cp.AddImplication(lit, self.eq(v, x, t))
                for v, x in a.eff:
                    cp.AddImplication(lit, self.eq(v, x, t + 1))
                    touching.setdefault(v, []).append(lit)
            for v in range(len(task.variables)):
                self._frame(v, t, touching.get(v, []))
        self._cuts(T)
        for v, x in task.goal:
            cp.Add(self.state[T][v] == x)
        cost = sum(task.actions[i].cost * lit for acts in self.acts for i, lit in acts.items()
                   if task.actions[i].cost)
        if self.cost_bound is not None:
            cp.Add(cost <= self.cost_bound)
        if self.objective:
            cp.Minimize(cost)
        return cp

    def eq(self, v: int, x: int, t: int) -> Any:
        """The literal of s_v_t == x (created on first use, channelled to the integer)."""
        key = (v, x, t)
        lit = self._eq.get(key)
        if lit is None:
            var = self.state[t][v]
            lo, hi = self._bounds[t][v]
            if not lo <= x <= hi or x not in self._domains[t][v]:
                lit = self._false
            elif lo == hi:
                lit = self._true
            else:
                lit = self.cp.NewBoolVar(f"{self.task.variables[v].name}={x}@{t}")
                self.cp.Add(var == x).OnlyEnforceIf(lit)
                self.cp.Add(var != x).OnlyEnforceIf(lit.Not())
            self._eq[key] = lit
        return lit

    def _frame(self, v: int, t: int, setters: list[Any]) -> None:
        """v keeps its value unless an action of the step sets it: s_v_t+1 == s_v_t when no
        action touches v, stated per value on the channel literals (full propagation)."""
        before, after = self.state[t][v], self.state[t + 1][v]
        if not setters:
            self.cp.Add(after == before)
            return
        if len(setters) == 1:
            touch = setters[0]
        else:
            touch = self.cp.NewBoolVar(f"touch_{v}@{t}")
            self.cp.Add(sum(setters) == touch)
        for x in sorted(set(self._domains[t][v]) | set(self._domains[t + 1][v])):
            self.cp.AddBoolOr([self.eq(v, x, t).Not(), touch, self.eq(v, x, t + 1)])
            self.cp.AddBoolOr([self.eq(v, x, t + 1).Not(), touch, self.eq(v, x, t)])

    def _cuts(self, horizon: int) -> None:
        cp = self.cp
        for t in range(1, horizon):
            if self.options.no_reversal:
                reversals = self.info.reversals
                now = self.acts[t]
                for i, lit in self.acts[t - 1].items():
                    for j in reversals[i]:
                        if j in now:
                            cp.AddBoolOr([lit.Not(), now[j].Not()])
            if self.idle and self.options.idle_at_end:
                cp.AddImplication(self.idles[t - 1], self.idles[t])

    def decode(self, solver: cp_model.CpSolver, horizon: int) -> list[str]:
        return [a.name for a in self.decode_actions(solver, horizon)]

    def decode_actions(self, solver: cp_model.CpSolver, horizon: int) -> list[Any]:
        out = []
        for acts in self.acts:
            out += [self.task.actions[i] for i, lit in acts.items() if solver.BooleanValue(lit)]
        return out

    def add_hint(self, moves: list[str]) -> None:
        """Hint the actions and states of `moves` replayed on the task (idle after its end);
        a plan that does not replay, or is longer than the horizon, is not hinted."""
        task = self.task
        state = list(task.init)
        chosen: list[int] = []
        for name in moves[:len(self.acts)]:
            step = self.acts[len(chosen)]
            found = [i for i in step if task.actions[i].name == name and task.actions[i].applies(state)]
            if not found:
                return
            chosen.append(found[0])
            state = list(task.actions[found[0]].apply(state))
        states = [list(task.init)]
        for i in chosen:
            states.append(list(task.actions[i].apply(states[-1])))
        for t, acts in enumerate(self.acts):
            for i, lit in acts.items():
                self.cp.AddHint(lit, t < len(chosen) and chosen[t] == i)
            if self.idle:
                self.cp.AddHint(self.idles[t], t >= len(chosen))
        for t, row in enumerate(self.state):
            values = states[min(t, len(states) - 1)]
            for v, var in enumerate(row):
                if len(self._domains[t][v]) > 1:     # constants are shared objects: never hint them
                    self.cp.AddHint(var, values[v])
