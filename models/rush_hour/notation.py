"""Rush Hour notations: reading the grid, vehicle-list and typed-grid forms; writing grid and list.

Readers return data (a `RushHourSpec`), never a model: `model.py` builds the model from it.
Every reader validates strictly (overlaps, off-board vehicles, unknown characters, a primary
that cannot face its exit) and raises one-line ModelErrors naming the field and the line.
The writers take a built model (typed under TYPE_CHECKING only: this module never imports it).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from puzzleplan.models.base import ModelError, describe, quote
from puzzleplan.models.document import Document, fact_lines
from puzzleplan.models.rush_hour.board import EMPTY, EXITS, MAX_SIDE, METRICS, WALL, Vehicle, default_exit, exit_fits

if TYPE_CHECKING:
    from puzzleplan.models.rush_hour.model import RushHour

NAME_POOL = "BCDEFGHIJKLMNPQRSTUVWYZ"
EXPECT_KEYS = ("optimal", "optimal_step", "optimal_slide", "solvable", "reachable", "valid_plans")
KEYS = ("puzzle", "name", "description", "board", "vehicles", "typed", "cells", "types", "primary", "rows", "cols",
        "walls", "exit", "metric", "max_moves", "expect")


@dataclass(frozen=True)
class RushHourSpec:
    """A validated Rush Hour file: the board and the common fields (see `Document.common`)."""

    rows: int
    cols: int
    vehicles: tuple[Vehicle, ...]
    primary: int
    walls: tuple[tuple[int, int], ...]
    exit: str
    metric: str = METRICS[0]
    name: str = ""
    description: str = ""
    max_moves: int | None = None
    expect: dict[str, Any] = field(default_factory=dict)


def read_document(doc: Document) -> RushHourSpec:
    """The spec of a YAML document in any of the three notations."""
    doc.check_keys(KEYS)
    given = [k for k in ("board", "vehicles", "typed", "cells") if doc.has(k)]
    if len(given) != 1:
        raise doc.error(given[1] if given else None, "expected exactly one of board:, vehicles:, typed:, cells:"
                        + (f" (got {', '.join(given)})" if given else ""))
    if given[0] == "board":
        rows, cols, vehicles, walls, primary = _read_grid(doc)
    elif given[0] == "vehicles":
        rows, cols, vehicles, walls, primary = _read_vehicle_list(doc)
    elif given[0] == "cells":
        rows, cols, vehicles, walls, primary = _read_cells(doc)
    else:
        rows, cols, vehicles, walls, primary = _read_typed(doc)
    if given[0] != "vehicles":
        for key in ("rows", "cols", "walls"):
            if doc.has(key) and not (key in ("rows", "cols") and given[0] == "board"):
                raise doc.error(key, f"only used with vehicles: (the {given[0]}: notation gives it)")
    p = vehicles[primary]
    exit_ = doc.choice("exit", EXITS, default_exit(p.horizontal))
    if not exit_fits(p.horizontal, exit_):
        raise doc.error("exit", f"the primary {p.name} is {'horizontal' if p.horizontal else 'vertical'} "
                                f"and cannot face the {exit_} exit")
    common = doc.common(METRICS, EXPECT_KEYS)
    return RushHourSpec(rows, cols, tuple(vehicles), primary, tuple(walls), exit_, common.metric, common.name,
                        common.description, common.max_moves, common.expect)


# -- grid --------------------------------------------------------------------------------------
def _grid_rows(doc: Document, key: str) -> list[str]:
    value = doc.get(key)
    if not isinstance(value, str):
        raise doc.error(key, "expected the grid as rows of characters or one string of rows*cols characters, "
                             f"got {describe(value)}")
    lines = [(i, line.strip()) for i, line in enumerate(value.split("\n")) if line.strip()]
    for i, line in lines:   # one character a cell: a space inside a row is no row break (nor a comment)
        gap = next((c for c, ch in enumerate(line) if ch.isspace()), None)
        if gap is not None:
            raise doc.error(key, f"row {quote(line, 40)} has a space at column {gap + 1}; expected one character "
                                 "per cell ('.' or 'o' empty), each row on its own line, comments outside the block",
                            line=doc.value_line(key, i))
    rows = [line for _, line in lines]
    if not rows:
        raise doc.error(key, "expected the grid as rows of characters, got no rows")
    if len(rows) == 1:
        text = rows[0]
        if doc.has("rows") or doc.has("cols"):
            nrows = doc.integer("rows", None, low=2, high=MAX_SIDE)
            ncols = doc.integer("cols", None, low=2, high=MAX_SIDE)
            if nrows is None or ncols is None:
                raise doc.error("rows" if nrows is None else "cols", "give both rows: and cols: or neither")
        else:
            side = math.isqrt(len(text))
            if side * side != len(text):
                raise doc.error(key, f"{len(text)} characters is not a square board; give rows: and cols:")
            nrows = ncols = side
        if nrows * ncols != len(text):
            raise doc.error(key, f"expected {nrows * ncols} characters for {nrows}x{ncols}, got {len(text)}")
        rows = [text[r * ncols:(r + 1) * ncols] for r in range(nrows)]
    else:   # rows of characters: rows:/cols:, when given, must agree with them (not be ignored)
        for side, count in (("rows", len(rows)), ("cols", len(rows[0]))):
            stated = doc.integer(side, None, low=2, high=MAX_SIDE)
            if stated is not None and stated != count:
                raise doc.error(side, f"{stated}, but the {key} has {count} {side}; leave {side}: out or make them agree")
    for i, row in enumerate(rows):
        if len(row) != len(rows[0]):
            raise doc.error(key, f"row {i + 1} has {len(row)} cells, expected {len(rows[0])} like row 1 (ragged rows)",
                            line=doc.value_line(key, lines[i][0] if len(lines) == len(rows) else 0))
    if not (2 <= len(rows) <= MAX_SIDE and 2 <= len(rows[0]) <= MAX_SIDE):
        raise doc.error(key, f"expected a board from 2x2 to {MAX_SIDE}x{MAX_SIDE}, got {len(rows)}x{len(rows[0])}")
    return rows


def _segments(doc: Document, key: str, cells: dict[str, list[tuple[int, int]]]) -> list["Vehicle"]:
    """Vehicles from {name: cells}; each must be a straight contiguous run of >= 2 cells."""
    vehicles = []
    for name, where in cells.items():
        rows = {r for r, _ in where}
        cols = {c for _, c in where}
        horizontal = len(rows) == 1
        line = next(iter(rows)) if horizontal else next(iter(cols))
        span = sorted(c for _, c in where) if horizontal else sorted(r for r, _ in where)
        straight = (len(rows) == 1 or len(cols) == 1) and span == list(range(span[0], span[0] + len(span)))
        if not straight or len(where) < 2:
            r, c = where[0]
            parts = _pieces(where)
            if len(parts) > 1:
                (r2, c2) = parts[1][0]
                raise doc.error(key, f"the letter {quote(name)} stands for {len(parts)} separate vehicles (at row "
                                     f"{r + 1}, column {c + 1} and row {r2 + 1}, column {c2 + 1}); give each its own "
                                     "letter", line=doc.value_line(key, r2))
            raise doc.error(key, f"vehicle {quote(name)} (first at row {r + 1}, column {c + 1}) is not a straight "
                                 f"line of 2 or more cells", line=doc.value_line(key, r))
        vehicles.append(Vehicle(name, len(where), horizontal, line, span[0]))
    return vehicles


def _pieces(cells: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The cells in groups that touch side by side, each in reading order, the groups by their
    first cell."""
    left, groups = set(cells), []
    for cell in sorted(cells):
        if cell not in left:
            continue
        group, todo = [], [cell]
        left.discard(cell)
        while todo:
            r, c = todo.pop()
            group.append((r, c))
            for near in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if near in left:
                    left.discard(near)
                    todo.append(near)
        groups.append(sorted(group))
    return groups


