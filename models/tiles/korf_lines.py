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

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from puzzleplan.models.base import ModelError, quote
from puzzleplan.models.document import MAX_COLLECTION_BYTES, OneLineDocument, file_head, read_text
from puzzleplan.models.tiles.korf_text import EXPECTED, Instance, instances, numbers_of

if TYPE_CHECKING:
    from puzzleplan.models.tiles.model import TilesPuzzle

READS_UNCLAIMED = False   # a .txt file of no family's is left to the others' errors (models._collection_reader)
OVERRIDABLE = ("max_moves",)


def claims_text(text: str) -> bool:
    """Whether text opens with Korf's lines: its first line that is neither blank nor a comment
    is whole numbers, three or more (bad ones then get this reader's errors), and the text
    holds no XSB levels (whose wall rows read as comments here, and whose title may be numbers)."""
    text = text.lstrip("\ufeff")
    first = next((line for line in text.splitlines()[:1_000]
                  if line.strip() and not line.lstrip().startswith(("#", ";"))), None)
    numbers = None if first is None else numbers_of(first)
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
        raise ModelError(f"{source}:1: no instance found; {EXPECTED}")
    if level is None:
        if len(found) > 1:
            raise ModelError(f"{source}: holds {len(found)} instances (one a line); choose one with --level N (1-based)")
        return 1, found[0]
    text = str(level).strip()
    if not re.fullmatch(r"[0-9]{1,12}", text) or not 1 <= int(text) <= len(found):
        raise ModelError(f"{source}: level {quote(text, 16)}: expected a number from 1 to {len(found):,}")
    return int(text), found[int(text) - 1]
