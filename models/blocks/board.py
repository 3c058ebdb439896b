"""Sliding-block puzzles (Klotski, 华容道): the vocabulary, the board and the move rule.

A leaf module (imports nothing of the package). Cells are (row, col), 0-based; a cell index is
row * cols + col. A piece's shape is its cells as offsets from the top-left corner of its
bounding box (its anchor, which need not be one of its cells); positions are anchor indices.

Metrics (every move moves one piece; the others stay fixed):
    step   one cell in one direction
    slide  any distance in one straight line
    piece  to any position its unit steps reach through free cells, turns included (the
           classic Klotski count); each distinct destination is one move
Moves are written `B:DD`: the piece's letter and its path in U D L R. Under `piece` the path
names the destination (rows first, then columns) and need not be free itself: the move is legal
when some route of unit steps through free cells reaches it. This keeps a move's name a function
of the piece and its destination, so the planning task (task.py) names its macro actions as the
model does.

Interchangeable pieces (same shape, not distinct) make one class; states keep each class's
anchors sorted, so swapping two identical pieces gives the same state. A class's letters are
handed out by rank: its k-th piece in reading order of anchors bears the k-th letter of the
class, where the letters are ordered by the pieces' anchors on the starting board. A move string
therefore names an interchangeable piece by its rank in the state the move starts from.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

WALL, EMPTY = "#", "."
METRICS = ("step", "slide", "piece")
MAX_SIDE = 16
DIRECTIONS: dict[str, tuple[int, int]] = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}

Cell = tuple[int, int]
Shape = tuple[Cell, ...]


def normalise(cells: Iterable[Cell]) -> tuple[Cell, Shape]:
    """(anchor, shape): the bounding box's top-left cell and the cells as sorted offsets from it."""
    cells = list(cells)
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    return (top, left), tuple(sorted((r - top, c - left) for r, c in cells))


def connected(cells: Iterable[Cell]) -> bool:
    """True when the cells form one edge-connected group."""
    todo = set(cells)
    if not todo:
        return False
    stack = [todo.pop()]
    while stack:
        r, c = stack.pop()
        for dr, dc in DIRECTIONS.values():
            if (r + dr, c + dc) in todo:
                todo.remove((r + dr, c + dc))
                stack.append((r + dr, c + dc))
    return not todo


@dataclass(frozen=True)
class Piece:
    """One piece: its name (a letter, or a legend letter and a number: `o2`), shape, starting
    anchor and the character drawn in its cells (`glyph`: the letter written on the grid)."""

    letter: str
    shape: Shape
    anchor: Cell
    glyph: str = ""

    @property
    def mark(self) -> str:
        return self.glyph or self.letter


SIDES = ("top", "bottom", "left", "right")


@dataclass(frozen=True)
class Exit:
    """An opening in the border: `side`, and the first and last row/column (0-based) it spans."""

    side: str
    first: int
    last: int

    def band(self, rows: int, cols: int, depth: int) -> tuple[int, int, int, int, set[Cell]]:
        """Room outside the border for a piece of `depth` cells to leave into: (rows, cols, row
        shift, column shift, the cells of the opening's band), in the enlarged grid's coordinates."""
        span = range(self.first, self.last + 1)
        if self.side == "top":
            return rows + depth, cols, depth, 0, {(r, c) for r in range(depth) for c in span}
        if self.side == "bottom":
            return rows + depth, cols, 0, 0, {(rows + r, c) for r in range(depth) for c in span}
        if self.side == "left":
            return rows, cols + depth, 0, depth, {(r, c) for r in span for c in range(depth)}
        return rows, cols + depth, 0, 0, {(r, cols + c) for r in span for c in range(depth)}


