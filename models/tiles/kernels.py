"""Compiled (numba) kernels for sliding tiles: the heuristic and a resumable bounded DFS.

The move rule itself lives in `TilesPuzzle.neighbours` (passed in as an array); the kernels only
apply it. `heuristic` is the single implementation of the tiles lower bound and is what
`TilesPuzzle.h` calls from Python, so the generic engines and the kernel agree by construction.

Heuristic (admissible with repeated faces):
- Manhattan distance per face *group*: the tiles of one face are matched to that face's goal
  cells by a minimum-cost assignment (exact for groups up to 12 tiles by a subset DP; larger
  groups fall back to each tile's distance to its nearest goal cell, still a lower bound).
- Linear conflicts, generalised: a tile counts in row r only when *every* goal cell of its face
  lies in row r ("row-pure"). Two such tiles a left of b conflict when every goal column of a's
  face is right of every goal column of b's. Tiles that never leave row r keep their order, so
  at least (candidates - largest conflict-free subset) of them must leave and come back: 2 moves
  each, vertical moves that no Manhattan assignment counts. Columns likewise with horizontal
  moves, so rows and columns add. The largest conflict-free subset is found exactly by a DP over
  "largest goal-minimum so far" (O(m * width)), never by a greedy that could overestimate.
- Additive pattern databases (`tiles_pdb`), when enabled: h = max(Manhattan + conflicts, sum of
  the pattern tables, the same sum on the transposed board when the goal allows it). The IDA*
  kernel keeps every table's value up to date incrementally: a move changes one tile, hence
  one pattern's placement per view.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from numba import njit

from puzzleplan.models.tiles import pdb as tiles_pdb
from puzzleplan.models.tiles.pdb import HOT, INLINE, rank_cells, table_value

if TYPE_CHECKING:
    from puzzleplan.models.tiles.model import TilesPuzzle

HEURISTICS = ("manhattan", "pdb")

# A trivial instance never waits for table builds (see `TilesDepthFirst`):
PROBE_NODES = 1 << 19        # IDA*/DFS expansions on Manhattan + conflicts before deferred tables are built
PROBE_NODES_PER_SECOND = 1 << 17  # ... at most this many per second of estimated build (~3% of it)
PROBE_H_CALLS = 10_000       # the same for `TilesPuzzle.h` (A*, greedy): calls before the build
PROBE_MIN_SECONDS = 0.25     # builds estimated shorter than this are not deferred
MAX_KERNEL_CELLS = 256       # boards are uint8 arrays: face indexes up to 255, at most 256 cells

DP_MAX_GROUP = tiles_pdb.MAX_PACKED_GROUP  # packed tables need this exact assignment cost
FOUND, EXHAUSTED, PAUSED = 0, 1, 2
NO_BOUND = 1 << 40
UNDO = 5  # undo columns before the per-view pattern values


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
    pdb: tuple[np.ndarray, ...]  # tiles_pdb.KernelArrays (no view: Manhattan + conflicts only)
    name: str = "manhattan"      # the heuristic: "manhattan" or "pdb"
    pdb_seconds: float = 0.0     # time spent loading or building the pattern tables
    pdb_description: str = ""    # the patterns, for reports

    @property
    def arrays(self) -> tuple[Any, ...]:
        """The arguments of `heuristic` after the board."""
        return (self.gcnt, self.gcells, self.md, self.line_cells, self.line_len, self.line_kind,
                self.line_index, self.pure, self.gmin, self.gmax, self.pdb)

    @classmethod
    def build(cls, model: "TilesPuzzle", heuristic: str | None = None,
              partition: Sequence[Sequence[str]] | None = None,
              progress: tiles_pdb.Progress | None = None, budget: float | None = None,
              memory_limit_mb: float | None = None) -> "HeuristicTables":
        """Tables for `model`: the patterns `choose_patterns` picks, loaded or built now
        (`progress(done, total)` follows a build and may raise to stop it), or Manhattan +
        conflicts (`name` says which was used)."""
        patterns = choose_patterns(model, heuristic, partition, budget, memory_limit_mb)
        if patterns is None:
            return cls.manhattan(model)
        return cls.with_databases(model, patterns, progress, memory_limit_mb)

    @classmethod
    def manhattan(cls, model: "TilesPuzzle") -> "HeuristicTables":
        """Manhattan + linear conflicts alone (kept on the model: it costs nothing to share)."""
        known = model.__dict__.get("manhattan_tables")
        if known is None:
            known = model.__dict__["manhattan_tables"] = cls(*_manhattan_parts(model),
                                                             tiles_pdb.no_databases(model.n, len(model.faces)))
        return known

    @classmethod
    def with_databases(cls, model: "TilesPuzzle", patterns: Sequence[tiles_pdb.Pattern],
                       progress: tiles_pdb.Progress | None = None,
                       memory_limit_mb: float | None = None) -> "HeuristicTables":
        """Pattern databases for these patterns, loaded or built (see `tiles_pdb.build_databases`)."""
        t0 = time.perf_counter()
        dbs = tiles_pdb.build_databases(patterns[0].geometry, patterns, progress, model.faces,
                                        memory_limit_mb=memory_limit_mb, search=True)
        return cls(*_without_conflicts(_manhattan_parts(model)), dbs.kernel_arrays(len(model.faces)), "pdb",
                   time.perf_counter() - t0, dbs.describe(model.faces))


def choose_patterns(model: "TilesPuzzle", heuristic: str | None = None,
                    partition: Sequence[Sequence[str]] | None = None, budget: float | None = None,
                    memory_limit_mb: float | None = None) -> list[tiles_pdb.Pattern] | None:
    """The patterns the heuristic uses, or None for Manhattan + conflicts alone.

    heuristic "manhattan": None. A `partition` (face names per pattern; it implies "pdb") is
    taken as given, however long its tables take to build. Otherwise the candidates are the
    largest cached tables when they hold more entries than the automatic split (with automatic
    patterns for the faces they leave), then the automatic split sized by `budget` seconds
    (default tiles_pdb.DEFAULT_BUDGET_SECONDS). The first candidate is taken whose tables that
    must be built (not in memory, or whose cache file does not load: a damaged file counts as
    missing) are estimated to build within `budget` and fit in `memory_limit_mb` (None:
    tiles_pdb.default_memory_limit_mb()); with none, heuristic None gets None and "pdb" the
    automatic split. Boards above tiles_pdb.MAX_CELLS cells always get None. Tables that would
    not fit in memory are refused before anything is allocated: ValueError, one line naming
    the size, when they were asked for ("pdb" or a partition).
    """
    if heuristic not in (None, *HEURISTICS):
        raise ValueError(f"unknown heuristic {heuristic!r}; expected one of {', '.join(HEURISTICS)}")
    budget = tiles_pdb.DEFAULT_BUDGET_SECONDS if budget is None else budget
    if heuristic is None and partition is not None:
        heuristic = "pdb"   # naming the patterns asks for them, however long they take to build
    geometry = tiles_pdb.Geometry(model.rows, model.cols, model.goal)
    if heuristic == "manhattan" or not tiles_pdb.usable(geometry):
        return None
    limit = tiles_pdb.default_memory_limit_mb() if memory_limit_mb is None else memory_limit_mb
    if partition is not None:
        named = tiles_pdb.partition_of(geometry, model.faces, partition)
        tiles_pdb.check_memory(named, tiles_pdb.missing_tables(named), limit, model.faces, search=True)
        return named
    auto = tiles_pdb.partition_of(geometry, model.faces, None, budget=budget)
    candidates = [auto]
    cached = tiles_pdb.cached_partition(geometry, budget)  # the strongest available: larger cached tables
    if cached and sum(p.entries for p in cached) > sum(p.entries for p in auto):   # beat the default split
        candidates.insert(0, cached)
    for patterns in candidates:
        missing = tiles_pdb.missing_tables(patterns)
        if sum(tiles_pdb.estimate_seconds(p) for p in missing) <= budget \
                and tiles_pdb.fits_memory(patterns, missing, limit, search=True):
            return patterns
    if heuristic == "pdb":
        tiles_pdb.check_memory(auto, tiles_pdb.missing_tables(auto), limit, model.faces, search=True)
        return auto
    return None


def deferred_patterns(model: "TilesPuzzle", budget: float | None = None,
                      memory_limit_mb: float | None = None) -> list[tiles_pdb.Pattern] | None:
    """The default patterns when their tables are worth deferring (see `TilesDepthFirst`): some
    must be built and together they are estimated to take PROBE_MIN_SECONDS or more; else None."""
    patterns = choose_patterns(model, None, None, budget, memory_limit_mb)
    build = 0.0 if patterns is None else tiles_pdb.missing_seconds(patterns)
    return patterns if 0 < build and build >= PROBE_MIN_SECONDS else None


def _without_conflicts(parts: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """`_manhattan_parts` with no lines: the kernels then skip linear conflicts.

    With pattern databases the conflicts rarely raise h above the tables' sum (every table is
    at least its tiles' Manhattan distance): on Korf's 100 with 6-6-3 they saved 6% of the
    nodes and cost 25% more time per node (benchmarks/korf100.py), so they are left out.
    """
    gcnt, gcells, md, line_cells, line_len, line_kind, line_index, *rest = parts
    return (gcnt, gcells, md, line_cells[:0], line_len[:0], line_kind[:0], line_index[:0], *rest)


def _manhattan_parts(model: "TilesPuzzle") -> tuple[np.ndarray, ...]:
    """The Manhattan and linear-conflict tables, in HeuristicTables field order."""
    rows, cols, n = model.rows, model.cols, model.n
    nfaces = len(model.faces)
    goal_cells: list[list[int]] = [[] for _ in range(nfaces)]
    for cell, face in enumerate(model.goal):
        goal_cells[face].append(cell)
    k = max(1, max(len(g) for g in goal_cells[1:]))
    gcnt = np.array([len(g) for g in goal_cells], dtype=np.int64)
    gcells = np.full((nfaces, k), -1, dtype=np.int64)
    for f, cells in enumerate(goal_cells):
        gcells[f, :len(cells)] = cells
    cell_row = np.arange(n, dtype=np.int64) // cols
    cell_col = np.arange(n, dtype=np.int64) % cols
    md = (np.abs(cell_row[:, None] - cell_row[None, :]) + np.abs(cell_col[:, None] - cell_col[None, :]))
    width = max(rows, cols)
    nlines = rows + cols
    line_cells = np.full((nlines, width), -1, dtype=np.int64)
    line_len = np.zeros(nlines, dtype=np.int64)
    line_kind = np.zeros(nlines, dtype=np.int64)
    line_index = np.zeros(nlines, dtype=np.int64)
    for r in range(rows):
        line_cells[r, :cols] = np.arange(r * cols, (r + 1) * cols)
        line_len[r], line_kind[r], line_index[r] = cols, 0, r
    for c in range(cols):
        line = rows + c
        line_cells[line, :rows] = np.arange(c, n, cols)
        line_len[line], line_kind[line], line_index[line] = rows, 1, c
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
            pure, gmin, gmax, cell_row, cell_col)


@njit(**INLINE)
def group_cost(f, pos, gcnt, gcells, md, dp):
    """Minimum total Manhattan distance matching face f's tiles (at pos[f]) to its goal cells."""
    k = gcnt[f]
    if k == 1:
        return md[pos[f, 0], gcells[f, 0]]
    if k == 2:
        a = md[pos[f, 0], gcells[f, 0]] + md[pos[f, 1], gcells[f, 1]]
        b = md[pos[f, 0], gcells[f, 1]] + md[pos[f, 1], gcells[f, 0]]
        return a if a < b else b
    if k > DP_MAX_GROUP:
        total = 0
        for i in range(k):
            m = NO_BOUND
            for j in range(k):
                d = md[pos[f, i], gcells[f, j]]
                if d < m:
                    m = d
            total += m
        return total
    full = (1 << k) - 1
    for mask in range(full + 1):
        dp[mask] = NO_BOUND
    dp[0] = 0
    for mask in range(full):
        if dp[mask] == NO_BOUND:
            continue
        i = 0
        x = mask
        while x:
            i += x & 1
            x >>= 1
        for j in range(k):
            if not (mask >> j) & 1:
                nm = mask | (1 << j)
                v = dp[mask] + md[pos[f, i], gcells[f, j]]
                if v < dp[nm]:
                    dp[nm] = v
    return dp[full]


