"""Sliding-block replay on the plain starting grid, written apart from the model.

Moves are `B:DD`: a piece letter and its path in U D L R. The piece moves cell by cell along the
path; every cell it enters must be on the board, not a wall and not another piece. Under `step`
a move is one letter, under `slide` its letters are all equal. Under `piece` the path names the
destination (where it ends; it need not be free itself): the move is legal when some route of
unit steps through free cells takes the piece there. Every move must end elsewhere than it began. Look-alike pieces (same shape, not distinct) are lettered by rank:
after every move, the k-th of them in reading order of their top-left corners bears the k-th of
their letters as the starting grid orders them. Goal: the named pieces' top-left corners on
their targets, or the grid equal to the target layout up to look-alikes.
"""
from __future__ import annotations

import re
from typing import Any

from puzzleplan.plans.check.common import IllegalMove, split_runs
from puzzleplan.plans.core.words import clip

_MOVE = re.compile(r"^([A-Za-z]):([UDLR]+)$")
_RUN = re.compile(r"[A-Za-z]:[UDLR]+")
_STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def tokens(text: str) -> list[str]:
    """Separated moves, or moves run together (`B:DDA:R`); a part that is no move stays one token."""
    return split_runs(text, _RUN)


def _pieces(grid: list[str]) -> dict[str, list[tuple[int, int]]]:
    cells: dict[str, list[tuple[int, int]]] = {}
    for r, row in enumerate(grid):
        for c, ch in enumerate(row):
            if ch.isalpha():
                cells.setdefault(ch, []).append((r, c))
    return cells


def _corner(cells: list[tuple[int, int]]) -> tuple[int, int]:
    return min(r for r, _ in cells), min(c for _, c in cells)


def _shape(cells: list[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    r0, c0 = _corner(cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def _lookalikes(pieces: dict[str, list[tuple[int, int]]], distinct: Any) -> list[list[str]]:
    """Groups of two or more look-alike letters, each in reading order of starting corners."""
    groups: dict[frozenset[tuple[int, int]], list[str]] = {}
    for letter, cells in pieces.items():
        if letter not in distinct:
            groups.setdefault(_shape(cells), []).append(letter)
    return [sorted(g, key=lambda x: _corner(pieces[x])) for g in groups.values() if len(g) > 1]


def replay(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, int]:
    grid = list(model.spec.grid)
    pieces = _pieces(grid)
    groups = _lookalikes(pieces, model.distinct)
    metric = model.metric
    for i, token in enumerate(tokens, 1):
        m = _MOVE.match(token)
        if not m:
            raise IllegalMove(i, token, "not a move; expected a piece letter, ':' and a path such as B:DD")
        letter, path = m.group(1), m.group(2)
        if letter not in pieces:
            raise IllegalMove(i, token, f"there is no piece {clip(letter)!r}")
        if metric == "step" and len(path) != 1:
            raise IllegalMove(i, token, "the step metric moves one cell per move")
        if metric == "slide" and len(set(path)) != 1:
            raise IllegalMove(i, token, "the slide metric moves in one straight line per move")
        start = set(pieces[letter])
        cells = _route(grid, pieces, letter, path, i, token) if metric == "piece" else _walk(
            grid, pieces, letter, path, i, token)
        pieces[letter] = cells
        if set(cells) == start:
            raise IllegalMove(i, token, f"piece {letter} ends where it started")
        for group in groups:        # letter look-alikes by rank again
            placed = sorted((pieces[x] for x in group), key=_corner)
            for x, where in zip(group, placed):
                pieces[x] = where
    return _reached(model, pieces), len(tokens)


def _walk(grid: list[str], pieces: dict[str, list[tuple[int, int]]], letter: str, path: str, i: int,
          token: str) -> list[tuple[int, int]]:
    """The piece's cells after moving cell by cell along `path`; every cell entered must be free."""
    rows, cols = len(grid), len(grid[0])
    cells = pieces[letter]
    for d in path:
        dr, dc = _STEP[d]
        cells = [(r + dr, c + dc) for r, c in cells]
        for r, c in cells:
            if not (0 <= r < rows and 0 <= c < cols):
                raise IllegalMove(i, token, f"piece {letter} would leave the board")
            if grid[r][c] == "#":
                raise IllegalMove(i, token, f"piece {letter} is blocked by a wall at row {r + 1}, column {c + 1}")
            other = [k for k, where in pieces.items() if k != letter and (r, c) in where]
            if other:
                raise IllegalMove(i, token, f"piece {letter} is blocked by piece {other[0]} at row {r + 1}, "
                                            f"column {c + 1}")
    return cells


def _route(grid: list[str], pieces: dict[str, list[tuple[int, int]]], letter: str, path: str, i: int,
           token: str) -> list[tuple[int, int]]:
    """The piece's cells at the end of `path`, found by a breadth-first search of its unit steps."""
    rows, cols = len(grid), len(grid[0])
    taken = {cell for k, where in pieces.items() if k != letter for cell in where}
    dr = sum(_STEP[d][0] for d in path)
    dc = sum(_STEP[d][1] for d in path)
    start = tuple(sorted(pieces[letter]))
    goal = tuple(sorted((r + dr, c + dc) for r, c in start))
    seen, queue = {start}, [start]
    for cells in queue:
        if cells == goal:
            return list(goal)
        for sr, sc in _STEP.values():
            nxt = tuple(sorted((r + sr, c + sc) for r, c in cells))
            if nxt not in seen and all(0 <= r < rows and 0 <= c < cols and grid[r][c] != "#" and (r, c) not in taken
                                       for r, c in nxt):
                seen.add(nxt)
                queue.append(nxt)
    raise IllegalMove(i, token, f"piece {letter} cannot reach that place: every route is blocked or leaves the board")


def _reached(model: Any, pieces: dict[str, list[tuple[int, int]]]) -> bool:
    spec = model.spec
    if spec.layout is None:
        return all(_corner(pieces[letter]) == target for letter, target in spec.targets)
    want = _pieces(list(spec.layout))
    groups = _lookalikes(_pieces(list(spec.grid)), model.distinct)
    names = {x: g[0] for g in groups for x in g}

    def picture(where: dict[str, list[tuple[int, int]]]) -> dict[tuple[int, int], str]:
        return {cell: names.get(x, x) for x, cells in where.items() for cell in cells}
    return picture(pieces) == picture(want)