def _read_grid(doc: Document):
    rows = _grid_rows(doc, "board")
    cells: dict[str, list[tuple[int, int]]] = {}
    walls = []
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch in EMPTY:
                continue
            if ch == WALL:
                walls.append((r, c))
            elif ch.isalnum():     # what GRID_LETTERS writes: letters (any script) and digits
                cells.setdefault(ch, []).append((r, c))
            else:
                raise doc.error("board", f"unknown character {quote(ch)} at row {r + 1}, column {c + 1}; expected a "
                                         "vehicle letter or digit, '.' or 'o' (empty) or 'x' (wall)",
                                line=doc.value_line("board", r))
    vehicles = _segments(doc, "board", cells)
    primary = _primary(doc, vehicles, "A")
    return len(rows), len(rows[0]), vehicles, walls, primary


def _primary(doc: Document, vehicles: list["Vehicle"], default: str) -> int:
    name = doc.text("primary", default)
    for i, v in enumerate(vehicles):
        if v.name == name:
            return i
    raise doc.error("primary" if doc.has("primary") else None,
                    f"no primary vehicle {quote(name)} on the board" + ("" if doc.has("primary") else " (name it with primary:)"))


# -- vehicle list (seed 003) -------------------------------------------------------------------
_NUMBER = re.compile(r"[0-9]{1,9}\Z")


