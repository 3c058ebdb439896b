"""The plan checker: replays a plan with rules written apart from the engines.

Each family has its own deliberately simple replay in `plans/check/` (named by the family's
descriptor, `Family.checker`) that works on the
instance's plain description (grids, vehicle lists), never on the model's move generator, so an
engine bug cannot vouch for itself. Rules files run their rules on whole states, ungrounded
(`plans/check/rules.py`); PDDL plans go through unified-planning's validator on the lifted
problem (`plans/check/pddl.py`). A family without a checker (a user's Python class) is
replayed by the generic task checker (`plans/check/task.py`, a plain replay over a task's
variables and actions) over the class's enumerated task (models/user/task.py), or, where the class reaches too many
states to enumerate, through its own successors matched by move name.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import asdict, dataclass
from typing import Any, Sequence

from puzzleplan.models.family import family_of, resolve
from puzzleplan.plans.check.common import IllegalMove, PlanNotationError, has_separators, split_plan
from puzzleplan.plans.check.plan_text import is_fd_text, read_lurd, strip_comments, writes_lurd
from puzzleplan.plans.core.words import clip, clip_path, count, metric_count

__all__ = ["CheckReport", "IllegalMove", "PlanNotationError", "check_notation", "check_plan", "checked_moves", "plan_tokens", "read_plan_argument", "reads_runs",
           "split_plan", "states_by_move_names"]

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
    cost: int | None = None         # the replayed moves' cost in the metric's unit (None: a move was illegal)
    unit: str = "moves"             # what cost counts: moves, pushes (Sokoban) or cost (action costs)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        if self.valid:
            cap = "" if self.within_cap is None else " (within the cap)"
            verb = "reaches" if self.length == 1 else "reach"
            return f"valid: {count(self.length, 'move')}{self._cost_words()} {verb} the goal{cap}"
        return f"invalid: {self.error}"

    def _cost_words(self) -> str:
        """` (4 pushes)`, ` (cost 13)`, or nothing when the cost is the move count."""
        if self.cost is None or self.unit == "moves":
            return ""
        return f" ({count(self.cost, 'push', 'pushes')})" if self.unit == "pushes" else f" (cost {self.cost})"


TASK_CHECKER = "puzzleplan.plans.check.task:replay"   # the generic one (user classes, second opinions)
# the checkers whose moves are a task's action names (rules, PDDL): plans read as for tasks
TASK_NAMED = (TASK_CHECKER, "puzzleplan.plans.check.rules:replay", "puzzleplan.plans.check.pddl:replay")
MAX_PLAN_BYTES = 16_000_000  # far beyond any plan within the largest cap


_COMMENT_LINE = re.compile(r"^[ \t]*[;#][^\n]*(?:\n|$)", re.MULTILINE)   # whole lines only: a move may hold them


def read_plan_argument(arg: str) -> str:
    """A PLAN argument: the plan itself, `@file` holding it, or `@-` for standard input
    (OSError / ValueError when unreadable)."""
    if arg == "@-":
        import sys
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read(MAX_PLAN_BYTES + 1) if stream is not None else sys.stdin.read(MAX_PLAN_BYTES + 1).encode()
        if len(data) > MAX_PLAN_BYTES:
            raise ValueError(f"standard input: the plan holds more than {MAX_PLAN_BYTES:,} bytes")
        return data.decode("utf-8-sig")
    if arg.startswith("@"):
        with open(arg[1:], "rb") as handle:   # read up to the cap: /dev/zero is no regular file
            data = handle.read(MAX_PLAN_BYTES + 1)
        if len(data) > MAX_PLAN_BYTES:
            raise ValueError(f"{clip_path(arg[1:])}: the plan file holds more than {MAX_PLAN_BYTES:,} bytes")
        return data.decode("utf-8-sig")   # a leading byte-order mark dropped; UnicodeDecodeError is a ValueError
    return arg


def check_notation(model: Any, notation: str | None) -> None:
    """ValueError unless `notation` is None, "printed" (the engines' own), or blank, digits or
    tiles on a tiles puzzle (the one family whose plans read several ways)."""
    if notation not in (None, "printed", "blank", "digits", "tiles"):
        raise ValueError(f"notation: expected blank, digits or tiles (tiles only), or None, got {notation!r}")
    family = getattr(model, "family", None)
    if notation not in (None, "printed") and family != "tiles":
        raise ValueError(f"notation: it chooses how a tiles plan is read; {family} plans are read in their one notation")


def checked_moves(model: Any, plan: str | Sequence[str], notation: str | None = None) -> tuple[CheckReport, list[str]]:
    """`plan` checked as `check_plan` checks it, read once, and when every move is legal the
    moves as the engines print them (translated where the family's checker module offers
    `printed`: Rush Hour's seed notations, tiles' digits and faces; [] after an illegal move).
    What pictures and plan files are made from. IllegalMove where that translation meets an
    illegal move the replay passed (a disagreement, never drawn or written). Without a
    `notation`, text is read as `check` reads it and a list of moves as the engines print them."""
    if notation is None and not isinstance(plan, str):
        notation = "printed"
    tokens = _read(model, plan, notation)
    report = _checked(model, tokens, notation)
    if report.index is not None:
        return report, []
    desc = family_of(model)
    if notation == "printed" or desc is None or desc.checker is None:
        return report, tokens
    printed = _beside(desc.checker, "printed")
    return report, tokens if printed is None else printed(model, tokens, notation)


def reads_runs(model: Any) -> bool:
    """Whether plan text of single-character moves run together reads back as those moves: so
    for a family with a reader of its own (tiles, Sokoban); the longest-name reading of rules,
    PDDL and user classes would take moves `1`, `2` run together for a move `12`."""
    desc = family_of(model)
    return desc is not None and desc.checker is not None and desc.tokens is not None


def plan_tokens(model: Any, plan: str | Sequence[str]) -> list[str]:
    """`plan` as the moves `check_plan` replays: text read by the family's own reader (its
    notations, LURD with counts, an outside planner's plan of the PDDL export), comment lines
    left out; a sequence of move strings as it is. PlanNotationError when it cannot be read."""
    if not isinstance(plan, str):
        return list(plan)
    desc = family_of(model)
    own = desc is not None and desc.checker is not None
    if own and desc.tokens is not None and _reads_own_notation(desc, body := _COMMENT_LINE.sub("", plan)):
        return resolve(desc.tokens)(body)   # comment lines: notes here too
    if is_fd_text(plan) and (own and desc.checker not in TASK_NAMED or _exported_names(model, plan)):
        return _planner_plan(model, plan)
    if writes_lurd(model):   # run-length counts, wrapped lines; a bad character is named by line
        return read_lurd(plan)
    if _COMMENT_LINE.search(plan):   # a plan file's own notes, as LURD and FD files carry
        return plan_tokens(model, _COMMENT_LINE.sub("", plan))
    if own and desc.tokens is not None:
        return resolve(desc.tokens)(plan)
    if (not own or desc.checker in TASK_NAMED) and not has_separators(plan) and plan.strip():
        return _tokens_by_legal_names(model, plan.strip())
    return split_plan(plan)


def check_plan(model: Any, plan: str | Sequence[str], notation: str | None = None) -> CheckReport:
    """Replay `plan` on `model` and report whether it is legal and reaches the goal within the cap.

    `plan` is text as a user writes it (read by the family's own rules, see `split_plan`) or a
    sequence of move strings as the engines print them. `notation` is a family's reading of the
    moves (tiles: blank, digits or tiles); "printed" means the notation the engines print.
    PlanNotationError when text cannot be read unambiguously.
    """
    return _checked(model, _read(model, plan, notation), notation)


def _read(model: Any, plan: str | Sequence[str], notation: str | None) -> list[str]:
    """`plan_tokens`, regrouped for a notation asked for where the family's checker module has
    `regrouped` (tiles: faces of several characters run together under `tiles`)."""
    tokens = plan_tokens(model, plan)
    desc = family_of(model)
    if isinstance(plan, str) and notation not in (None, "printed") and desc is not None and desc.checker:
        regroup = _beside(desc.checker, "regrouped")
        if regroup is not None:
            return regroup(model, plan, tokens, notation)
    return tokens


def _checked(model: Any, tokens: list[str], notation: str | None) -> CheckReport:
    """The verdict on the moves `tokens` (a plan as `plan_tokens` read it)."""
    desc = family_of(model)
    own = desc is not None and desc.checker is not None
    replay = resolve(desc.checker) if own else _replay_with_model
    try:
        reached, cost = replay(model, tokens, notation)
    except IllegalMove as exc:
        index, move, why = exc.args
        return CheckReport(False, len(tokens), f"move {index} of {len(tokens)} ({clip(move)!r}): {why}", index,
                           clip(move))
    cap = model.max_moves
    within = None if cap is None else cost <= cap
    unit = _unit(model)
    if not reached:
        missing = _unmet(model, desc, tokens) if own else ""
        return CheckReport(False, len(tokens), f"after all {count(len(tokens), 'move')} the goal is not reached"
                           + (f": {missing}" if missing else ""), within_cap=within, cost=cost, unit=unit)
    if within is False:
        over = metric_count("pushes", cost) if unit == "pushes" else f"costs {cost}"
        return CheckReport(False, len(tokens), f"the plan {'makes ' if unit == 'pushes' else ''}{over}, over the "
                           f"cap of {cap}", goal_reached=True, within_cap=False, cost=cost, unit=unit)
    return CheckReport(True, len(tokens), goal_reached=True, within_cap=within, cost=cost, unit=unit)


def _unmet(model: Any, desc: Any, tokens: list[str]) -> str:
    """What the family's checker says is missing at the end (its module's `unmet`), or ""."""
    said = _beside(desc.checker, "unmet")
    return said(model, tokens) if said is not None else ""


def _beside(spec: str, name: str) -> Any:
    """The function `name` of the module a descriptor's "module:function" `spec` names, or None
    (a checker's `unmet` and `printed`, a tokens module's `reads`: optional companions)."""
    return getattr(importlib.import_module(spec.partition(":")[0]), name, None)


def _unit(model: Any) -> str:
    """What a plan's cost counts: pushes (Sokoban's metric), cost (action costs other than 1), moves."""
    if getattr(model, "metric", None) == "pushes":
        return "pushes"
    return "cost" if getattr(model, "unit_cost", True) is False else "moves"


def _reads_own_notation(desc: Any, text: str) -> bool:
    """Whether the family's tokens module claims `text` (its `reads`, where it has one): a
    notation of its own starting with `(`, which would otherwise be taken for Fast Downward's."""
    reads = _beside(desc.tokens, "reads")
    return bool(reads is not None and reads(text))


