"""Sokoban replay on a grid of characters, one letter per step.

Moves are l u r d (a walk: the next cell must be empty floor) and L U R D (a push: the next
cell must hold a box and the cell beyond it must be empty floor). The letter's case must match
what happens. Walls, boxes and the edge of the map block. The goal: every goal cell holds a
box and, when the level names a player goal, the player stands on it. The cost is the number
of pushes under the `pushes` metric, else the number of moves.

Only the level's XSB rows (`model.lines`), `model.player_goal` and `model.metric` are read.
"""
from __future__ import annotations

import re
from typing import Any

from puzzleplan.plans.check.common import IllegalMove

MAX_RUN = 100_000  # a run-length count larger than any plan the cap allows

STEPS = {"l": (0, -1), "u": (-1, 0), "r": (0, 1), "d": (1, 0)}


_RUN = re.compile(r"(\d*)([lurdLURD])")


def tokens(text: str) -> list[str]:
    """LURD text to one letter per step: spaces and line breaks ignored (solutions are stored
    wrapped), run-length counts expanded (`3r` = `rrr`). Anything else stays as one token so
    the replay names it."""
    compact = re.sub(r"\s+", "", text)
    out: list[str] = []
    at = 0
    for m in _RUN.finditer(compact):
        if m.start() != at:
            break
        count = int(m.group(1)) if m.group(1) else 1
        if count > MAX_RUN:
            break
        out.extend(m.group(2) * count)
        at = m.end()
    if at != len(compact):
        out.append(compact[at:])
    return out


def replay(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, int]:
    grid = [list(row) for row in model.lines]
    width = max(len(row) for row in grid)
    for row in grid:
        row.extend(" " * (width - len(row)))
    goals = set()
    player = None
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch in ".*+":
                goals.add((r, c))
            if ch in "@+":
                player = (r, c)
            # keep only what moves apart from the floor plan: '#' walls, '$' boxes, ' ' floor
            row[c] = "#" if ch == "#" else "$" if ch in "$*" else " "
    if player is None:
        raise IllegalMove(0, "", "the level has no player")

    def at(r: int, c: int) -> str:
        return grid[r][c] if 0 <= r < len(grid) and 0 <= c < width else "#"

    pushes = 0
    for i, token in enumerate(tokens, 1):
        if len(token) != 1 or token.lower() not in STEPS:
            raise IllegalMove(i, token, "not a move; expected one letter: l u r d (walk) or L U R D (push)")
        dr, dc = STEPS[token.lower()]
        r, c = player[0] + dr, player[1] + dc
        ahead = at(r, c)
        if ahead == "#":
            raise IllegalMove(i, token, f"the player would walk into a wall at row {r + 1}, column {c + 1}")
        if ahead == "$":
            if token.islower():
                raise IllegalMove(i, token, f"this step pushes the box at row {r + 1}, column {c + 1}; "
                                            f"write it uppercase ({token.upper()})")
            beyond = at(r + dr, c + dc)
            if beyond != " ":
                what = "a wall" if beyond == "#" else "another box"
                raise IllegalMove(i, token, f"the box at row {r + 1}, column {c + 1} is blocked by {what}")
            grid[r + dr][c + dc] = "$"
            grid[r][c] = " "
            pushes += 1
        elif token.isupper():
            raise IllegalMove(i, token, f"there is no box to push at row {r + 1}, column {c + 1}; "
                                        f"write a walk lowercase ({token.lower()})")
        player = (r, c)
    boxes = {(r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "$"}
    reached = boxes == goals
    goal = getattr(model, "player_goal", None)
    if goal is not None and tuple(goal) != player:
        reached = False
    return reached, pushes if model.metric == "pushes" else len(tokens)
