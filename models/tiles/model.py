"""Sliding tiles: any rows x cols board, faces that may repeat, one blank, any goal layout.

State: `bytes` of length rows*cols, one face index per cell (0 is the blank). Faces that repeat
share one index, so identical tiles are interchangeable and never renumbered.
Moves are named by the direction the blank moves: U R D L (the seed's digits 0 1 2 3).
The board's geometry, the moves and the parity rule are `board`'s; files are read and written
by `notation` (the YAML fields are listed there).

The model is an immutable value. Its accelerators are imported on first use and never write to
it: `packed` (uint64 states for the array BFS), `searcher` (the compiled IDA*/DFS), and
`heuristic_tables` (the heuristic's tables, kept per board and per model there).
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

from puzzleplan.models.base import ModelBase
from puzzleplan.models.document import Document, fact_lines
from puzzleplan.models.tiles import notation as tiles_notation
from puzzleplan.models.tiles.board import (BLANK, BLANK_INDEX, DIRECTIONS, Board, arrangements, has_repeated_faces,
                                           parity_reason, plan_parity)
from puzzleplan.models.tiles.notation import Grid

# `heuristic_tables.h_value` and `cheap_h_value`, imported on first use (they load numba) and kept
# here: `h` runs once per node, and an import statement per call would cost a fifth of it.
_H_VALUES: tuple[Callable[[Any, bytes], int], Callable[[Any, bytes], int]] | None = None


def _h_values() -> tuple[Callable[[Any, bytes], int], Callable[[Any, bytes], int]]:
    global _H_VALUES
    if _H_VALUES is None:
        from puzzleplan.models.tiles.heuristic_tables import cheap_h_value, h_value
        _H_VALUES = (h_value, cheap_h_value)
    return _H_VALUES


class TilesPuzzle(ModelBase):
    """One sliding-tiles instance. Build it with `from_document` or `from_grids`."""

    family = "tiles"
    metrics = ("step",)
    BFS_ARRANGEMENTS = 1_000_000   # at most this many arrangements: breadth-first is the default

    def __init__(self, start: Grid, goal: Grid, name: str = "", max_moves: int | None = None,
                 expect: dict[str, Any] | None = None, description: str = "") -> None:
        self.rows, self.cols = len(start), len(start[0])
        self.start_grid, self.goal_grid = start, goal
        self.name = name
        self.description = description
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
        self.board = Board(self.rows, self.cols)
        self.n = self.board.n
        self.neighbours: tuple[tuple[int, ...], ...] = self.board.neighbours()
        self.repeated_faces = has_repeated_faces(self.goal)

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_grids(cls, start: Sequence[Sequence[str]], goal: Sequence[Sequence[str]], **kw: Any) -> "TilesPuzzle":
        return cls(tuple(map(tuple, start)), tuple(map(tuple, goal)), **kw)

    @classmethod
    def from_document(cls, doc: Document) -> "TilesPuzzle":
        read = tiles_notation.read(doc, cls.metrics)
        common = read.common
        return cls(read.start, read.goal, name=common.name, max_moves=common.max_moves, expect=common.expect,
                   description=common.description)

    # -- the rules ------------------------------------------------------------------------------
    def initial(self) -> bytes:
        return self.start

    def is_goal(self, state: bytes) -> bool:
        return state == self.goal

    def successors(self, state: bytes) -> Iterator[tuple[int, bytes]]:
        blank = state.index(BLANK_INDEX)
        for direction, cell in enumerate(self.neighbours[blank]):
            if cell >= 0:
                board = bytearray(state)
                board[blank], board[cell] = board[cell], BLANK_INDEX
                yield direction, bytes(board)

    def packed_space(self) -> Any:
        """States as uint64 keys for the array-based breadth-first search (None if they do not fit)."""
        from puzzleplan.models.tiles.packed import TilesPacked
        return TilesPacked(self) if TilesPacked.fits(self) else None

    @property
    def default_engine(self) -> str:  # type: ignore[override]
        """`idastar`; `bfs` where the board's states pack into 64 bits and it has at most
        BFS_ARRANGEMENTS arrangements of its faces (the 8-puzzle: 362,880, of which 181,440
        are reachable). A space that small is swept in a fraction of a second (the 8-puzzle:
        0.09 s), less than IDA* takes to load its pattern tables and compiled kernels (0.73 s),
        and the sweep is as optimal."""
        if arrangements(self.start) <= self.BFS_ARRANGEMENTS and self.packed_space() is not None:
            return "bfs"
        return "idastar"

    def plan_moves(self, actions: Sequence[int]) -> list[str]:
        return [DIRECTIONS[a] for a in actions]

    def plan_parity(self) -> int:
        """Every move moves the blank one cell, so plan length parity = blank distance parity."""
        return plan_parity(self.board, self.start, self.goal)

    # Any plan extends by two moves (the blank there and back), so the SAT engines' exact-horizon
    # proofs rule out shorter plans of the same parity too (encoders/base.padded_parity).
    pads_plans = True

    def unsolvable_reason(self) -> str | None:
        """Permutation parity, generalised to repeated faces (see `board.parity_reason`)."""
        return parity_reason(self.board, self.start, self.goal)

    # -- heuristic ------------------------------------------------------------------------------
    @property
    def tables(self) -> Any:
        """The default heuristic tables (`heuristic_tables.default_tables`: made on first use and
        kept beside the model, never on it)."""
        from puzzleplan.models.tiles.heuristic_tables import default_tables
        return default_tables(self)

    def h(self, state: bytes) -> int:
        """Manhattan distance minimised over assignments of identical faces + linear conflicts,
        or the pattern databases (`tables`, the default choice).

        A trivial instance never waits for a table build (the rule of `TilesDepthFirst`, for A*
        and greedy): while the default tables would have to be built first (estimated at
        PROBE_MIN_SECONDS or more), the first PROBE_H_CALLS calls return `cheap_h`; the call
        after builds (or loads) the tables (`heuristic_tables.h_tables`). Every value is
        admissible either way."""
        return (_H_VALUES or _h_values())[0](self, state)

    def cheap_h(self, state: bytes) -> int:
        """The Manhattan + linear-conflict bound alone: never builds pattern databases."""
        return (_H_VALUES or _h_values())[1](self, state)

    def native_searcher(self, heuristic: str | None = None, progress: Any = None,
                        partition: Sequence[Sequence[str]] | None = None,
                        memory_limit_mb: float | None = None) -> Any:
        """The compiled IDA*/DFS searcher; heuristic "manhattan", "pdb" or None (the default);
        partition: the pattern databases' face groups (default: the strongest available);
        memory_limit_mb: tables whose build needs more are refused before allocating (ValueError;
        None: 75% of the available memory). None when the kernels cannot hold this board (the
        engines then use the generic search)."""
        from puzzleplan.models.tiles.searcher import TilesDepthFirst
        if not TilesDepthFirst.supports(self):
            return None
        return TilesDepthFirst(self, heuristic, partition, progress=progress, memory_limit_mb=memory_limit_mb)

    # -- notations ------------------------------------------------------------------------------
    notations = ("grid", "korf", "yaml")

    def notation(self, kind: str) -> str:
        """Bare start rows ("grid"), one of Korf's lines ("korf"), or a YAML file in the grid
        notation ("yaml")."""
        return tiles_notation.write(kind, self.start_grid, self.goal_grid, self.name, self.max_moves,
                                    fact_lines(self), self.expect.get("optimal"))

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
