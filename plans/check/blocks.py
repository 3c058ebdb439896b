"""Sliding-block replay on the plain starting grid, written apart from the model.

Moves are `B:DD`: a piece's name (a letter, or a legend letter and its number: `o2`) and its path
in U D L R. The piece moves cell by cell along the path; every cell it enters must be on the
board, not a wall and not another piece. Under `step` a move is one letter, under `slide` its
letters are all equal. Under `piece` the path names the destination (where it ends; it need not
be free itself): the move is legal when some route of unit steps through free cells takes the
piece there. Every move must end elsewhere than it began. Look-alike pieces (same shape, not
distinct) are named by rank: after every move, the k-th of them in reading order of their
top-left corners bears the k-th of their names as the starting grid orders them.
An exit is an opening in the border that only the leaving piece may pass: the cells just
outside it, as deep as that piece, are open to it alone. Goal: the named pieces' top-left
corners on their targets, the grid equal to the target layout up to look-alikes, or the leaving
piece wholly outside the board.
The pieces' cells come from the file's reading (`spec.pieces`: names, anchors, shapes); the
rules below are this module's own.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from puzzleplan.plans.check.common import IllegalMove, split_runs
from puzzleplan.plans.core.words import clip

_MOVE = re.compile(r"^([A-Za-z][0-9]*):([UDLR]+)$")
_RUN = re.compile(r"[A-Za-z][0-9]*:[UDLR]+")
_STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
Cells = list[tuple[int, int]]
Open = Callable[[str, int, int], bool]


def tokens(text: str) -> list[str]:
    """Separated moves, or moves run together (`B:DDA:R`); a part that is no move stays one token."""
    return split_runs(text, _RUN)


def _cells(pieces: Any) -> dict[str, Cells]:
    return {p.letter: [(p.anchor[0] + dr, p.anchor[1] + dc) for dr, dc in p.shape] for p in pieces}


def _corner(cells: Cells) -> tuple[int, int]:
    return min(r for r, _ in cells), min(c for _, c in cells)


def _shape(cells: Cells) -> frozenset[tuple[int, int]]:
    r0, c0 = _corner(cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def _lookalikes(pieces: dict[str, Cells], distinct: Any) -> list[list[str]]:
    """Groups of two or more look-alike names, each in reading order of starting corners."""
    groups: dict[frozenset[tuple[int, int]], list[str]] = {}
    for letter, cells in pieces.items():
        if letter not in distinct:
            groups.setdefault(_shape(cells), []).append(letter)
    return [sorted(g, key=lambda x: _corner(pieces[x])) for g in groups.values() if len(g) > 1]


def _opening(spec: Any, pieces: dict[str, Cells]) -> set[tuple[int, int]]:
    """The cells past the exit that the leaving piece may enter."""
    if spec.exit is None or spec.leave is None:
        return set()
    rows, cols = len(spec.grid), len(spec.grid[0])
    cells = pieces[spec.leave]
    side, span = spec.exit.side, range(spec.exit.first, spec.exit.last + 1)
    tall = 1 + max(r for r, _ in cells) - min(r for r, _ in cells)
    wide = 1 + max(c for _, c in cells) - min(c for _, c in cells)
    if side == "top":
        return {(-1 - i, c) for i in range(tall) for c in span}
    if side == "bottom":
        return {(rows + i, c) for i in range(tall) for c in span}
    if side == "left":
        return {(r, -1 - i) for r in span for i in range(wide)}
    return {(r, cols + i) for r in span for i in range(wide)}


def replay(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, int]:
    spec = model.spec
    grid = list(spec.grid)
    rows, cols = len(grid), len(grid[0])
    pieces = _cells(spec.pieces)
    groups = _lookalikes(pieces, model.distinct)
    outside = _opening(spec, pieces)

    def open_to(letter: str, r: int, c: int) -> bool:
        if 0 <= r < rows and 0 <= c < cols:
            return grid[r][c] != "#"
        return letter == spec.leave and (r, c) in outside

    metric = model.metric
    for i, token in enumerate(tokens, 1):
        m = _MOVE.match(token)
        if not m:
            raise IllegalMove(i, token, "not a move; expected a piece name, ':' and a path such as B:DD")
        letter, path = m.group(1), m.group(2)
        if letter not in pieces:
            raise IllegalMove(i, token, f"there is no piece {clip(letter)!r}")
        if metric == "step" and len(path) != 1:
            raise IllegalMove(i, token, "the step metric moves one cell per move (a plan of slides? check it with --metric slide)")
        if metric == "slide" and len(set(path)) != 1:
            raise IllegalMove(i, token, "the slide metric moves in one straight line per move")
        start = set(pieces[letter])
        cells = (_route(open_to, pieces, letter, path, i, token) if metric == "piece"
                 else _walk(open_to, lambda r, c: 0 <= r < rows and 0 <= c < cols, pieces, letter, path, i, token))
        pieces[letter] = cells
        if set(cells) == start:
            raise IllegalMove(i, token, f"piece {letter} ends where it started")
        for group in groups:        # name look-alikes by rank again
            placed = sorted((pieces[x] for x in group), key=_corner)
            for x, where in zip(group, placed):
                pieces[x] = where
    return _reached(model, pieces, outside), len(tokens)


def _walk(open_to: Open, on_board: Callable[[int, int], bool], pieces: dict[str, Cells], letter: str, path: str, i: int, token: str) -> Cells:
    """The piece's cells after moving cell by cell along `path`; every cell entered must be free."""
    cells = pieces[letter]
    for d in path:
        dr, dc = _STEP[d]
        cells = [(r + dr, c + dc) for r, c in cells]
        for r, c in cells:
            if not open_to(letter, r, c):
                raise IllegalMove(i, token, f"piece {letter} is blocked by a wall at row {r + 1}, column {c + 1}"
                                  if on_board(r, c) else f"piece {letter} would leave the board")
            other = [k for k, where in pieces.items() if k != letter and (r, c) in where]
            if other:
                raise IllegalMove(i, token, f"piece {letter} is blocked by piece {other[0]} at row {r + 1}, "
                                            f"column {c + 1}")
    return cells


def _route(open_to: Open, pieces: dict[str, Cells], letter: str, path: str, i: int, token: str) -> Cells:
    """The piece's cells at the end of `path`, found by a breadth-first search of its unit steps."""
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
            if nxt not in seen and all(open_to(letter, r, c) and (r, c) not in taken for r, c in nxt):
                seen.add(nxt)
                queue.append(nxt)
    raise IllegalMove(i, token, f"piece {letter} cannot reach that place: every route is blocked or leaves the board")


def _reached(model: Any, pieces: dict[str, Cells], outside: set[tuple[int, int]]) -> bool:
    spec = model.spec
    if spec.leave is not None:
        return all(cell in outside for cell in pieces[spec.leave])
    if spec.layout is None:
        return all(_corner(pieces[letter]) == target for letter, target in spec.targets)
    want = _cells(spec.layout_pieces)
    groups = _lookalikes(_cells(spec.pieces), model.distinct)
    names = {x: g[0] for g in groups for x in g}

    def picture(where: dict[str, Cells]) -> dict[tuple[int, int], str]:
        return {cell: names.get(x, x) for x, cells in where.items() for cell in cells}
    return picture(pieces) == picture(want)
