"""Plan files: a plan written in puzzleplan's notation, Fast Downward's format or LURD, and the
readers `check` needs to tell them apart.

    puzzleplan  the moves as `solve` prints them: one-character moves run together, longer ones
                separated by spaces; one line
    fd          what Fast Downward prints for the PDDL that `export --to pddl` writes: one
                `(action )` a line, named as the export grounds it (`(u_3 )`), then
                `; cost = N (unit cost)`, or `(general cost)` when the task has action costs
                (Fast Downward judges that on the operators its translator keeps, so on a task
                whose only non-unit actions are irrelevant it would say `unit cost`)
    lurd        Sokoban's notation: l u r d a walk, L U R D a push, run together on one line
    digits      the tiles seed's notation: the blank's moves as 0 1 2 3 (up right down left),
                run together on one line (`check` reads them back)
    seed-003    Rush Hour as seed 003 writes operators: `(VPRAVO NAME D)` (VLAVO, DOLE, HORE), one a line
    cells       Rush Hour as seed 001 (Bird) prints a plan: `[(V,CELL),...]`, a vehicle (0-based)
                moving one cell onto CELL, numbered in rows of cols + 1 (1-6, 8-13, ... on 6x6)

Reading: `check` takes any of them; the readers that tell them apart live beside the checker
(plans/check/plan_text.py), which this module's writers use in turn.
"""
from __future__ import annotations

from typing import Any

from puzzleplan.plans.check.plan_text import LURD, is_fd_text, read_lurd, strip_comments, writes_lurd

__all__ = ["FORMATS", "PlanFormatError", "is_fd_text", "read_lurd", "strip_comments", "supports",
           "write_plan", "writes_lurd"]

FORMATS = ("puzzleplan", "fd", "lurd", "digits", "seed-003", "cells")
RUSH_HOUR_FORMATS = ("seed-003", "cells")
DIGIT_FAMILIES = frozenset({"tiles"})    # families whose moves the seed wrote as digits


class PlanFormatError(ValueError):
    """A plan cannot be written in the format asked for (the message says why)."""


# -- writing -------------------------------------------------------------------------------------
def supports(model: Any, fmt: str) -> str | None:
    """None when a plan of `model` can be written in `fmt`, else why not, naming the formats
    that fit (checked before a search)."""
    if fmt not in FORMATS:
        return f"expected one of {', '.join(FORMATS)}, got {fmt!r}"
    reason = _unfit(model, fmt)
    if reason is None:
        return None
    fitting = [f for f in FORMATS if _unfit(model, f) is None]
    return f"{reason} (use {', '.join(fitting[:-1])} or {fitting[-1]})" if len(fitting) > 1 else \
        f"{reason} (use {fitting[0]})"


def _unfit(model: Any, fmt: str) -> str | None:
    """Why `fmt` cannot hold a plan of `model`, or None."""
    family = getattr(model, "family", "?")
    if fmt == "lurd" and not writes_lurd(model):
        return f"lurd is Sokoban's notation, not {family}'s"
    if fmt == "digits" and family not in DIGIT_FAMILIES:
        return f"digits is the sliding tiles' notation, not {family}'s"
    if fmt in RUSH_HOUR_FORMATS and family != "rush-hour":
        return f"{fmt} is a Rush Hour seed's notation, not {family}'s"
    if fmt == "cells" and getattr(model, "metric", "step") != "step":
        return "cells writes Bird's single-cell moves, so a slide plan would read back longer"
    if fmt == "fd":
        from puzzleplan.encoders.pddl import exporter_supports
        reason = exporter_supports(model, "pddl")
        if reason is not None:
            return f"fd names the actions of the PDDL export, and there is {reason}"
    return None


