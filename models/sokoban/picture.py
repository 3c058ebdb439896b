"""A Sokoban position as a picture: walls, floor, goals, boxes (green once on a goal), the player.

It reads the position from the model's own XSB picture of the state (`model.render`), so what
is drawn is exactly what the text shows, sealed boxes outside the player's area included; the
floor is drawn on the cells the player's walls enclose (`model.cells`). A player goal (seed 004)
is a dashed ring; a player standing on a goal has a ring of the goal's colour.
"""
from __future__ import annotations

from typing import Any

from puzzleplan.plans.render import board as grid
from puzzleplan.plans.render import palette
from puzzleplan.plans.render.scene import Circle, Polygon, Rect, Scene

BOX = "#c8894b"
BOX_ON_GOAL = "#59a14f"
PLAYER = "#4e79a7"
FLOOR = "#efe9dc"


def draw(model: Any, state: int) -> Scene:
    """The position `state` (a Sokoban state: boxes and player as one int)."""
    rows = model.render(state).split("\n")
    scene = grid.scene_for(model.rows, model.cols)
    inside = set(model.cells)
    scene.add(*grid.floor(sorted(inside), fill=FLOOR))
    cell = grid.CELL
    where = [(r, c, ch) for r, row in enumerate(rows) for c, ch in enumerate(row)]
    # what never moves first (walls, goals), so every frame of an animation begins alike
    for r, c, ch in where:
        if ch == "#":
            scene.add(Rect(grid.x_of(c), grid.y_of(r), cell, cell, fill=palette.WALL, stroke="#3f3226", stroke_width=1))
        elif ch == "*" and (r, c) not in inside:      # a box sealed on its goal outside the player's area
            scene.add(*grid.floor([(r, c)], fill=FLOOR))
    d = cell * 0.16
    goals = [(r, c) for r, row in enumerate(model.level.grid) for c, ch in enumerate(row) if ch in ".*+"]
    for r, c in goals:
        mid_x, mid_y = grid.x_of(c + 0.5), grid.y_of(r + 0.5)
        scene.add(Polygon(((mid_x, mid_y - d), (mid_x + d, mid_y), (mid_x, mid_y + d), (mid_x - d, mid_y)),
                          fill=palette.GOAL))
    if model.player_goal is not None:
        r, c = model.player_goal
        scene.add(Rect(grid.x_of(c) + 5, grid.y_of(r) + 5, cell - 10, cell - 10, stroke=PLAYER, stroke_width=2,
                       r=cell / 2 - 5, dashed=True))
    for r, c, ch in where:
        x, y = grid.x_of(c), grid.y_of(r)
        if ch in "$*" and (r, c) not in inside:     # never moves: before the boxes that do
            _box(scene, x, y, ch == "*")
    for r, c, ch in where:
        x, y = grid.x_of(c), grid.y_of(r)
        if ch in "$*" and (r, c) in inside:
            _box(scene, x, y, ch == "*")
        elif ch in "@+":   # on a goal ('+') the player wears the goal's colour as a ring: the mark is under it
            ring = (palette.GOAL, 4) if ch == "+" else ("#24405e", 2)
            scene.add(Circle(x + cell / 2, y + cell / 2, cell * 0.32, fill=PLAYER, stroke=ring[0], stroke_width=ring[1]))
            scene.add(Circle(x + cell / 2, y + cell * 0.42, cell * 0.1, fill="#ffffff"))
    return scene


def _box(scene: Scene, x: float, y: float, on_goal: bool) -> None:
    cell = grid.CELL
    pad = cell * 0.12
    scene.add(Rect(x + pad, y + pad, cell - 2 * pad, cell - 2 * pad, fill=BOX_ON_GOAL if on_goal else BOX,
                   stroke="#5a3d1e", stroke_width=2, r=4))
    scene.add(Rect(x + 2 * pad, y + 2 * pad, cell - 4 * pad, cell - 4 * pad, stroke="#5a3d1e", stroke_width=1.2, r=2))
