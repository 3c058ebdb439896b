"""A sliding-block state as a picture: the board, walls, pieces of any shape, targets and exit.

Pieces the goal names are red; the others take one palette colour per class of look-alike
pieces (interchangeable pieces look alike, as the model treats them). Each piece shows its
letter as plans name it (a class's letters go by rank in the state, see board.py). A goal given
as target cells is drawn as dashed outlines there; an exit is the opening in the frame with the
band past it, as deep as the leaving piece (the model's `grid(state)` shows the same band). A
goal given as a whole `layout` is a state of its own: `goal_state` gives it, and the start
picture shows it beside the start.
"""
from __future__ import annotations

from typing import Any

from puzzleplan.plans.render import board as grid
from puzzleplan.plans.render import palette
from puzzleplan.plans.render.scene import Rect, Scene

EXIT_BAND = "#f7dede"


def draw(model: Any, state: tuple[int, ...]) -> Scene:
    """The board of `state` (a blocks state: one anchor per slot)."""
    board = model.board
    top, left = model.shift
    scene = grid.scene_for(board.rows, board.cols)
    inside = [(r, c) for r in range(top, top + model.rows) for c in range(left, left + model.cols)]
    scene.add(*grid.floor(inside))
    scene.add(grid.frame(model.rows, model.cols, top, left))
    scene.add(*grid.floor(sorted(board.exit_cells), fill=EXIT_BAND))
    for r, c in sorted(set(inside) & board.walls):
        scene.add(grid.wall(r, c))
    goal_classes = set() if model.spec.layout is not None else {k for k, _ in model.goal}
    leaving = model.exit_goal[0] if model.exit_goal is not None else None
    for k, targets in ([] if model.spec.layout is not None else model.goal):
        for anchor in targets:
            scene.add(*_outline(board, k, anchor))
    for slot, anchor in enumerate(state):
        r, c = board.cell(anchor)
        cells = [(r + dr, c + dc) for dr, dc in board.slot_shape[slot]]
        k = board.slot_class[slot]
        fill = palette.GOAL if k in goal_classes or slot == leaving else palette.colour(k)
        scene.add(*grid.piece(cells, fill))
        x, y = grid.label_at(cells)
        scene.add(grid.label(board.slot_letter[slot], x, y, fill))
    return scene


def _outline(board: Any, k: int, anchor: int) -> list[Rect]:
    """A dashed outline of class k's shape at `anchor`: one box when the shape fills its
    bounding box, else one per cell."""
    r, c = board.cell(anchor)
    shape = board.classes[k][0].shape
    height = 1 + max(dr for dr, _ in shape)
    width = 1 + max(dc for _, dc in shape)
    pad = grid.PAD + 2

    def dashed(x: float, y: float, w: float, h: float) -> Rect:
        return Rect(x + pad, y + pad, w - 2 * pad, h - 2 * pad, stroke=palette.GOAL, stroke_width=2.5,
                    r=grid.RADIUS, dashed=True)
    if len(shape) == height * width:
        return [dashed(grid.x_of(c), grid.y_of(r), width * grid.CELL, height * grid.CELL)]
    return [dashed(grid.x_of(c + dc), grid.y_of(r + dr), grid.CELL, grid.CELL) for dr, dc in shape]


def goal_state(model: Any) -> tuple[int, ...] | None:
    """The goal as a state when a `layout` gives every piece's place, else None."""
    if model.spec.layout is None:
        return None
    state = tuple(anchor for _, targets in sorted(model.goal) for anchor in targets)
    return state if len(state) == len(model.initial()) else None