@njit(**INLINE)
def line_conflict(board, line, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, best):
    """2 x (pure candidates in the line - largest conflict-free subset of them)."""
    kind = line_kind[line]
    idx = line_index[line]
    width = best.shape[0]
    for v in range(width):
        best[v] = -1
    m = 0
    for t in range(line_len[line]):
        f = board[line_cells[line, t]]
        if f == 0 or pure[kind, f] != idx:
            continue
        m += 1
        lo = gmin[kind, f]
        hi = gmax[kind, f]
        cand = 1
        for v in range(lo + 1):
            if best[v] + 1 > cand:
                cand = best[v] + 1
        for v in range(lo + 1, hi + 1):
            if best[v] >= 0:
                best[v] += 1
        if cand > best[lo]:
            best[lo] = cand
    keep = 0
    for v in range(width):
        if best[v] > keep:
            keep = best[v]
    return 2 * (m - keep)


@njit(cache=True)
def _positions(board, nfaces, k):
    pos = np.full((nfaces, k), -1, dtype=np.int64)
    slot = np.full(board.shape[0], -1, dtype=np.int64)
    cnt = np.zeros(nfaces, dtype=np.int64)
    for c in range(board.shape[0]):
        f = board[c]
        if f != 0:
            pos[f, cnt[f]] = c
            slot[c] = cnt[f]
            cnt[f] += 1
    return pos, slot


