"""Plan text in Fast Downward's or VAL's format read into moves: one `(action args)` group a move.

`;` starts a comment to the end of the line (Fast Downward ends its plans with `; cost = N`).
VAL's time stamps and durations (`0.000: (move a b) [1]`, as IPC plans write them) are dropped.
Text outside the groups stays a token of its own, so the replay names it as no move; a group
left open or closed twice is a PlanNotationError naming its line.
"""
from __future__ import annotations

import re

from puzzleplan.plans.check.common import PlanNotationError

_PART = re.compile(r"\([^()]*\)|[^\s()]+|[()]")
_STAMP = re.compile(r"^\s*[0-9]+(?:\.[0-9]*)?\s*:")        # VAL: `0.000:` before a step
_DURATION = re.compile(r"\[\s*[0-9]+(?:\.[0-9]*)?\s*\]")    # VAL: `[1]` after it


def unstamped(line: str) -> str:
    """A plan line without VAL's time stamp and duration (`0.000: (a b) [1]` -> ` (a b) `)."""
    return _DURATION.sub(" ", _STAMP.sub(" ", line))


def tokens(text: str) -> list[str]:
    """The moves of plan text: each parenthesised group (inner space made single), in order."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        body = unstamped(line.split(";", 1)[0])
        for part in _PART.findall(body):
            if part in "()":
                what = "a '(' left open" if part == "(" else "a ')' that closes nothing"
                raise PlanNotationError(f"plan line {number}: {what}; expected one (action object ...) a move")
            out.append(f"({' '.join(part[1:-1].split())})" if len(part) > 1 and part.startswith("(") else part)
    return out
