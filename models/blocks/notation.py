"""Sliding-block notation: reading a `puzzle: blocks` file into a `BlocksSpec`, and writing it back.

    puzzle: blocks
    board: |          one letter per piece (its cells edge-connected), '.' empty, '#' wall
      ABBC
      I..J
    goal: {B: [4, 2]} the top-left cell of the piece's bounding box (1-based), one or more pieces
    layout: |         or instead of goal: the full target grid (same walls, same pieces)
    distinct: [A]     pieces that are not interchangeable with their look-alikes (a piece named
                      in goal: is distinct anyway)
    exit: {side: bottom, at: [2, 3]}   an opening in the border: the side and the columns (top,
                      bottom) or rows (left, right) it spans, 1-based
    leave: B          or instead of goal: the piece must leave through the exit (only it may
                      enter the opening; it has left when all its cells are past the border)
    legend: {o: 1x1, L: "X./XX"}   a letter that stands for several pieces of one shape (RxC, or
                      rows of X and . split by /); its cells are cut into that shape in reading
                      order and the pieces are named o1, o2, ... (only where shapes alone would be
                      ambiguous: every other letter is one piece)
Other keys: name, description, metric (step, slide, piece), max_moves, expect.
Every error is one line naming the file, the line and what was expected.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from puzzleplan.models.base import describe, quote
from puzzleplan.models.blocks.board import (EMPTY, MAX_SIDE, METRICS, SIDES, WALL, Cell, Exit, Piece, Shape, connected,
                                            normalise)
from puzzleplan.models.document import Document

if TYPE_CHECKING:
    from puzzleplan.models.blocks.model import Blocks

EXPECT_KEYS = ("optimal", "optimal_step", "optimal_slide", "optimal_piece", "solvable", "reachable", "valid_plans")
KEYS = ("puzzle", "name", "description", "board", "goal", "layout", "leave", "exit", "legend", "distinct", "metric",
        "max_moves", "expect")
GOALS = ("goal", "layout", "leave")


@dataclass(frozen=True)
class BlocksSpec:
    """A validated file: the starting grid, the goal in the form written, and the common fields."""

    grid: tuple[str, ...]
    pieces: tuple[Piece, ...]
    walls: tuple[Cell, ...]
    distinct: tuple[str, ...]                 # as written in `distinct:`
    targets: tuple[tuple[str, Cell], ...]     # goal: letter -> anchor (0-based); empty under layout
    layout: tuple[str, ...] | None
    leave: str | None = None                  # the piece that must leave through `exit`
    exit: Exit | None = None
    legend: tuple[tuple[str, str], ...] = ()  # as written: letter -> shape text
    layout_pieces: tuple[Piece, ...] = ()     # the pieces of `layout`, by name
    metric: str = METRICS[0]
    name: str = ""
    description: str = ""
    max_moves: int | None = None
    expect: dict[str, Any] = field(default_factory=dict)


def read_grid(doc: Document, key: str, legend: dict[str, Shape]) -> tuple[list[str], dict[str, Piece], list[Cell]]:
    """Rows, the pieces by name and the walls of a grid field; strictly validated."""
    value = doc.get(key)
    if not isinstance(value, str):
        raise doc.error(key, f"expected the grid as rows of letters, '.' and '#', got {describe(value)}")
    # one row a line (blank lines around it dropped); a space inside a row is a mistake named
    # with its line, not a row break
    numbered = [(i, text.strip()) for i, text in enumerate(value.split("\n")) if text.strip()]
    rows = [row for _, row in numbered]
    if not rows:
        raise doc.error(key, "expected the grid as rows of letters, '.' and '#', got no rows")
    cells: dict[str, list[Cell]] = {}
    walls: list[Cell] = []
    for r, row in enumerate(rows):
        line = doc.value_line(key, numbered[r][0])
        if len(row) != len(rows[0]):
            raise doc.error(key, f"row {r + 1} has {len(row)} cells, expected {len(rows[0])} like row 1 (ragged rows)",
                            line=line)
        for c, ch in enumerate(row):
            if ch == WALL:
                walls.append((r, c))
            elif ch.isascii() and ch.isalpha():
                cells.setdefault(ch, []).append((r, c))
            elif ch != EMPTY:
                raise doc.error(key, f"row {r + 1}, column {c + 1}: unknown character {quote(ch)}; expected an ASCII "
                                     f"letter A-Z or a-z (a piece), '{EMPTY}' or '{WALL}'", line=line)
    if len(rows) > MAX_SIDE or len(rows[0]) > MAX_SIDE:
        raise doc.error(key, f"expected a board of at most {MAX_SIDE}x{MAX_SIDE}, got {len(rows)}x{len(rows[0])}")
    pieces: dict[str, Piece] = {}
    for letter, where in cells.items():
        if letter in legend:
            for k, part in enumerate(_cut(doc, key, letter, where, legend[letter]), 1):
                anchor, shape = normalise(part)
                pieces[f"{letter}{k}"] = Piece(f"{letter}{k}", shape, anchor, letter)
            continue
        if not connected(where):
            r, c = where[0]
            raise doc.error(key, f"piece {letter} (first at row {r + 1}, column {c + 1}) has cells that do not touch; "
                                 "expected one edge-connected group per letter (or the letter in legend:)",
                            line=doc.value_line(key, r))
        anchor, shape = normalise(where)
        pieces[letter] = Piece(letter, shape, anchor)
    return rows, pieces, walls


def _cut(doc: Document, key: str, letter: str, where: list[Cell], shape: Shape) -> list[list[Cell]]:
    """The cells of a legend letter cut into copies of `shape`: the first free cell in reading
    order must be the shape's first cell (so the cut is unique when there is one)."""
    todo = set(where)
    first = min(shape)
    parts = []
    while todo:
        r, c = min(todo)
        part = [(r + dr - first[0], c + dc - first[1]) for dr, dc in shape]
        if not all(cell in todo for cell in part):
            raise doc.error(key, f"the cells of {letter} at row {r + 1}, column {c + 1} cannot be cut into pieces of "
                                 f"the legend's shape", line=doc.value_line(key, r))
        todo.difference_update(part)
        parts.append(part)
    return parts