@njit(**INLINE)
def pattern_value(v, p, pos, gcost, pdbt, cells, tmp):
    """Table value of pattern p in view v for the tiles at pos[face, j] (gcost: Manhattan per face)."""
    pdb, off, packed, pgcnt, pradix, vface, vcell, vpat, binom = pdbt
    at = 0
    man = 0
    for g in range(pgcnt.shape[1]):
        k = pgcnt[p, g]
        if k == 0:
            break
        f = vface[v, p, g]
        man += gcost[f]
        for j in range(k):
            cells[at + j] = vcell[v, pos[f, j]]
        at += k
    r = rank_cells(cells, pgcnt, pradix, p, binom, tmp)
    return table_value(pdb, off[p], packed[p], r, man)


@njit(cache=True)
def _pdb_scratch(pdbt, n):
    """Work arrays for `pattern_value`, and the per-view/pattern value matrix."""
    nview = pdbt[5].shape[0]
    npat = pdbt[3].shape[0]
    return np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.zeros((nview, npat), dtype=np.int64)


@njit(cache=True)
def _pdb_values(pos, gcost, pdbt, n, pval, psum):
    """Fill pval[v, p] from scratch and psum[v] = sum over p; returns max over views (0 if none)."""
    cells, tmp, _ = _pdb_scratch(pdbt, n)
    best = 0
    for v in range(pval.shape[0]):
        psum[v] = 0
        for p in range(pval.shape[1]):
            pval[v, p] = pattern_value(v, p, pos, gcost, pdbt, cells, tmp)
            psum[v] += pval[v, p]
        if psum[v] > best:
            best = psum[v]
    return best


