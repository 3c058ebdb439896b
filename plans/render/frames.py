"""The states a picture or an animation shows: the start (and goal), or a checked plan's replay.

A plan is first checked by the independent checker (`check_plan`): an invalid one is refused
with the checker's own words (`RenderError`), so no picture ever shows an illegal move. The
states are then replayed through the model itself, matching move names (`successors` +
`plan_moves`), or by the model's `states_along` where it has one (Sokoban, whose plans are
single steps even when the metric counts pushes). The picture function is the family's
(`Family.picture`, "module:draw"), else the generic text-grid view (generic.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from puzzleplan.plans.core.types import plan_moves
from puzzleplan.plans.render.scene import Scene

Draw = Callable[[Any, Any], Scene]


class RenderError(ValueError):
    """A plan that cannot be drawn (invalid, or written in a notation the replay cannot name)."""


@dataclass(frozen=True)
class Replay:
    """A plan's moves and the n + 1 states from the start through each move."""

    moves: tuple[str, ...]
    states: tuple[Any, ...]


def picture_spec(model: Any) -> str | None:
    """The family's "module:draw" picture, or None (the generic view is used)."""
    from puzzleplan.models.family import family_of
    desc = family_of(model)
    return None if desc is None else getattr(desc, "picture", None)


def drawer(model: Any) -> Draw:
    """The function that draws one state of `model` as a Scene."""
    from puzzleplan.models.family import resolve
    spec = picture_spec(model)
    if spec is None:
        from puzzleplan.plans.render.generic import draw
        return draw
    return resolve(spec)


def goal_state(model: Any) -> Any | None:
    """A state showing the goal, when the family's picture module can give one (`goal_state`
    beside its `draw`: tiles, blocks with a layout), else None."""
    import importlib
    spec = picture_spec(model)
    if spec is None:
        return None
    module = importlib.import_module(spec.partition(":")[0])
    give = getattr(module, "goal_state", None)
    return None if give is None else give(model)


def moves_of(plan: Any) -> str | list[str]:
    """Plan text, a list of move strings, a Plan, or a Result holding one -> text or moves."""
    try:
        moves = plan_moves(plan)
    except ValueError as exc:
        raise RenderError(str(exc)) from None
    return moves if isinstance(moves, str) else [str(m) for m in moves]


def replay(model: Any, plan: Any, notation: str | None = None) -> Replay:
    """Check `plan` (see `moves_of`; text read in `notation` where given, as `check --notation`)
    and replay it: its moves and every state along it. Every move must be legal; a plan that
    stops short of the goal (or runs over the cap) is drawn as far as it goes, so a position in
    mid-game can be pictured (`--frame`)."""
    from puzzleplan.plans.check import IllegalMove, checked_moves
    given = moves_of(plan)
    try:
        report, tokens = checked_moves(model, given, notation)
    except IllegalMove as exc:   # the checker passed them: a disagreement, said, never drawn
        raise RenderError(f"the plan is invalid: move {exc.args[0]}: {exc.args[2]}") from None
    if report.index is not None or (report.error and report.error.startswith("move ")):
        raise RenderError(f"the plan is invalid: {report.error}")
    if hasattr(model, "states_along"):
        return Replay(tuple(tokens), tuple(model.states_along(tokens)))
    return _by_names(model, tokens, report.goal_reached)


def _by_names(model: Any, tokens: Sequence[str], reached: bool = True) -> Replay:
    """The replay through the model's successors, each token matched to a move: by its name,
    else by its name in any case (`u` for `U`), else by the action itself (tiles' seed digits
    are its actions). A token that matches no move may be several moves run together (text
    without separators, as the checker reads it for families without a reader of their own):
    the longest name that starts it is taken and the rest read on. The plan has passed the
    checker, so the model must agree with it on whether the goal is `reached`; anything else
    is refused, never drawn."""
    state = model.initial()
    states, moves = [state], []
    todo = list(reversed(tokens))
    while todo:
        token = todo.pop()
        named: dict[str, Any] = {}
        other: dict[str, list[str]] = {}
        for action, child in model.successors(state):
            name = model.plan_moves([action])[0]
            named.setdefault(name, child)
            for alias in {name.lower(), str(action)} - {name}:
                other.setdefault(alias, []).append(name)
        if token not in named:
            alias = other.get(token.lower(), []) or other.get(token, [])
            fitting = [name for name in named if name and token.startswith(name)]
            if len(set(alias)) == 1:
                token = alias[0]
            elif fitting:
                name = max(fitting, key=len)
                todo.append(token[len(name):])
                token = name
            else:
                raise RenderError(f"move {len(moves) + 1} ({token[:40]!r}) names no move of the model here; pictures "
                                  "replay plans in the notation the engines print (e.g. `puzzleplan solve` output)")
        moves.append(token)
        state = named[token]
        states.append(state)
    if model.is_goal(state) != reached:
        raise RenderError(f"the plan read as the model's moves {'does not reach' if reached else 'reaches'} the "
                          "goal, as the checker read it otherwise; write it in the notation the engines print "
                          "(e.g. `puzzleplan solve` output)")
    return Replay(tuple(moves), tuple(states))


def frames(model: Any, replayed: Replay, draw: Draw | None = None) -> list[Scene]:
    """One scene per state of the replay."""
    draw = draw or drawer(model)
    return [draw(model, state) for state in replayed.states]
