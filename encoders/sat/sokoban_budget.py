"""A waste budget as clauses: a weighted sequential counter over the steps of a plan.

`waste_budget(var, steps, slack)`: steps[t] lists (condition, weight) pairs, the conditions of one
step being mutually exclusive conjunctions of literals; the weights of the conditions that hold
add up over the steps and must stay <= slack. Counter variables var(t, v) (v = 1..slack) mean
"the waste of the steps before t is at least v"; they only grow from step to step, and a step
whose condition holds lifts them by its weight. Size: per step, (conditions of positive weight)
x (slack + 1) clauses. The Sokoban encodings use it for the near-sum distance bound
(encoders/sat/sokoban_deadlock.py says why it is admissible).
"""
from __future__ import annotations

from typing import Callable, Sequence

Clause = list[int]
Condition = tuple[Sequence[int], int]


class BudgetCounter:
    """The counter of `waste_budget` built one step at a time (a solver can take a step's
    clauses as its layers come): `add(conditions)` returns the clauses of the next step;
    `index` is the number of steps added (var(index, v): "the waste so far is >= v")."""

    def __init__(self, var: Callable[[int, int], int], slack: int) -> None:
        self.var, self.slack, self.index = var, slack, 0

    def add(self, conditions: Sequence[Condition]) -> list[Clause]:
        """Clauses lifting the counter by the weight of the condition that holds at this step."""
        var, slack, t = self.var, self.slack, self.index
        self.index += 1
        if slack < 0:
            return [[]]
        out: list[Clause] = []
        for v in range(1, slack + 1):
            if t > 0:
                out.append([-var(t, v), var(t + 1, v)])
            if v < slack:
                out.append([-var(t + 1, v + 1), var(t + 1, v)])
        for lits, weight in conditions:
            if weight <= 0:
                continue
            neg = [-lit for lit in lits]
            for u in range(0, slack + 1 if t > 0 else 1):
                guard = neg + ([-var(t, u)] if u > 0 else [])
                if u + weight > slack:
                    out.append(guard)   # larger counts imply this one: no need to go on
                    break
                out.append(guard + [var(t + 1, u + weight)])
        return out


def waste_budget(var: Callable[[int, int], int], steps: Sequence[Sequence[Condition]], slack: int) -> list[Clause]:
    """Clauses allowing the steps' total waste at most `slack` (a negative slack: the empty clause)."""
    if slack < 0:
        return [[]]
    counter = BudgetCounter(var, slack)
    return [clause for conditions in steps for clause in counter.add(conditions)]


class UnaryCounter:
    """A running total of step costs given in unary, at most `slack`: step i's literals
    costs[c - 1] mean "step i costs at least c" (forced true by the encoding whenever it
    does). var(i, v): "the steps before i cost at least v"; `add(costs)` returns step `index`'s
    clauses, one per (total so far, cost) pair, so propagation goes straight from the total to
    the costs a step may still have."""

    def __init__(self, var: Callable[[int, int], int], slack: int) -> None:
        self.var, self.slack, self.index = var, slack, 0

    def add(self, costs: Sequence[int]) -> list[Clause]:
        var, slack, i = self.var, self.slack, self.index
        self.index += 1
        if slack < 0:
            return [[]]
        out: list[Clause] = []
        for v in range(1, slack + 1):
            if i > 0:
                out.append([-var(i, v), var(i + 1, v)])
            if v < slack:
                out.append([-var(i + 1, v + 1), var(i + 1, v)])
        for c, lit in enumerate(costs, start=1):
            for u in range(0, slack + 1 if i > 0 else 1):
                guard = [-lit] + ([-var(i, u)] if u > 0 else [])
                if u + c > slack:
                    out.append(guard)   # larger totals imply this one
                    break
                out.append(guard + [var(i + 1, u + c)])
        return out
