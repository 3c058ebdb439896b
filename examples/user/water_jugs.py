"""Water jugs as a user-defined puzzle family, written against puzzleplan's ModelBase.

Named in YAML as `puzzle: python:./water_jugs.py:WaterJugs` (see water-jugs.yaml). The class has
neither `from_yaml` nor `from_document`, so its constructor receives the puzzle's own fields as
keyword arguments (`name`, `max_moves`, `expect`, ... are kept by puzzleplan):

    capacities   the jugs' capacities in litres, e.g. [3, 5]
    target       the amount wanted in some jug
    start        the starting amounts (default: all empty)

Moves: `F2` fill jug 2 from the tap, `E1` empty jug 1, `P2>1` pour jug 2 into jug 1 until jug 2
is empty or jug 1 is full. State: a tuple with the amount in each jug.
"""
from __future__ import annotations

from math import gcd
from typing import Iterator, Sequence

from puzzleplan.models import ModelBase


class WaterJugs(ModelBase):
    family = "water-jugs"

    def __init__(self, capacities: list[int], target: int, start: list[int] | None = None) -> None:
        if not isinstance(capacities, list) or not 1 <= len(capacities) <= 6 or not all(
                isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 1000 for c in capacities):
            raise ValueError(f"'capacities' must be a list of 1 to 6 whole numbers from 1 to 1000, got {capacities!r}")
        if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target <= max(capacities):
            raise ValueError(f"'target' must be a whole number from 0 to {max(capacities)}, got {target!r}")
        start = [0] * len(capacities) if start is None else start
        if not isinstance(start, list) or len(start) != len(capacities) or not all(
                isinstance(a, int) and not isinstance(a, bool) and 0 <= a <= c for a, c in zip(start, capacities)):
            raise ValueError(f"'start' must give each jug an amount within its capacity, got {start!r}")
        self.capacities = tuple(capacities)
        self.target = target
        self.start = tuple(start)

    def initial(self) -> tuple[int, ...]:
        return self.start

    def is_goal(self, state: tuple[int, ...]) -> bool:
        return self.target in state

    def successors(self, state: tuple[int, ...]) -> Iterator[tuple[str, tuple[int, ...]]]:
        caps = self.capacities
        for i, (amount, cap) in enumerate(zip(state, caps)):
            if amount < cap:
                yield f"F{i + 1}", state[:i] + (cap,) + state[i + 1:]
            if amount > 0:
                yield f"E{i + 1}", state[:i] + (0,) + state[i + 1:]
        for i, amount in enumerate(state):
            for j, other in enumerate(state):
                if i != j and amount > 0 and other < caps[j]:
                    poured = min(amount, caps[j] - other)
                    nxt = list(state)
                    nxt[i] -= poured
                    nxt[j] += poured
                    yield f"P{i + 1}>{j + 1}", tuple(nxt)

    def h(self, state: tuple[int, ...]) -> int:
        return 0 if self.target in state else 1

    def plan_moves(self, actions: Sequence[str]) -> list[str]:
        return list(actions)

    def unsolvable_reason(self) -> str | None:
        """Every amount ever measured is a multiple of the gcd of the capacities and start amounts."""
        g = 0
        for value in self.capacities + self.start:
            g = gcd(g, value)
        if g and self.target % g:
            return f"every amount reachable is a multiple of {g}, and {self.target} is not"
        return None

    def render(self, state: tuple[int, ...]) -> str:
        return "  ".join(f"jug {i + 1}: {a}/{c}" for i, (a, c) in enumerate(zip(state, self.capacities)))
