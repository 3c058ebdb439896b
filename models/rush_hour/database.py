"""Fogleman's Rush Hour database (`rush.txt`): one puzzle a line, read as a level collection.

A line holds `MOVES BOARD CLUSTER`, separated by spaces: the fewest moves that solve it (a move
slides one vehicle any distance: this family's `slide` metric), the board as one string of
rows*cols characters in the grid notation (`o` empty, `x` wall, `A` the primary, other letters
vehicles; 36 for the classic 6x6), and the number of states reachable from it. Blank lines and
lines starting with `#` are skipped (the published file has none; they let a sample say where
it comes from). `--level N` picks the N-th puzzle line (1-based), or the puzzle whose board is
the text given. The file is read line by line up to the puzzle asked for, so the whole
database (2.5 million lines, over 100 MB) needs no more memory than one line.

The two figures become `expect: {optimal_slide: MOVES, reachable: CLUSTER}`: published facts
the tests check our solver against, never read by a solver. Levels load under `slide`, the
metric the figures count in, unless --metric says otherwise.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from puzzleplan.models.base import ModelError, quote
from puzzleplan.models.document import OneLineDocument
from puzzleplan.models.rush_hour.notation import read_document

if TYPE_CHECKING:
    from puzzleplan.models.rush_hour.model import RushHour

MAX_LINE = 4096                   # bytes in one line: a 16x16 board and two numbers fit many times over
_WHOLE = re.compile(r"[0-9]{1,9}\Z")
OVERRIDABLE = ("metric", "max_moves")


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every line, decoded one by one (one-line ModelErrors)."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise ModelError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ModelError(f"{path}: is a directory, expected a Rush Hour database (.txt)") from None
    except OSError as exc:
        raise ModelError(f"{path}: cannot read: {exc.strerror or type(exc).__name__}") from None
    with handle:
        number = 0
        while True:
            try:
                raw = handle.readline(MAX_LINE + 1)
            except OSError as exc:
                raise ModelError(f"{path}:{number + 1}: cannot read: {exc.strerror or type(exc).__name__}") from None
            if not raw:
                return
            number += 1
            if len(raw) > MAX_LINE:
                raise ModelError(f"{path}:{number}: a line longer than {MAX_LINE:,} bytes; expected "
                                 "'MOVES BOARD CLUSTER' (Fogleman's Rush Hour database)")
            try:
                yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8")   # a byte-order mark dropped
            except UnicodeDecodeError as exc:
                raise ModelError(f"{path}:{number}: not UTF-8 text ({exc.reason})") from None


def _entries(path: Path | str, text: str | None = None) -> Iterator[tuple[int, int, str, int | None]]:
    """(line number, moves, board, cluster size) of each puzzle line of the file, or of `text`
    (named `path`); ModelError on a malformed one."""
    numbered = _lines(Path(path)) if text is None else enumerate(text.splitlines(), 1)
    for number, line in numbered:
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) not in (2, 3) or not all(_WHOLE.match(f) for f in fields[:1] + fields[2:]):
            raise ModelError(f"{path}:{number}: expected 'MOVES BOARD CLUSTER' (Fogleman's Rush Hour database: "
                             f"a move count, the board in one string, the reachable states), got "
                             f"{quote(line.strip(), 60)}")
        yield number, int(fields[0]), fields[1], int(fields[2]) if len(fields) == 3 else None


def load_collection(path: str | Path, level: str | int | None = None,
                    overrides: dict[str, Any] | None = None, text: str | None = None) -> "RushHour":
    """The puzzle of a database file (or of its `text`, standard input's, named `path`) chosen by
    1-based number or by its board; `overrides` may set `metric` (default slide) and `max_moves`."""
    from puzzleplan.models.rush_hour.model import RushHour
    path = Path(path)
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    extra = sorted(set(overrides) - set(OVERRIDABLE))
    if extra:
        raise ModelError(f"{path}: cannot set {', '.join(extra)} for a puzzle of a Rush Hour database")
    index, (number, moves, board, cluster) = _pick(path, level, text)
    expect: dict[str, Any] = {"optimal_slide": moves}
    if cluster is not None:
        expect["reachable"] = cluster
    stem = "rush" if str(path).startswith("<") else path.stem   # standard input has no name of its own
    data: dict[str, Any] = {"puzzle": "rush-hour", "name": f"{stem} #{index}", "board": board,
                            "metric": "slide", "expect": expect,
                            "description": f"line {number} of {path.name if text is None else path} "
                                           "(Fogleman's Rush Hour database)"}
    doc = OneLineDocument(str(path), data, number)
    doc.override(overrides)
    return RushHour.from_spec(read_document(doc))


def is_database_line(line: str) -> bool:
    """`MOVES BOARD [CLUSTER]` with the board a square of board characters (36 for 6x6)."""
    fields = line.split()
    if len(fields) not in (2, 3) or not all(_WHOLE.match(f) for f in fields[:1] + fields[2:]):
        return False
    board = fields[1]
    side = math.isqrt(len(board))
    return side >= 2 and side * side == len(board) and all(ch.isalpha() or ch == "." for ch in board)


def claims_text(text: str) -> bool:
    """Whether text (standard input's) opens with a database line, comments aside."""
    for line in text.splitlines()[:1_000]:
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            return is_database_line(line)
    return False


def claims(path: str | Path) -> bool:
    """Whether a .txt file opens with a database line, comments aside (else it may be
    another family's, e.g. Sokoban levels titled `1000 Kilometres`)."""
    try:
        for number, line in _lines(Path(path)):
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                return is_database_line(line)
            if number > 1_000:
                return False
    except ModelError:
        return False
    return False


def count_levels(path: str | Path) -> int:
    """How many puzzle lines a database file holds (read line by line; ModelError on a bad one)."""
    return sum(1 for _ in _entries(Path(path)))


def _pick(path: Path, level: str | int | None, lines: str | None = None
          ) -> tuple[int, tuple[int, int, str, int | None]]:
    """The 1-based index and entry of the puzzle asked for (the only one when `level` is None)."""
    text = None if level is None else str(level).strip()
    number = int(text) if text is not None and re.fullmatch(r"[0-9]{1,12}", text) else None
    found = None
    index = 0
    for index, entry in enumerate(_entries(path, lines), 1):
        if text is None:
            if found is not None:
                raise ModelError(f"{path}: holds several puzzles (one a line); choose one with --level N "
                                 "(1-based) or --level BOARD")
            found = (index, entry)
        elif index == number or entry[2] == text:
            return index, entry
    if found is not None:
        return found
    if index == 0:
        raise ModelError(f"{path}:1: no puzzle found; expected lines 'MOVES BOARD CLUSTER' "
                         "(Fogleman's Rush Hour database)")
    if number is not None:
        raise ModelError(f"{path}: level {quote(text, 16)}: expected a number from 1 to {index:,}")
    raise ModelError(f"{path}: no puzzle has the board {quote(text, 40)} (--level takes a 1-based number or a board)")
