"""A task state packed into one Python int: a bit field per variable.

Variable v occupies `bits[v]` = bit_length(size - 1) bits at `shifts[v]` (a variable with one
value takes none). Python ints have no width limit, so a Sokoban level of 200 cells packs
like a 3x3 tile board; hashing and comparing one int is what makes the search's tables fast.
Partial assignments (preconditions, effects, goals) become a (mask, value) pair: a state key
satisfies it when `key & mask == value`, and an effect is applied as `key & ~mask | value`.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from puzzleplan.models.task.ir import Fact


class Packing:
    """Bit fields for a task's variables (domain sizes `sizes`)."""

    def __init__(self, sizes: Sequence[int]) -> None:
        self.sizes = tuple(sizes)
        self.bits = tuple(max(0, n - 1).bit_length() for n in self.sizes)
        shifts, at = [], 0
        for b in self.bits:
            shifts.append(at)
            at += b
        self.shifts = tuple(shifts)
        self.masks = tuple((1 << b) - 1 for b in self.bits)
        self.width = at                     # total bits

    def pack(self, state: Sequence[int]) -> int:
        """The key of a full state (one value per variable)."""
        key = 0
        for x, s in zip(state, self.shifts):
            key |= x << s
        return key

    def unpack(self, key: int) -> tuple[int, ...]:
        """The state of a key (inverse of `pack`)."""
        return tuple(key >> s & m for s, m in zip(self.shifts, self.masks))

    def value(self, key: int, var: int) -> int:
        return key >> self.shifts[var] & self.masks[var]

    def partial(self, facts: Iterable[Fact]) -> tuple[int, int]:
        """(mask, value) of a partial assignment: `key & mask == value` when it holds."""
        mask = value = 0
        for v, x in facts:
            mask |= self.masks[v] << self.shifts[v]
            value |= x << self.shifts[v]
        return mask, value
