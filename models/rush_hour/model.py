"""Rush Hour: vehicles of any length slide along their row or column; free the primary.

Board of rows x cols cells (default 6x6, up to 16x16), fixed 1-cell walls, vehicles of length
>= 2, one primary vehicle. The exit is on the primary's line at the edge it faces (right by
default for a horizontal primary, down for a vertical one; `exit:` sets it). Goal: the primary's
front reaches the exit edge. The rules themselves (cells, moves, exits) are stated once, in
`board.py`; this module applies them.

State: `bytes`, one offset per vehicle (the coordinate of its rear/top cell along its line).
Metrics: `step` (one vehicle one cell per move) and `slide` (one vehicle any distance per move).
Moves are written vehicle + signed distance: `A+2`, `C-1` (+ is right/down).

YAML (`puzzle: rush-hour`), one of three notations (read by `notation.py`):
    board: |          the grid notation of the public Rush Hour databases: one letter per
      CCCBDE          vehicle, '.' or 'o' empty, 'x' wall, 'A' the primary (`primary:` to
      ...             name another); rows, or one string of rows*cols characters
    vehicles:         seed 003's list, 1-based: "name size row col h|v"; the first is the
      - red 2 3 2 h   primary unless `primary:` names one; `rows`/`cols` (default 6), `walls`
    typed: |          seed 000's typed grid: characters name vehicle *types*, defined under
      333BCC          `types:` ({char: {orientation: h|v, length: n}}); runs of one type are
      ...             split by length; `primary:` names the primary's type character
Other keys: name, description, exit, metric, max_moves, expect.

Layers (no module imports one above it): board.py (the vocabulary) <- notation.py (readers
return a `RushHourSpec`), packed.py (array BFS), planning.py (Bird's search), presolve.py (the
encodings' intervals) <- model.py (this module, which builds the model from a spec). The
accelerators take the model they are handed (typed under TYPE_CHECKING) and read its `board`.
The model is immutable once built: its tables are computed here, before `load` seals it.
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

from puzzleplan.models.base import ModelBase
from puzzleplan.models.document import Document
from puzzleplan.models.rush_hour.board import (EXIT_MARKS, GRID_LETTERS, METRICS, WALL, Board, Vehicle, clearing, crossed,
                                               move_name)
from puzzleplan.models.rush_hour.notation import (RushHourSpec, read_document, to_cells, to_grid_yaml, to_seed_003,
                                                 to_vehicles_yaml)

__all__ = ["RushHour", "Vehicle"]


class RushHour(ModelBase):
    """One Rush Hour instance under a metric (immutable once built)."""

    family = "rush-hour"
    metrics = METRICS
    default_engine = "bfs"
    notations = ("grid", "vehicles", "yaml")

    def __init__(self, rows: int, cols: int, vehicles: Sequence[Vehicle], primary: int = 0,
                 walls: Sequence[tuple[int, int]] = (), exit: str | None = None, metric: str = "step",
                 name: str = "", max_moves: int | None = None, expect: dict[str, Any] | None = None,
                 description: str = "") -> None:
        board = Board(rows, cols, vehicles, primary, walls, exit)
        self.board = board
        self.rows, self.cols = rows, cols
        self.vehicles = board.vehicles
        self.primary = primary
        self.walls = board.walls
        self.exit = board.exit
        self.metric = metric
        self.name = name
        self.max_moves = max_moves
        self.expect = dict(expect or {})
        self.description = description
        self.wall_mask = board.wall_mask
        self.line_bits = board.line_bits   # line_bits[v][p]: the bit of position p along v's line
        self.masks = board.masks           # masks[v][o]: the bits v covers at offset o
        self.goal_offset = board.goal_offset
        # clear[v][o]: the fewest cells vehicle v at offset o must move to leave the primary's
        # line (0 when it runs parallel to the primary or cannot leave it): the heuristic's table
        p = board.vehicles[primary]
        self._clear = tuple(tuple(self._clearance(v, o, p.line) for o in range(len(board.masks[v])))
                            for v in range(len(board.vehicles)))

    def bit(self, r: int, c: int) -> int:
        """The occupancy bit of cell (r, c)."""
        return self.board.bit(r, c)

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_spec(cls, spec: RushHourSpec) -> "RushHour":
        return cls(spec.rows, spec.cols, spec.vehicles, spec.primary, spec.walls, spec.exit, spec.metric,
                   spec.name, spec.max_moves, spec.expect, spec.description)

    @classmethod
    def from_document(cls, doc: Document) -> "RushHour":
        return cls.from_spec(read_document(doc))

    def notation(self, kind: str) -> str:
        """The instance written in another notation: bare grid rows, the seeds' bare states (seed
        003's line, Bird's cells), or a YAML file."""
        if kind == "grid":
            return "\n".join(self.grid()) + "\n"
        if kind in ("seed-003", "cells"):
            return to_seed_003(self) if kind == "seed-003" else to_cells(self)
        return to_vehicles_yaml(self) if kind == "vehicles" else to_grid_yaml(self)

    def with_metric(self, metric: str) -> "RushHour":
        """The same instance under another metric: a new model, sealed like a loaded one."""
        twin = RushHour(self.rows, self.cols, self.vehicles, self.primary, self.walls, self.exit, self.checked_metric(metric),
                        self.name, self.max_moves, self.expect, self.description)
        return twin.seal()

    # -- the rules ------------------------------------------------------------------------------
    def initial(self) -> bytes:
        return self.board.start()

    def is_goal(self, state: bytes) -> bool:
        return state[self.primary] == self.goal_offset

    def occupancy(self, state: bytes) -> int:
        return self.board.occupancy(state)

    def successors(self, state: bytes) -> Iterator[tuple[tuple[int, int], bytes]]:
        board = self.board
        occ = board.occupancy(state)
        slide = self.metric == "slide"
        runs = board.runs
        for v, o in enumerate(state):
            for run in runs[v][o]:         # back, then forward; nearest cell first
                for bit, d, after in run:
                    if occ & bit:
                        break
                    yield (v, d), state[:v] + after + state[v + 1:]
                    if not slide:
                        break

    def packed_space(self) -> Any:
        """States as uint64 keys for the array-based breadth-first search (None if they do not fit)."""
        from puzzleplan.models.rush_hour.packed import RushHourPacked   # numpy: only when asked
        return RushHourPacked(self) if RushHourPacked.fits(self) else None

    def plan_moves(self, actions: Sequence[tuple[int, int]]) -> list[str]:
        return [move_name(self.vehicles[v].name, d) for v, d in actions]

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
        blockers: dict[int, int] = {}
        line = self.line_bits[self.primary]
        masks = self.masks
        for pos in crossed(o, self.goal_offset, p.length):
            bit = line[pos]
            for v, ov in enumerate(state):
                if v != self.primary and masks[v][ov] & bit and v not in blockers:
                    blockers[v] = pos
        if self.metric == "slide":
            return 1 + len(blockers)
        total = abs(self.goal_offset - o)
        clear = self._clear
        for v in blockers:
            total += clear[v][state[v]]
        return total

    def _clearance(self, v: int, offset: int, line: int) -> int:
        """Fewest cells vehicle v (crossing `line`) must move to leave it, 0 if it cannot."""
        veh = self.vehicles[v]
        if veh.horizontal == self.vehicles[self.primary].horizontal:
            return 0
        options = [abs(to - offset) for to in clearing(veh.length, self.board.spans[v], line) if to is not None]
        return min(options) if options else 0

    def unsolvable_reason(self) -> str | None:
        p = self.vehicles[self.primary]
        for pos in crossed(p.offset, self.goal_offset, p.length):
            bit = self.line_bits[self.primary][pos]
            if self.wall_mask & bit:
                r, c = p.cell(pos)
                return f"a wall at row {r + 1}, column {c + 1} stands between the primary and the exit"
            for v, veh in enumerate(self.vehicles):
                if v != self.primary and veh.same_line(p) and self.masks[v][veh.offset] & bit:
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
        pool = iter(GRID_LETTERS)
        return ["A" if v == self.primary else next(pool) for v in range(len(names))]

    def legend(self) -> str:
        """Which grid letter draws which vehicle, when the names are not the letters
        (`A red, B orange, ...`); empty when they are."""
        names = [v.name for v in self.vehicles]
        letters = self.letters()
        return "" if letters == names else ", ".join(f"{letter} {name}" for letter, name in zip(letters, names))

    def grid(self, state: bytes | None = None) -> list[str]:
        state = self.initial() if state is None else state
        cells = [["."] * self.cols for _ in range(self.rows)]
        for r, c in self.walls:
            cells[r][c] = WALL
        for letter, v, o in zip(self.letters(), self.vehicles, state):
            for r, c in v.cells(o):
                cells[r][c] = letter
        return ["".join(row) for row in cells]

    def text_origin(self) -> tuple[int, int]:
        """(line, column) of the board's top-left cell in `render`'s text: the exit mark takes a
        line above it or two columns left of it."""
        return {"up": (1, 0), "left": (0, 2)}.get(self.exit, (0, 0))

    def render(self, state: bytes) -> str:
        """The grid with the exit marked beside the primary's line."""
        rows = self.grid(state)
        p = self.vehicles[self.primary]
        if self.exit == "right":
            rows[p.line] += " " + EXIT_MARKS["right"]
        elif self.exit == "left":
            rows = [(EXIT_MARKS["left"] + " " if r == p.line else "  ") + row for r, row in enumerate(rows)]
        else:
            pointer = " " * p.line + EXIT_MARKS[self.exit]
            rows = rows + [pointer] if self.exit == "down" else [pointer] + rows
        return "\n".join(rows)
