"""Tiles files: reading the YAML fields into layouts, and writing layouts back out. Returns data
(grids of face names and the common fields); `model.TilesPuzzle` builds the puzzle from them.

YAML (`puzzle: tiles`):
    name, description        free text
    notation                 grid (default: rows of whitespace-separated faces, '_' blank)
                             hex  (rows of hex digits such as `7632 58F4 E1DC BA90`, 0 blank;
                                  a square board may be one token, `0x763258F4E1DCBA90` as the
                                  seed writes it, or without `0x`)
                             korf (one line of numbers, cell by cell, 0 blank; goal 0 1 2 ...)
    start, goal              the two layouts; without goal: korf's is 0 1 2 ... (blank first),
                             the others' the faces sorted (numbers by value, then the rest
                             alphabetically) with the blank last
    rows, cols               board size, only for korf when the board is not square
    max_moves                the move cap
    metric                   step (the only metric of this family)
    expect                   known facts, checked by the tests
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from puzzleplan.models.base import ModelError, describe, quote
from puzzleplan.models.document import CommonFields, Document
from puzzleplan.models.tiles.board import BLANK, MAX_SIDE
from puzzleplan.models.tiles.korf_text import instances

NOTATIONS = ("grid", "hex", "korf")
EXPECT_KEYS = ("optimal", "solvable", "reachable", "max_depth", "valid_plans", "distance")
KEYS = ("puzzle", "name", "description", "notation", "start", "goal", "rows", "cols",
        "max_moves", "metric", "expect")

Grid = tuple[tuple[str, ...], ...]
_KORF_TOKEN = re.compile(r"[0-9]{1,6}\Z")   # cell contents: decimal digits (a 16x16 board needs 3)
_NUMBER = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?")   # a face the standard goal orders by value


@dataclass(frozen=True)
class TilesFile:
    """What a tiles file states: the two layouts (face names, `BLANK` the blank) and the common fields."""

    start: Grid
    goal: Grid
    common: CommonFields


def read(doc: Document, metrics: Sequence[str]) -> TilesFile:
    """The layouts and common fields of a `puzzle: tiles` document; errors name the field and line.
    The layouts are checked first, then the common fields (`Document.common`)."""
    doc.check_keys(KEYS)
    notation = doc.choice("notation", NOTATIONS, "grid")
    if notation == "korf":
        start = _korf_grid(doc, "start")
        goal = _korf_grid(doc, "goal") if doc.has("goal") else _korf_goal(len(start), len(start[0]))
    else:
        for key in ("rows", "cols"):
            if doc.has(key):
                raise doc.error(key, "only used with notation: korf (other notations give the size by their rows)")
        start = _grid(doc, "start", notation)
        goal = _grid(doc, "goal", notation) if doc.has("goal") else standard_goal(start)
    blank = "'0'" if notation in ("hex", "korf") else f"'{BLANK}'"
    _check_board(doc, "start", start, blank)
    if (len(start), len(start[0])) != (len(goal), len(goal[0])):
        raise doc.error("goal", f"expected a {len(start)}x{len(start[0])} board like start, "
                                f"got {len(goal)}x{len(goal[0])}")
    _check_board(doc, "goal", goal, blank)
    if notation == "korf" and not doc.has("goal"):
        _check_korf_permutation(doc, start)
    _check_same_faces(doc, start, goal)
    return TilesFile(start, goal, doc.common(metrics, EXPECT_KEYS))


def write(kind: str, start: Grid, goal: Grid, name: str = "", max_moves: int | None = None,
          facts: Sequence[str] = (), optimal: int | None = None) -> str:
    """Bare start rows ("grid"), one of Korf's lines ("korf": the instance's number, when the
    name ends in one, the cells, 0 the blank, and the published `optimal`), or a YAML file in the
    grid notation ("yaml") ending in the `facts` lines (document.fact_lines: description, expect).
    ValueError when the notation would read back as another puzzle."""
    rows = lambda grid: [" ".join(row) for row in grid]
    if kind == "korf":
        numbered = re.search(r"(?:#|\s)(\d{1,9})$", name)
        return korf_line(start, goal, int(numbered.group(1)) if numbered else None, optimal) + "\n"
    if kind == "grid":
        if goal != standard_goal(start):   # read back, bare rows would state another puzzle
            raise ValueError("grid writes the start rows alone, which read back with the standard goal (faces in "
                             "order, blank last), and this puzzle's goal is another; write yaml")
        return "\n".join(rows(start)) + "\n"
    lines = ["puzzle: tiles"] + ([f"name: {json.dumps(name)}"] if name else [])
    lines += ["start: |"] + [f"  {r}" for r in rows(start)]
    lines += ["goal: |"] + [f"  {r}" for r in rows(goal)]
    if max_moves is not None:
        lines.append(f"max_moves: {max_moves}")
    return "\n".join(lines + list(facts)) + "\n"


def korf_line(start: Grid, goal: Grid, number: int | None = None, optimal: int | None = None) -> str:
    """The start as one of Korf's lines (korf_lines.py), with the instance's `number` before the
    cells and its `optimal` length after them where given and the line reads back so (else
    without them): ValueError unless the board is square, its faces are 1 .. n-1 and the goal
    is Korf's (blank first), which the line alone states."""
    side = len(start)
    if side != len(start[0]):
        raise ValueError(f"korf lines hold square boards (the size is read from the count), and this one is "
                         f"{side}x{len(start[0])}; write yaml")
    if goal != _korf_goal(side, side):
        raise ValueError("korf lines state Korf's goal (0 1 2 ..., blank first), and this puzzle's goal is "
                         "another; write yaml")
    cells = " ".join("0" if face == BLANK else face for row in start for face in row)
    for before, after in ((number, optimal), (None, optimal), (number, None)):
        if before is None and after is None:
            continue
        line = " ".join(str(x) for x in (before, cells, after) if x is not None)
        try:   # e.g. an 8-puzzle's number, cells and optimum may also read as cells and two figures
            read = next(instances(line, "<line>"))
        except ModelError:
            continue
        if (read.label, read.optimal, " ".join(map(str, read.cells))) == (before, after, cells):
            return line
    return cells


