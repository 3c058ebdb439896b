"""Rush Hour's vocabulary: the board, its vehicles, and the one statement of how they move.

A leaf: this module imports nothing of puzzleplan. The model, the notations, the packed space,
the planning search, the encodings' presolve and the PDDL export all read the rules here. Only
the plan checker (plans/check/rush_hour.py) states them again, on purpose: it must not trust
this module.

Cells. A board has rows x cols cells (2 to MAX_SIDE a side). Cell (r, c), 0-based, has the
index r * cols + c and the occupancy bit 1 << index. In the grid notation EMPTY ('.' or 'o')
is a free cell and WALL ('x') a fixed wall.
Vehicles. A vehicle of length >= 2 lies on one line: a row if horizontal, a column if vertical.
Position p along its line is the cell (line, p) or (p, line); its offset is the position of its
rear (first) cell, and it covers the positions offset .. offset + length - 1.
Moves. A vehicle moves along its line only. Moving d cells (d > 0 forward, that is right or
down; d < 0 back) it newly covers `entered(offset, length, d)`; a move of d cells is legal when
every position entered on the way (one cell further each time) is on the board and free. The
`step` metric moves one cell per move, the `slide` metric any such run. A move is written as
the vehicle's name and the signed distance: `A+2`, `C-1`.
Exits. The exit is at one end of the primary's line: right or left of a horizontal primary, down
or up of a vertical one (`right` and `down` are the forward ends). The goal: the primary covers
the position beside its exit.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

MAX_SIDE = 16
METRICS = ("step", "slide")
EMPTY = ".o"
WALL = "x"
EXITS = ("right", "left", "down", "up")
FORWARD_EXITS = ("right", "down")
EXIT_MARKS = {"right": ">", "left": "<", "down": "v", "up": "^"}
# The grid notation's one-character names after the primary's A, in the order given: enough for
# a 16x16 board full of cars (127). Letters other than o and x first (o and x are empty and wall),
# then O, X, digits, and Greek and Cyrillic letters unlike Latin ones.
GRID_LETTERS = ("BCDEFGHIJKLMNPQRSTUVWYZ" "abcdefghijklmnpqrstuvwyz" "OX" "0123456789" "ΓΔΘΛΞΠΣΦΨΩ"
                "αβγδεζηθικλμνξπρστυφχψω" "БГДЖЗИЙЛПФЦЧШЩЪЫЬЭЮЯ" "бгджзийлпфцчшщъыьэюя")
assert len(GRID_LETTERS) >= MAX_SIDE * MAX_SIDE // 2 - 1 and len(set(GRID_LETTERS)) == len(GRID_LETTERS)
MOVE_RE = re.compile(r"^(?P<name>.+?)(?P<sign>[+-])(?P<dist>\d+)$")


def move_name(name: str, delta: int) -> str:
    """A move in the notation plans are written in: `A+2`, `C-1`."""
    return f"{name}{delta:+d}"


def parse_move(text: str) -> tuple[str, int] | None:
    """(vehicle name, signed distance) of a move written as `move_name` writes it, else None."""
    m = MOVE_RE.match(text)
    if not m:
        return None
    return m.group("name"), int(m.group("dist")) * (1 if m.group("sign") == "+" else -1)


@dataclass(frozen=True)
class Vehicle:
    """A vehicle: its name, length, orientation, fixed line (row or column) and start offset."""

    name: str
    length: int
    horizontal: bool
    line: int      # the row of a horizontal vehicle, the column of a vertical one
    offset: int    # column (horizontal) or row (vertical) of its first cell

    @classmethod
    def at(cls, name: str, length: int, horizontal: bool, row: int, col: int) -> "Vehicle":
        """The vehicle whose first (top-left) cell is (row, col)."""
        return cls(name, length, horizontal, row if horizontal else col, col if horizontal else row)

    def cell(self, p: int) -> tuple[int, int]:
        """The cell (row, col) at position p along the vehicle's line."""
        return (self.line, p) if self.horizontal else (p, self.line)

    def cells(self, offset: int | None = None) -> list[tuple[int, int]]:
        """The cells it covers at `offset` (its start offset by default), rear first."""
        o = self.offset if offset is None else offset
        return [self.cell(o + i) for i in range(self.length)]

    def span(self, rows: int, cols: int) -> int:
        """The number of positions along its line."""
        return cols if self.horizontal else rows

    def same_line(self, other: "Vehicle") -> bool:
        return self.horizontal == other.horizontal and self.line == other.line


# -- the move rule -------------------------------------------------------------------------------
def entered(offset: int, length: int, d: int) -> int:
    """The position a vehicle at `offset` newly covers on the |d|-th cell of a move in d's
    direction: beyond its front going forward, behind its rear going back."""
    return offset + length - 1 + d if d > 0 else offset + d


def crossed(offset: int, to: int, length: int) -> range:
    """Every position a vehicle newly covers moving from `offset` to `to`, lowest first."""
    if to > offset:
        return range(entered(offset, length, 1), entered(offset, length, to - offset) + 1)
    return range(entered(offset, length, to - offset), entered(offset, length, -1) + 1)


def path(offset: int, to: int, length: int) -> Sequence[int]:
    """The positions of `crossed` in the order the vehicle enters them, one cell at a time."""
    cells = crossed(offset, to, length)
    return cells if to > offset else cells[::-1]


