"""The tiles model's compiled depth-first searcher: IDA* iterations and capped DFS on the kernel.

`TilesDepthFirst` chooses the heuristic tables (`heuristic_tables`), applies the trivial-instance
rule (a Manhattan probe before any table build), and drives `ida_kernel.bounded_dfs` in chunks
so that limits and Ctrl-C are honoured between them. It reads the model through
`board.Instance` and never writes to it: tables it makes for the model's default heuristic are
handed to `heuristic_tables.keep_tables`, where `TilesPuzzle.h` finds them.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from puzzleplan.models.tiles.board import Instance
from puzzleplan.models.tiles.heuristic_kernels import NO_BOUND, root_parts
from puzzleplan.models.tiles.heuristic_tables import (HeuristicTables, choose_patterns, heuristic_of, keep_tables,
                                                      known_tables, probe_nodes)
from puzzleplan.models.tiles.ida_kernel import EXHAUSTED, FOUND, UNDO, bounded_dfs, work_arrays
from puzzleplan.models.tiles.pdb import Pattern, Progress

MAX_KERNEL_CELLS = 256       # boards are uint8 arrays: face indexes up to 255, at most 256 cells


class TilesDepthFirst:
    """The tiles model's compiled depth-first searcher (IDA* iterations and capped DFS).

    heuristic: "manhattan" (Manhattan + linear conflicts), "pdb" (also pattern databases,
    built if needed) or None (the model's default: databases when cached or cheap to build).
    partition, progress, budget, memory_limit_mb: as for `HeuristicTables.build`.
    `heuristic_name` and `pdb_seconds` tell what was used and what loading or building the
    tables cost. The constants named here are `heuristic_tables`'.

    A trivial instance never waits for table builds. The rule, with the default heuristic (no
    `heuristic`, no `partition`): tables that are in memory or load from the cache are used at
    once, as are tables estimated to build in under PROBE_MIN_SECONDS. Otherwise (the tables
    must be built first, within the budget) the search starts on Manhattan + linear conflicts
    and may expand PROBE_NODES_PER_SECOND nodes per second of estimated build, at most
    PROBE_NODES (2**19, about 0.1 s; about 3% of the build); a plan found or a cap proved
    within them is the answer, and no table is built. When the probe runs out, the tables are built
    then (with `progress`, so limits still apply) and the search goes on with them from the
    bound it had reached (every bound proved so far stays proved; the probe's nodes count in
    the statistics, `stats.extra` is updated to the new heuristic and its setup time).
    """

    CHUNK = 1 << 20

    def __init__(self, model: Instance, heuristic: str | None = None,
                 partition: Sequence[Sequence[str]] | None = None,
                 progress: Progress | None = None, budget: float | None = None,
                 memory_limit_mb: float | None = None) -> None:
        self.model = model
        self.progress = progress
        self.memory_limit_mb = memory_limit_mb
        self._share = partition is None and budget is None and heuristic is None  # what model.tables would be
        self._pending: list[Pattern] | None = None   # tables deferred until the probe runs out
        self._probe_left = self._probe_nodes = 0
        known = known_tables(model)  # TilesPuzzle.tables, when made
        if partition is None and budget is None and known is not None and heuristic in (None, known.name):
            self.tables = known
        else:
            patterns = choose_patterns(model, heuristic, partition, budget, memory_limit_mb)
            probe = probe_nodes(patterns)
            if probe is not None and heuristic is None and partition is None:
                self._pending = patterns
                self._probe_left = self._probe_nodes = probe
                self.tables = HeuristicTables.manhattan(model)
            elif patterns is None:
                self.tables = HeuristicTables.manhattan(model)
            else:
                self.tables = HeuristicTables.with_databases(model, patterns, progress, memory_limit_mb)
            if self._share and self._pending is None:
                keep_tables(model, self.tables)  # what model.tables would build: share it
        self.nbr = np.array(model.neighbours, dtype=np.int64)
        self.start = np.frombuffer(model.start, dtype=np.uint8).copy()
        self._use(self.tables)

    @staticmethod
    def supports(model: Instance) -> bool:
        """The kernels hold boards as uint8 face indexes: at most 256 cells and 256 faces."""
        return model.n <= MAX_KERNEL_CELLS and len(model.faces) <= 256

    def _use(self, tables: HeuristicTables) -> None:
        self.tables = tables
        self.heuristic_name = tables.name
        self.pdb_seconds = tables.pdb_seconds
        self.h0 = int(heuristic_of(self.start, tables))
        self._kernel(-1, self._arrays(0), 1, False)  # load (or compile) the kernels now, not mid-search

    def bounded(self, bound: int, ctx: Any, ordered: bool = False) -> tuple[list[int] | None, int | None]:
        """Search every path with g + h <= bound. Returns (plan actions, None) or (None, next bound)."""
        if self._pending is not None:
            found = self._search(bound, ctx, ordered, probe=True)
            if found is not None:
                return found
            self._build_deferred(ctx)
        found = self._search(bound, ctx, ordered)
        assert found is not None
        return found

    def _search(self, bound: int, ctx: Any, ordered: bool,
                probe: bool = False) -> tuple[list[int] | None, int | None] | None:
        """One bounded pass; None when `probe` and the probe's nodes ran out first."""
        arrays = self._arrays(bound)
        st_dir, reg = arrays[1][1], arrays[2]
        stats = ctx.stats
        nodes0, gen0 = stats.nodes, stats.generated
        while True:
            before = int(reg[2])
            code = self._kernel(bound, arrays, min(self.CHUNK, self._probe_left) if probe else self.CHUNK, ordered)
            stats.nodes = nodes0 + int(reg[2])
            stats.generated = gen0 + int(reg[3])
            if probe:
                self._probe_left -= int(reg[2]) - before
            if code == FOUND:
                return [int(x) for x in st_dir[:reg[4]]], None
            if code == EXHAUSTED:
                return None, (None if reg[1] >= NO_BOUND else int(reg[1]))
            if probe and self._probe_left <= 0:
                return None
            ctx.poll()

    def _build_deferred(self, ctx: Any) -> None:
        """The probe ran out: build the deferred tables and search with them from now on."""
        assert self._pending is not None
        started, phase = ctx.elapsed(), ctx.phase
        ctx.poll()
        tables = HeuristicTables.with_databases(self.model, self._pending, self.progress, self.memory_limit_mb)
        self._pending = None
        if self._share:
            keep_tables(self.model, tables)
        self._use(tables)
        ctx.phase = phase
        extra = ctx.stats.extra
        extra["heuristic"], extra["pdb_seconds"] = self.heuristic_name, self.pdb_seconds
        extra["probe_nodes"] = self._probe_nodes - self._probe_left  # Manhattan nodes before the build
        if "setup_seconds" in extra:
            extra["setup_seconds"] = round(extra["setup_seconds"] + ctx.elapsed() - started, 6)

    def _kernel(self, bound: int, arrays: tuple[Any, ...], chunk: int, ordered: bool) -> int:
        state, stack, reg, work = arrays
        return int(bounded_dfs(state, self.nbr, self.tables.board_arrays, self.tables.pdb, stack, reg, bound, chunk,
                               ordered, work))

    def _arrays(self, bound: int) -> tuple[Any, ...]:
        """The kernel's state for a fresh iteration at `bound`: (state, stack, reg, work), the
        groups `bounded_dfs` takes."""
        t = self.tables
        board = self.start.copy()
        pos, slot, gcost, lcv, pval, psum, mlc = root_parts(board, *t.arrays)
        size = bound + 2
        st_blank = np.zeros(size, dtype=np.int64)
        st_blank[0] = int(np.flatnonzero(board == 0)[0])
        st_dir = np.zeros(size, dtype=np.int64)
        st_next = np.full(size, -1, dtype=np.int64)
        st_nchild = np.zeros(size, dtype=np.int64)
        st_order = np.zeros((size, 4), dtype=np.int64)
        st_mlc = np.zeros(size, dtype=np.int64)
        st_mlc[0] = mlc
        st_ps = np.zeros((size, pval.shape[0]), dtype=np.int64)
        st_ps[0] = psum
        st_h = np.zeros(size, dtype=np.int64)
        st_h[0] = max([int(mlc)] + [int(x) for x in psum])
        undo = np.zeros((size, UNDO + max(pval.shape[0], 1)), dtype=np.int64)
        reg = np.array([0, NO_BOUND, 0, 0, 0], dtype=np.int64)
        work = work_arrays(t, board.shape[0], pval.shape[0])
        return ((board, pos, slot, gcost, lcv, pval), (st_blank, st_dir, st_next, st_nchild, st_order, st_h, st_mlc,
                                                       st_ps, undo), reg, work)
