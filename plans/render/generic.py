"""The picture of a family that draws none of its own (rules, PDDL, user classes): the model's
text picture, `model.render(state)`, laid out as a grid of cells when it looks like one.

The text is read in one of three ways, the first that fits:
    cells    every line splits (at spaces) into the same number, two or more, of short tokens
             (at most 3 characters): one cell per token ("F F F _ T T T", a lights-out board
             "1 0 1"; lines of one token each are rows of characters, below);
    symbols  every token is one character but lines differ (a triangle of pegs), or no line has
             a space inside (rows such as "AAB." or "#@$.#"): one cell per character, at its
             column, spaces left empty;
    lines    anything else ("a: 1 2 3", PDDL atoms): the lines as monospace text.
Cells are coloured by their symbol, so one symbol looks the same in every frame; the symbols
that read as empty (`.`, `_`, `-`) are left as plain floor.
"""
from __future__ import annotations

import math
from typing import Any

from puzzleplan.plans.render import board as grid
from puzzleplan.plans.render import palette
from puzzleplan.plans.render.scene import Rect, Scene, Text

EMPTY_SYMBOLS = {".", "_", "-"}
MAX_TOKEN = 3
LINE_HEIGHT = 22
CHAR_WIDTH = 10.5        # of the 17-pixel monospace text


def layout(text: str) -> tuple[str, list[tuple[int, int, str]]]:
    """("cells" | "symbols" | "lines", [(row, column, symbol)]) for a text picture; the list is
    empty for "lines"."""
    lines = text.rstrip("\n").split("\n")
    tokens = [line.split() for line in lines]
    flat = [t for row in tokens for t in row]
    if not flat:
        return "lines", []
    counts = {len(row) for row in tokens}
    if len(counts) == 1 and counts != {1} and all(len(t) <= MAX_TOKEN for t in flat):
        return "cells", [(r, c, t) for r, row in enumerate(tokens) for c, t in enumerate(row)]
    compact = all(" " not in line.strip() for line in lines)
    if all(len(t) == 1 for t in flat) or (compact and len(lines) > 1):
        return "symbols", [(r, c, ch) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch != " "]
    return "lines", []


def draw(model: Any, state: Any) -> Scene:
    """The state's text picture as cells or as lines (see the module docstring)."""
    text = model.render(state)
    kind, cells = layout(text)
    if kind == "lines":
        return _lines(text)
    rows = 1 + max(r for r, _, _ in cells)
    cols = 1 + max(c for _, c, _ in cells)
    if kind == "symbols":   # keep a symbol grid's empty cells: columns from the widest line
        cols = max(cols, max(len(line.rstrip()) for line in text.split("\n")))
    scene = grid.scene_for(rows, cols)
    symbols = sorted({s for _, _, s in cells} - EMPTY_SYMBOLS)
    scene.add(*grid.floor((r, c) for r, c, _ in cells))
    for r, c, symbol in cells:
        if symbol in EMPTY_SYMBOLS:
            scene.add(Text(grid.x_of(c + 0.5), grid.y_of(r + 0.5), symbol, grid.CELL * 0.4, fill=palette.GRID))
            continue
        fill = palette.colour(symbols.index(symbol))
        scene.add(*grid.piece([(r, c)], fill))
        scene.add(grid.label(symbol, grid.x_of(c + 0.5), grid.y_of(r + 0.5), fill))
    return scene


def _lines(text: str) -> Scene:
    lines = text.rstrip("\n").split("\n")
    width = math.ceil(max(len(line) for line in lines) * CHAR_WIDTH) + 2 * grid.MARGIN
    scene = Scene(max(width, 120), len(lines) * LINE_HEIGHT + 2 * grid.MARGIN)
    scene.add(Rect(4, 4, scene.width - 8, scene.height - 8, fill=palette.BOARD, stroke=palette.GRID, r=6))
    for i, line in enumerate(lines):
        y = grid.MARGIN + (i + 0.5) * LINE_HEIGHT
        # monospace text centred on its own width starts at the margin like left-aligned text
        scene.add(Text(grid.MARGIN + len(line) * CHAR_WIDTH / 2, y, line, 17, mono=True))
    return scene