@njit(cache=True)
def heuristic(board, gcnt, gcells, md, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, pdbt):
    """The tiles lower bound of `board` (uint8 face per cell), computed from scratch."""
    _, _, _, _, _, psum, mlc = _root_parts(board, gcnt, gcells, md, line_cells, line_len, line_kind, line_index,
                                           pure, gmin, gmax, pdbt)
    h = mlc
    for v in range(psum.shape[0]):
        if psum[v] > h:
            h = psum[v]
    return h


@njit(**INLINE)
def _move(board, pos, slot, gcost, lcv, pval, frm, to, gcnt, gcells, md, line_cells, line_len, line_kind,
          line_index, pure, gmin, gmax, cell_row, cell_col, nrows, pdbt, dp, best, cells, tmp, dps, undo, u):
    """Slide the tile at `frm` into the blank at `to`; update h parts; record undo in undo[u].

    Returns the change of Manhattan + conflicts; dps[v] gets the change of view v's table sum.
    """
    f = board[frm]
    j = slot[frm]
    board[to] = f
    board[frm] = 0
    slot[to] = j
    pos[f, j] = to
    old_g = gcost[f]
    new_g = group_cost(f, pos, gcnt, gcells, md, dp)
    gcost[f] = new_g
    undo[u, 0] = old_g
    dmlc = new_g - old_g
    if line_cells.shape[0] > 0:  # no lines: conflicts off (see _without_conflicts)
        if cell_row[frm] == cell_row[to]:
            l1 = nrows + cell_col[frm]
            l2 = nrows + cell_col[to]
        else:
            l1 = cell_row[frm]
            l2 = cell_row[to]
        undo[u, 1] = l1
        undo[u, 2] = lcv[l1]
        undo[u, 3] = l2
        undo[u, 4] = lcv[l2]
        lcv[l1] = line_conflict(board, l1, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, best)
        lcv[l2] = line_conflict(board, l2, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, best)
        dmlc += (lcv[l1] - undo[u, 2]) + (lcv[l2] - undo[u, 4])
    vpat = pdbt[7]
    for v in range(pval.shape[0]):
        p = vpat[v, f]
        if p < 0:
            dps[v] = 0
            continue
        old = pval[v, p]
        undo[u, UNDO + v] = old
        pval[v, p] = pattern_value(v, p, pos, gcost, pdbt, cells, tmp)
        dps[v] = pval[v, p] - old
    return dmlc


