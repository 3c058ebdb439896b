"""Plan text in the plan files' notations, read for the checker: Fast Downward's format (told
by its first line that is not a `;` comment starting with `(`, VAL's time stamps allowed) and
LURD (Sokoban), which may carry run-length counts (`3l2U`), groups, spaces and line breaks
anywhere, as `.sok` files store solutions; `read_lurd` names the line and column of anything
else. The writers are in plans/planfile.py.
"""
from __future__ import annotations

import re
from typing import Any

from puzzleplan.plans.check.common import PlanNotationError

LURD_FAMILIES = frozenset({"sokoban"})   # families whose moves are LURD letters, one a step
LURD = "lurdLURD"
MAX_LURD_MOVES = 16_000_000              # as many as a plan file of MAX_PLAN_BYTES holds without counts


def writes_lurd(model: Any) -> bool:
    """Whether the model's moves are LURD letters (Sokoban)."""
    return getattr(model, "family", None) in LURD_FAMILIES


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
