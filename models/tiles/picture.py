"""A sliding-tiles state as a picture: the tiles with their faces, the blank left open.

Where faces repeat, each face has its own colour (identical tiles look alike, which is the point
of such a puzzle); where every face is distinct, the tiles are one colour and a tile already on
its goal cell is drawn in green, so an animation shows the board falling into place.
The goal is a whole layout, so `goal_state` gives it and the start picture shows both.
"""
from __future__ import annotations

from typing import Any

from puzzleplan.plans.render import board as grid
from puzzleplan.plans.render import palette
from puzzleplan.plans.render.scene import Rect, Scene

TILE = "#e3c08d"
IN_PLACE = "#9fd18b"


def draw(model: Any, state: bytes) -> Scene:
    """The board of `state` (a tiles model's state: a face index per cell)."""
    rows, cols = model.rows, model.cols
    scene = grid.scene_for(rows, cols)
    scene.add(Rect(grid.x_of(0), grid.y_of(0), cols * grid.CELL, rows * grid.CELL, fill="#8a7560"))
    scene.add(grid.frame(rows, cols))
    for cell, face in enumerate(state):
        if face == 0:
            continue
        r, c = divmod(cell, cols)
        if model.repeated_faces:
            fill = palette.colour(face - 1)
        else:
            fill = IN_PLACE if model.goal[cell] == face else TILE
        scene.add(*grid.piece([(r, c)], fill))
        scene.add(grid.label(model.faces[face], grid.x_of(c + 0.5), grid.y_of(r + 0.5), fill))
    return scene


def goal_state(model: Any) -> bytes:
    """The goal layout, a state like any other."""
    return bytes(model.goal)
