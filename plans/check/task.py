"""The generic plan checker: replays moves on a planning task's variables, nothing else.

Deliberately simple and written apart from the compiler, the task's own successor index and the
engines: a state is a list of values; a move is legal when exactly one meaning of its name applies
(every precondition holds), or several do with the same effect; the cost is the sum of the
action costs. It is the checker of the families that *are* tasks (rules, PDDL) and of user
families; for the built-in families it is a second, generic opinion beside their own checkers
(the tests replay every engine's plans through both).

Move names are compared after normalisation: surrounding space removed, inner runs of space made
one, and in PDDL tasks parenthesised names (Fast Downward plans: `(move a b)`) lower-cased,
since PDDL names are case-insensitive (a rules file's `(A)` and `(a)` stay two names).
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from puzzleplan.plans.check.common import IllegalMove, unmet_words
from puzzleplan.plans.core.words import clip

_SPACE = re.compile(r"\s+")


def normal_name(name: str, fold_case: bool = False) -> str:
    """A move name as plans are matched: trimmed, inner space single; `(...)` names of PDDL
    tasks (`fold_case`) lower-cased, since PDDL names are case-insensitive."""
    text = _SPACE.sub(" ", name.strip())
    if text.startswith("("):
        text = text.replace("( ", "(").replace(" )", ")")
        if fold_case:
            text = text.lower()
    return text


def task_of(model: Any) -> Any:
    """The task a model states (its own `task`, else its compilation)."""
    task = getattr(model, "task", None)
    if task is not None and hasattr(task, "actions"):
        return task
    from puzzleplan.models.task.compile import compiled
    return compiled(model).task


def replay(model: Any, tokens: Sequence[str], notation: str | None = None) -> tuple[bool, int]:
    """Replay `tokens` on the model's task: (goal reached, plan cost); IllegalMove on a bad move."""
    task = task_of(model)
    state, cost = _run(task, tokens)
    return all(state[v] == x for v, x in task.goal), cost


def unmet(model: Any, tokens: Sequence[str]) -> str:
    """The goal facts the moves (legal: replayed before) leave unmet, in words: what `check`
    adds to "the goal is not reached"."""
    task = task_of(model)
    state, _ = _run(task, tokens)
    named = task.variables
    return unmet_words([(named[v].name, named[v].values[x], named[v].values[state[v]])
                        for v, x in task.goal if state[v] != x])


def _run(task: Any, tokens: Sequence[str]) -> tuple[list[int], int]:
    """The state the moves lead to and their cost; IllegalMove on a bad move."""
    fold = task.family == "pddl"
    by_name: dict[str, list[Any]] = {}
    for action in task.actions:
        by_name.setdefault(normal_name(action.name, fold), []).append(action)
    state = list(task.init)
    cost = 0
    for i, token in enumerate(tokens, 1):
        meanings = by_name.get(normal_name(token, fold))
        if not meanings:
            raise IllegalMove(i, token, "no action of the task has this name")
        applicable = [a for a in meanings if all(state[v] == x for v, x in a.pre)]
        if not applicable:
            raise IllegalMove(i, token, _why_not(task, state, meanings))
        effects = {(a.eff, a.cost) for a in applicable}
        if len(effects) > 1:
            raise IllegalMove(i, token, "ambiguous: actions with different effects have this name here")
        action = applicable[0]
        for v, x in action.eff:
            state[v] = x
        cost += action.cost
    return state, cost


def _why_not(task: Any, state: list[int], meanings: list[Any]) -> str:
    """The unmet precondition of the meaning that comes closest to applying."""
    def unmet(action: Any) -> list[tuple[int, int]]:
        return [(v, x) for v, x in action.pre if state[v] != x]
    nearest = min(meanings, key=lambda a: len(unmet(a)))
    v, x = unmet(nearest)[0]
    var = task.variables[v]
    return clip(f"needs {var.name} = {var.values[x]}, but it is {var.values[state[v]]}", 120)
