"""Rush Hour replay on a grid of vehicle names: every crossed cell must be on the board and empty.

Moves are `NAME+D` / `NAME-D` (+ is right or down), or written as the seeds write them: seed
003's operators `(VPRAVO NAME D)`, `(VLAVO ...)`, `(DOLE ...)`, `(HORE ...)` (right, left, down,
up: the first two for a horizontal vehicle, the others for a vertical one), or seed 001's
`(V, CELL)`: vehicle V moves one cell onto CELL (V counts from 0, the primary, then the others
in the file's order, as Bird's state lists them), the cell numbered as Bird
numbers a 6x6 board (rows of 7: 1-6, 8-13, ...; rows of cols + 1 on other boards), the list
written `[(8,23),(6,26)]` or `Just [...]` as his program prints it. Under the step metric every
move must be one cell; under the slide metric any distance >= 1. The goal: the primary touches
its exit edge.
"""
from __future__ import annotations

import re
from typing import Any

from puzzleplan.plans.check.common import IllegalMove, split_runs
from puzzleplan.plans.core.words import clip

_MOVE = re.compile(r"^(.+?)([+-])(\d{1,9})$")
_RUN = re.compile(r"([^\s,;+-]+?)([+-])(\d+)")
_OPERATOR = re.compile(r"\(\s*(VPRAVO|VLAVO|DOLE|HORE)\s+([^\s()]+)\s+(\d{1,9})\s*\)", re.IGNORECASE)
_SIGN = {"VPRAVO": ("+", True), "VLAVO": ("-", True), "DOLE": ("+", False), "HORE": ("-", False)}
_BIRD = re.compile(r"\(\s*(\d{1,4})\s*,\s*(\d{1,6})\s*\)")


def tokens(text: str) -> list[str]:
    """Separated moves, or moves run together (`A+1B-2C+3`), or a list of the seeds' moves; a
    part that is no move stays one token, in its place, so the replay names it."""
    pattern = _seed_pattern(text)
    if pattern is None:
        return [] if _EMPTY_LIST.fullmatch(text) else split_runs(text, _RUN)
    out: list[str] = []
    done = 0
    for m in pattern.finditer(text):
        out += _leftover(text[done:m.start()])
        out.append(m.group(0))
        done = m.end()
    return out + _leftover(text[done:])


def reads(text: str) -> bool:
    """Whether `text` is a plan in a seed's notation, which starts with `(` as Fast Downward's
    plans do (check_plan asks before it takes such text for one); `[]` is Bird's empty plan."""
    return _seed_pattern(text) is not None or _EMPTY_LIST.fullmatch(text) is not None


_EMPTY_LIST = re.compile(r"\s*(Just\s*)?\[\s*\]\s*")
_LIST_PUNCTUATION = re.compile(r"^\s*(Just\s*)?\[|\]\s*$|,")


def _leftover(gap: str) -> list[str]:
    """What stands between two of the seeds' moves, less their list's brackets and commas: a
    token when anything is left (a typo the replay then names)."""
    rest = " ".join(_LIST_PUNCTUATION.sub(" ", gap).split())
    return [rest] if rest else []


def _seed_pattern(text: str) -> re.Pattern[str] | None:
    return next((p for p in (_OPERATOR, _BIRD) if p.search(text)), None)


def replay(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, int]:
    return _play(model, tokens)[0], len(tokens)


def printed(model: Any, tokens: list[str], notation: str | None = None) -> list[str]:
    """The moves as the engines print them (`NAME+D`), from any notation `tokens` reads (for
    pictures of a plan written in a seed's notation; Rush Hour has no `notation` to choose);
    IllegalMove as the replay raises it."""
    return [f"{name}{sign}{dist}" for name, sign, dist in _play(model, tokens)[1]]


def _play(model: Any, tokens: list[str]) -> tuple[bool, list[tuple[str, str, int]]]:
    """Whether the moves reach the goal, and each as (vehicle, sign, distance)."""
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
    names = bird_order(model)
    played: list[tuple[str, str, int]] = []
    for i, token in enumerate(tokens, 1):
        name, sign, dist = _parsed(i, token, names, where, horizontal, cols)
        played.append((name, sign, dist))
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
    return reached, played


def bird_order(model: Any) -> list[str]:
    """The vehicles' names as Bird numbers them: the primary (0), then the others in order."""
    primary = model.vehicles[model.primary].name
    return [primary] + [v.name for v in model.vehicles if v.name != primary]


def _parsed(i: int, token: str, names: list[str], where: dict[str, list[list[int]]],
            horizontal: dict[str, bool], cols: int) -> tuple[str, str, int]:
    """(vehicle, sign, distance) of a move in any of the notations the module docstring lists."""
    m = _MOVE.match(token)
    if m:
        return m.group(1), m.group(2), int(m.group(3))
    m = _OPERATOR.fullmatch(token.strip())
    if m:
        sign, sideways = _SIGN[m.group(1).upper()]
        name = m.group(2)
        if name in horizontal and horizontal[name] != sideways:
            raise IllegalMove(i, token, f"{m.group(1).upper()} moves a {'horizontal' if sideways else 'vertical'} "
                                        f"vehicle, and {clip(name)} is {'horizontal' if horizontal[name] else 'vertical'}")
        return name, sign, int(m.group(3))
    m = _BIRD.fullmatch(token.strip())
    if m:
        v, cell = int(m.group(1)), int(m.group(2))
        if v >= len(names):
            raise IllegalMove(i, token, f"there is no vehicle {v} (vehicles 0, the primary, to {len(names) - 1})")
        name, width = names[v], cols + 1
        row, col = cell // width, cell % width - 1
        cells = where[name]
        step = (0, 1) if horizontal[name] else (1, 0)
        if [row, col] == [cells[-1][0] + step[0], cells[-1][1] + step[1]] and col >= 0:
            return name, "+", 1
        if [row, col] == [cells[0][0] - step[0], cells[0][1] - step[1]] and col >= 0:
            return name, "-", 1
        raise IllegalMove(i, token, f"cell {cell} is not next to either end of vehicle {v} ({clip(name)}) "
                                    f"along its line (cells numbered in rows of {width})")
    if token.lstrip().startswith("("):
        raise IllegalMove(i, token, "not a move; expected seed 003's (VPRAVO|VLAVO|DOLE|HORE NAME N) or seed 001's "
                                    "(VEHICLE,CELL)")
    raise IllegalMove(i, token, "not a move; expected a vehicle and a signed distance such as A+1 or C-2")