_EXPORTED = re.compile(r"^\(\s*([^\s()]+_\d+)\s*\)")


def _exported_names(model: Any, text: str) -> bool:
    """Whether a plan of a task-checked family (rules, PDDL, user classes) names the actions of
    its PDDL export (`(up_0)`) rather than its own moves: its first move is no move name of the task."""
    from puzzleplan.plans.check.task import normal_name, task_of
    from puzzleplan.models.pddl.plan import unstamped
    body = unstamped(strip_comments(text).lstrip())
    first = _EXPORTED.match(body.lstrip())
    if first is None:
        return not body.strip()   # comments alone: Fast Downward's plan of no moves
    from puzzleplan.models.task.compile import NotCompilable
    try:
        names = {normal_name(a.name, True) for a in task_of(model).actions}
    except NotCompilable:   # a user class too large to enumerate: no export to name
        return False
    return normal_name(f"({first.group(1)})", True) not in names


def _planner_plan(model: Any, text: str) -> list[str]:
    """An outside planner's plan (Fast Downward's format) for the PDDL `export --to pddl` wrote,
    read back into the family's move names."""
    from puzzleplan.encoders.pddl import moves_from_planner_plan
    from puzzleplan.models.base import ModelError
    try:
        return moves_from_planner_plan(model, text)
    except ModelError as exc:
        raise PlanNotationError(str(exc)) from None


