"""Cutting the detours out of a plan an encoding returned without an optimality proof.

A fixed horizon (`--strategy fixed`, `--any`) under exact-T semantics must fill every step, so
the solver pads its plan with back-and-forth moves and may pass through the goal before step T.
Such a plan is valid but wasteful. Cutting it at its first goal state and leaving out every
stretch between two visits of one state gives a plan that is never longer, reaches the same
goal and visits no state twice: the usual post-processing of satisficing planners.
"""
from __future__ import annotations

from typing import Any, Sequence


def without_detours(model: Any, moves: Sequence[str]) -> list[str]:
    """`moves` ended at the first goal state it reaches, with every revisit's loop left out.

    Replayed by the model's own successors, matched by move name; a model that replays its
    plans otherwise (Sokoban's moves between pushes) or whose replay fails keeps its plan as it
    is (the runner's checker judges it either way).
    """
    if hasattr(model, "states_along"):
        return list(moves)
    from puzzleplan.plans.check import IllegalMove, states_by_move_names
    try:
        states = states_by_move_names(model, moves)
        first_visit: dict[Any, int] = {}
        kept_states: list[Any] = []
        kept_moves: list[str] = []
        for i, state in enumerate(states):
            if i:
                kept_moves.append(moves[i - 1])
            if state in first_visit:   # a loop back to an earlier state: leave it out
                back = first_visit[state]
                for dropped in kept_states[back + 1:]:
                    del first_visit[dropped]
                del kept_states[back + 1:]
                del kept_moves[back:]
            else:
                first_visit[state] = len(kept_states)
                kept_states.append(state)
            if model.is_goal(state):
                return kept_moves
    except (IllegalMove, TypeError):   # TypeError: states that cannot be hashed
        return list(moves)
    return list(moves)
