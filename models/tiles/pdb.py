"""Additive pattern databases for sliding tiles whose faces may repeat.

A *pattern* is a set of faces, never of tile ids: all tiles showing a face in the pattern belong
to it, and tiles of one face are interchangeable. The abstract state of a pattern is where its
tiles are (which cell shows which of its faces) plus the region the blank can reach: the
connected component, among the cells holding no pattern tile, that contains the blank. Every
other tile is indistinguishable from the blank there, so moving the blank around that region
costs nothing; moving a pattern tile into an adjacent cell of the region costs 1. The table
stores, for each placement, the fewest pattern-tile moves that bring it to the goal placement
with the blank in the goal blank's region, minimised over the blank's region (a 0-1 search run
backwards from the goal; moves are reversible, so the distances are the same both ways).

Why the sum over disjoint patterns is admissible, duplicates included. A real move slides one
tile into the blank. That tile shows one face, and each face lies in exactly one pattern, so for
that pattern the move is an abstract tile move (cost 1: the blank cell is in the blank's region)
and for every other pattern it only moves the blank within its region (cost 0: neither that
pattern's placement nor the region changes). A real plan of L moves therefore projects, for each
pattern, onto an abstract path from the start's abstract state to the goal's whose cost is the
number of real moves of that pattern's tiles; these counts add up to L. The goal test is on faces
only, so a real goal state projects onto exactly the abstract goal used by the build, whichever
identical tiles ended where; an abstract state records faces per cell, so swapping two identical
tiles is not even representable as a difference. Each table entry is at most its pattern's share
of L, and the sum is at most L. The minimum over blank regions only lowers entries.

Symmetry: when the board is square and transposing it maps the goal onto itself up to a renaming
of faces (the blank's goal cell on the diagonal), the distance of a state equals the distance of
its transposed, renamed state; the same tables give a second admissible sum, and the kernel takes
the larger.

Storage: a placement is ranked perfectly (face groups in a fixed order, each group's cells as a
combination of the cells the earlier groups left free, colex order, mixed radix over the groups).
Entries are stored as 4 bits: (distance - Manhattan) / 2, the Manhattan distance of the pattern's
tiles minimised over assignments of identical faces. It is a lower bound (one tile move changes
it by at most 1) and has the distance's parity (every assignment has the parity of the tiles'
row + column sum, which each move flips), so the difference is even, and it is rarely above 30.
The lookup adds the Manhattan distance back (the search maintains it anyway), one shift and add
more than a byte table for half the memory. A table that does not fit (larger differences,
unreachable placements, a face with more than 12 tiles) is stored one byte per entry.

Build: breadth-first over (placement, blank region) states, the region named by its lowest
cell, level by level over bitmaps, compiled, on all cores (shared bits are set atomically).
Limits: the memory a build needs (`build_bytes`: bitmaps, records, the tables) is estimated
before anything is allocated and a set of tables over the memory limit is refused with a
one-line ValueError naming the size (`check_memory`; default `default_memory_limit_mb`: the process-wide
memory limit less what the process holds); the compiled calls are sized to take about 0.1 s, and the progress
callback between them may raise (a search's time limit) to stop every build within ~0.2 s.

Tables are cached on disk per pattern, keyed by the board size, the blank's goal cell and the
pattern's goal cells, with a header and CRC-32 checked on every load; a damaged file counts as
missing, and whether a missing table is built at all is the build budget's choice (see
`heuristic_tables.choose_patterns`).

The modules: `pdb_patterns` (geometry, patterns, partitions, symmetries), `pdb_memory` (sizes
and the memory limit), `pdb_rank` (compiled ranking and lookups), `pdb_build` (the compiled
build of one table), `pdb_cache` (tables in memory and on disk), and this one, the driver: a
set of tables for one board (`build_databases`, `databases_for`) and the arrays the search
kernels read (`PatternDatabases.kernel_arrays`). The names the command line uses (`puzzleplan
pdb build|info|clear`) are importable from here.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numba
import numpy as np

from puzzleplan.models.tiles.pdb_build import PatternTable, Progress, build_table
from puzzleplan.models.tiles.pdb_cache import (MIN_CACHED_ENTRIES, cache_dir, cache_info, clear_cache,
                                               known_table, last_kernel_arrays, store_table)
from puzzleplan.models.tiles.pdb_memory import check_memory, default_memory_limit_mb, fits_memory
from puzzleplan.models.tiles.pdb_patterns import (DEFAULT_BUDGET_SECONDS, MAX_CELLS, Geometry, Pattern,
                                                  partition_of, symmetries, usable)
from puzzleplan.models.tiles.pdb_rank import binomials

__all__ = ["DEFAULT_BUDGET_SECONDS", "Geometry", "KernelArrays", "Pattern", "PatternDatabases", "Progress",
           "build_databases", "cache_dir", "cache_info", "clear_cache", "databases_for", "get_table",
           "no_databases", "partition_of"]


# -- a set of databases for one instance -----------------------------------------------------------
@dataclass
class PatternDatabases:
    """Disjoint pattern tables for one geometry, plus the symmetric views to look them up in."""

    geometry: Geometry
    tables: list[PatternTable]
    views: list[tuple[np.ndarray, np.ndarray]]
    seconds: float = 0.0
    built: list[str] = field(default_factory=list)  # keys of the tables built (not loaded) here

    def kernel_arrays(self, nfaces: int) -> KernelArrays:
        """The tables and views as the kernels read them (see `KernelArrays`); the last set is
        kept, so instance after instance on one board does not copy the tables again."""
        key = (tuple((t.pattern.key(), t.pattern.faces, id(t.data)) for t in self.tables),
               tuple(cells.tobytes() + faces.tobytes() for cells, faces in self.views), nfaces)
        if last_kernel_arrays and last_kernel_arrays[0] == key:
            return last_kernel_arrays[1]
        arrays = self._kernel_arrays(nfaces)
        last_kernel_arrays[:] = [key, arrays]
        return arrays

    def _kernel_arrays(self, nfaces: int) -> KernelArrays:
        ngroup = max(len(t.pattern.faces) for t in self.tables)
        npat, nview = len(self.tables), len(self.views)
        offs = np.cumsum([0] + [t.data.shape[0] for t in self.tables[:-1]]).astype(np.int64)
        gcnt = np.zeros((npat, ngroup), dtype=np.int64)
        radix = np.ones((npat, ngroup), dtype=np.int64)
        vface = np.zeros((nview, npat, ngroup), dtype=np.int64)
        vpat = np.full((nview, nfaces), -1, dtype=np.int64)
        vcell = np.zeros((nview, self.geometry.n), dtype=np.int64)
        for p, t in enumerate(self.tables):
            gcnt[p, :len(t.pattern.faces)] = t.pattern.counts
            radix[p, :len(t.pattern.faces)] = t.pattern.radix()
        for v, (cellmap, facemap) in enumerate(self.views):
            vcell[v] = cellmap
            inverse = np.argsort(facemap)
            for p, t in enumerate(self.tables):
                for g, face in enumerate(t.pattern.faces):
                    vface[v, p, g] = inverse[face]
                    vpat[v, inverse[face]] = p
        packed = np.array([t.packed for t in self.tables], dtype=np.int64)
        return (np.concatenate([t.data for t in self.tables]), offs, packed, gcnt, radix, vface, vcell, vpat,
                binomials(self.geometry.n))

    def describe(self, names: Sequence[str]) -> str:
        """Patterns as face names with their sizes, e.g. `1 2 3 (3,360) | ... + transpose`."""
        parts = [" ".join(names[f] for f in t.pattern.faces) + f" ({t.pattern.entries:,})" for t in self.tables]
        return " | ".join(parts) + (" + transpose" if len(self.views) > 1 else "")


KernelArrays = tuple[np.ndarray, ...]
"""(pdb: all tables' bytes, off[P]: each table's start, packed[P]: 1 for 4-bit tables, gcnt[P, G]
and radix[P, G]: tiles and placements per face group, 0/1-padded, vface[V, P, G]: the original
face looked up as group G of pattern P in view V, vcell[V, n]: the view's cell map, vpat[V, F]:
the pattern a move of original face F changes in view V or -1, binom: binomial table).
V = 0 means no databases."""


def no_databases(n: int, nfaces: int) -> KernelArrays:
    """Kernel arrays with no view, for the Manhattan-only heuristic."""
    one = np.zeros((1, 1), dtype=np.int64)
    return (np.zeros(1, dtype=np.uint8), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), one,
            np.ones((1, 1), dtype=np.int64), np.zeros((0, 1, 1), dtype=np.int64), np.zeros((0, n), dtype=np.int64),
            np.zeros((0, nfaces), dtype=np.int64), binomials(1))  # no pattern: ranks are never computed


def get_table(pattern: Pattern, progress: Progress | None = None, face_names: Sequence[str] | None = None,
              directory: Path | None = None, min_cached: int = MIN_CACHED_ENTRIES) -> PatternTable:
    """The table from memory, else from the cache, else built (and cached when large enough)."""
    table = known_table(pattern, directory, min_cached)
    if table is None:
        table = store_table(build_table(pattern, progress), face_names, directory, min_cached)
    return table



def build_databases(geometry: Geometry, patterns: Sequence[Pattern], progress: Progress | None = None,
                    face_names: Sequence[str] | None = None, directory: Path | None = None,
                    min_cached: int = MIN_CACHED_ENTRIES, memory_limit_mb: float | None = None,
                    time_limit: float | None = None, search: bool = False) -> PatternDatabases:
    """Load or build every pattern's table. `progress(done, total)` counts placements over all.

    Tables that must be built are built at the same time, one per thread, when there are
    several of similar sizes and more than one core: each build is then serial (no atomic
    updates, measured 30% less CPU per table than splitting one table's levels across threads).
    Otherwise (e.g. 7-8) they are built one after another, each split across the cores.

    Limits. Before anything is allocated, the memory the builds need (`memory_needed`) is
    checked against `memory_limit_mb` (None: `default_memory_limit_mb()`); over it, ValueError
    (one line naming the size; concurrent builds that do not fit are first tried one after
    another). `progress` is called at least every ~0.2 s while a table builds, and whatever it
    raises (e.g. the search context's LimitReached) stops every build within about that long;
    `time_limit` (seconds) raises LimitReached through the same path. `search`: the tables are
    for a search (count the kernels' copy of them).
    """
    t0 = time.perf_counter()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    limit = default_memory_limit_mb() if memory_limit_mb is None else memory_limit_mb
    found = {p.key(): known_table(p, directory, min_cached) for p in patterns}
    missing = [p for p in patterns if found[p.key()] is None]
    concurrent = _concurrent(missing)
    if concurrent and not fits_memory(patterns, missing, limit, True, search):
        concurrent = False
    check_memory(patterns, missing, limit, face_names, concurrent, search)
    done = {p.key(): (p.entries if found[p.key()] is not None else 0) for p in patterns}
    total = sum(p.entries for p in patterns)

    def report(final: bool = False) -> None:
        if deadline is not None and not final and time.monotonic() >= deadline:
            from puzzleplan.plans.core.context import LimitReached
            raise LimitReached(f"time limit of {time_limit:g} s reached while building pattern databases")
        if progress is not None:
            progress(sum(done.values()), total)

    def build(p: Pattern, parallel: bool) -> PatternTable:
        def step(placed: int, _: int) -> None:
            done[p.key()] = placed
            if cancel.is_set():
                raise _Cancelled()
            if parallel:
                report()
        table = store_table(build_table(p, step, parallel), face_names, directory, min_cached)
        done[p.key()] = p.entries   # built: it counts whole (some placements may be unreachable)
        return table

    report()   # a limit already passed stops before the first allocation
    cancel = threading.Event()
    if concurrent:
        with ThreadPoolExecutor(min(len(missing), numba.get_num_threads()),
                                thread_name_prefix="pdb-build") as pool:
            futures = [pool.submit(build, p, False) for p in missing]
            try:
                while wait(futures, timeout=0.2).not_done:
                    report()  # limits are checked here, in the caller's thread
                for f in futures:
                    found[f.result().pattern.key()] = f.result()
            except BaseException:
                cancel.set()
                wait(futures)
                raise
    else:
        for p in missing:
            found[p.key()] = build(p, True)
    report(final=True)
    tables = [found[p.key()] for p in patterns]
    return PatternDatabases(geometry, tables, symmetries(geometry), time.perf_counter() - t0,
                            [p.key() for p in missing])


def _concurrent(missing: Sequence[Pattern]) -> bool:
    """Build these tables at the same time, one per thread (similar sizes: no core idles while
    one finishes), rather than one after another, each across the cores."""
    threads = min(len(missing), numba.get_num_threads())
    sizes = sorted((p.entries for p in missing), reverse=True)
    return threads > 1 and sizes[0] <= 2 * sizes[1]


class _Cancelled(Exception):
    """Stops a table build running in a worker thread when the caller gave up."""



def databases_for(model: Any, partition: Sequence[Sequence[str]] | None = None, progress: Progress | None = None,
                  budget: float = DEFAULT_BUDGET_SECONDS, memory_limit_mb: float | None = None,
                  time_limit: float | None = None) -> PatternDatabases:
    """Load, or build and cache, the databases a search of this tiles model uses (any object with
    rows, cols, goal and faces): what `puzzleplan pdb build` runs.

    partition: face names per pattern (None: the automatic split sized by `budget` seconds).
    memory_limit_mb: refuse (ValueError naming the size, before allocating) tables whose build
    needs more (None: `default_memory_limit_mb()`). time_limit: seconds after which a build
    stops with LimitReached (plans/core/context); `progress` may raise to stop it as well.
    """
    geometry = Geometry(model.rows, model.cols, model.goal)
    if not usable(geometry):
        raise ValueError(f"pattern databases need a board of at most {MAX_CELLS} cells")
    patterns = partition_of(geometry, model.faces, partition, budget=budget)
    return build_databases(geometry, patterns, progress, model.faces, memory_limit_mb=memory_limit_mb,
                           time_limit=time_limit)


def check_partition(model: Any, groups: Sequence[Sequence[str]]) -> None:
    """Refuse (ValueError) face groups that are no partition of this board's faces, or whose
    tables could never be built, before any search starts."""
    partition_of(Geometry(model.rows, model.cols, model.goal), model.faces, groups)
