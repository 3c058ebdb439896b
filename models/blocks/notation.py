"""Sliding-block notation: reading a `puzzle: blocks` file into a `BlocksSpec`, and writing it back.

    puzzle: blocks
    board: |          one letter per piece (its cells edge-connected), '.' empty, '#' wall
      ABBC
      I..J
    goal: {B: [4, 2]} the top-left cell of the piece's bounding box (1-based), one or more pieces
    layout: |         or instead of goal: the full target grid (same walls, same pieces)
    distinct: [A]     pieces that are not interchangeable with their look-alikes (a piece named
                      in goal: is distinct anyway)
Other keys: name, description, metric (step, slide, piece), max_moves, expect.
Every error is one line naming the file, the line and what was expected.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from puzzleplan.models.base import describe, quote
from puzzleplan.models.blocks.board import EMPTY, MAX_SIDE, METRICS, WALL, Cell, Piece, connected, normalise
from puzzleplan.models.document import Document

if TYPE_CHECKING:
    from puzzleplan.models.blocks.model import Blocks

EXPECT_KEYS = ("optimal", "optimal_step", "optimal_slide", "optimal_piece", "solvable", "reachable", "valid_plans")
KEYS = ("puzzle", "name", "description", "board", "goal", "layout", "distinct", "metric", "max_moves", "expect")


@dataclass(frozen=True)
class BlocksSpec:
    """A validated file: the starting grid, the goal in the form written, and the common fields."""

    grid: tuple[str, ...]
    pieces: tuple[Piece, ...]
    walls: tuple[Cell, ...]
    distinct: tuple[str, ...]                 # as written in `distinct:`
    targets: tuple[tuple[str, Cell], ...]     # goal: letter -> anchor (0-based); empty under layout
    layout: tuple[str, ...] | None
    metric: str = METRICS[0]
    name: str = ""
    description: str = ""
    max_moves: int | None = None
    expect: dict[str, Any] = field(default_factory=dict)


def read_grid(doc: Document, key: str) -> tuple[list[str], dict[str, list[Cell]], list[Cell]]:
    """Rows, each letter's cells and the walls of a grid field; strictly validated."""
    value = doc.get(key)
    if not isinstance(value, str):
        raise doc.error(key, f"expected the grid as rows of letters, '.' and '#', got {describe(value)}")
    rows = value.split()
    if not rows:
        raise doc.error(key, "expected the grid as rows of letters, '.' and '#', got no rows")
    cells: dict[str, list[Cell]] = {}
    walls: list[Cell] = []
    for r, row in enumerate(rows):
        line = doc.value_line(key, r)
        if len(row) != len(rows[0]):
            raise doc.error(key, f"row {r + 1} has {len(row)} cells, expected {len(rows[0])} like row 1 (ragged rows)",
                            line=line)
        for c, ch in enumerate(row):
            if ch == WALL:
                walls.append((r, c))
            elif ch.isascii() and ch.isalpha():
                cells.setdefault(ch, []).append((r, c))
            elif ch != EMPTY:
                raise doc.error(key, f"row {r + 1}, column {c + 1}: unknown character {quote(ch)}; expected a letter, "
                                     f"'{EMPTY}' or '{WALL}'", line=line)
    if len(rows) > MAX_SIDE or len(rows[0]) > MAX_SIDE:
        raise doc.error(key, f"expected a board of at most {MAX_SIDE}x{MAX_SIDE}, got {len(rows)}x{len(rows[0])}")
    for letter, where in cells.items():
        if not connected(where):
            r, c = where[0]
            raise doc.error(key, f"piece {letter} (first at row {r + 1}, column {c + 1}) has cells that do not touch; "
                                 "expected one edge-connected group per letter", line=doc.value_line(key, r))
    return rows, cells, walls


def read_document(doc: Document) -> BlocksSpec:
    doc.check_keys(KEYS)
    rows, cells, walls = read_grid(doc, "board")
    if not cells:
        raise doc.error("board", "expected at least one piece (a letter)")
    pieces = {}
    for letter, where in cells.items():
        anchor, shape = normalise(where)
        pieces[letter] = Piece(letter, shape, anchor)
    distinct = _distinct(doc, pieces)
    if doc.has("goal") == doc.has("layout"):
        raise doc.error("goal" if doc.has("goal") else None, "expected exactly one of goal: and layout:")
    targets: list[tuple[str, Cell]] = []
    layout = None
    if doc.has("goal"):
        targets = _targets(doc, rows, walls, pieces)
    else:
        layout = _layout(doc, rows, walls, pieces)
    common = doc.common(METRICS, EXPECT_KEYS)
    return BlocksSpec(tuple(rows), tuple(pieces.values()), tuple(walls), distinct, tuple(targets), layout,
                      common.metric, common.name, common.description, common.max_moves, common.expect)


def _distinct(doc: Document, pieces: dict[str, Piece]) -> tuple[str, ...]:
    value = doc.sequence("distinct", [])
    for item in value:
        if not isinstance(item, str) or item not in pieces:
            raise doc.error("distinct", f"expected letters of pieces on the board, got {describe(item)}")
    if len(set(value)) != len(value):
        raise doc.error("distinct", "a letter is listed twice")
    return tuple(value)


def _targets(doc: Document, rows: list[str], walls: list[Cell], pieces: dict[str, Piece]) -> list[tuple[str, Cell]]:
    goal = doc.mapping("goal")
    if not goal:
        raise doc.error("goal", "expected at least one piece, e.g. {B: [4, 2]}")
    out = []
    wall_set = set(walls)
    for letter, where in goal.items():
        if letter not in pieces:
            raise doc.error("goal", f"unknown piece {quote(letter)}; expected a letter on the board")
        if not (isinstance(where, list) and len(where) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in where)):
            raise doc.error("goal", f"piece {letter}: expected [row, column] (1-based), got {describe(where)}")
        r, c = where[0] - 1, where[1] - 1
        cells = [(r + dr, c + dc) for dr, dc in pieces[letter].shape]
        if not all(0 <= y < len(rows) and 0 <= x < len(rows[0]) and (y, x) not in wall_set for y, x in cells):
            raise doc.error("goal", f"piece {letter} cannot fit with its top-left at row {where[0]}, column {where[1]} "
                                    "(off the board or on a wall)")
        out.append((letter, (r, c)))
    return out


def _layout(doc: Document, rows: list[str], walls: list[Cell], pieces: dict[str, Piece]) -> tuple[str, ...]:
    target, cells, target_walls = read_grid(doc, "layout")
    if (len(target), len(target[0])) != (len(rows), len(rows[0])):
        raise doc.error("layout", f"expected {len(rows)}x{len(rows[0])} like board:, got {len(target)}x{len(target[0])}")
    if set(target_walls) != set(walls):
        raise doc.error("layout", "expected the walls of board: in the same cells")
    if set(cells) != set(pieces):
        raise doc.error("layout", f"expected the pieces of board: ({''.join(sorted(pieces))}), "
                                  f"got {''.join(sorted(cells))}")
    for letter, where in cells.items():
        if normalise(where)[1] != pieces[letter].shape:
            r, _ = where[0]
            raise doc.error("layout", f"piece {letter} has another shape than on board:", line=doc.value_line("layout", r))
    return tuple(target)


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
    if spec.layout is not None:
        out.append("layout: |")
        out += [f"  {row}" for row in spec.layout]
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