class Board:
    """The grid, its walls and pieces, the classes of interchangeable pieces and the move rule."""

    def __init__(self, rows: int, cols: int, walls: Iterable[Cell], pieces: Iterable[Piece],
                 distinct: Iterable[str] = (), exit_cells: Iterable[Cell] = (), leaving: str | None = None) -> None:
        """`exit_cells`: cells only the piece named `leaving` may enter (an exit's band)."""
        self.rows, self.cols = rows, cols
        self.walls = frozenset(walls)
        self.exit_cells = frozenset(exit_cells)
        self.leaving = leaving
        self.pieces = tuple(sorted(pieces, key=lambda p: p.anchor))
        self.distinct = frozenset(distinct)
        groups: dict[object, list[Piece]] = {}
        for p in self.pieces:                         # reading order of anchors
            key = p.letter if p.letter in self.distinct else p.shape
            groups.setdefault(key, []).append(p)
        self.classes = tuple(tuple(g) for g in groups.values())
        self.slot_class: tuple[int, ...] = tuple(k for k, g in enumerate(self.classes) for _ in g)
        self.slot_letter: tuple[str, ...] = tuple(p.letter for g in self.classes for p in g)
        self.slot_shape: tuple[Shape, ...] = tuple(p.shape for g in self.classes for p in g)
        self.slot_glyph: tuple[str, ...] = tuple(p.mark for g in self.classes for p in g)
        starts, at = [], 0
        for g in self.classes:
            starts.append((at, at + len(g)))
            at += len(g)
        self.class_span = tuple(starts)
        self.wall_mask = sum(1 << self.index(r, c) for r, c in self.walls)
        tables: dict[tuple[Shape, bool], dict[int, int]] = {}
        self._masks = tuple(tables.setdefault(key, self._anchor_masks(*key)) for key in (
            (shape, letter == leaving) for shape, letter in zip(self.slot_shape, self.slot_letter)))

    def index(self, r: int, c: int) -> int:
        return r * self.cols + c

    def cell(self, index: int) -> Cell:
        return divmod(index, self.cols)

    def _anchor_masks(self, shape: Shape, may_exit: bool) -> dict[int, int]:
        """Every anchor where the shape lies on the board clear of walls (and of the exit's band
        unless `may_exit`) -> its cell bits."""
        out = {}
        closed = self.walls if may_exit else self.walls | self.exit_cells
        for r in range(self.rows):
            for c in range(self.cols):
                cells = [(r + dr, c + dc) for dr, dc in shape]
                if all(0 <= y < self.rows and 0 <= x < self.cols and (y, x) not in closed for y, x in cells):
                    out[self.index(r, c)] = sum(1 << self.index(y, x) for y, x in cells)
        return out

    def masks(self, slot: int) -> dict[int, int]:
        """anchor -> cell bits of the piece in `slot` (the leaving piece may stand in the exit)."""
        return self._masks[slot]

    def start(self) -> tuple[int, ...]:
        return tuple(self.index(*p.anchor) for g in self.classes for p in g)

    def occupancy(self, state: tuple[int, ...]) -> int:
        occ = 0
        for slot, a in enumerate(state):
            occ |= self.masks(slot)[a]
        return occ

    def step(self, slot: int, anchor: int, direction: str) -> int | None:
        """The anchor one cell from `anchor` in `direction`, if the shape fits there (walls only)."""
        r, c = self.cell(anchor)
        dr, dc = DIRECTIONS[direction]
        r, c = r + dr, c + dc
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            return None
        a = self.index(r, c)
        return a if a in self.masks(slot) else None

    def destinations(self, slot: int, anchor: int, others: int, metric: str) -> list[tuple[int, str]]:
        """(destination anchor, path) of every move of the piece in `slot` at `anchor` while the
        cells `others` are taken: nearest first. Under `piece` the path names the destination
        (`displacement`): some route of unit steps reaches it, which one does not matter."""
        masks = self.masks(slot)
        out: list[tuple[int, str]] = []
        if metric == "piece":
            seen = {anchor}
            queue = [anchor]
            for a in queue:
                for d in DIRECTIONS:
                    b = self.step(slot, a, d)
                    if b is not None and b not in seen and not masks[b] & others:
                        seen.add(b)
                        queue.append(b)
                        out.append((b, self.displacement(anchor, b)))
            return out
        for d in DIRECTIONS:
            a, path = anchor, ""
            while True:
                b = self.step(slot, a, d)
                if b is None or masks[b] & others:
                    break
                a, path = b, path + d
                out.append((a, path))
                if metric == "step":
                    break
        return out

    def displacement(self, frm: int, to: int) -> str:
        """The path written for a `piece` move: rows first (U/D), then columns (L/R)."""
        (r0, c0), (r1, c1) = self.cell(frm), self.cell(to)
        return ("D" * (r1 - r0) if r1 > r0 else "U" * (r0 - r1)) + ("R" * (c1 - c0) if c1 > c0 else "L" * (c0 - c1))

    def moved(self, state: tuple[int, ...], slot: int, to: int) -> tuple[int, ...]:
        """The state with `slot` at `to`, its class's anchors sorted again (the canonical form)."""
        lo, hi = self.class_span[self.slot_class[slot]]
        group = sorted(state[lo:slot] + (to,) + state[slot + 1:hi])
        return state[:lo] + tuple(group) + state[hi:]


def move_name(letter: str, path: str) -> str:
    return f"{letter}:{path}"