@njit(**INLINE)
def _unmove(board, pos, slot, gcost, lcv, pval, vpat, frm, to, undo, u):
    """Undo `_move(frm, to)`: the tile now at `to` goes back to `frm`."""
    f = board[to]
    j = slot[to]
    board[frm] = f
    board[to] = 0
    slot[frm] = j
    pos[f, j] = frm
    gcost[f] = undo[u, 0]
    if lcv.shape[0] > 0:
        lcv[undo[u, 1]] = undo[u, 2]
        lcv[undo[u, 3]] = undo[u, 4]
    for v in range(pval.shape[0]):
        p = vpat[v, f]
        if p >= 0:
            pval[v, p] = undo[u, UNDO + v]


@njit(**INLINE)
def _child(st_mlc, st_ps, d, dmlc, dps):
    """Set depth d + 1's Manhattan + conflicts and view sums from depth d's; return its h (the max)."""
    h = st_mlc[d] + dmlc
    st_mlc[d + 1] = h
    for v in range(st_ps.shape[1]):
        x = st_ps[d, v] + dps[v]
        st_ps[d + 1, v] = x
        if x > h:
            h = x
    return h


@njit(**HOT)
def bounded_dfs(board, pos, slot, gcost, lcv, pval, nbr, gcnt, gcells, md, line_cells, line_len, line_kind,
                line_index, pure, gmin, gmax, cell_row, cell_col, nrows, pdbt,
                st_blank, st_dir, st_next, st_nchild, st_order, st_h, st_mlc, st_ps, undo, reg, bound, chunk,
                ordered, work):
    """Depth-first search of paths with g + h <= bound, resumable.

    All search state lives in the arrays, so the call returns PAUSED after `chunk` expansions
    and continues where it stopped when called again (this is how time limits and Ctrl-C are
    honoured without checks inside the compiled loop). h = max(st_mlc, st_ps[:, v] for each
    view v). reg = [depth, next_bound, nodes, generated, found_depth]. Returns FOUND (plan in
    st_dir[:found_depth]), EXHAUSTED (reg[1] = smallest f above bound, NO_BOUND if none) or PAUSED.
    `work` holds scratch arrays (see `_work`): this function allocates nothing.
    """
    dp, best, cells, tmp, dps, hs = work
    vpat = pdbt[7]
    depth = reg[0]
    nextb = reg[1]
    nodes = reg[2]
    gen = reg[3]
    stop_at = nodes + chunk
    while True:
        d = depth
        pop = False
        if st_next[d] < 0:
            f = d + st_h[d]
            if f > bound:
                if f < nextb:
                    nextb = f
                pop = True
            elif st_h[d] == 0:
                reg[0] = depth
                reg[1] = nextb
                reg[2] = nodes
                reg[3] = gen
                reg[4] = d
                return FOUND
            else:
                if nodes >= stop_at:
                    reg[0] = depth
                    reg[1] = nextb
                    reg[2] = nodes
                    reg[3] = gen
                    return PAUSED
                nodes += 1
                b = st_blank[d]
                cnt = 0
                for k in range(4):
                    c = nbr[b, k]
                    if c < 0:
                        continue
                    if d > 0 and k == (st_dir[d - 1] + 2) % 4:
                        continue
                    st_order[d, cnt] = k
                    cnt += 1
                if ordered and cnt > 1:
                    for i in range(cnt):
                        c = nbr[b, st_order[d, i]]
                        dh = _move(board, pos, slot, gcost, lcv, pval, c, b, gcnt, gcells, md, line_cells,
                                   line_len, line_kind, line_index, pure, gmin, gmax, cell_row, cell_col, nrows,
                                   pdbt, dp, best, cells, tmp, dps, undo, d)
                        hs[i] = _child(st_mlc, st_ps, d, dh, dps)
                        _unmove(board, pos, slot, gcost, lcv, pval, vpat, c, b, undo, d)
                    for i in range(1, cnt):
                        j = i
                        while j > 0 and hs[j] < hs[j - 1]:
                            hs[j], hs[j - 1] = hs[j - 1], hs[j]
                            st_order[d, j], st_order[d, j - 1] = st_order[d, j - 1], st_order[d, j]
                            j -= 1
                st_nchild[d] = cnt
                st_next[d] = 0
        if not pop:
            if st_next[d] < st_nchild[d]:
                k = st_order[d, st_next[d]]
                st_next[d] += 1
                b = st_blank[d]
                c = nbr[b, k]
                dh = _move(board, pos, slot, gcost, lcv, pval, c, b, gcnt, gcells, md, line_cells, line_len,
                           line_kind, line_index, pure, gmin, gmax, cell_row, cell_col, nrows, pdbt, dp, best,
                           cells, tmp, dps, undo, d)
                gen += 1
                st_dir[d] = k
                st_blank[d + 1] = c
                st_h[d + 1] = _child(st_mlc, st_ps, d, dh, dps)
                st_next[d + 1] = -1
                depth = d + 1
                continue
            pop = True
        if d == 0:
            reg[0] = 0
            reg[1] = nextb
            reg[2] = nodes
            reg[3] = gen
            return EXHAUSTED
        _unmove(board, pos, slot, gcost, lcv, pval, vpat, st_blank[d], st_blank[d - 1], undo, d - 1)
        depth = d - 1


