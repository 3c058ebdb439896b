"""Tower of Hanoi as a user-defined puzzle family (a plain class: it does not import puzzleplan).

Named in YAML as `puzzle: python:./hanoi.py:Hanoi` (see hanoi.yaml). Parameters:

    discs   the number of discs (1 to 16), all stacked on the `from` peg at the start
    from    the starting peg, 1 to 3 (default 1)
    to      the target peg, 1 to 3 (default 3)

State: a tuple with the peg (0, 1 or 2) of each disc, smallest disc first. A move takes the top
disc of one peg onto a peg whose top disc is larger (or that is empty); it is written `1>3`
(from peg 1 to peg 3). With n discs there are 3**n reachable states and 2**n - 1 moves are the
optimum.
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

PEGS = 3
STANDARD = {"name", "description", "metric", "max_moves", "expect"}  # read by puzzleplan itself


class Hanoi:
    family = "hanoi"

    def __init__(self, discs: int, source: int = 0, target: int = PEGS - 1) -> None:
        self.discs = discs
        self.source = source
        self.target = target

    @classmethod
    def from_yaml(cls, data: dict[str, Any]) -> "Hanoi":
        unknown = sorted(set(data) - STANDARD - {"discs", "from", "to"})
        if unknown:
            raise ValueError(f"unknown key {unknown[0]!r}; expected discs, from, to")
        discs = data.get("discs")
        if isinstance(discs, bool) or not isinstance(discs, int) or not 1 <= discs <= 16:
            raise ValueError(f"'discs' must be a whole number from 1 to 16, got {discs!r}")
        pegs = []
        for key, default in (("from", 1), ("to", PEGS)):
            peg = data.get(key, default)
            if isinstance(peg, bool) or not isinstance(peg, int) or not 1 <= peg <= PEGS:
                raise ValueError(f"'{key}' must be a peg number from 1 to {PEGS}, got {peg!r}")
            pegs.append(peg - 1)
        if pegs[0] == pegs[1]:
            raise ValueError("'from' and 'to' name the same peg")
        return cls(discs, *pegs)

    # -- the rules ------------------------------------------------------------------------------
    def initial(self) -> tuple[int, ...]:
        return (self.source,) * self.discs

    def is_goal(self, state: tuple[int, ...]) -> bool:
        return all(peg == self.target for peg in state)

    def successors(self, state: tuple[int, ...]) -> Iterator[tuple[tuple[int, int], tuple[int, ...]]]:
        tops: list[int | None] = [None] * PEGS      # the smallest disc on each peg
        for disc, peg in enumerate(state):
            if tops[peg] is None:
                tops[peg] = disc
        for a in range(PEGS):
            disc = tops[a]
            if disc is None:
                continue
            for b in range(PEGS):
                if b != a and (tops[b] is None or tops[b] > disc):
                    yield (a, b), state[:disc] + (b,) + state[disc + 1:]

    def h(self, state: tuple[int, ...]) -> int:
        """Discs not yet on the target peg: each needs at least one move (admissible)."""
        return sum(1 for peg in state if peg != self.target)

    def plan_moves(self, actions: Sequence[tuple[int, int]]) -> list[str]:
        return [f"{a + 1}>{b + 1}" for a, b in actions]

    def render(self, state: tuple[int, ...]) -> str:
        rows = []
        for peg in range(PEGS):
            sizes = [str(disc + 1) for disc in reversed(range(len(state))) if state[disc] == peg]
            rows.append(f"peg {peg + 1}: {' '.join(sizes)}".rstrip())
        return "\n".join(rows)
