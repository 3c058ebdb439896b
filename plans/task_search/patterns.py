"""Choosing patterns: goal variables grown along the causal graph while the projection stays small.

A pattern starts from a goal variable no earlier pattern holds and grows one variable at a time.
The next variable is the one most tied to the pattern: the number of actions that change a
pattern variable and mention it, plus those that change it and mention a pattern variable
(on ties: goal variables no pattern holds yet, other goal variables, smaller domains). A
candidate must keep the abstract space within `max_states`. The Sokoban player, which every
move of a box mentions, joins the pattern of a goal cell first; the cells a Rush Hour car
crosses join its pattern; tiles grow regions of adjacent cells.
"""
from __future__ import annotations

from typing import AbstractSet

from puzzleplan.models.task.ir import Task


def ties(task: Task, pattern: set[int]) -> dict[int, int]:
    """Variable -> how many actions tie it to `pattern` (see the module docstring)."""
    score: dict[int, int] = {}
    for a in task.actions:
        changed = {v for v, _ in a.eff}
        mentioned = changed | {v for v, _ in a.pre}
        if changed & pattern:
            for v in mentioned - pattern:
                score[v] = score.get(v, 0) + 1
        if mentioned & pattern:
            for v in changed - pattern:
                score[v] = score.get(v, 0) + 1
    return score


def grow(task: Task, first: int, max_states: int, covered: AbstractSet[int] = frozenset()) -> tuple[int, ...]:
    """One pattern from goal variable `first`, grown greedily within `max_states` (on ties,
    goal variables no earlier pattern holds first, then other goal variables)."""
    sizes = task.sizes
    goals = {v for v, _ in task.goal}
    pattern = {first}
    states = sizes[first]
    while True:
        fits = [(n, v in goals and v not in covered, v in goals, -sizes[v], -v)
                for v, n in ties(task, pattern).items() if states * sizes[v] <= max_states]
        if not fits:
            return tuple(sorted(pattern))
        v = -max(fits)[-1]
        pattern.add(v)
        states *= sizes[v]


def select(task: Task, max_states: int, max_patterns: int) -> list[tuple[int, ...]]:
    """Patterns covering the goal variables whose domains fit, in goal order, at most `max_patterns`."""
    sizes = task.sizes
    patterns: list[tuple[int, ...]] = []
    covered: set[int] = set()
    for v, _ in task.goal:
        if len(patterns) == max_patterns:
            break
        if v in covered or sizes[v] > max_states or sizes[v] < 2:
            continue
        pattern = grow(task, v, max_states, covered)
        patterns.append(pattern)
        covered.update(pattern)
    return patterns
