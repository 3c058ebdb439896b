"""Plan text in Fast Downward's format read into moves: one `(action args)` group a move.

`;` starts a comment to the end of the line (Fast Downward ends its plans with `; cost = N`).
Text outside the groups stays a token of its own, so the replay names it as no move.
"""
from __future__ import annotations

import re

_PART = re.compile(r"\([^()]*\)|[^\s()]+|[()]")


def tokens(text: str) -> list[str]:
    """The moves of plan text: each parenthesised group (inner space made single), in order."""
    out = []
    for line in text.splitlines():
        for part in _PART.findall(line.split(";", 1)[0]):
            out.append(f"({' '.join(part[1:-1].split())})" if len(part) > 1 and part.startswith("(") else part)
    return out
