"""Korf's lines as text: which numbers of a line are the cells, the instance's number and its
published optimum (`instances`). The format alone, with no puzzle model: the collection reader
(korf_lines.py) and the writer (notation.korf_line, which checks that a line it writes reads
back as meant) both use it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterator

from puzzleplan.models.base import ModelError, quote

_NUMBERS = re.compile(r"[0-9]{1,15}(?:[ \t,]+[0-9]{1,15})*")
EXPECTED = ("expected Korf's lines: the cells of a square board as numbers, 0 the blank "
            "(optionally the instance's number before them, its optimum and node count after)")


@dataclass(frozen=True)
class Instance:
    """One instance: the line its cells are on, its own number, the cells, the published optimum."""

    line: int
    label: int | None
    cells: tuple[int, ...]
    optimal: int | None


def numbers_of(line: str) -> list[int] | None:
    """The line's numbers, or None when it holds anything else."""
    text = line.strip()
    return [int(t) for t in re.split(r"[ \t,]+", text)] if _NUMBERS.fullmatch(text) else None


def _cells_at(numbers: list[int], source: str, line: int) -> tuple[int, int] | None:
    """(offset, size) of the cells in a line of numbers: the run, at the start or after the
    instance's number, that holds 0 .. size-1 once each for a square size, with at most two
    numbers after it; None when no run does. A line that reads both ways (an 8-puzzle's cells,
    optimum and node count whose first cell equals the optimum) is refused, never guessed."""
    readings = []
    for offset in (0, 1):
        rest = len(numbers) - offset
        for side in range(math.isqrt(max(rest, 0)), 1, -1):
            size = side * side
            if rest - size <= 2 and sorted(numbers[offset:offset + size]) == list(range(size)):
                readings.append((offset, size))
                break
    if len(readings) > 1:
        raise ModelError(f"{source}:{line}: the line reads both as cells with figures after them and as an "
                         "instance's number, cells and optimum; write 'ID CELLS OPTIMAL NODES' or the cells alone")
    return readings[0] if readings else None


def instances(text: str, source: str) -> Iterator[Instance]:
    """The instances of Korf's lines in `text` (ModelError naming the line of a bad one)."""
    header: tuple[int, list[int]] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith(("#", ";")):
            continue
        numbers = numbers_of(line)
        found = None if numbers is None else _cells_at(numbers, source, number)
        if numbers is not None and found is None and len(numbers) == 3 and header is None:
            header = number, numbers   # ID OPTIMAL NODES above the cells
            continue
        if numbers is None or found is None:
            why = "" if numbers is None else f" ({len(numbers)} numbers, and no run of 4, 9, 16, ... of them holds each " \
                                             "of 0 to n-1 once)"
            raise ModelError(f"{source}:{number}: {EXPECTED}; got {quote(line.strip(), 60)}{why}")
        offset, size = found
        after = numbers[offset + size:]
        label = numbers[0] if offset else None
        optimal = after[0] if after else None
        if header is not None:
            if offset or after:
                raise ModelError(f"{source}:{header[0]}: a line 'ID OPTIMAL NODES' stands above cells that carry "
                                 "their own; expected one or the other")
            label, optimal = header[1][0], header[1][1]
            header = None
        yield Instance(number, label, tuple(numbers[offset:offset + size]), optimal)
    if header is not None:
        raise ModelError(f"{source}:{header[0]}: 'ID OPTIMAL NODES' with no cells on the next line; {EXPECTED}")