def _rows_of(doc: Document, key: str) -> list[tuple[int, Any]]:
    """The rows of a layout field as (file line, row) pairs: text lines or a YAML list."""
    value = doc.get(key)
    if isinstance(value, str):
        lines = value.split("\n")
        rows = [(doc.value_line(key, i), line) for i, line in enumerate(lines) if line.strip()]
        if rows:
            return rows
    if isinstance(value, list) and value:
        return [(doc.value_line(key, i), row) for i, row in enumerate(value)]
    raise doc.error(key, "expected the layout as rows of faces (a text block or a list of rows), "
                         f"got {describe(value)}")


def _grid(doc: Document, key: str, notation: str) -> Grid:
    rows: list[tuple[str, ...]] = []
    if notation == "hex":
        value = doc.get(key)
        if not isinstance(value, str):
            raise doc.error(key, "expected hex rows such as '7632 58F4 E1DC BA90'")
        tokens = value.split()
        if len(tokens) == 1:
            tokens = _square_rows(tokens[0])
        for token in tokens:
            if not re.fullmatch(r"[0-9A-Fa-f]+", token):
                raise doc.error(key, f"expected rows of hex digits, got {quote(token)}")
            rows.append(tuple(BLANK if ch == "0" else ch.upper() for ch in token))
        if not rows:
            raise doc.error(key, "expected hex rows such as '7632 58F4 E1DC BA90'")
        return _rectangular(doc, key, [(doc.line(key), r) for r in rows])
    parsed = []
    for line, row in _rows_of(doc, key):
        if isinstance(row, str):
            parsed.append((line, tuple(row.split())))
        elif isinstance(row, list) and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in row):
            parsed.append((line, tuple(str(x) for x in row)))
        else:
            bad = next((x for x in row if not isinstance(x, (str, int)) or isinstance(x, bool)), row) \
                if isinstance(row, list) else row
            raise doc.error(key, f"expected a row of faces (text, or a list of names and numbers), got "
                                 f"{describe(bad)}", line=line)
    return _rectangular(doc, key, parsed)


def _square_rows(token: str) -> list[str]:
    """One hex token as the seed writes a board (`0x763258F4E1DCBA90`, or without `0x`): its
    digits cut into the rows of a square board when their number is a square (16: 4 rows)."""
    digits = token[2:] if token[:2].lower() == "0x" else token
    side = math.isqrt(len(digits))
    if side < 2 or side * side != len(digits):
        return [digits]
    return [digits[i:i + side] for i in range(0, len(digits), side)]


def _rectangular(doc: Document, key: str, rows: list[tuple[int, tuple[str, ...]]]) -> Grid:
    if not rows:
        raise doc.error(key, "expected the layout as rows of faces, got no rows")
    width = len(rows[0][1])
    for i, (line, row) in enumerate(rows):
        if len(row) != width:
            raise doc.error(key, f"row {i + 1} has {len(row)} faces, expected {width} like row 1 (ragged rows)",
                            line=line)
    return tuple(row for _, row in rows)