def trace(offset: int, to: int, length: int) -> range:
    """Every position a vehicle covers at some moment of a move from `offset` to `to`: its cells
    before and after, and every cell crossed between."""
    return range(min(offset, to), max(offset, to) + length)


def toward(offset: int, length: int, p: int) -> int:
    """The offset after the shortest move that makes a vehicle cover position p (not covered now)."""
    return p - length + 1 if p > offset else p


def clearing(length: int, span: int, p: int) -> tuple[int | None, int | None]:
    """The offsets nearest to position p at which a vehicle no longer covers it: (behind p,
    beyond p), None where the vehicle would leave its line of `span` positions."""
    back = p - length if p - length >= 0 else None
    forward = p + 1 if p + 1 + length <= span else None
    return back, forward


def covering(length: int, p: int, lo: int = 0, hi: int | None = None) -> range:
    """The offsets (within lo..hi) at which a vehicle covers position p."""
    top = p if hi is None else min(hi, p)
    return range(max(lo, p - length + 1), top + 1)


def offset_moves(lo: int, hi: int, slide: bool) -> list[tuple[int, int]]:
    """Every (from, to) offset pair of one move within lo..hi: one cell, or any distance (slide)."""
    if slide:
        return [(o, o2) for o in range(lo, hi + 1) for o2 in range(lo, hi + 1) if o2 != o]
    return [(o, o2) for o in range(lo, hi + 1) for o2 in (o - 1, o + 1) if lo <= o2 <= hi]


# -- exits ---------------------------------------------------------------------------------------
def default_exit(horizontal: bool) -> str:
    return "right" if horizontal else "down"


def exit_fits(horizontal: bool, exit: str) -> bool:
    """Whether a primary of this orientation can face the exit."""
    return horizontal == (exit in ("right", "left"))


def exit_position(span: int, exit: str) -> int:
    """The position along the primary's line beside the exit."""
    return span - 1 if exit in FORWARD_EXITS else 0


def goal_offset(span: int, length: int, exit: str) -> int:
    """The primary's offset when it covers the position beside the exit."""
    p = exit_position(span, exit)
    return p - length + 1 if exit in FORWARD_EXITS else p


# -- a board -------------------------------------------------------------------------------------
Run = tuple[tuple[int, int, bytes], ...]   # (bit of the cell entered, delta, new offset as a byte)


class Board:
    """One board's geometry as tables, computed once (never changed afterwards).

    spans[v]          positions along vehicle v's line
    line_cells[v][p]  the cell index of position p of v's line; line_bits[v][p] its bit
    masks[v][o]       the bits of the cells v covers at offset o
    wall_mask         the bits of the walls
    runs[v][o]        (back, forward): the moves of v from offset o in each direction, nearest
                      first, each as (bit of the cell entered, delta, new offset as one byte);
                      a move is legal when it and the moves before it in its run enter free cells
    goal_offset       the primary's offset at the goal; exit_position: the position it covers then
    """

    def __init__(self, rows: int, cols: int, vehicles: Sequence[Vehicle], primary: int = 0,
                 walls: Iterable[tuple[int, int]] = (), exit: str | None = None) -> None:
        self.rows, self.cols = rows, cols
        self.vehicles = tuple(vehicles)
        self.primary = primary
        self.walls = tuple(sorted(set(walls)))
        p = self.vehicles[primary]
        self.exit = exit or default_exit(p.horizontal)
        self.spans = tuple(v.span(rows, cols) for v in self.vehicles)
        self.wall_mask = sum(self.bit(r, c) for r, c in self.walls)
        self.line_cells = tuple(tuple(self.index(*v.cell(q)) for q in range(span))
                                for v, span in zip(self.vehicles, self.spans))
        self.line_bits = tuple(tuple(1 << i for i in cells) for cells in self.line_cells)
        self.masks = tuple(
            tuple(sum(bits[o:o + v.length]) for o in range(len(bits) - v.length + 1))
            for v, bits in zip(self.vehicles, self.line_bits))
        self.runs = tuple(tuple(self._runs(v, o) for o in range(len(masks)))
                          for v, masks in enumerate(self.masks))
        self.goal_offset = goal_offset(self.spans[primary], p.length, self.exit)
        self.exit_position = exit_position(self.spans[primary], self.exit)

    def _runs(self, v: int, o: int) -> tuple[Run, Run]:
        length, bits = self.vehicles[v].length, self.line_bits[v]
        top = len(bits) - length
        back = tuple((bits[entered(o, length, -k)], -k, bytes((o - k,))) for k in range(1, o + 1))
        forward = tuple((bits[entered(o, length, k)], k, bytes((o + k,))) for k in range(1, top - o + 1))
        return back, forward

    def index(self, r: int, c: int) -> int:
        """The index of cell (r, c)."""
        return r * self.cols + c

    def bit(self, r: int, c: int) -> int:
        """The occupancy bit of cell (r, c)."""
        return 1 << self.index(r, c)

    def start(self) -> bytes:
        """The vehicles' start offsets, one byte each (the model's start state)."""
        return bytes(v.offset for v in self.vehicles)

    def occupancy(self, offsets: Sequence[int]) -> int:
        """The bits of every wall and every cell a vehicle covers at these offsets."""
        occ = self.wall_mask
        masks = self.masks
        for v, o in enumerate(offsets):
            occ |= masks[v][o]
        return occ
