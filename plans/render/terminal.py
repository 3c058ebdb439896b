"""Boards in colour on a terminal: the model's text picture painted with its picture's colours.

Nothing is drawn twice: the family's own picture of the state (a Scene, the one the SVG, PNG
and HTML show) is sampled at each cell's centre, and the character (or word) the text picture
shows for that cell is painted there: its background the colour on top at that point, its
letter black or white, whichever reads (`palette.ink_on`). So a Rush Hour car, a Sokoban box,
a tile in place, a blocks piece has the same colour on the terminal as in its picture. Floor
(a point only the floor covers) and what lies outside the board stay plain.

The text's lines are the board's rows; a line is read as one word per cell when it has exactly
as many words as the board has columns (tiles: `1 2 3`, `sun moon`), else as one character per
cell (Rush Hour `AA.E.D >`, Sokoban, blocks). Families drawn as plain lines of text (PDDL
atoms, `a: 1 2 3`) are printed as they are.

    wanted(mode="auto", stream=sys.stdout, environ=os.environ) -> bool
    colour_system(environ=os.environ) -> the rich ColorSystem to write in
    paint(model, state, text=None, system=None) -> str       the text with ANSI colours
"""
from __future__ import annotations

import io
import os
import re
import sys
from collections import Counter
from typing import Any, Mapping, TextIO

from puzzleplan.plans.render import board as grid
from puzzleplan.plans.render import palette
from puzzleplan.plans.render.scene import Circle, Polygon, Rect, Scene, Shape

MODES = ("auto", "always", "never")
_WORD = re.compile(r"\S+")
_SPOTS = ((0.0, 0.0), (-0.15, 0.0), (0.15, 0.0), (0.0, -0.15), (0.0, 0.15))   # in cells, from the centre


def wanted(mode: str = "auto", stream: TextIO | None = None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour: "always", "never", or "auto": only when `stream` is a terminal, NO_COLOR
    is unset (or empty, as https://no-color.org says) and TERM is not "dumb"."""
    if mode not in MODES:
        raise ValueError(f"colour: expected one of {', '.join(MODES)}, got {mode!r}")
    if mode != "auto":
        return mode == "always"
    environ = os.environ if environ is None else environ
    stream = sys.stdout if stream is None else stream
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):   # no isatty, or a closed stream
        tty = False
    return tty and not environ.get("NO_COLOR") and environ.get("TERM", "") != "dumb"


def colour_system(environ: Mapping[str, str] | None = None) -> Any:
    """The colours the terminal takes (truecolor, 256 or the 16 standard ones), as rich detects
    them from COLORTERM and TERM; the standard ones when it cannot tell."""
    from rich.color import ColorSystem
    from rich.console import Console
    console = Console(file=io.StringIO(), force_terminal=True, force_jupyter=False,
                      _environ=dict(os.environ if environ is None else environ))
    systems = {"standard": ColorSystem.STANDARD, "256": ColorSystem.EIGHT_BIT,
               "truecolor": ColorSystem.TRUECOLOR, "windows": ColorSystem.WINDOWS}
    return systems.get(console.color_system or "standard", ColorSystem.STANDARD)


def paint(model: Any, state: Any, text: str | None = None, system: Any = None) -> str:
    """`model.render(state)` (or `text`, the same picture) with each cell in its picture's colour."""
    text = model.render(state) if text is None else text
    scene = _scene(model, state, text)
    if scene is None:
        return text
    size = _grid_size(scene)
    if size is None:
        return text
    from rich.color import ColorSystem
    from rich.style import Style
    system = ColorSystem.TRUECOLOR if system is None else system
    rows, cols = size
    lines = text.split("\n")
    by_word = len(lines) == rows and all(len(line.split()) == cols for line in lines)
    # where the board's first cell stands in the text (Rush Hour's exit mark above or left of it)
    top, left = model.text_origin() if hasattr(model, "text_origin") else (0, 0)
    out = []
    for line_no, line in enumerate(lines):
        r = line_no - top
        spans = ([(m.start(), m.end(), c) for c, m in enumerate(_WORD.finditer(line))] if by_word
                 else [(c, c + 1, c - left) for c, ch in enumerate(line) if not ch.isspace()])
        painted: list[list[Any]] = []     # [start, end, fill], touching runs of one colour merged
        for start, end, c in spans:
            fill = _fill_at(scene, r, c) if 0 <= r < rows and 0 <= c < cols else None
            if fill is None:
                continue
            if painted and painted[-1][1] == start and painted[-1][2] == fill:
                painted[-1][1] = end
            else:
                painted.append([start, end, fill])
        done, parts = 0, []
        for start, end, fill in painted:
            style = Style(color=palette.ink_on(fill), bgcolor=fill, bold=True)
            parts += [line[done:start], style.render(line[start:end], color_system=system)]
            done = end
        out.append("".join(parts) + line[done:])
    return "\n".join(out)


def _scene(model: Any, state: Any, text: str) -> Scene | None:
    """The family's picture of `state`; None for a picture that is lines of text, not a grid."""
    from puzzleplan.plans.render.frames import drawer, picture_spec
    if picture_spec(model) is None:
        from puzzleplan.plans.render.generic import layout
        if layout(text)[0] == "lines":
            return None
    return drawer(model)(model, state)


def _grid_size(scene: Scene) -> tuple[int, int] | None:
    """(rows, columns) of the board a grid picture shows, None when it is no grid."""
    rows = (scene.height - 2 * grid.MARGIN) / grid.CELL
    cols = (scene.width - 2 * grid.MARGIN) / grid.CELL
    if rows != int(rows) or cols != int(cols) or rows < 1 or cols < 1:
        return None
    return int(rows), int(cols)


def _fill_at(scene: Scene, r: int, c: int) -> str | None:
    """The colour on top around cell (r, c)'s centre (the most common at five points near it, so
    a detail such as the Sokoban player's eye does not colour the cell); None where only the
    floor is (a wall drawn straight on the background, as Sokoban's, counts as painted)."""
    tops = [_top(scene, grid.x_of(c + 0.5 + dx), grid.y_of(r + 0.5 + dy)) for dx, dy in _SPOTS]
    return Counter(tops).most_common(1)[0][0]


def _top(scene: Scene, x: float, y: float) -> str | None:
    fills = [s.fill for s in scene.shapes if s.fill is not None and _covers(s, x, y)]
    if not fills or (len(fills) == 1 and fills[0] != palette.WALL):
        return None
    return fills[-1]


def _covers(shape: Shape, x: float, y: float) -> bool:
    if isinstance(shape, Rect):
        return shape.x <= x <= shape.x + shape.w and shape.y <= y <= shape.y + shape.h
    if isinstance(shape, Circle):
        return (x - shape.cx) ** 2 + (y - shape.cy) ** 2 <= shape.radius ** 2
    if isinstance(shape, Polygon):
        return _inside(shape.points, x, y)
    return False


def _inside(points: tuple[tuple[float, float], ...], x: float, y: float) -> bool:
    """Even-odd rule: a ray to the right crosses the outline an odd number of times."""
    inside = False
    for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1]):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside
