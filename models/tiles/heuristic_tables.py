"""The tables the tiles heuristic reads, which ones a search uses, and where they are kept.

`HeuristicTables` holds what `heuristic_kernels.heuristic` and the IDA* kernel read: the
Manhattan and linear-conflict tables of the board and goal, and the pattern databases' kernel
arrays (`pdb`) when they are used. `choose_patterns` picks the databases (within the build
budget and the memory limit), `deferred_patterns` says when building them is put off.

A trivial instance never waits for table builds: when the default tables must be built first
and are estimated at PROBE_MIN_SECONDS or more, IDA*/DFS search on Manhattan + conflicts for
`probe_nodes` nodes first (see `searcher.TilesDepthFirst`), and `TilesPuzzle.h` (A*, greedy)
answers its first PROBE_H_CALLS calls with Manhattan + conflicts (`h_tables`).

Where the tables live: never on the model (models are immutable values). Manhattan tables are
a function of the board and the goal, shared by every model of that board (`manhattan_tables`,
a small memo keyed by rows, cols, goal and faces). The default tables of a model (`default_tables`:
`TilesPuzzle.tables`, what A*, greedy and IDA*'s default read) depend on what was cached when
they were first asked for, so that choice is remembered per model, as the count of cheap `h`
calls left is: weakly, by identity, without touching the model (`_PerModel`); the pattern
tables behind them are shared through the pattern databases' memo (`pdb_cache`).
"""
from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Generic, Sequence, TypeVar

import numpy as np

from puzzleplan.models.task.checkpoints import checkpoint
from puzzleplan.models.tiles import pdb_patterns
from puzzleplan.models.tiles.board import Board, Instance
from puzzleplan.models.tiles.heuristic_kernels import heuristic
from puzzleplan.models.tiles.pdb import Progress, build_databases, no_databases
from puzzleplan.models.tiles.pdb_cache import cached_partition, missing_seconds, missing_tables
from puzzleplan.models.tiles.pdb_memory import check_memory, default_memory_limit_mb, fits_memory
from puzzleplan.models.tiles.pdb_patterns import Geometry, Pattern, estimate_seconds, partition_of, usable

HEURISTICS = ("manhattan", "pdb")

# A trivial instance never waits for table builds (see `searcher.TilesDepthFirst`):
PROBE_NODES = 1 << 19        # IDA*/DFS expansions on Manhattan + conflicts before deferred tables are built
PROBE_NODES_PER_SECOND = 1 << 17  # ... at most this many per second of estimated build (~3% of it)
PROBE_H_CALLS = 10_000       # the same for `TilesPuzzle.h` (A*, greedy): calls before the build
PROBE_MIN_SECONDS = 0.25     # builds estimated shorter than this are not deferred
MANHATTAN_BOARDS = 32        # boards whose Manhattan tables are kept (they are rebuilt in milliseconds)