def read_legend(doc: Document) -> tuple[dict[str, Shape], tuple[tuple[str, str], ...]]:
    """legend: letter -> shape (`RxC`, or rows of X and . split by /)."""
    legend = doc.mapping("legend", {})
    shapes: dict[str, Shape] = {}
    for letter, text in legend.items():
        if not (isinstance(letter, str) and len(letter) == 1 and letter.isascii() and letter.isalpha()):
            raise doc.error("legend", f"expected single letters as keys, got {describe(letter)}")
        shape = _shape_of(text)
        if shape is None:
            raise doc.error("legend", f"letter {letter}: expected a shape such as 1x2 or \"X./XX\" (one connected "
                                      f"piece), got {describe(text)}")
        shapes[letter] = shape
    return shapes, tuple((k, str(v)) for k, v in legend.items())


def _shape_of(text: Any) -> Shape | None:
    if not isinstance(text, str):
        return None
    parts = text.lower().split("x")
    if len(parts) == 2 and all(p.isdigit() and 0 < int(p) <= MAX_SIDE for p in parts):
        cells = [(r, c) for r in range(int(parts[0])) for c in range(int(parts[1]))]
    else:
        rows = text.split("/")
        if any(set(row) - {"X", "."} for row in rows):
            return None
        cells = [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "X"]
    return normalise(cells)[1] if connected(cells) else None


