"""A Rush Hour state as a picture: the board, walls, coloured vehicles and the exit.

The primary vehicle is red, the others take the palette's colours in turn (by vehicle, so a
vehicle keeps its colour through an animation); each shows its letter from the grid notation
(`model.letters()`), the names plans are written in when the file gave single letters. The exit
is an opening in the frame with an arrow, beside the primary's line.
"""
from __future__ import annotations

from typing import Any

from puzzleplan.plans.render import board as grid
from puzzleplan.plans.render import palette
from puzzleplan.plans.render.scene import Polygon, Rect, Scene


def draw(model: Any, state: bytes) -> Scene:
    """The board of `state` (a Rush Hour state: one offset per vehicle)."""
    rows, cols = model.rows, model.cols
    scene = grid.scene_for(rows, cols)
    scene.add(*grid.floor((r, c) for r in range(rows) for c in range(cols)))
    scene.add(grid.frame(rows, cols, colour="#4a4a4a"))
    _exit(scene, model)
    for r, c in model.walls:
        scene.add(grid.wall(r, c))
    letters = model.letters()
    others = 0
    for v, (vehicle, offset) in enumerate(zip(model.vehicles, state)):
        if v == model.primary:
            fill = palette.GOAL
        else:
            fill, others = palette.colour(others), others + 1
        cells = vehicle.cells(offset)
        (r0, c0), (r1, c1) = cells[0], cells[-1]
        pad = grid.PAD + 1
        scene.add(Rect(grid.x_of(c0) + pad, grid.y_of(r0) + pad, (c1 - c0 + 1) * grid.CELL - 2 * pad,
                       (r1 - r0 + 1) * grid.CELL - 2 * pad, fill=fill, stroke="#333333", stroke_width=1.5,
                       r=grid.RADIUS + 2))
        scene.add(grid.label(letters[v], grid.x_of((c0 + c1 + 1) / 2), grid.y_of((r0 + r1 + 1) / 2), fill))
    return scene


def _exit(scene: Scene, model: Any) -> None:
    """An opening in the frame beside the primary's line, and an arrow pointing out."""
    line = model.vehicles[model.primary].line
    m, cell, side = grid.MARGIN, grid.CELL, model.exit
    if side in ("right", "left"):
        x = grid.x_of(model.cols) if side == "right" else grid.x_of(0) - m
        y = grid.y_of(line)
        scene.add(Rect(x, y + 2, m, cell - 4, fill=scene.background))
        tip, base = (x + m - 1, x + 2) if side == "right" else (x + 1, x + m - 2)
        mid = y + cell / 2
        scene.add(Polygon(((base, mid - 6), (base, mid + 6), (tip, mid)), fill=palette.GOAL))
    else:
        y = grid.y_of(model.rows) if side == "down" else grid.y_of(0) - m
        x = grid.x_of(line)
        scene.add(Rect(x + 2, y, cell - 4, m, fill=scene.background))
        tip, base = (y + m - 1, y + 2) if side == "down" else (y + 1, y + m - 2)
        mid = x + cell / 2
        scene.add(Polygon(((mid - 6, base), (mid + 6, base), (mid, tip)), fill=palette.GOAL))