@dataclass(frozen=True)
class HeuristicTables:
    """Per-instance lookup tables for the kernels (int64 numpy arrays, plus the pattern tables)."""

    gcnt: np.ndarray        # [F] tiles per face (index 0, the blank, unused)
    gcells: np.ndarray      # [F, K] goal cells per face
    md: np.ndarray          # [n, n] Manhattan distance between cells
    line_cells: np.ndarray  # [L, W] cells of each line in order (rows first, then columns)
    line_len: np.ndarray    # [L]
    line_kind: np.ndarray   # [L] 0 row, 1 column
    line_index: np.ndarray  # [L] row or column number
    pure: np.ndarray        # [2, F] the one row (kind 0) / column (kind 1) holding all goals, or -1
    gmin: np.ndarray        # [2, F] smallest goal column (kind 0) / row (kind 1) of the face
    gmax: np.ndarray        # [2, F] largest
    cell_row: np.ndarray    # [n]
    cell_col: np.ndarray    # [n]
    nrows: int              # rows of the board (lines of kind 1 come after the rows)
    pdb: tuple[np.ndarray, ...]  # pdb.KernelArrays (no view: Manhattan + conflicts only)
    name: str = "manhattan"      # the heuristic: "manhattan" or "pdb"
    pdb_seconds: float = 0.0     # time spent loading or building the pattern tables
    pdb_description: str = ""    # the patterns, for reports

    @property
    def arrays(self) -> tuple[Any, ...]:
        """The arguments of `heuristic` after the board: (`board_arrays`, `pdb`)."""
        return (self.board_arrays, self.pdb)

    @property
    def board_arrays(self) -> tuple[Any, ...]:
        """The board's tables as the compiled code reads them: one tuple (see `ida_kernel.bounded_dfs`)."""
        return (self.gcnt, self.gcells, self.md, self.line_cells, self.line_len, self.line_kind, self.line_index,
                self.pure, self.gmin, self.gmax, self.cell_row, self.cell_col, self.nrows)

    @classmethod
    def build(cls, model: Instance, heuristic: str | None = None,
              partition: Sequence[Sequence[str]] | None = None,
              progress: Progress | None = None, budget: float | None = None,
              memory_limit_mb: float | None = None) -> "HeuristicTables":
        """Tables for `model`: the patterns `choose_patterns` picks, loaded or built now
        (`progress(done, total)` follows a build and may raise to stop it), or Manhattan +
        conflicts (`name` says which was used)."""
        patterns = choose_patterns(model, heuristic, partition, budget, memory_limit_mb)
        if patterns is None:
            return cls.manhattan(model)
        return cls.with_databases(model, patterns, progress, memory_limit_mb)

    @classmethod
    def manhattan(cls, model: Instance) -> "HeuristicTables":
        """Manhattan + linear conflicts alone (shared by the models of one board: `manhattan_tables`)."""
        return manhattan_tables(model)

    @classmethod
    def with_databases(cls, model: Instance, patterns: Sequence[Pattern],
                       progress: Progress | None = None,
                       memory_limit_mb: float | None = None) -> "HeuristicTables":
        """Pattern databases for these patterns, loaded or built (see `pdb.build_databases`)."""
        t0 = time.perf_counter()
        dbs = build_databases(patterns[0].geometry, patterns, progress, model.faces,
                              memory_limit_mb=memory_limit_mb, search=True)
        return cls(*_without_conflicts(_manhattan_parts(model)), dbs.kernel_arrays(len(model.faces)), "pdb",
                   time.perf_counter() - t0, dbs.describe(model.faces))


def choose_patterns(model: Instance, heuristic: str | None = None,
                    partition: Sequence[Sequence[str]] | None = None, budget: float | None = None,
                    memory_limit_mb: float | None = None) -> list[Pattern] | None:
    """The patterns the heuristic uses, or None for Manhattan + conflicts alone.

    heuristic "manhattan": None. A `partition` (face names per pattern; it implies "pdb") is
    taken as given, however long its tables take to build. Otherwise the candidates are the
    largest cached tables when they hold more entries than the automatic split (with automatic
    patterns for the faces they leave), then the automatic split sized by `budget` seconds
    (default pdb_patterns.DEFAULT_BUDGET_SECONDS). The first candidate is taken whose tables that
    must be built (not in memory, or whose cache file does not load: a damaged file counts as
    missing) are estimated to build within `budget` and fit in `memory_limit_mb` (None:
    default_memory_limit_mb()); with none, heuristic None gets None and "pdb" the
    automatic split. Boards above pdb_patterns.MAX_CELLS cells always get None. Tables that would
    not fit in memory are refused before anything is allocated: ValueError, one line naming
    the size, when they were asked for ("pdb" or a partition).
    """
    if heuristic not in (None, *HEURISTICS):
        raise ValueError(f"unknown heuristic {heuristic!r}; expected one of {', '.join(HEURISTICS)}")
    budget = pdb_patterns.DEFAULT_BUDGET_SECONDS if budget is None else budget
    if heuristic is None and partition is not None:
        heuristic = "pdb"   # naming the patterns asks for them, however long they take to build
    geometry = Geometry(model.rows, model.cols, model.goal)
    if heuristic == "manhattan" or not usable(geometry):
        return None
    limit = default_memory_limit_mb() if memory_limit_mb is None else memory_limit_mb
    if partition is not None:
        named = partition_of(geometry, model.faces, partition)
        check_memory(named, missing_tables(named), limit, model.faces, search=True)
        return named
    auto = partition_of(geometry, model.faces, None, budget=budget)
    candidates = [auto]
    cached = cached_partition(geometry, budget)  # the strongest available: larger cached tables
    if cached and sum(p.entries for p in cached) > sum(p.entries for p in auto):   # beat the default split
        candidates.insert(0, cached)
    for patterns in candidates:
        missing = missing_tables(patterns)
        if sum(estimate_seconds(p) for p in missing) <= budget \
                and fits_memory(patterns, missing, limit, search=True):
            return patterns
    if heuristic == "pdb":
        check_memory(auto, missing_tables(auto), limit, model.faces, search=True)
        return auto
    return None


def deferred_patterns(model: Instance, budget: float | None = None,
                      memory_limit_mb: float | None = None) -> list[Pattern] | None:
    """The default patterns when their tables are worth deferring (see `TilesDepthFirst`): some
    must be built and together they are estimated to take PROBE_MIN_SECONDS or more; else None."""
    patterns = choose_patterns(model, None, None, budget, memory_limit_mb)
    return patterns if _deferred_build(patterns) is not None else None


def probe_nodes(patterns: Sequence[Pattern] | None) -> int | None:
    """The nodes IDA*/DFS expand on Manhattan + conflicts before building the tables of the default
    `patterns` (PROBE_NODES_PER_SECOND per second of estimated build, at most PROBE_NODES), or
    None when the build is not deferred. Tables that load from the cache are loaded here."""
    build = _deferred_build(patterns)
    return None if build is None else int(min(PROBE_NODES, build * PROBE_NODES_PER_SECOND))


def _deferred_build(patterns: Sequence[Pattern] | None) -> float | None:
    """The estimated build seconds of the tables of `patterns` still to build when that is worth
    deferring (more than nothing and at least PROBE_MIN_SECONDS), else None."""
    build = 0.0 if patterns is None else missing_seconds(patterns)
    return build if 0 < build and build >= PROBE_MIN_SECONDS else None


