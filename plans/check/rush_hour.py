"""Rush Hour replay on a grid of vehicle names: every crossed cell must be on the board and empty.

Moves are `NAME+D` / `NAME-D` (+ is right or down). Under the step metric every move must be
one cell; under the slide metric any distance >= 1. The goal: the primary touches its exit edge.
"""
from __future__ import annotations

import re
from typing import Any

from puzzleplan.plans.check.common import IllegalMove, split_runs
from puzzleplan.plans.core.words import clip

_MOVE = re.compile(r"^(.+?)([+-])(\d{1,9})$")
_RUN = re.compile(r"([^\s,;+-]+?)([+-])(\d+)")


def tokens(text: str) -> list[str]:
    """Separated moves, or moves run together (`A+1B-2C+3`); a part that is no move stays one
    token so the replay names it."""
    return split_runs(text, _RUN)


def replay(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, int]:
    rows, cols = model.rows, model.cols
    grid = [[None] * cols for _ in range(rows)]
    for r, c in model.walls:
        grid[r][c] = "#wall"
    where: dict[str, list[list[int]]] = {}
    horizontal: dict[str, bool] = {}
    for v in model.vehicles:
        r, c = v.cells()[0]
        cells = [[r + (0 if v.horizontal else i), c + (i if v.horizontal else 0)] for i in range(v.length)]
        for rr, cc in cells:
            grid[rr][cc] = v.name
        where[v.name] = cells
        horizontal[v.name] = v.horizontal
    for i, token in enumerate(tokens, 1):
        m = _MOVE.match(token)
        if not m:
            raise IllegalMove(i, token, "not a move; expected a vehicle and a signed distance such as A+1 or C-2")
        name, sign, dist = m.group(1), m.group(2), int(m.group(3))
        if name not in where:
            raise IllegalMove(i, token, f"there is no vehicle {clip(name)!r}")
        if dist == 0:
            raise IllegalMove(i, token, "a move must cover at least one cell")
        if model.metric == "step" and dist != 1:
            raise IllegalMove(i, token, "the step metric moves one cell per move (a plan of slides? check it with --metric slide)")
        dr, dc = (0, 1) if horizontal[name] else (1, 0)
        if sign == "-":
            dr, dc = -dr, -dc
        for _ in range(dist):
            cells = where[name]
            lead = cells[-1] if sign == "+" else cells[0]
            r, c = lead[0] + dr, lead[1] + dc
            if not (0 <= r < rows and 0 <= c < cols):
                raise IllegalMove(i, token, f"vehicle {name} would leave the board")
            if grid[r][c] is not None:
                what = "a wall" if grid[r][c] == "#wall" else f"vehicle {grid[r][c]}"
                raise IllegalMove(i, token, f"vehicle {name} is blocked by {what} at row {r + 1}, column {c + 1}")
            tail = cells[0] if sign == "+" else cells[-1]
            grid[tail[0]][tail[1]] = None
            grid[r][c] = name
            where[name] = [[rr + dr, cc + dc] for rr, cc in cells]
    primary = model.vehicles[model.primary].name
    first, last = where[primary][0], where[primary][-1]
    reached = {"right": last[1] == cols - 1, "left": first[1] == 0,
               "down": last[0] == rows - 1, "up": first[0] == 0}[model.exit]
    return reached, len(tokens)
