"""Rush Hour: vehicles of any length slide along their row or column; free the primary.

Board of rows x cols cells (default 6x6, up to 16x16), fixed 1-cell walls, vehicles of length
>= 2, one primary vehicle. The exit is on the primary's line at the edge it faces (right by
default for a horizontal primary, down for a vertical one; `exit:` sets it). Goal: the primary's
front reaches the exit edge.

State: `bytes`, one offset per vehicle (the coordinate of its rear/top cell along its line).
Metrics: `step` (one vehicle one cell per move) and `slide` (one vehicle any distance per move).
Moves are written vehicle + signed distance: `A+2`, `C-1` (+ is right/down).

YAML (`puzzle: rush-hour`), one of three notations:
    board: |          the grid notation of the public Rush Hour databases: one letter per
      CCCBDE          vehicle, '.' or 'o' empty, 'x' wall, 'A' the primary (`primary:` to
      ...             name another); rows, or one string of rows*cols characters
    vehicles:         seed 003's list, 1-based: "name size row col h|v"; the first is the
      - red 2 3 2 h   primary unless `primary:` names one; `rows`/`cols` (default 6), `walls`
    typed: |          seed 000's typed grid: characters name vehicle *types*, defined under
      333BCC          `types:` ({char: {orientation: h|v, length: n}}); runs of one type are
      ...             split by length; `primary:` names the primary's type character
Other keys: name, description, exit, metric, max_moves, expect.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from puzzleplan.models.base import ModelBase
from puzzleplan.models.document import Document

MAX_SIDE = 16
MAX_CAP = 100_000
EMPTY = ".o"
WALL = "x"
EXITS = ("right", "left", "down", "up")
EXPECT_KEYS = ("optimal", "optimal_step", "optimal_slide", "solvable", "reachable", "valid_plans")
KEYS = ("puzzle", "name", "description", "board", "vehicles", "typed", "types", "primary", "rows", "cols",
        "walls", "exit", "metric", "max_moves", "expect")
MOVE_RE = re.compile(r"^(?P<name>.+?)(?P<sign>[+-])(?P<dist>\d+)$")


@dataclass(frozen=True)
class Vehicle:
    """A vehicle: its name, length, orientation, fixed line (row or column) and start offset."""

    name: str
    length: int
    horizontal: bool
    line: int      # the row of a horizontal vehicle, the column of a vertical one
    offset: int    # column (horizontal) or row (vertical) of its first cell

    def cells(self, offset: int | None = None) -> list[tuple[int, int]]:
        o = self.offset if offset is None else offset
        if self.horizontal:
            return [(self.line, o + i) for i in range(self.length)]
        return [(o + i, self.line) for i in range(self.length)]


class RushHour(ModelBase):
    """One Rush Hour instance under a metric."""

    family = "rush-hour"
    metrics = ("step", "slide")
    default_engine = "bfs"

    def __init__(self, rows: int, cols: int, vehicles: Sequence[Vehicle], primary: int = 0,
                 walls: Sequence[tuple[int, int]] = (), exit: str | None = None, metric: str = "step",
                 name: str = "", max_moves: int | None = None, expect: dict[str, Any] | None = None) -> None:
        self.rows, self.cols = rows, cols
        self.vehicles = tuple(vehicles)
        self.primary = primary
        self.walls = tuple(sorted(set(walls)))
        p = self.vehicles[primary]
        self.exit = exit or ("right" if p.horizontal else "down")
        self.metric = metric
        self.name = name
        self.max_moves = max_moves
        self.expect = dict(expect or {})
        self.wall_mask = sum(self.bit(r, c) for r, c in self.walls)
        # line_bits[v][p]: the bit of the cell at position p along vehicle v's line
        self.line_bits = tuple(
            tuple(self.bit(v.line, p) if v.horizontal else self.bit(p, v.line)
                  for p in range(cols if v.horizontal else rows))
            for v in self.vehicles)
        self.masks = tuple(
            tuple(sum(bits[o:o + v.length]) for o in range(len(bits) - v.length + 1))
            for v, bits in zip(self.vehicles, self.line_bits))
        span = cols if p.horizontal else rows
        self.goal_offset = span - p.length if self.exit in ("right", "down") else 0

    def bit(self, r: int, c: int) -> int:
        """The occupancy bit of cell (r, c)."""
        return 1 << (r * self.cols + c)

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_document(cls, doc: Document) -> "RushHour":
        from puzzleplan.models.rush_hour.notation import parse_document
        return parse_document(cls, doc)

    notations = ("grid", "vehicles", "yaml")

    def notation(self, kind: str) -> str:
        """The instance written in another notation: bare grid rows, or a YAML file."""
        from puzzleplan.models.rush_hour.notation import to_grid_yaml, to_vehicles_yaml
        if kind == "grid":
            return "\n".join(self.grid()) + "\n"
        return to_vehicles_yaml(self) if kind == "vehicles" else to_grid_yaml(self)

    def with_metric(self, metric: str) -> "RushHour":
        return RushHour(self.rows, self.cols, self.vehicles, self.primary, self.walls, self.exit, metric,
                        self.name, self.max_moves, self.expect)

    # -- the rules ------------------------------------------------------------------------------
    def initial(self) -> bytes:
        return bytes(v.offset for v in self.vehicles)

    def is_goal(self, state: bytes) -> bool:
        return state[self.primary] == self.goal_offset

    def occupancy(self, state: bytes) -> int:
        occ = self.wall_mask
        for v, o in enumerate(state):
            occ |= self.masks[v][o]
        return occ

    def successors(self, state: bytes) -> Iterator[tuple[tuple[int, int], bytes]]:
        occ = self.occupancy(state)
        slide = self.metric == "slide"
        for v, o in enumerate(state):
            bits = self.line_bits[v]
            length = self.vehicles[v].length
            p = o - 1
            while p >= 0 and not occ & bits[p]:
                yield (v, p - o), state[:v] + bytes((p,)) + state[v + 1:]
                if not slide:
                    break
                p -= 1
            p = o + length
            while p < len(bits) and not occ & bits[p]:
                yield (v, p - o - length + 1), state[:v] + bytes((p - length + 1,)) + state[v + 1:]
                if not slide:
                    break
                p += 1

    def packed_space(self) -> Any:
        """States as uint64 keys for the array-based breadth-first search (None if they do not fit)."""
        from puzzleplan.models.rush_hour.packed import RushHourPacked
        return RushHourPacked(self) if RushHourPacked.fits(self) else None

    def plan_moves(self, actions: Sequence[tuple[int, int]]) -> list[str]:
        return [f"{self.vehicles[v].name}{d:+d}" for v, d in actions]

    def h(self, state: bytes) -> int:
        """Blocking-vehicle lower bound.

        slide: 1 for the primary plus 1 per distinct vehicle on the cells it still has to cross.
        step: the primary's remaining distance plus, per distinct blocking vehicle, the fewest
        cells it must shift (within the board) to clear the primary's line.
        """
        o = state[self.primary]
        if o == self.goal_offset:
            return 0
        p = self.vehicles[self.primary]
        if self.goal_offset > o:
            path = range(o + p.length, self.goal_offset + p.length)
        else:
            path = range(self.goal_offset, o)
        blockers: dict[int, int] = {}
        for pos in path:
            bit = self.line_bits[self.primary][pos]
            for v, ov in enumerate(state):
                if v != self.primary and self.masks[v][ov] & bit and v not in blockers:
                    blockers[v] = pos
        if self.metric == "slide":
            return 1 + len(blockers)
        total = abs(self.goal_offset - o)
        for v, pos in blockers.items():
            total += self._clearance(v, state[v], p.line)
        return total

    def _clearance(self, v: int, offset: int, line: int) -> int:
        """Fewest cells vehicle v (crossing `line`) must move to leave it, 0 if it cannot."""
        veh = self.vehicles[v]
        if veh.horizontal == self.vehicles[self.primary].horizontal:
            return 0
        span = len(self.line_bits[v])
        options = []
        back = offset + veh.length - line       # move back until its last cell is before `line`
        if line - veh.length >= 0:
            options.append(back)
        fwd = line - offset + 1                 # move forward until its first cell is after `line`
        if line + 1 + veh.length <= span:
            options.append(fwd)
        return min(options) if options else 0

    def unsolvable_reason(self) -> str | None:
        p = self.vehicles[self.primary]
        o = p.offset
        path = (range(o + p.length, self.goal_offset + p.length) if self.goal_offset > o
                else range(self.goal_offset, o))
        for pos in path:
            bit = self.line_bits[self.primary][pos]
            if self.wall_mask & bit:
                r, c = (p.line, pos) if p.horizontal else (pos, p.line)
                return f"a wall at row {r + 1}, column {c + 1} stands between the primary and the exit"
            for v, veh in enumerate(self.vehicles):
                if v != self.primary and veh.horizontal == p.horizontal and veh.line == p.line \
                        and self.masks[v][veh.offset] & bit:
                    return (f"vehicle {veh.name} lies on the primary's line between it and the exit "
                            "and can never leave that line")
        return None

    # -- rendering ------------------------------------------------------------------------------
    def letters(self) -> list[str]:
        """One-character names for the grid notation: the names if they are single letters."""
        names = [v.name for v in self.vehicles]
        if all(len(n) == 1 and n.isalpha() and n not in "ox" for n in names) and names[self.primary] == "A" \
                and len(set(names)) == len(names):
            return names
        pool = iter(ch for ch in "BCDEFGHIJKLMNPQRSTUVWYZ" + "abcdefghijklmnpqrstuvwyz")
        return ["A" if v == self.primary else next(pool) for v in range(len(names))]

    def grid(self, state: bytes | None = None) -> list[str]:
        state = self.initial() if state is None else state
        cells = [["."] * self.cols for _ in range(self.rows)]
        for r, c in self.walls:
            cells[r][c] = WALL
        for letter, v, o in zip(self.letters(), self.vehicles, state):
            for r, c in v.cells(o):
                cells[r][c] = letter
        return ["".join(row) for row in cells]

    def render(self, state: bytes) -> str:
        """The grid with the exit marked beside the primary's line."""
        rows = self.grid(state)
        p = self.vehicles[self.primary]
        marks = {"right": ">", "left": "<", "down": "v", "up": "^"}
        if self.exit == "right":
            rows[p.line] += " >"
        elif self.exit == "left":
            rows = [("< " if r == p.line else "  ") + row for r, row in enumerate(rows)]
        else:
            pointer = " " * p.line + marks[self.exit]
            rows = rows + [pointer] if self.exit == "down" else [pointer] + rows
        return "\n".join(rows)
