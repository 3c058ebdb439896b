"""What the grid pictures share: cell geometry, the board's floor and frame, pieces of any shape.

Cells are CELL pixels square, the board sits MARGIN pixels in from the picture's edge (room for
a frame and an exit), and cell (r, c) is 0-based, row first, like every family's own numbering.
"""
from __future__ import annotations

from typing import Iterable

from puzzleplan.plans.render import palette
from puzzleplan.plans.render.scene import Rect, Scene, Shape, Text

CELL = 48
MARGIN = 14
PAD = 3          # a piece's inset from its cells' edges
RADIUS = 7       # a piece's rounded corners


def x_of(c: float) -> float:
    return MARGIN + c * CELL


def y_of(r: float) -> float:
    return MARGIN + r * CELL


def scene_for(rows: int, cols: int) -> Scene:
    """An empty picture for a rows x cols board with its margin."""
    return Scene(cols * CELL + 2 * MARGIN, rows * CELL + 2 * MARGIN)


def floor(cells: Iterable[tuple[int, int]], fill: str = palette.BOARD, lines: bool = True) -> list[Shape]:
    """Floor squares under the given cells (with faint cell lines)."""
    stroke = palette.GRID if lines else None
    return [Rect(x_of(c), y_of(r), CELL, CELL, fill=fill, stroke=stroke, stroke_width=1) for r, c in cells]


def frame(rows: int, cols: int, top: int = 0, left: int = 0, colour: str = palette.WALL) -> Rect:
    """A thick frame around the rows x cols block of cells whose top-left cell is (top, left)."""
    width = MARGIN - 2          # flush with the cells, a hairline short of the picture's edge
    half = width / 2
    return Rect(x_of(left) - half, y_of(top) - half, cols * CELL + width, rows * CELL + width,
                stroke=colour, stroke_width=width, r=4)


def wall(r: int, c: int) -> Rect:
    return Rect(x_of(c), y_of(r), CELL, CELL, fill=palette.WALL)


def piece(cells: Iterable[tuple[int, int]], fill: str, pad: float = PAD, radius: float = RADIUS) -> list[Shape]:
    """A piece covering `cells` (edge-connected, any shape): a rounded square per cell, with the
    gaps between neighbouring cells (and the corner where four meet) filled, so it reads as one."""
    cells = set(cells)
    out: list[Shape] = []
    for r, c in sorted(cells):
        out.append(Rect(x_of(c) + pad, y_of(r) + pad, CELL - 2 * pad, CELL - 2 * pad, fill=fill, r=radius))
    join = pad + radius
    for r, c in sorted(cells):
        if (r, c + 1) in cells:
            out.append(Rect(x_of(c + 1) - join, y_of(r) + pad, 2 * join, CELL - 2 * pad, fill=fill))
        if (r + 1, c) in cells:
            out.append(Rect(x_of(c) + pad, y_of(r + 1) - join, CELL - 2 * pad, 2 * join, fill=fill))
        if {(r, c + 1), (r + 1, c), (r + 1, c + 1)} <= cells:
            out.append(Rect(x_of(c + 1) - join, y_of(r + 1) - join, 2 * join, 2 * join, fill=fill))
    return out


def label_at(cells: Iterable[tuple[int, int]]) -> tuple[float, float]:
    """Where a piece's name goes: the middle of its bounding box when every cell touching that
    point is the piece's, else the middle of its first cell (an L's corner is no place for it)."""
    cells = set(cells)
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    mid_r, mid_c = (min(rows) + max(rows) + 1) / 2, (min(cols) + max(cols) + 1) / 2

    def touching(v: float) -> set[int]:
        return {int(v) - 1, int(v)} if v == int(v) else {int(v)}
    if all((r, c) in cells for r in touching(mid_r) for c in touching(mid_c)):
        return x_of(mid_c), y_of(mid_r)
    r, c = min(cells)
    return x_of(c + 0.5), y_of(r + 0.5)


def label(text: str, x: float, y: float, fill: str, size: float | None = None) -> Text:
    """A piece's name on it, in a colour that reads on `fill`, sized to its length."""
    if size is None:   # bold DejaVu is about 0.68 of its size wide per character
        size = min(CELL * 0.45, (CELL - 4 * PAD) / (0.68 * max(1, len(text))))
    return Text(x, y, text, size, fill=palette.ink_on(fill), bold=True)