def write_plan(model: Any, moves: Any, fmt: str = "puzzleplan", notation: str | None = None) -> str:
    """The text of a plan file holding `moves` (move names as the engines print them, plan text
    as `check` reads it, in `notation` where given, a Plan, or a Result holding one) in `fmt`.
    PlanFormatError when the format does not fit the model, or a move is not legal where the
    plan makes it."""
    reason = supports(model, fmt)
    if reason is not None:
        raise PlanFormatError(reason)
    from puzzleplan.plans.check import IllegalMove, check_notation, checked_moves
    from puzzleplan.plans.core.types import plan_moves
    try:
        check_notation(model, notation)
        given = plan_moves(moves)
        given = given if isinstance(given, str) else [str(m) for m in given]
        report, moves = checked_moves(model, given, notation)
    except IllegalMove as exc:   # the checker passed the plan: its translation to printed names did not
        raise PlanFormatError(f"the plan is not one of this puzzle: move {exc.args[0]}: {exc.args[2]}") from None
    except ValueError as exc:   # a Result without a plan; text that cannot be read
        raise PlanFormatError(str(exc)) from None
    if report.index is not None:
        raise PlanFormatError(f"the plan is not one of this puzzle: {report.error}")
    if fmt == "fd":
        return _fd_text(model, moves)
    if fmt == "lurd":
        bad = next((m for m in moves if len(m) != 1 or m not in LURD), None)
        if bad is not None:
            raise PlanFormatError(f"move {bad!r} is not one LURD letter")
        return "".join(moves) + "\n"
    if fmt == "digits":
        from puzzleplan.models.tiles.board import DIRECTIONS   # index = the seed's digit
        bad = next((m for m in moves if m not in DIRECTIONS), None)
        if bad is not None:
            raise PlanFormatError(f"move {bad!r} is not a blank direction U R D L")
        return "".join(str(DIRECTIONS.index(m)) for m in moves) + "\n"
    if fmt in RUSH_HOUR_FORMATS:
        return _seed_rush_hour(model, moves, fmt)
    from puzzleplan.plans.check import reads_runs
    if reads_runs(model) and all(len(m) == 1 for m in moves):
        return "".join(moves) + "\n"
    return " ".join(moves) + "\n"


def _seed_rush_hour(model: Any, moves: list[str], fmt: str) -> str:
    """Rush Hour moves (`A+1`, or `A+3` under slide) in seed 003's operators or Bird's cells
    (single cells: a slide of 3 is three of his moves)."""
    from puzzleplan.models.rush_hour.board import parse_move
    from puzzleplan.plans.check.rush_hour import bird_order   # the reader's numbering, written back
    index = {name: i for i, name in enumerate(bird_order(model))}
    vehicles = {v.name: v for v in model.vehicles}
    first = {v.name: list(v.cells()[0]) for v in model.vehicles}      # each vehicle's first cell, as it moves
    lines, pairs = [], []
    for move in moves:
        parsed = parse_move(move)
        if parsed is None or parsed[0] not in index or parsed[1] == 0:
            raise PlanFormatError(f"move {move!r} is not a Rush Hour move such as A+1")
        name, sign, dist = parsed[0], "+" if parsed[1] > 0 else "-", abs(parsed[1])
        vehicle = vehicles[name]
        across = vehicle.horizontal
        if fmt == "seed-003":
            word = {("+", True): "VPRAVO", ("-", True): "VLAVO", ("+", False): "DOLE", ("-", False): "HORE"}[sign, across]
            lines.append(f"({word} {name} {dist})")
            continue
        step = 1 if sign == "+" else -1
        for _ in range(dist):
            first[name][1 if across else 0] += step
            r, c = first[name]
            if sign == "+":   # the cell newly covered: the front's, else the rear's
                r, c = (r, c + vehicle.length - 1) if across else (r + vehicle.length - 1, c)
            pairs.append(f"({index[name]},{r * (model.cols + 1) + c + 1})")
    return "\n".join(lines) + "\n" if fmt == "seed-003" else "[" + ",".join(pairs) + "]\n"


def _fd_text(model: Any, moves: list[str]) -> str:
    """The plan replayed on the exported task, each move named by the grounded action it is,
    in Fast Downward's plan-file form (its operator names end with a space: `(u_3 )`). A PDDL
    puzzle's moves are its own domain's actions, `(move a b)`, as FD and VAL read them."""
    from puzzleplan.encoders.pddl import action_names
    from puzzleplan.models.task.compile import compiled
    from puzzleplan.plans.check.task import normal_name
    task = compiled(model).task
    names = action_names(task)
    position = {id(action): i for i, action in enumerate(task.actions)}
    fold = task.family == "pddl"
    state = tuple(task.init)
    lines: list[str] = []
    cost = 0
    for number, move in enumerate(moves, 1):
        wanted = normal_name(move, fold)
        action = next((a for a in task.applicable(state) if normal_name(a.name, fold) == wanted), None)
        if action is None:
            raise PlanFormatError(f"move {number} ({move!r}) is no action of the exported task in its state")
        lines.append(_fd_line(normal_name(move, fold)) if fold else f"({names[position[id(action)]]} )")
        cost += action.cost
        state = action.apply(state)
    lines.append(f"; cost = {cost} ({'unit' if task.unit_cost else 'general'} cost)")
    return "\n".join(lines) + "\n"


def _fd_line(name: str) -> str:
    """A PDDL action as Fast Downward prints it: `(move a b)`, and `(wait )` without arguments
    (its operator name is the action's name and a space before the arguments, none here)."""
    return name if " " in name.strip("() ") else name[:-1].rstrip() + " )"
