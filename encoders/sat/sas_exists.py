"""The generic parallel SAT encoding (`sas-exists`): exists-step semantics after Rintanen,
Heljanko and Niemela, "Planning as satisfiability: parallel plans and algorithms for plan
search" (Artificial Intelligence 170, 2006), with their linear-size chain encoding.

State variables, preconditions, effects, explanatory frames, mutexes and the goal are those of
`sas-seq` (encoders/sat/sas.py). What differs is the step: any set of actions may share it, if
    (1) every one of them applies in the state at the start of the step (preconditions at t),
    (2) their effects agree (two effects v = x and v = x' != x would need both at t+1, which
        the one-value-per-variable constraint forbids), and
    (3) in one fixed total order of all actions (encoders/sas_analysis.py `exists_order`) no
        action falsifies a precondition of a later one in the same step.
Executing the step's actions one by one in that order is then a valid sequential plan fragment
that ends in the state at t+1, which is how a model decodes into moves. Condition (3) is the
chain: for each fact f = (v, y), with E the actions that can falsify f in a step that needs it
and R the actions that require f, walking the order,
    a in E  ->  c(f,t,k)        c(f,t,k) -> c(f,t,k')       c(f,t,k) -> -b  for b in R after a
where c(f,t,k) ("some earlier action of the step falsifies f") is one auxiliary variable per
E-member that has an R-member after it: linear in |E| + |R| rather than |E| x |R|.
A step may be empty (that is the idle step under `goal: by`; ("idle", t) <-> no action, with
`idle_at_end` keeping empty steps at the end); under `goal: exact` every step has an action.

What a horizon proves. T counts parallel steps, not moves. Every sequential plan of L moves is
an exists-step plan of L steps (one action per step satisfies (1)-(3)), padded with empty
steps to any T >= L. Hence:
    UNSAT at T under `by`     proves: no plan of <= T moves (indeed, none of <= T steps);
    UNSAT at T under `exact`  proves: no plan of exactly T moves;
    SAT at T                  gives a plan of T steps, which may hold MORE than T moves.
So the lower bounds are exactly those of the sequential encodings, but a plan found at the
first satisfiable T is optimal in moves only when it has T moves. The `sat` engine obtains
move-optimality in a second phase (encoders/engines.py): with `options.parallel` off, this
encoding allows at most one action per step (and then equals the cardinality bound "at most T
moves at horizon T": a plan of <= T moves within T exists-steps exists if and only if one with
one action per step does, by executing each step in its order); it asks that from the first
satisfiable T up to the found plan's length minus one. `verify` uses the parallel form for its
bound (an UNSAT is a proof; a model of more moves than the bound proves nothing and is asked
again one action per step) and says so in the row.

The no-reversal cut is not used here: dropping an undone pair from a parallel step can break
the other actions of the next step, so it is not known to keep some shortest plan.
Costs: one unit literal per unit of an action's cost (`cost_terms`), since a step can hold
several actions.
"""
from __future__ import annotations

from typing import Any

from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sas_analysis import interference
from puzzleplan.encoders.sat.base import Clause
from puzzleplan.encoders.sat.sas import SasLayers


class SasExists(SasLayers):
    """Generic exists-step encoding: several non-interfering actions per step (chain encoding)."""

    name = "sas-exists"
    parallel = True

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.position = self.info.position
        self._chains = sorted(interference(self.task).items())

    def step_order(self, t: int) -> list[int]:
        return sorted(self.step_actions(t), key=self.position.__getitem__)

    def layer(self, t: int) -> list[Clause]:
        acts = {i: self.act(i, t) for i in self.step_actions(t)}
        lits = list(acts.values())
        out = self.state(t + 1) + self.transition(t, acts)
        if self.idle:
            idle = self.var("idle", t)
            out += [[-idle, -lit] for lit in lits] + [[idle] + lits]
        else:
            out.append(lits or [-self.true])
        if not self.options.parallel:
            return out + self.at_most_one(lits) + self.idle_cuts(t)
        return out + self._chain_clauses(t, acts) + self.idle_cuts(t)

    def _chain_clauses(self, t: int, acts: dict[int, int]) -> list[Clause]:
        out: list[Clause] = []
        position = self.position
        for k, ((v, y), (falsifying, needing)) in enumerate(self._chains):
            if not self.info.reachable(v, y, t):
                continue
            role: dict[int, tuple[bool, bool]] = {}
            for i in falsifying:
                if i in acts:
                    role[i] = (True, False)
            for i in needing:
                if i in acts:
                    role[i] = (role.get(i, (False, False))[0], True)
            ordered = sorted(role, key=position.__getitem__)
            last_need = max((n for n, i in enumerate(ordered) if role[i][1]), default=-1)
            chain = 0                                  # 0: no earlier falsifier yet
            for n, i in enumerate(ordered):
                falsifies, needs = role[i]
                if needs and chain:
                    out.append([-chain, -acts[i]])
                if falsifies and n < last_need:
                    link = self.var("chain", k, t, n)
                    out.append([-acts[i], link])
                    if chain:
                        out.append([-chain, link])
                    chain = link
        return out

    def cost_terms(self, horizon: int) -> tuple[list[int], list[Clause]]:
        terms: list[int] = []
        out: list[Clause] = []
        for t in range(horizon):
            for i in self.step_actions(t):
                for k in range(self.task.actions[i].cost):
                    y = self.var("cost", i, t, k)
                    terms.append(y)
                    out.append([-self.act(i, t), y])
        return terms, out
