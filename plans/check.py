"""The plan checker: replays a plan with rules written apart from the engines.

Each family has its own deliberately simple replay in `plans/checkers/` that works on the
instance's plain description (grids, vehicle lists), never on the model's move generator, so an
engine bug cannot vouch for itself. A family without one (user-defined puzzles) is replayed
through its own successors, matched by move name.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

CHECKERS: dict[str, str] = {
    "tiles": "puzzleplan.plans.checkers.tiles:replay",
    "rush-hour": "puzzleplan.plans.checkers.rush_hour:replay",
    "sokoban": "puzzleplan.plans.checkers.sokoban:replay",
}


@dataclass(frozen=True)
class CheckReport:
    """The verdict on one plan."""

    valid: bool
    length: int
    error: str | None = None
    index: int | None = None        # 1-based index of the first illegal move
    move: str | None = None
    goal_reached: bool = False
    within_cap: bool | None = None  # None when the instance has no cap

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        if self.valid:
            cap = "" if self.within_cap is None else " (within the cap)"
            return f"valid: {self.length} moves reach the goal{cap}"
        return f"invalid: {self.error}"


class IllegalMove(Exception):
    """Raised by a family replay: the move at hand cannot be made (message says why)."""


def split_plan(text: str) -> list[str]:
    """Plan text to move tokens: separated by spaces/commas, or one move per character."""
    text = text.strip()
    if re.search(r"[\s,;]", text):
        return [t for t in re.split(r"[\s,;]+", text) if t]
    return list(text)


def read_plan_argument(arg: str) -> str:
    """A PLAN argument: the plan itself, or `@file` holding it."""
    if arg.startswith("@"):
        return Path(arg[1:]).read_text(encoding="utf-8")
    return arg


def check_plan(model: Any, plan: str | Sequence[str], notation: str | None = None) -> CheckReport:
    """Replay `plan` on `model` and report whether it is legal and reaches the goal within the cap."""
    tokens = split_plan(plan) if isinstance(plan, str) else list(plan)
    spec = CHECKERS.get(model.family)
    if spec is None:
        replay = _replay_with_model
    else:
        module, _, attr = spec.partition(":")
        replay = getattr(importlib.import_module(module), attr)
    try:
        reached, cost = replay(model, tokens, notation)
    except IllegalMove as exc:
        index, move, why = exc.args
        return CheckReport(False, len(tokens), f"move {index} of {len(tokens)} ({move!r}): {why}", index, move)
    cap = model.max_moves
    within = None if cap is None else cost <= cap
    if not reached:
        return CheckReport(False, len(tokens), f"after all {len(tokens)} moves the goal is not reached",
                           within_cap=within)
    if within is False:
        return CheckReport(False, len(tokens), f"the plan costs {cost}, over the cap of {cap}",
                           goal_reached=True, within_cap=False)
    return CheckReport(True, len(tokens), goal_reached=True, within_cap=within)


def _replay_with_model(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, int]:
    """Fallback replay through the model's own successors (for user-defined families)."""
    state = model.initial()
    for i, token in enumerate(tokens, 1):
        matches = [child for action, child in model.successors(state) if model.plan_moves([action]) == [token]]
        if not matches:
            raise IllegalMove(i, token, "no legal move has this name here")
        if len(matches) > 1:
            raise IllegalMove(i, token, "ambiguous: several legal moves have this name")
        state = matches[0]
    return model.is_goal(state), len(tokens)
