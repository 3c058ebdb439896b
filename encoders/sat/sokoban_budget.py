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


def waste_budget(var: Callable[[int, int], int], steps: Sequence[Sequence[Condition]], slack: int) -> list[Clause]:
    """Clauses allowing the steps' total waste at most `slack` (a negative slack: the empty clause)."""
    if slack < 0:
        return [[]]
    out: list[Clause] = []

    def at(t: int, v: int) -> int | None:
        """The literal "waste before t >= v"; None where it is a constant (v <= 0: true)."""
        return None if v <= 0 else var(t, v)

    for t, conditions in enumerate(steps):
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
                before = at(t, u)
                guard = neg + ([] if before is None else [-before])
                if u + weight > slack:
                    out.append(guard)   # larger counts imply this one: no need to go on
                    break
                else:
                    out.append(guard + [var(t + 1, u + weight)])
    return out
