"""Korf's lines: sliding-tile instances one a line, read as a level collection (`.korf`, or
`.txt` when its first line is numbers).

A line holds the board cell by cell, row by row, 0 the blank, on a square board (9, 16, 25, ...
cells); the goal is Korf's, 0 1 2 ... with the blank first, as the `korf` notation of YAML
files. Around the cells a line may carry the instance's number before them and its published
optimum and node count after them (`ID CELLS [OPTIMAL [NODES]]`, the layout of the tables that
copy Korf's 1985 list), and a line of three numbers `ID OPTIMAL NODES` may stand above the
cells instead (`benchmarks/data/korf100.txt`). The cells are the run of numbers that holds each
of 0 to n-1 once. Blank lines and lines starting with `#` or `;` are left out.

`--level N` picks the N-th instance of the file (1-based), as in every collection; the name is
the file's stem and the instance's own number (`korf100 #12`). A published optimum becomes
`expect: {optimal: N}`: a fact the tests check the solvers against, never read by one.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from puzzleplan.models.base import ModelError, quote
from puzzleplan.models.document import MAX_COLLECTION_BYTES, OneLineDocument, file_head, read_text

if TYPE_CHECKING:
    from puzzleplan.models.tiles.model import TilesPuzzle

READS_UNCLAIMED = False   # a .txt file of no family's is left to the others' errors (models._collection_reader)
OVERRIDABLE = ("max_moves",)
_NUMBERS = re.compile(r"[0-9]{1,15}(?:[ \t,]+[0-9]{1,15})*")
_EXPECTED = ("expected Korf's lines: the cells of a square board as numbers, 0 the blank "
             "(optionally the instance's number before them, its optimum and node count after)")


@dataclass(frozen=True)
class Instance:
    """One instance: the line its cells are on, its own number, the cells, the published optimum."""

    line: int
    label: int | None
    cells: tuple[int, ...]
    optimal: int | None


def _numbers(line: str) -> list[int] | None:
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
        numbers = _numbers(line)
        found = None if numbers is None else _cells_at(numbers, source, number)
        if numbers is not None and found is None and len(numbers) == 3 and header is None:
            header = number, numbers   # ID OPTIMAL NODES above the cells
            continue
        if numbers is None or found is None:
            why = "" if numbers is None else f" ({len(numbers)} numbers, and no run of 4, 9, 16, ... of them holds each " \
                                             "of 0 to n-1 once)"
            raise ModelError(f"{source}:{number}: {_EXPECTED}; got {quote(line.strip(), 60)}{why}")
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
        raise ModelError(f"{source}:{header[0]}: 'ID OPTIMAL NODES' with no cells on the next line; {_EXPECTED}")


def claims_text(text: str) -> bool:
    """Whether text opens with Korf's lines: its first line that is neither blank nor a comment
    is whole numbers, three or more (bad ones then get this reader's errors), and the text
    holds no XSB levels (whose wall rows read as comments here, and whose title may be numbers)."""
    text = text.lstrip("\ufeff")
    first = next((line for line in text.splitlines()[:1_000]
                  if line.strip() and not line.lstrip().startswith(("#", ";"))), None)
    numbers = None if first is None else _numbers(first)
    if numbers is None or len(numbers) < 3:
        return False
    from puzzleplan.models.sokoban.notation import read_collection
    return not read_collection(text)


def claims(path: str | Path) -> bool:
    """Whether a `.txt` file (read by other families too) opens with Korf's lines."""
    head = file_head(path)
    return head is not None and claims_text(head)


def _text(path: Path) -> str:
    return read_text(path, "Korf's lines", limit=MAX_COLLECTION_BYTES)


def count_levels(path: str | Path) -> int:
    """How many instances the file holds."""
    return sum(1 for _ in instances(_text(Path(path)), str(path)))


def load_collection(path: str | Path, level: str | int | None = None,
                    overrides: dict[str, Any] | None = None, text: str | None = None) -> "TilesPuzzle":
    """The instance of a file of Korf's lines (or of `text`, standard input's, named `path`)
    chosen by its 1-based place; `overrides` may set `max_moves`."""
    from puzzleplan.models.tiles.model import TilesPuzzle
    source = str(path)
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    extra = sorted(set(overrides) - set(OVERRIDABLE) - {"metric"})
    if extra:
        raise ModelError(f"{source}: cannot set {', '.join(extra)} for an instance of Korf's lines")
    index, chosen = _pick(source, list(instances(_text(Path(path)) if text is None else text, source)), level)
    stem = "korf" if source.startswith("<") else Path(source).stem   # standard input has no name of its own
    data: dict[str, Any] = {
        "puzzle": "tiles", "name": f"{stem} #{chosen.label if chosen.label is not None else index}",
        "notation": "korf", "start": " ".join(map(str, chosen.cells)),
        "description": f"line {chosen.line} of {Path(source).name if text is None else source} (Korf's lines)"}
    if chosen.optimal is not None:
        data["expect"] = {"optimal": chosen.optimal}
    doc = OneLineDocument(source, data, chosen.line)
    doc.override(overrides)
    return TilesPuzzle.from_document(doc)


def _pick(source: str, found: list[Instance], level: str | int | None) -> tuple[int, Instance]:
    """The 1-based place and the instance asked for (the only one when `level` is None)."""
    if not found:
        raise ModelError(f"{source}:1: no instance found; {_EXPECTED}")
    if level is None:
        if len(found) > 1:
            raise ModelError(f"{source}: holds {len(found)} instances (one a line); choose one with --level N (1-based)")
        return 1, found[0]
    text = str(level).strip()
    if not re.fullmatch(r"[0-9]{1,12}", text) or not 1 <= int(text) <= len(found):
        raise ModelError(f"{source}: level {quote(text, 16)}: expected a number from 1 to {len(found):,}")
    return int(text), found[int(text) - 1]
