"""Tiles replay on a grid of face strings: find the blank, swap it with a neighbour, compare.

Moves: U D L R (the blank's direction), the seed's digits 0 1 2 3 (up right down left), or the
face of the tile that slides into the blank. A plan is read in one notation throughout:
directions if every token is a direction, digits if every token is 0-3, else tile faces;
`notation` ("blank", "digits", "tiles") forces one.
"""
from __future__ import annotations

from typing import Any

from ..check import IllegalMove

_STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
_DIGITS = {"0": "U", "1": "R", "2": "D", "3": "L"}
_WORDS = {"U": "up", "D": "down", "L": "left", "R": "right"}


def _notation(tokens: list[str]) -> str:
    if all(t.upper() in _STEPS for t in tokens):
        return "blank"
    if all(t in _DIGITS for t in tokens):
        return "digits"
    return "tiles"


def replay(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, int]:
    grid = [list(row) for row in model.start_grid]
    goal = [list(row) for row in model.goal_grid]
    rows, cols = len(grid), len(grid[0])
    br, bc = next((r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "_")
    notation = notation or _notation(tokens)
    for i, token in enumerate(tokens, 1):
        if notation == "tiles":
            near = [(r, c) for r, c in ((br - 1, bc), (br + 1, bc), (br, bc - 1), (br, bc + 1))
                    if 0 <= r < rows and 0 <= c < cols and grid[r][c] == token]
            if not near:
                raise IllegalMove(i, token, f"no tile {token!r} is next to the blank (row {br + 1}, column {bc + 1})")
            if len(near) > 1:
                raise IllegalMove(i, token, f"ambiguous: {len(near)} tiles {token!r} are next to the blank")
            r, c = near[0]
        else:
            direction = _DIGITS.get(token) if notation == "digits" else token.upper()
            if direction not in _STEPS:
                raise IllegalMove(i, token, "not a move; expected U D L R (or digits 0-3 / a tile face)")
            dr, dc = _STEPS[direction]
            r, c = br + dr, bc + dc
            if not (0 <= r < rows and 0 <= c < cols):
                raise IllegalMove(i, token, f"the blank at row {br + 1}, column {bc + 1} cannot move "
                                            f"{_WORDS[direction]} (board edge)")
        grid[br][bc], grid[r][c] = grid[r][c], "_"
        br, bc = r, c
    return grid == goal, len(tokens)
