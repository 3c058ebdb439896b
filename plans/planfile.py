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

Reading: `check` takes any of them. Fast Downward's format is told by its first line that is
not a `;` comment starting with `(`; LURD (Sokoban) may carry run-length counts (`3l2U`), spaces
and line breaks anywhere, as `.sok` files store solutions. `read_lurd` names the line and
column of anything else.
"""
from __future__ import annotations

import re
from typing import Any

from puzzleplan.plans.check.common import PlanNotationError

__all__ = ["FORMATS", "PlanFormatError", "is_fd_text", "read_lurd", "strip_comments", "supports",
           "write_plan", "writes_lurd"]

FORMATS = ("puzzleplan", "fd", "lurd", "digits", "seed-003", "cells")
RUSH_HOUR_FORMATS = ("seed-003", "cells")
LURD_FAMILIES = frozenset({"sokoban"})   # families whose moves are LURD letters, one a step
DIGIT_FAMILIES = frozenset({"tiles"})    # families whose moves the seed wrote as digits
LURD = "lurdLURD"
MAX_LURD_MOVES = 16_000_000              # as many as a plan file of MAX_PLAN_BYTES holds without counts


class PlanFormatError(ValueError):
    """A plan cannot be written in the format asked for (the message says why)."""


# -- writing -------------------------------------------------------------------------------------
def writes_lurd(model: Any) -> bool:
    """Whether the model's moves are LURD letters (Sokoban)."""
    return getattr(model, "family", None) in LURD_FAMILIES


def supports(model: Any, fmt: str) -> str | None:
    """None when a plan of `model` can be written in `fmt`, else why not (checked before a search)."""
    if fmt not in FORMATS:
        return f"expected one of {', '.join(FORMATS)}, got {fmt!r}"
    if fmt == "lurd" and not writes_lurd(model):
        return f"lurd is Sokoban's notation, not {getattr(model, 'family', '?')}'s (use puzzleplan or fd)"
    if fmt == "digits" and getattr(model, "family", None) not in DIGIT_FAMILIES:
        return f"digits is the sliding tiles' notation, not {getattr(model, 'family', '?')}'s (use puzzleplan or fd)"
    if fmt in RUSH_HOUR_FORMATS and getattr(model, "family", None) != "rush-hour":
        return f"{fmt} is a Rush Hour seed's notation, not {getattr(model, 'family', '?')}'s (use puzzleplan or fd)"
    if fmt == "cells" and getattr(model, "metric", "step") != "step":
        return "cells writes Bird's single-cell moves, so a slide plan would read back longer (use seed-003)"
    if fmt == "fd":
        from puzzleplan.encoders.pddl import exporter_supports
        reason = exporter_supports(model, "pddl")
        if reason is not None:
            return f"fd names the actions of the PDDL export, and there is {reason}"
    return None


def write_plan(model: Any, moves: Any, fmt: str = "puzzleplan") -> str:
    """The text of a plan file holding `moves` (move names as the engines print them, plan text
    as `check` reads it, a Plan, or a Result holding one) in `fmt`. PlanFormatError when the
    format does not fit the model, or a move is not legal where the plan makes it."""
    reason = supports(model, fmt)
    if reason is not None:
        raise PlanFormatError(reason)
    from puzzleplan.plans.check import IllegalMove, check_plan, printed_moves
    from puzzleplan.plans.core.types import plan_moves
    try:
        given = plan_moves(moves)
        moves = printed_moves(model, given if isinstance(given, str) else [str(m) for m in given])
        report = check_plan(model, moves, "printed")
    except IllegalMove as exc:
        raise PlanFormatError(f"move {exc.args[0]} ({exc.args[1]!r}) is no legal move: {exc.args[2]}") from None
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


# -- reading -------------------------------------------------------------------------------------
_COST_LINE = re.compile(r"\s*;\s*cost\s*=")


def strip_comments(text: str) -> str:
    """The text without `;` comments (to the end of each line)."""
    return "\n".join(line.split(";", 1)[0] for line in text.splitlines())