def read_document(doc: Document) -> BlocksSpec:
    doc.check_keys(KEYS)
    legend, legend_text = read_legend(doc)
    rows, pieces, walls = read_grid(doc, "board", legend)
    if not pieces:
        raise doc.error("board", "expected at least one piece (a letter)")
    distinct = _distinct(doc, pieces)
    given = [key for key in GOALS if doc.has(key)]
    if len(given) != 1:
        raise doc.error(given[1] if given else None, "expected exactly one of goal:, layout: and leave:")
    targets: list[tuple[str, Cell]] = []
    layout = leave = None
    layout_pieces: tuple[Piece, ...] = ()
    exit_ = _exit(doc, rows) if doc.has("exit") else None
    if exit_ is not None and not doc.has("leave"):
        raise doc.error("exit", "expected leave: naming the piece that leaves through the exit")
    if doc.has("goal"):
        targets = _targets(doc, rows, walls, pieces)
    elif doc.has("layout"):
        layout, layout_pieces = _layout(doc, rows, walls, pieces, legend)
    else:
        leave = _leave(doc, pieces, exit_)
    common = doc.common(METRICS, EXPECT_KEYS)
    return BlocksSpec(tuple(rows), tuple(pieces.values()), tuple(walls), distinct, tuple(targets), layout, leave,
                      exit_, legend_text, layout_pieces, common.metric, common.name, common.description, common.max_moves,
                      common.expect)


def _exit(doc: Document, rows: list[str]) -> Exit:
    value = doc.mapping("exit")
    if set(value) != {"side", "at"} or value["side"] not in SIDES:
        raise doc.error("exit", f"expected {{side: {'|'.join(SIDES)}, at: [first, ..., last]}} (1-based columns of "
                                f"the top or bottom border, rows of the left or right), got {describe(value)}")
    at = value["at"] if isinstance(value["at"], list) else [value["at"]]
    length = len(rows[0]) if value["side"] in ("top", "bottom") else len(rows)
    if not (at and all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= length for x in at)
            and at == list(range(at[0], at[0] + len(at)))):
        given = value["at"]
        shown = quote(given) if isinstance(given, list) else describe(given)
        raise doc.error("exit", f"at: expected consecutive numbers from 1 to {length}, got {shown}")
    return Exit(value["side"], at[0] - 1, at[-1] - 1)


def _leave(doc: Document, pieces: dict[str, Piece], exit_: Exit | None) -> str:
    letter = doc.get("leave")
    if exit_ is None:
        raise doc.error("leave", "expected an exit: for the piece to leave through")
    if not isinstance(letter, str) or letter not in pieces:
        raise doc.error("leave", f"expected the letter of a piece on the board, got {describe(letter)}")
    if pieces[letter].glyph:
        raise doc.error("leave", f"piece {letter} comes from legend: (look-alikes have no identity); give it a letter")
    shape = pieces[letter].shape
    across = 1 + max(c for _, c in shape) if exit_.side in ("top", "bottom") else 1 + max(r for r, _ in shape)
    if across > exit_.last - exit_.first + 1:
        raise doc.error("leave", f"piece {letter} is {across} cells across and cannot pass an opening of "
                                 f"{exit_.last - exit_.first + 1}")
    return letter


def _distinct(doc: Document, pieces: dict[str, Piece]) -> tuple[str, ...]:
    value = doc.sequence("distinct", [])
    for item in value:
        if not isinstance(item, str) or item not in pieces:
            raise doc.error("distinct", f"expected letters of pieces on the board, got {describe(item)}")
    if len(set(value)) != len(value):
        raise doc.error("distinct", "a letter is listed twice")
    for item in value:
        if pieces[item].glyph:
            raise doc.error("distinct", f"piece {item} comes from legend: (look-alikes have no identity)")
    return tuple(value)