def _read_vehicle_list(doc: Document):
    nrows = doc.integer("rows", 6, low=2, high=MAX_SIDE)
    ncols = doc.integer("cols", 6, low=2, high=MAX_SIDE)
    items = doc.get("vehicles")
    one_line = isinstance(items, str)
    if one_line:
        items = _seed_groups(doc, items)
    if not isinstance(items, list) or not items:
        raise doc.error("vehicles", "expected a list of 'name size row col h|v' entries (1-based), "
                                    f"got {describe(items)}")
    entries = [_parts(item) for item in items]
    unnamed = iter(n for n in "A" + NAME_POOL if n not in {p[0] for p in entries if len(p) == 5})
    vehicles: list[Vehicle] = []
    taken: dict[tuple[int, int], str] = {}
    for i, (item, parts) in enumerate(zip(items, entries)):
        line = doc.value_line("vehicles", 0 if one_line else i)
        if len(parts) == 4:      # seed 003 lets the colour out: the vehicles get letters, A first
            parts = [next(unnamed, f"V{i + 1}")] + parts
        if len(parts) != 5 or not all(_NUMBER.match(p) for p in parts[1:4]) or parts[4] not in ("h", "v"):
            raise doc.error("vehicles", f"entry {i + 1}: expected 'name size row col h|v' (the name may be left "
                                        f"out), got {quote(item)}",
                            line=line)
        name, size, row, col, orient = parts[0], int(parts[1]), int(parts[2]), int(parts[3]), parts[4]
        if size < 2:
            raise doc.error("vehicles", f"vehicle {quote(name)}: size {size}, expected 2 or more", line=line)
        if any(v.name == name for v in vehicles):
            raise doc.error("vehicles", f"vehicle {quote(name)} is listed twice", line=line)
        # the bounds first: the cells are listed only for a vehicle that fits on the board
        last_row, last_col = (row, col + size - 1) if orient == "h" else (row + size - 1, col)
        if not (1 <= row <= nrows and 1 <= col <= ncols and last_row <= nrows and last_col <= ncols):
            bad_row, bad_col = (row, col) if not (1 <= row <= nrows and 1 <= col <= ncols) else (last_row, last_col)
            raise doc.error("vehicles", f"vehicle {quote(name)} runs off the {nrows}x{ncols} board "
                                        f"(cell row {bad_row}, column {bad_col})", line=line)
        v = Vehicle.at(name, size, orient == "h", row - 1, col - 1)
        for r, c in v.cells():
            if (r, c) in taken:
                raise doc.error("vehicles", f"vehicle {quote(name)} overlaps {quote(taken[(r, c)])} at row {r + 1}, "
                                            f"column {c + 1}", line=line)
            taken[(r, c)] = name
        vehicles.append(v)
    walls = []
    wall_items = doc.sequence("walls", [])
    for j, w in enumerate(wall_items):
        parts = _parts(w)
        if len(parts) != 2 or not all(_NUMBER.match(p) for p in parts):
            raise doc.error("walls", f"entry {j + 1}: expected 'row col' (1-based), got {quote(w)}",
                            line=doc.value_line("walls", j))
        r, c = int(parts[0]) - 1, int(parts[1]) - 1
        if not (0 <= r < nrows and 0 <= c < ncols):
            raise doc.error("walls", f"wall at row {r + 1}, column {c + 1} is off the {nrows}x{ncols} board",
                            line=doc.value_line("walls", j))
        if (r, c) in taken:
            raise doc.error("walls", f"wall at row {r + 1}, column {c + 1} overlaps {quote(taken[(r, c)])}",
                            line=doc.value_line("walls", j))
        taken[(r, c)] = "wall"
        walls.append((r, c))
    primary = _primary(doc, vehicles, vehicles[0].name)
    return nrows, ncols, vehicles, walls, primary


_GROUP = re.compile(r"\(([^()]*)\)")


def _seed_groups(doc: Document, text: str) -> list[str]:
    """Seed 003's state, `((cervene 2 3 2 h)(oranzove 2 1 1 h) ...)`: one entry per group."""
    body = text.strip()
    if body.startswith("((") and body.endswith("))"):
        body = body[1:-1]
    groups = _GROUP.findall(body)
    if not groups or _GROUP.sub("", body).strip():
        raise doc.error("vehicles", "expected a list of 'name size row col h|v' entries (1-based), or seed 003's "
                                    "'((name size row col h|v) ...)' on one line")
    return groups


def _parts(item: Any) -> list[str]:
    """The fields of a list entry written as text ('red 2 3 2 h', also in parentheses as seed 003
    writes it) or as a YAML list."""
    if isinstance(item, str):
        text = item.strip()
        return (text[1:-1] if text.startswith("(") and text.endswith(")") else text).split()
    if isinstance(item, list) and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in item):
        return [str(x) for x in item]
    return []


# -- Bird's cells (seed 001) ---------------------------------------------------------------------
BIRD_WIDTH = 7              # Bird numbers a 6x6 board's cells in rows of 7: 1-6, 8-13, ..., 36-41
_PAIR = re.compile(r"\(\s*(-?[0-9]{1,9})\s*,\s*(-?[0-9]{1,9})\s*\)")
_PAIRS = rf"{_PAIR.pattern}(?:\s*,\s*{_PAIR.pattern})*"
_CELLS = re.compile(rf"\[\s*{_PAIRS}\s*\]|{_PAIRS}")   # Bird's list, its brackets optional but paired


def _read_cells(doc: Document):
    """Seed 001's state: `[(17, 18), (1, 15), ...]`, each vehicle its rear and front cell in
    Bird's numbering, the primary first (text, or a YAML list of [rear, front] pairs). The
    vehicles are named A (the primary), B, C, ... in order."""
    value = doc.get("cells")
    if isinstance(value, str):
        body = value.strip()
        pairs = [(int(a), int(b)) for a, b in _PAIR.findall(body)]
        if not _CELLS.fullmatch(body):
            raise doc.error("cells", "expected Bird's state, a list of (rear, front) cell pairs: [(17, 18), (1, 15), ...]")
    elif isinstance(value, list) and all(isinstance(p, list) and len(p) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) for x in p) for p in value) and value:
        pairs = [(p[0], p[1]) for p in value]
    else:
        raise doc.error("cells", f"expected Bird's state, a list of (rear, front) cell pairs, got {describe(value)}")
    if len(pairs) > len(NAME_POOL) + 1:
        raise doc.error("cells", f"more than {len(NAME_POOL) + 1} vehicles; use the vehicles: notation")
    vehicles: list[Vehicle] = []
    taken: dict[tuple[int, int], str] = {}
    for i, (rear, front) in enumerate(pairs):
        name = "A" if i == 0 else NAME_POOL[i - 1]
        where = f"vehicle {i} ({rear}, {front})"
        if not all(1 <= x <= 6 * BIRD_WIDTH - 1 and x % BIRD_WIDTH for x in (rear, front)) or rear >= front:
            raise doc.error("cells", f"{where}: expected a rear cell before its front cell, both on the board "
                                     "(1-6, 8-13, ..., 36-41)")
        horizontal = rear // BIRD_WIDTH == front // BIRD_WIDTH
        if not horizontal and (front - rear) % BIRD_WIDTH:
            raise doc.error("cells", f"{where}: its cells share neither a row nor a column")
        length = front - rear + 1 if horizontal else (front - rear) // BIRD_WIDTH + 1
        if length < 2:
            raise doc.error("cells", f"{where}: a vehicle covers at least 2 cells")
        row, col = divmod(rear, BIRD_WIDTH)
        v = Vehicle.at(name, length, horizontal, row, col - 1)
        for cell in v.cells():
            if cell in taken:
                raise doc.error("cells", f"{where} overlaps vehicle {taken[cell]}")
            taken[cell] = name
        vehicles.append(v)
    if not vehicles[0].horizontal:
        raise doc.error("cells", "the first vehicle (the primary) must be horizontal, its exit on the right")
    return 6, 6, vehicles, [], 0