def _tokens_by_legal_names(model: Any, text: str) -> list[str]:
    """Text without separators, for a family with no checker of its own: at each state the
    longest legal move name that starts the rest of the text is the next move (so `1>3`, `F1P1>2`
    and `UDLR` all read). Where no legal name fits, the rest is one token and the replay names it."""
    tokens: list[str] = []
    state = model.initial()
    rest = text
    while rest:
        named = {model.plan_moves([action])[0]: child for action, child in model.successors(state)}
        fitting = [name for name in named if name and rest.startswith(name)]
        if not fitting:
            tokens.append(rest)
            break
        name = max(fitting, key=len)
        tokens.append(name)
        state = named[name]
        rest = rest[len(name):]
    return tokens


def states_by_move_names(model: Any, tokens: Sequence[str]) -> list[Any]:
    """The states a plan passes through, replayed by the model's own successors and matched by
    move name (IllegalMove naming the first move that is no legal move, or an ambiguous one).
    What `check` falls back on for a family without an independent checker, and what `solve
    --show` draws from."""
    state = model.initial()
    states = [state]
    for i, token in enumerate(tokens, 1):
        matches = [child for action, child in model.successors(state) if model.plan_moves([action]) == [token]]
        if not matches:
            raise IllegalMove(i, token, "no legal move has this name here")
        if len(matches) > 1:
            raise IllegalMove(i, token, "ambiguous: several legal moves have this name")
        state = matches[0]
        states.append(state)
    return states


def _replay_with_model(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, int]:
    """The replay of a family without a checker: the task checker on its compiled task, else
    (too large to compile, or a user's class) the model's own successors, matched by move name.
    A class's task is its own successors enumerated, up to 100,000 states: replaying through
    them checks the same, without a sweep of the space that no limit bounds."""
    from puzzleplan.models.task.compile import NotCompilable, compiled
    from puzzleplan.models.user.model import UserModel
    from puzzleplan.plans.check import task as task_checker
    try:
        if isinstance(model, UserModel):
            raise NotCompilable("a user's class")
        compiled(model)
    except NotCompilable:
        return model.is_goal(states_by_move_names(model, tokens)[-1]), len(tokens)
    return task_checker.replay(model, tokens, notation)