def _targets(doc: Document, rows: list[str], walls: list[Cell], pieces: dict[str, Piece]) -> list[tuple[str, Cell]]:
    goal = doc.mapping("goal")
    if not goal:
        raise doc.error("goal", "expected at least one piece, e.g. {B: [4, 2]}")
    out = []
    wall_set = set(walls)
    claimed: dict[Cell, str] = {}   # goal cells already taken by an earlier piece
    for letter, where in goal.items():
        if letter not in pieces:
            raise doc.error("goal", f"unknown piece {quote(letter)}; expected a letter on the board")
        if pieces[letter].glyph:
            raise doc.error("goal", f"piece {letter} comes from legend: (look-alikes have no identity); give it a "
                                    "letter, or state the goal as a layout:")
        if not (isinstance(where, list) and len(where) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in where)):
            raise doc.error("goal", f"piece {letter}: expected [row, column] (1-based), got {describe(where)}")
        r, c = where[0] - 1, where[1] - 1
        cells = [(r + dr, c + dc) for dr, dc in pieces[letter].shape]
        if not all(0 <= y < len(rows) and 0 <= x < len(rows[0]) and (y, x) not in wall_set for y, x in cells):
            raise doc.error("goal", f"piece {letter} cannot fit with its top-left at row {where[0]}, column {where[1]} "
                                    "(off the board or on a wall)")
        other = next((claimed[cell] for cell in cells if cell in claimed), None)
        if other is not None:
            raise doc.error("goal", f"pieces {other} and {letter} would overlap at their goal places")
        claimed.update((cell, letter) for cell in cells)
        out.append((letter, (r, c)))
    return out


def _layout(doc: Document, rows: list[str], walls: list[Cell], pieces: dict[str, Piece],
            legend: dict[str, Shape]) -> tuple[tuple[str, ...], tuple[Piece, ...]]:
    target, cells, target_walls = read_grid(doc, "layout", legend)
    if (len(target), len(target[0])) != (len(rows), len(rows[0])):
        raise doc.error("layout", f"expected {len(rows)}x{len(rows[0])} like board:, got {len(target)}x{len(target[0])}")
    if set(target_walls) != set(walls):
        raise doc.error("layout", "expected the walls of board: in the same cells")
    if set(cells) != set(pieces):
        raise doc.error("layout", f"expected the pieces of board: ({''.join(sorted(pieces))}), "
                                  f"got {''.join(sorted(cells))}")
    for letter, piece in cells.items():
        if piece.shape != pieces[letter].shape:
            raise doc.error("layout", f"piece {letter} has another shape than on board:",
                            line=doc.value_line("layout", piece.anchor[0]))
    return tuple(target), tuple(cells.values())


def to_yaml(model: "Blocks") -> str:
    """The instance as a `puzzle: blocks` file (convert --to yaml); reading it back gives this text."""
    out = ["puzzle: blocks"]
    if model.name:
        out.append(f"name: {_scalar(model.name)}")
    if model.description:
        out.append(f"description: {_scalar(model.description)}")
    out.append("board: |")
    out += [f"  {row}" for row in model.spec.grid]
    spec = model.spec
    if spec.legend:
        out.append("legend: {" + ", ".join(f"{k}: {_scalar(v)}" for k, v in spec.legend) + "}")
    if spec.exit is not None:
        ex = spec.exit
        out.append(f"exit: {{side: {ex.side}, at: [{', '.join(str(i + 1) for i in range(ex.first, ex.last + 1))}]}}")
    if spec.layout is not None:
        out.append("layout: |")
        out += [f"  {row}" for row in spec.layout]
    elif spec.leave is not None:
        out.append(f"leave: {spec.leave}")
    else:
        out.append("goal: {" + ", ".join(f"{k}: [{r + 1}, {c + 1}]" for k, (r, c) in spec.targets) + "}")
    if spec.distinct:
        out.append(f"distinct: [{', '.join(spec.distinct)}]")
    if model.metric != METRICS[0]:
        out.append(f"metric: {model.metric}")
    if model.max_moves is not None:
        out.append(f"max_moves: {model.max_moves}")
    if model.expect:
        out.append("expect:")
        out += [f"  {k}: {_fact(v)}" for k, v in model.expect.items()]
    return "\n".join(out) + "\n"


def _scalar(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _fact(value: Any) -> str:
    return "true" if value is True else "false" if value is False else json.dumps(value, ensure_ascii=False)