def _without_conflicts(parts: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """`_manhattan_parts` with no lines: the kernels then skip linear conflicts.

    With pattern databases the conflicts rarely raise h above the tables' sum (every table is
    at least its tiles' Manhattan distance): on Korf's 100 with 6-6-3 they saved 6% of the
    nodes and cost 25% more time per node (benchmarks/korf100.py), so they are left out.
    """
    gcnt, gcells, md, line_cells, line_len, line_kind, line_index, *rest = parts
    return (gcnt, gcells, md, line_cells[:0], line_len[:0], line_kind[:0], line_index[:0], *rest)


def _manhattan_parts(model: Instance) -> tuple[np.ndarray, ...]:
    """The Manhattan and linear-conflict tables, in HeuristicTables field order (the board's
    geometry from `board.Board`)."""
    board = Board(model.rows, model.cols)
    rows, cols = board.rows, board.cols
    nfaces = len(model.faces)
    goal_cells: list[list[int]] = [[] for _ in range(nfaces)]
    for cell, face in enumerate(model.goal):
        goal_cells[face].append(cell)
    k = max(1, max(len(g) for g in goal_cells[1:]))
    gcnt = np.array([len(g) for g in goal_cells], dtype=np.int64)
    gcells = np.full((nfaces, k), -1, dtype=np.int64)
    for f, cells in enumerate(goal_cells):
        gcells[f, :len(cells)] = cells
    cell_row, cell_col = board.coordinates()
    md = board.distances()
    lines = board.lines()       # rows first, then columns: the kernel numbers lines this way
    line_cells = np.full((len(lines), max(rows, cols)), -1, dtype=np.int64)
    line_len = np.zeros(len(lines), dtype=np.int64)
    line_kind = np.zeros(len(lines), dtype=np.int64)
    line_index = np.zeros(len(lines), dtype=np.int64)
    for line, cells in enumerate(lines):
        line_cells[line, :len(cells)] = cells
        line_len[line] = len(cells)
        line_kind[line], line_index[line] = (0, line) if line < rows else (1, line - rows)
    pure = np.full((2, nfaces), -1, dtype=np.int64)
    gmin = np.zeros((2, nfaces), dtype=np.int64)
    gmax = np.zeros((2, nfaces), dtype=np.int64)
    for f in range(1, nfaces):
        rs = {int(cell_row[c]) for c in goal_cells[f]}
        cs = {int(cell_col[c]) for c in goal_cells[f]}
        if len(rs) == 1:
            pure[0, f] = rs.pop()
        if len(cs) == 1:
            pure[1, f] = cs.pop()
        gmin[0, f], gmax[0, f] = min(cell_col[goal_cells[f]]), max(cell_col[goal_cells[f]])
        gmin[1, f], gmax[1, f] = min(cell_row[goal_cells[f]]), max(cell_row[goal_cells[f]])
    return (gcnt, gcells, md.astype(np.int64), line_cells, line_len, line_kind, line_index,
            pure, gmin, gmax, cell_row, cell_col, rows)


def heuristic_of(board: np.ndarray, tables: HeuristicTables) -> int:
    """`heuristic` of a uint8 board with these tables."""
    return int(heuristic(board, *tables.arrays))


def _board(state: bytes) -> np.ndarray:
    """A state's board as the kernels take it from IDA*: a writable array. (np.frombuffer's
    read-only view is another numba signature, compiled apart in the middle of a timed run,
    since `warm-up` compiles what IDA* calls.)"""
    return np.array(memoryview(state), dtype=np.uint8)


def h_value(model: Instance, state: bytes) -> int:
    """`TilesPuzzle.h`: the heuristic of a state with the tables `h_tables` gives."""
    return int(heuristic(_board(state), *h_tables(model).arrays))


def cheap_h_value(model: Instance, state: bytes) -> int:
    """`TilesPuzzle.cheap_h`: Manhattan + linear conflicts alone (never builds pattern databases)."""
    return int(heuristic(_board(state), *manhattan_tables(model).arrays))


# -- where the tables are kept ---------------------------------------------------------------------
V = TypeVar("V")


class _PerModel(Generic[V]):
    """A value per live model, kept beside it: keyed by identity, dropped when the model goes.

    The model is never written to, and need not be hashable."""

    def __init__(self) -> None:
        self._items: dict[int, tuple[weakref.ref[Any], V]] = {}

    def get(self, model: object) -> V | None:
        item = self._items.get(id(model))
        return item[1] if item is not None and item[0]() is model else None

    def set(self, model: object, value: V) -> None:
        key = id(model)
        self._items[key] = (weakref.ref(model, self._forget(key)), value)

    def _forget(self, key: int) -> Callable[[Any], None]:
        items = self._items
        return lambda ref: items.pop(key, None) if key in items and items[key][0] is ref else None


_manhattan: OrderedDict[tuple[Any, ...], HeuristicTables] = OrderedDict()  # board key -> tables, oldest first
_chosen: _PerModel[HeuristicTables] = _PerModel()  # the default tables of a model (`default_tables`)
_cheap_left: _PerModel[int] = _PerModel()          # `h` calls left on Manhattan + conflicts


def manhattan_tables(model: Instance) -> HeuristicTables:
    """Manhattan + linear conflicts of the model's board and goal, shared by the models of that
    board (the last MANHATTAN_BOARDS boards are kept)."""
    key = (model.rows, model.cols, model.goal, model.faces)
    known = _manhattan.get(key)
    if known is None:
        known = HeuristicTables(*_manhattan_parts(model), no_databases(model.n, len(model.faces)))
        _manhattan[key] = known
        while len(_manhattan) > MANHATTAN_BOARDS:
            _manhattan.popitem(last=False)
    return known


def known_tables(model: Instance) -> HeuristicTables | None:
    """The model's default tables when they were made (or handed over by a search), else None."""
    return _chosen.get(model)


def keep_tables(model: Instance, tables: HeuristicTables) -> None:
    """Remember `tables` as the model's default tables (a search made what `default_tables` would)."""
    _chosen.set(model, tables)


def default_tables(model: Instance) -> HeuristicTables:
    """The model's default tables (`HeuristicTables.build` with no choice), made on first use.
    A build polls the limits of the run that asked for it (`checkpoint`): A* and greedy reach it
    through `h`, outside any loop of their own that would (a 2 s limit ran 10-20 s)."""
    tables = _chosen.get(model)
    if tables is None:
        tables = HeuristicTables.build(model, progress=_poll_run)
        _chosen.set(model, tables)
    return tables


def _poll_run(done: int, total: int) -> None:
    """A table build's progress: the current run's limits (LimitReached stops the build)."""
    checkpoint()


def h_tables(model: Instance) -> HeuristicTables:
    """The tables `TilesPuzzle.h` reads: while the default tables would have to be built first
    (`deferred_patterns`), the first PROBE_H_CALLS calls get Manhattan + conflicts, the call
    after builds (or loads) the default tables; every call after that gets them."""
    tables = _chosen.get(model)
    if tables is not None:
        return tables
    left = _cheap_left.get(model)
    if left is None:
        left = PROBE_H_CALLS if deferred_patterns(model) is not None else 0
    if left > 0:
        _cheap_left.set(model, left - 1)
        return manhattan_tables(model)
    _cheap_left.set(model, 0)
    return default_tables(model)
