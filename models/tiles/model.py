"""Sliding tiles: any rows x cols board, faces that may repeat, one blank, any goal layout.

State: `bytes` of length rows*cols, one face index per cell (0 is the blank). Faces that repeat
share one index, so identical tiles are interchangeable and never renumbered.
Moves are named by the direction the blank moves: U R D L (the seed's digits 0 1 2 3).

YAML (`puzzle: tiles`):
    name, description        free text
    notation                 grid (default: rows of whitespace-separated faces, '_' blank)
                             hex  (rows of hex digits such as `7632 58F4 E1DC BA90`, 0 blank)
                             korf (one line of numbers, cell by cell, 0 blank; goal 0 1 2 ...)
    start, goal              the two layouts (goal optional for korf)
    rows, cols               board size, only for korf when the board is not square
    max_moves                the move cap
    metric                   step (the only metric of this family)
    expect                   known facts, checked by the tests
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from functools import cached_property
from typing import Any, Iterator, Sequence

import numpy as np

from puzzleplan.models.base import ModelBase, describe, quote
from puzzleplan.models.document import Document

BLANK = "_"
DIRECTIONS = "URDL"                          # index = the seed's digit for that move
DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))  # (drow, dcol) of the blank
INVERSE = (2, 3, 0, 1)
MAX_SIDE = 16
MAX_CAP = 100_000
EXPECT_KEYS = ("optimal", "solvable", "reachable", "max_depth", "valid_plans", "distance")
KEYS = ("puzzle", "name", "description", "notation", "start", "goal", "rows", "cols",
        "max_moves", "metric", "expect")

Grid = tuple[tuple[str, ...], ...]
_KORF_TOKEN = re.compile(r"[0-9]{1,6}\Z")   # cell contents: decimal digits (a 16x16 board needs 3)


class TilesPuzzle(ModelBase):
    """One sliding-tiles instance. Build it with `from_document` or `from_grids`."""

    family = "tiles"
    metrics = ("step",)
    default_engine = "idastar"

    def __init__(self, start: Grid, goal: Grid, name: str = "", max_moves: int | None = None,
                 expect: dict[str, Any] | None = None) -> None:
        self.rows, self.cols = len(start), len(start[0])
        self.start_grid, self.goal_grid = start, goal
        self.name = name
        self.max_moves = max_moves
        self.metric = "step"
        self.expect = dict(expect or {})
        order: list[str] = []
        for face in [f for row in goal for f in row] + [f for row in start for f in row]:
            if face != BLANK and face not in order:
                order.append(face)
        self.faces: tuple[str, ...] = (BLANK, *order)
        index = {f: i for i, f in enumerate(self.faces)}
        self.start = bytes(index[f] for row in start for f in row)
        self.goal = bytes(index[f] for row in goal for f in row)
        self.n = self.rows * self.cols
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(self._step(cell, d) for d in range(4)) for cell in range(self.n))

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_grids(cls, start: Sequence[Sequence[str]], goal: Sequence[Sequence[str]], **kw: Any) -> "TilesPuzzle":
        return cls(tuple(map(tuple, start)), tuple(map(tuple, goal)), **kw)

    @classmethod
    def from_document(cls, doc: Document) -> "TilesPuzzle":
        doc.check_keys(KEYS)
        notation = doc.choice("notation", ("grid", "hex", "korf"), "grid")
        doc.choice("metric", cls.metrics, "step")
        name = doc.text("name", "")
        doc.text("description", "")
        if notation == "korf":
            start = _korf_grid(doc, "start")
            goal = _korf_grid(doc, "goal") if doc.has("goal") else _korf_goal(len(start), len(start[0]))
        else:
            for key in ("rows", "cols"):
                if doc.has(key):
                    raise doc.error(key, "only used with notation: korf (other notations give the size by their rows)")
            start = _grid(doc, "start", notation)
            goal = _grid(doc, "goal", notation)
        _check_board(doc, "start", start)
        _check_board(doc, "goal", goal)
        if (len(start), len(start[0])) != (len(goal), len(goal[0])):
            raise doc.error("goal", f"expected a {len(start)}x{len(start[0])} board like start, "
                                    f"got {len(goal)}x{len(goal[0])}")
        _check_same_faces(doc, start, goal)
        max_moves = doc.integer("max_moves", None, low=0, high=MAX_CAP)
        expect = doc.expect(EXPECT_KEYS)
        return cls(start, goal, name=name, max_moves=max_moves, expect=expect)

    # -- the rules ------------------------------------------------------------------------------
    def _step(self, cell: int, direction: int) -> int:
        dr, dc = DELTAS[direction]
        r, c = divmod(cell, self.cols)
        r, c = r + dr, c + dc
        if 0 <= r < self.rows and 0 <= c < self.cols:
            return r * self.cols + c
        return -1

    def initial(self) -> bytes:
        return self.start

    def is_goal(self, state: bytes) -> bool:
        return state == self.goal

    def successors(self, state: bytes) -> Iterator[tuple[int, bytes]]:
        blank = state.index(0)
        for direction, cell in enumerate(self.neighbours[blank]):
            if cell >= 0:
                board = bytearray(state)
                board[blank], board[cell] = board[cell], 0
                yield direction, bytes(board)

    def packed_space(self) -> Any:
        """States as uint64 keys for the array-based breadth-first search (None if they do not fit)."""
        from puzzleplan.models.tiles.packed import TilesPacked
        return TilesPacked(self) if TilesPacked.fits(self) else None

    def plan_moves(self, actions: Sequence[int]) -> list[str]:
        return [DIRECTIONS[a] for a in actions]

    def plan_parity(self) -> int:
        """Every move moves the blank one cell, so plan length parity = blank distance parity."""
        (r1, c1), (r2, c2) = (divmod(s.index(0), self.cols) for s in (self.start, self.goal))
        return (abs(r1 - r2) + abs(c1 - c2)) % 2

    # -- solvability ----------------------------------------------------------------------------
    @cached_property
    def repeated_faces(self) -> bool:
        return any(n > 1 for f, n in Counter(self.goal).items() if f != 0)

    def unsolvable_reason(self) -> str | None:
        """Permutation parity, generalised to repeated faces.

        On a board with at least 2 rows and 2 columns the reachable layouts of labelled tiles are
        exactly those whose permutation parity equals the parity of the blank's displacement.
        With a repeated face, two identical tiles can swap labels, which flips the parity at no
        cost, so every layout with the same faces is reachable.
        """
        if self.repeated_faces:
            return None
        perm = [0] * self.n
        goal_cell = {face: cell for cell, face in enumerate(self.goal)}
        for cell, face in enumerate(self.start):
            perm[cell] = goal_cell[face]
        odd = _permutation_is_odd(perm)
        if odd != bool(self.plan_parity()):
            return ("permutation parity: the tiles' permutation from start to goal is "
                    f"{'odd' if odd else 'even'} but the blank moves an "
                    f"{'odd' if self.plan_parity() else 'even'} distance, so no sequence of moves can do it")
        return None

    # -- heuristic ------------------------------------------------------------------------------
    @cached_property
    def tables(self) -> "Any":
        from puzzleplan.models.tiles.kernels import HeuristicTables
        return HeuristicTables.build(self)

    def h(self, state: bytes) -> int:
        """Manhattan distance minimised over assignments of identical faces + linear conflicts,
        or the pattern databases (`tables`, the default choice).

        A trivial instance never waits for a table build (the rule of `TilesDepthFirst`, for A*
        and greedy): while the default tables would have to be built first (estimated at
        PROBE_MIN_SECONDS or more), the first PROBE_H_CALLS calls return `cheap_h`; the call
        after builds (or loads) the tables. Every value is admissible either way."""
        from puzzleplan.models.tiles.kernels import heuristic
        t = self.__dict__.get("tables")
        if t is None:
            left = self.__dict__.get("_cheap_calls_left")
            if left is None:
                from puzzleplan.models.tiles.kernels import PROBE_H_CALLS, deferred_patterns
                left = PROBE_H_CALLS if deferred_patterns(self) is not None else 0
            if left > 0:
                self.__dict__["_cheap_calls_left"] = left - 1
                return self.cheap_h(state)
            self.__dict__["_cheap_calls_left"] = 0
            t = self.tables
        return int(heuristic(np.frombuffer(state, dtype=np.uint8), *t.arrays))

    def cheap_h(self, state: bytes) -> int:
        """The Manhattan + linear-conflict bound alone: never builds pattern databases."""
        from puzzleplan.models.tiles.kernels import HeuristicTables, heuristic
        return int(heuristic(np.frombuffer(state, dtype=np.uint8), *HeuristicTables.manhattan(self).arrays))

    def native_searcher(self, heuristic: str | None = None, progress: Any = None,
                        partition: Sequence[Sequence[str]] | None = None,
                        memory_limit_mb: float | None = None) -> Any:
        """The compiled IDA*/DFS searcher; heuristic "manhattan", "pdb" or None (the default);
        partition: the pattern databases' face groups (default: the strongest available);
        memory_limit_mb: tables whose build needs more are refused before allocating (ValueError;
        None: 75% of the available memory). None when the kernels cannot hold this board (the
        engines then use the generic search)."""
        from puzzleplan.models.tiles.kernels import TilesDepthFirst
        if not TilesDepthFirst.supports(self):
            return None
        return TilesDepthFirst(self, heuristic, partition, progress=progress, memory_limit_mb=memory_limit_mb)

    # -- notations ------------------------------------------------------------------------------
    notations = ("grid", "yaml")

    def notation(self, kind: str) -> str:
        """Bare start rows ("grid"), or a YAML file in the grid notation ("yaml")."""
        rows = lambda grid: [" ".join(row) for row in grid]
        if kind == "grid":
            return "\n".join(rows(self.start_grid)) + "\n"
        lines = ["puzzle: tiles"] + ([f"name: {json.dumps(self.name)}"] if self.name else [])
        lines += ["start: |"] + [f"  {r}" for r in rows(self.start_grid)]
        lines += ["goal: |"] + [f"  {r}" for r in rows(self.goal_grid)]
        if self.max_moves is not None:
            lines.append(f"max_moves: {self.max_moves}")
        return "\n".join(lines) + "\n"

    # -- rendering ------------------------------------------------------------------------------
    def render(self, state: bytes) -> str:
        width = max(len(f) for f in self.faces)
        rows = []
        for r in range(self.rows):
            cells = state[r * self.cols:(r + 1) * self.cols]
            rows.append(" ".join(self.faces[f].rjust(width) for f in cells))
        return "\n".join(rows)

    def grid_of(self, state: bytes) -> Grid:
        return tuple(tuple(self.faces[state[r * self.cols + c]] for c in range(self.cols))
                     for r in range(self.rows))


def _permutation_is_odd(perm: list[int]) -> bool:
    seen = [False] * len(perm)
    transpositions = 0
    for i in range(len(perm)):
        length = 0
        while not seen[i]:
            seen[i] = True
            i = perm[i]
            length += 1
        if length:
            transpositions += length - 1
    return transpositions % 2 == 1


# -- notations -------------------------------------------------------------------------------
def _rows_of(doc: Document, key: str) -> list[tuple[int, Any]]:
    """The rows of a layout field as (file line, row) pairs: text lines or a YAML list."""
    value = doc.get(key)
    if isinstance(value, str):
        lines = value.split("\n")
        rows = [(doc.value_line(key, i), line) for i, line in enumerate(lines) if line.strip()]
        if rows:
            return rows
    if isinstance(value, list) and value:
        return [(doc.value_line(key, i), row) for i, row in enumerate(value)]
    raise doc.error(key, "expected the layout as rows of faces (a text block or a list of rows), "
                         f"got {describe(value)}")


def _grid(doc: Document, key: str, notation: str) -> Grid:
    rows: list[tuple[str, ...]] = []
    if notation == "hex":
        value = doc.get(key)
        if not isinstance(value, str):
            raise doc.error(key, "expected hex rows such as '7632 58F4 E1DC BA90'")
        for token in value.split():
            if not re.fullmatch(r"[0-9A-Fa-f]+", token):
                raise doc.error(key, f"expected rows of hex digits, got {quote(token)}")
            rows.append(tuple(BLANK if ch == "0" else ch.upper() for ch in token))
        if not rows:
            raise doc.error(key, "expected hex rows such as '7632 58F4 E1DC BA90'")
        return _rectangular(doc, key, [(doc.line(key), r) for r in rows])
    parsed = []
    for line, row in _rows_of(doc, key):
        if isinstance(row, str):
            parsed.append((line, tuple(row.split())))
        elif isinstance(row, list) and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in row):
            parsed.append((line, tuple(str(x) for x in row)))
        else:
            bad = next((x for x in row if not isinstance(x, (str, int)) or isinstance(x, bool)), row) \
                if isinstance(row, list) else row
            raise doc.error(key, f"expected a row of faces (text, or a list of names and numbers), got "
                                 f"{describe(bad)}", line=line)
    return _rectangular(doc, key, parsed)


def _rectangular(doc: Document, key: str, rows: list[tuple[int, tuple[str, ...]]]) -> Grid:
    if not rows:
        raise doc.error(key, "expected the layout as rows of faces, got no rows")
    width = len(rows[0][1])
    for i, (line, row) in enumerate(rows):
        if len(row) != width:
            raise doc.error(key, f"row {i + 1} has {len(row)} faces, expected {width} like row 1 (ragged rows)",
                            line=line)
    return tuple(row for _, row in rows)


def _korf_grid(doc: Document, key: str) -> Grid:
    value = doc.get(key)
    tokens = value.split() if isinstance(value, str) else \
        [str(x) if isinstance(x, (int, str)) and not isinstance(x, bool) else "?" for x in value] \
        if isinstance(value, list) \
        else None
    if not tokens or not all(_KORF_TOKEN.match(t) for t in tokens):
        bad = next((t for t in tokens or () if not _KORF_TOKEN.match(t)), None)
        raise doc.error(key, "expected Korf notation: one line of cell contents, 0 the blank (e.g. '1 2 3 0')"
                             + (f", got {quote(bad)}" if bad not in (None, "?") else ""))
    n = len(tokens)
    rows = doc.integer("rows", None, low=2, high=MAX_SIDE)
    cols = doc.integer("cols", None, low=2, high=MAX_SIDE)
    if rows is None and cols is None:
        side = math.isqrt(n)
        if side * side != n:
            raise doc.error(key, f"{n} cells is not a square board; give rows: and cols:")
        rows = cols = side
    elif rows is None or cols is None:
        raise doc.error("rows" if rows is None else "cols", "give both rows: and cols: or neither")
    if rows * cols != n:
        raise doc.error(key, f"expected {rows * cols} cells for {rows}x{cols}, got {n}")
    faces = [BLANK if t == "0" else str(int(t)) for t in tokens]
    return tuple(tuple(faces[r * cols:(r + 1) * cols]) for r in range(rows))


def _korf_goal(rows: int, cols: int) -> Grid:
    faces = [BLANK] + [str(i) for i in range(1, rows * cols)]
    return tuple(tuple(faces[r * cols:(r + 1) * cols]) for r in range(rows))


def _check_board(doc: Document, key: str, grid: Grid) -> None:
    rows, cols = len(grid), len(grid[0])
    if not (2 <= rows <= MAX_SIDE and 2 <= cols <= MAX_SIDE):
        raise doc.error(key, f"expected a board from 2x2 to {MAX_SIDE}x{MAX_SIDE}, got {rows}x{cols}")
    blanks = sum(row.count(BLANK) for row in grid)
    if blanks != 1:
        raise doc.error(key, f"expected exactly one blank '{BLANK}', found {blanks}")


def _check_same_faces(doc: Document, start: Grid, goal: Grid) -> None:
    a = Counter(f for row in start for f in row)
    b = Counter(f for row in goal for f in row)
    if a != b:
        diffs = [f"{quote(f, 16)} {a[f]} in start vs {b[f]} in goal" for f in sorted(set(a) | set(b)) if a[f] != b[f]]
        raise doc.error("goal", "expected the same faces as start (with repeats): " + ", ".join(diffs[:4]))
