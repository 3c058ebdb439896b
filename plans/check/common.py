"""What the family checkers share: the illegal-move signal and how plan text splits into moves.

A leaf module: the checkers import it, never the package that dispatches to them.
"""
from __future__ import annotations

import re


class IllegalMove(Exception):
    """Raised by a family replay: the move at hand cannot be made (message says why)."""


class PlanNotationError(ValueError):
    """The plan text cannot be read unambiguously (the CLI prints it as one line, exit 2)."""


_SEPARATORS = re.compile(r"[\s,;]+")


def split_plan(text: str) -> list[str]:
    """Plan text to move tokens by separators (spaces, commas, semicolons, new lines).

    Text without separators is one token here; each family's checker says how such text reads
    (one character per move for tiles and Sokoban, `A+1B-2` runs for Rush Hour, legal move
    names matched in turn for user families).
    """
    return [t for t in _SEPARATORS.split(text.strip()) if t]


def split_runs(text: str, run: "re.Pattern[str]") -> list[str]:
    """Plan text to move tokens: by separators when it has them, else as moves run together,
    each matching `run` (`A+1B-2`, `B:DDA:R`); a part that is no move stays one token, so the
    replay names it."""
    if has_separators(text):
        return split_plan(text)
    compact, out, at = text.strip(), [], 0
    for m in run.finditer(compact):
        if m.start() != at:
            break
        out.append(m.group(0))
        at = m.end()
    if at != len(compact):
        out.append(compact[at:])
    return out


def has_separators(text: str) -> bool:
    return _SEPARATORS.search(text.strip()) is not None


def unmet_words(missing: list[tuple[str, str, str]]) -> str:
    """`needs x = 1 (it is 0), ...` for (variable, goal value, value) triples, three at most."""
    words = [f"{name} = {want} (it is {have})" for name, want, have in missing[:3]]
    more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
    from puzzleplan.plans.core.words import clip
    return clip("needs " + ", ".join(words) + more, 200) if missing else ""