# -- typed grid (seed 000) ---------------------------------------------------------------------
def _read_types(doc: Document) -> dict[str, tuple[bool, int]]:
    types = doc.mapping("types")
    out = {}
    for ch, spec in types.items():
        ch = str(ch)
        if isinstance(spec, str):
            m = re.fullmatch(r"([hv])([0-9]{1,6})", spec.strip())
            spec = {"orientation": m.group(1), "length": int(m.group(2))} if m else None
        if (not isinstance(spec, dict) or spec.get("orientation") not in ("h", "v")
                or not isinstance(spec.get("length"), int) or isinstance(spec["length"], bool)
                or not 2 <= spec["length"] <= MAX_SIDE or set(spec) - {"orientation", "length"}):
            raise doc.error("types", f"type {quote(ch)}: expected {{orientation: h|v, length: n}} or 'h2'/'v3', "
                                     f"n from 2 to {MAX_SIDE}")
        if len(ch) != 1 or ch in EMPTY:
            raise doc.error("types", f"type {quote(ch)}: expected a single character other than '.' and 'o'")
        out[ch] = (spec["orientation"] == "h", spec["length"])
    return out


def _read_typed(doc: Document):
    rows = _grid_rows(doc, "typed")
    types = _read_types(doc)
    primary_type = doc.text("primary")
    if primary_type not in types:
        raise doc.error("primary", f"expected the primary's type character, one of {', '.join(types)}")
    nrows, ncols = len(rows), len(rows[0])
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch not in types and ch not in EMPTY:
                raise doc.error("typed", f"unknown character {quote(ch)} at row {r + 1}, column {c + 1}; expected '.' "
                                         f"or a type from types: ({', '.join(types)})", line=doc.value_line("typed", r))
    found: list[tuple[tuple[int, int], bool, int, int, int, str]] = []  # (first cell, horiz, line, offset, len, type)
    for ch, (horizontal, length) in types.items():
        lines = range(nrows) if horizontal else range(ncols)
        span = ncols if horizontal else nrows
        for line in lines:
            p = 0
            while p < span:
                at = (lambda q: rows[line][q]) if horizontal else (lambda q: rows[q][line])
                if at(p) != ch:
                    p += 1
                    continue
                start = p
                while p < span and at(p) == ch:
                    p += 1
                run = p - start
                if run % length:
                    r, c = (line, start) if horizontal else (start, line)
                    raise doc.error("typed", f"a run of {run} {quote(ch)} at row {r + 1}, column {c + 1} does not split "
                                             f"into vehicles of length {length}", line=doc.value_line("typed", r))
                for k in range(run // length):
                    off = start + k * length
                    cell = (line, off) if horizontal else (off, line)
                    found.append((cell, horizontal, line, off, length, ch))
    found.sort()
    primaries = [f for f in found if f[5] == primary_type]
    if len(primaries) != 1:
        raise doc.error("primary", f"expected exactly one vehicle of the primary type {quote(primary_type)}, "
                                   f"found {len(primaries)}")
    names = iter(NAME_POOL)
    vehicles = []
    for cell, horizontal, line, off, length, ch in found:
        name = "A" if ch == primary_type else next(names, None)
        if name is None:
            raise doc.error("typed", f"more than {len(NAME_POOL) + 1} vehicles; use the vehicles: notation")
        vehicles.append(Vehicle(name, length, horizontal, line, off))
    primary = next(i for i, v in enumerate(vehicles) if v.name == "A")
    return nrows, ncols, vehicles, [], primary


# -- writers -----------------------------------------------------------------------------------
def _header(model: "RushHour") -> list[str]:
    import json
    lines = ["puzzle: rush-hour"]
    if model.name:
        lines.append(f"name: {json.dumps(model.name)}")
    return lines


def _footer(model: "RushHour", same_names: bool) -> list[str]:
    """The exit, metric, cap and the file's facts (`valid_plans` only when the vehicles keep
    their names)."""
    p = model.vehicles[model.primary]
    lines = []
    if model.exit != default_exit(p.horizontal):
        lines.append(f"exit: {model.exit}")
    lines.append(f"metric: {model.metric}")
    if model.max_moves is not None:
        lines.append(f"max_moves: {model.max_moves}")
    return lines + fact_lines(model, keep_plans=same_names)


def to_seed_003(model: "RushHour") -> str:
    """Seed 003's state on one line, the primary first: `((A 2 3 2 h)(B 2 1 1 h) ...)`, rows and
    columns 1-based (the `vehicles:` field reads it back). The line holds vehicles alone: a 6x6
    board without walls whose horizontal primary leaves on the right; ModelError for any other."""
    _seed_board("seed 003's state", model)
    order = [model.vehicles[model.primary]] + [v for i, v in enumerate(model.vehicles) if i != model.primary]
    entries = []
    for v in order:
        r, c = v.cells()[0]
        entries.append(f"({v.name} {v.length} {r + 1} {c + 1} {'h' if v.horizontal else 'v'})")
    return "(" + "".join(entries) + ")\n"


def to_cells(model: "RushHour") -> str:
    """Seed 001's state, Bird's list of (rear, front) cells, the primary first: `[(17,18),...]`
    (the `cells:` field reads it back). Bird's numbering holds 6x6 boards without walls whose
    horizontal primary leaves on the right; ModelError for any other."""
    _seed_board("Bird's cells (seed 001)", model)
    p = model.vehicles[model.primary]
    order = [p] + [v for i, v in enumerate(model.vehicles) if i != model.primary]
    pairs = []
    for v in order:
        (r0, c0), (r1, c1) = v.cells()[0], v.cells()[-1]
        pairs.append(f"({r0 * BIRD_WIDTH + c0 + 1},{r1 * BIRD_WIDTH + c1 + 1})")
    return "[" + ",".join(pairs) + "]\n"


def _seed_board(what: str, model: "RushHour") -> None:
    """ModelError unless the seeds' notations can hold the board: 6x6, no walls, a horizontal
    primary leaving on the right."""
    if (model.rows, model.cols) != (6, 6) or model.walls or model.exit != "right" \
            or not model.vehicles[model.primary].horizontal:
        raise ModelError(f"{what} holds a 6x6 board without walls whose horizontal primary leaves on the right; "
                         f"this is {model.rows}x{model.cols}" + (", with walls" if model.walls else "")
                         + (f", exit {model.exit}" if model.exit != "right" else ""))


def to_grid_yaml(model: "RushHour") -> str:
    """A YAML puzzle file in the grid notation ('A' is the primary)."""
    body = ["board: |"] + [f"  {row}" for row in model.grid()]
    same_names = model.letters() == [v.name for v in model.vehicles]
    return "\n".join(_header(model) + body + _footer(model, same_names)) + "\n"


def to_vehicles_yaml(model: "RushHour") -> str:
    """A YAML puzzle file in seed 003's vehicle-list notation (1-based rows and columns)."""
    body = [f"rows: {model.rows}", f"cols: {model.cols}", "vehicles:"]
    for v in model.vehicles:
        r, c = v.cells()[0]
        body.append(f"  - {v.name} {v.length} {r + 1} {c + 1} {'h' if v.horizontal else 'v'}")
    if model.walls:
        body.append("walls:")
        body += [f"  - {r + 1} {c + 1}" for r, c in model.walls]
    if model.primary != 0:
        body.append(f"primary: {model.vehicles[model.primary].name}")
    return "\n".join(_header(model) + body + _footer(model, True)) + "\n"