@njit(cache=True)
def _root_parts(board, gcnt, gcells, md, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, pdbt):
    """pos, slot, gcost, lcv, pval, view sums and Manhattan + conflicts of the root board."""
    nfaces = gcnt.shape[0]
    pos, slot = _positions(board, nfaces, gcells.shape[1])
    dp = np.empty(1 << min(gcells.shape[1], DP_MAX_GROUP), dtype=np.int64)
    best = np.empty(line_cells.shape[1], dtype=np.int64)
    gcost = np.zeros(nfaces, dtype=np.int64)
    for f in range(1, nfaces):
        gcost[f] = group_cost(f, pos, gcnt, gcells, md, dp)
    lcv = np.zeros(line_cells.shape[0], dtype=np.int64)
    for line in range(line_cells.shape[0]):
        lcv[line] = line_conflict(board, line, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, best)
    _, _, pval = _pdb_scratch(pdbt, board.shape[0])
    psum = np.zeros(pval.shape[0], dtype=np.int64)
    _pdb_values(pos, gcost, pdbt, board.shape[0], pval, psum)
    return pos, slot, gcost, lcv, pval, psum, gcost.sum() + lcv.sum()


class TilesDepthFirst:
    """The tiles model's compiled depth-first searcher (IDA* iterations and capped DFS).

    heuristic: "manhattan" (Manhattan + linear conflicts), "pdb" (also pattern databases,
    built if needed) or None (the model's default: databases when cached or cheap to build).
    partition, progress, budget, memory_limit_mb: as for `HeuristicTables.build`.
    `heuristic_name` and `pdb_seconds` tell what was used and what loading or building the
    tables cost.

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

    def __init__(self, model: "TilesPuzzle", heuristic: str | None = None,
                 partition: Sequence[Sequence[str]] | None = None,
                 progress: tiles_pdb.Progress | None = None, budget: float | None = None,
                 memory_limit_mb: float | None = None) -> None:
        self.model = model
        self.progress = progress
        self.memory_limit_mb = memory_limit_mb
        self._share = partition is None and budget is None and heuristic is None  # what model.tables would be
        self._pending: list[tiles_pdb.Pattern] | None = None   # tables deferred until the probe runs out
        self._probe_left = self._probe_nodes = 0
        known = model.__dict__.get("tables")  # TilesPuzzle.tables is a cached_property
        if partition is None and budget is None and known is not None and heuristic in (None, known.name):
            self.tables = known
        else:
            patterns = choose_patterns(model, heuristic, partition, budget, memory_limit_mb)
            build = tiles_pdb.missing_seconds(patterns) if patterns is not None else 0.0
            if patterns is not None and heuristic is None and partition is None and 0 < build \
                    and build >= PROBE_MIN_SECONDS:
                self._pending = patterns
                self._probe_left = self._probe_nodes = int(min(PROBE_NODES, build * PROBE_NODES_PER_SECOND))
                self.tables = HeuristicTables.manhattan(model)
            elif patterns is None:
                self.tables = HeuristicTables.manhattan(model)
            else:
                self.tables = HeuristicTables.with_databases(model, patterns, progress, memory_limit_mb)
            if self._share and self._pending is None:
                model.__dict__["tables"] = self.tables  # what model.tables would build: share it
        self.nbr = np.array(model.neighbours, dtype=np.int64)
        self.start = np.frombuffer(model.start, dtype=np.uint8).copy()
        self._use(self.tables)

    @staticmethod
    def supports(model: "TilesPuzzle") -> bool:
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
        st_dir, reg = arrays[7], arrays[15]
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
            self.model.__dict__["tables"] = tables
        self._use(tables)
        ctx.phase = phase
        extra = ctx.stats.extra
        extra["heuristic"], extra["pdb_seconds"] = self.heuristic_name, self.pdb_seconds
        extra["probe_nodes"] = self._probe_nodes - self._probe_left  # Manhattan nodes before the build
        if "setup_seconds" in extra:
            extra["setup_seconds"] = round(extra["setup_seconds"] + ctx.elapsed() - started, 6)

    def _kernel(self, bound: int, arrays: tuple[Any, ...], chunk: int, ordered: bool) -> int:
        t = self.tables
        (board, pos, slot, gcost, lcv, pval, st_blank, st_dir, st_next, st_nchild, st_order, st_h, st_mlc, st_ps,
         undo, reg, work) = arrays
        return int(bounded_dfs(board, pos, slot, gcost, lcv, pval, self.nbr, t.gcnt, t.gcells, t.md, t.line_cells,
                               t.line_len, t.line_kind, t.line_index, t.pure, t.gmin, t.gmax, t.cell_row, t.cell_col,
                               self.model.rows, t.pdb, st_blank, st_dir, st_next, st_nchild, st_order, st_h, st_mlc,
                               st_ps, undo, reg, bound, chunk, ordered, work))

    def _arrays(self, bound: int) -> tuple[Any, ...]:
        """The kernel's state for a fresh iteration at `bound`, in `_kernel`'s order."""
        t = self.tables
        board = self.start.copy()
        pos, slot, gcost, lcv, pval, psum, mlc = _root_parts(board, *t.arrays)
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
        work = _work(t, board.shape[0], pval.shape[0])
        return (board, pos, slot, gcost, lcv, pval, st_blank, st_dir, st_next, st_nchild, st_order, st_h, st_mlc,
                st_ps, undo, reg, work)


def _work(t: HeuristicTables, n: int, nviews: int) -> tuple[np.ndarray, ...]:
    """Scratch arrays of `bounded_dfs`: dp, best, cells, tmp, dps, hs."""
    return (np.empty(1 << min(t.gcells.shape[1], DP_MAX_GROUP), dtype=np.int64),
            np.empty(t.line_cells.shape[1], dtype=np.int64), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64), np.zeros(max(nviews, 1), dtype=np.int64), np.empty(4, dtype=np.int64))


def heuristic_of(board: np.ndarray, tables: HeuristicTables) -> int:
    """`heuristic` of a uint8 board with these tables."""
    return int(heuristic(board, *tables.arrays))