def _korf_grid(doc: Document, key: str) -> Grid:
    value = doc.get(key)
    tokens = value.split() if isinstance(value, str) else \
        [str(x) if isinstance(x, (int, str)) and not isinstance(x, bool) else "?" for x in value] \
        if isinstance(value, list) \
        else None
    if not tokens or not all(_KORF_TOKEN.match(t) for t in tokens):
        bad = next((t for t in tokens or () if not _KORF_TOKEN.match(t)), None)
        raise doc.error(key, "expected Korf notation: one line of cell contents, 0 the blank (e.g. '1 2 3 0')"
                             + (f", got {quote(bad)}" if bad not in (None, "?") else ""))
    n = len(tokens)
    rows = doc.integer("rows", None, low=2, high=MAX_SIDE)
    cols = doc.integer("cols", None, low=2, high=MAX_SIDE)
    if rows is None and cols is None:
        side = math.isqrt(n)
        if side * side != n:
            raise doc.error(key, f"{n} cells is not a square board; give rows: and cols:")
        rows = cols = side
    elif rows is None or cols is None:
        raise doc.error("rows" if rows is None else "cols", "give both rows: and cols: or neither")
    if rows * cols != n:
        raise doc.error(key, f"expected {rows * cols} cells for {rows}x{cols}, got {n}")
    faces = [BLANK if int(t) == 0 else str(int(t)) for t in tokens]
    return tuple(tuple(faces[r * cols:(r + 1) * cols]) for r in range(rows))


def standard_goal(start: Grid) -> Grid:
    """The goal of a grid or hex file without `goal:`: the start's faces in order row by row
    (faces that are numbers by value, then the others alphabetically; repeats kept), blank last."""
    faces = [f for row in start for f in row if f != BLANK]
    faces.sort(key=lambda f: (0, float(f), f) if _NUMBER.fullmatch(f) else (1, 0.0, f))
    faces.append(BLANK)
    cols = len(start[0])
    return tuple(tuple(faces[r * cols:(r + 1) * cols]) for r in range(len(start)))


def _korf_goal(rows: int, cols: int) -> Grid:
    faces = [BLANK] + [str(i) for i in range(1, rows * cols)]
    return tuple(tuple(faces[r * cols:(r + 1) * cols]) for r in range(rows))


def _check_board(doc: Document, key: str, grid: Grid, blank: str = f"'{BLANK}'") -> None:
    rows, cols = len(grid), len(grid[0])
    if not (2 <= rows <= MAX_SIDE and 2 <= cols <= MAX_SIDE):
        raise doc.error(key, f"expected a board from 2x2 to {MAX_SIDE}x{MAX_SIDE}, got {rows}x{cols}")
    blanks = sum(row.count(BLANK) for row in grid)
    if blanks != 1:
        raise doc.error(key, f"expected exactly one blank {blank}, found {blanks}")
    odd = next((f for row in grid for f in row if not f or any(ch.isspace() for ch in f)), None)
    if odd is not None:
        raise doc.error(key, f"a face must be a word without spaces, got {quote(odd)}")


def _check_korf_permutation(doc: Document, start: Grid) -> None:
    """Korf's start with the default goal holds each of 0 .. n-1 once."""
    n = len(start) * len(start[0])
    seen = Counter(0 if f == BLANK else int(f) for row in start for f in row)
    twice = sorted(k for k, c in seen.items() if c > 1)
    missing = [k for k in range(n) if k not in seen]
    beyond = sorted(k for k in seen if k >= n)
    if twice or missing or beyond:
        parts = ([f"{', '.join(map(str, twice[:3]))} more than once"] if twice else []) + \
                ([f"{', '.join(map(str, beyond[:3]))} beyond {n - 1}"] if beyond else []) + \
                ([f"{', '.join(map(str, missing[:3]))} missing"] if missing else [])
        raise doc.error("start", f"expected each of 0 .. {n - 1} once (the default goal is Korf's 0 1 2 ...): "
                                 + "; ".join(parts))


def _check_same_faces(doc: Document, start: Grid, goal: Grid) -> None:
    a = Counter(f for row in start for f in row)
    b = Counter(f for row in goal for f in row)
    if a != b:
        diffs = [f"{quote(f, 16)} {a[f]} in start vs {b[f]} in goal" for f in sorted(set(a) | set(b)) if a[f] != b[f]]
        raise doc.error("goal", "expected the same faces as start (with repeats): " + ", ".join(diffs[:4]))