def is_fd_text(text: str) -> bool:
    """Whether plan text is in Fast Downward's (or VAL's) format: its first line that is neither
    blank nor a `;` comment starts with `(` (after VAL's time stamp); or it holds only comments, one of them `; cost = ...` (a plan of
    no moves)."""
    from puzzleplan.models.pddl.plan import unstamped
    lines = [line for line in text.splitlines() if line.strip()]
    content = [line for line in lines if not line.lstrip().startswith(";")]
    if content:
        return unstamped(content[0]).lstrip().startswith("(")   # VAL's `0.000: (a b) [1]` too
    return any(_COST_LINE.match(line) for line in lines)


_PIECE = re.compile(r"[\s,;]+|(?:([0-9]+)[\s,;]*)?([lurdLURD])")   # separators as in every family's plans


_COMMENT_LINE = re.compile(r"^[ \t]*;[^\n]*", re.MULTILINE)          # `; solution by ...`
_LABEL = re.compile(r"^[ \t]*(?![lurdLURD]*:)[A-Za-z][A-Za-z0-9 ,()/=-]*:", re.MULTILINE)   # `Solution:`
_GROUP = re.compile(r"([0-9]+)\(([^()]*)\)")                        # `2(lu)` = `lulu`


def _lurd_body(text: str) -> str:
    """LURD text without what solution files put around the moves: comment lines (`;` first), a
    label ending in `:` before them, and repeated groups expanded (`2(lu)` = `lulu`, innermost
    first; columns on a line with a group count in the expanded text)."""
    text = _LABEL.sub(lambda m: " " * len(m.group(0)), _COMMENT_LINE.sub(lambda m: " " * len(m.group(0)), text))

    def repeated(m: re.Match[str]) -> str:
        times = int(m.group(1)) if len(m.group(1)) <= 9 else MAX_LURD_MOVES + 1
        if times * len(m.group(2)) > MAX_LURD_MOVES:
            raise PlanNotationError(f"the group {m.group(0)[:24]!r} repeats to more than {MAX_LURD_MOVES:,} moves")
        return m.group(2) * times
    while True:
        expanded = _GROUP.sub(repeated, text)
        if expanded == text:
            return expanded
        if len(expanded) > MAX_LURD_MOVES:
            raise PlanNotationError(f"the groups repeat to more than {MAX_LURD_MOVES:,} moves")
        text = expanded


def read_lurd(text: str) -> list[str]:
    """LURD text to one letter a step: spaces, commas, semicolons and line breaks anywhere (also
    between a count and its letter, where a wrapped solution may break), a count before a
    letter repeats it (`3r` = `rrr`), groups repeat (`2(lu)`), and comment lines and a
    `Solution:` label are skipped (`_lurd_body`). PlanNotationError naming the line and column
    of anything else."""
    text = _lurd_body(text)
    moves: list[str] = []
    at = 0
    while at < len(text):
        m = _PIECE.match(text, at)
        if m is None:
            line = text.count("\n", 0, at) + 1
            column = at - (text.rfind("\n", 0, at) + 1) + 1
            rest = text[at:]
            what = (f"the count {rest.split()[0][:12]!r} repeats no move" if rest[:1].isdigit()
                    else f"{rest[:1]!r} is not a LURD move")
            raise PlanNotationError(f"plan line {line}, column {column}: {what}; expected l u r d (walk), "
                                    "L U R D (push), a count before a letter repeating it (3r)")
        count, letter = m.groups()
        if letter:
            repeat = 1 if count is None else int(count) if len(count) <= 9 else 0
            if not 1 <= repeat <= MAX_LURD_MOVES - len(moves):
                line = text.count("\n", 0, at) + 1
                column = at - (text.rfind("\n", 0, at) + 1) + 1
                raise PlanNotationError(f"plan line {line}, column {column}: the count {count[:12]!r} is not "
                                        f"from 1 to {MAX_LURD_MOVES - len(moves):,}")
            moves.extend(letter * repeat)
        at = m.end()
    return moves
