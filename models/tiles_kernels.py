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
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

if TYPE_CHECKING:
    from .tiles import TilesPuzzle

DP_MAX_GROUP = 12
FOUND, EXHAUSTED, PAUSED = 0, 1, 2
NO_BOUND = 1 << 40


@dataclass(frozen=True)
class HeuristicTables:
    """Per-instance lookup tables for the kernels (all int64 numpy arrays)."""

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

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.gcnt, self.gcells, self.md, self.line_cells, self.line_len, self.line_kind,
                self.line_index, self.pure, self.gmin, self.gmax)

    @classmethod
    def build(cls, model: "TilesPuzzle") -> "HeuristicTables":
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
        return cls(gcnt, gcells, md.astype(np.int64), line_cells, line_len, line_kind, line_index,
                   pure, gmin, gmax, cell_row, cell_col)


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def heuristic(board, gcnt, gcells, md, line_cells, line_len, line_kind, line_index, pure, gmin, gmax):
    """The tiles lower bound of `board` (uint8 face per cell), computed from scratch."""
    nfaces = gcnt.shape[0]
    pos, _ = _positions(board, nfaces, gcells.shape[1])
    dp = np.empty(1 << min(gcells.shape[1], DP_MAX_GROUP), dtype=np.int64)
    best = np.empty(line_cells.shape[1], dtype=np.int64)
    total = 0
    for f in range(1, nfaces):
        total += group_cost(f, pos, gcnt, gcells, md, dp)
    for line in range(line_cells.shape[0]):
        total += line_conflict(board, line, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, best)
    return total


@njit(cache=True)
def _move(board, pos, slot, gcost, lcv, frm, to, gcnt, gcells, md, line_cells, line_len, line_kind,
          line_index, pure, gmin, gmax, cell_row, cell_col, nrows, dp, best, undo, u):
    """Slide the tile at `frm` into the blank at `to`; update h parts; record undo in undo[u]."""
    f = board[frm]
    j = slot[frm]
    board[to] = f
    board[frm] = 0
    slot[to] = j
    pos[f, j] = to
    old_g = gcost[f]
    new_g = group_cost(f, pos, gcnt, gcells, md, dp)
    gcost[f] = new_g
    if cell_row[frm] == cell_row[to]:
        l1 = nrows + cell_col[frm]
        l2 = nrows + cell_col[to]
    else:
        l1 = cell_row[frm]
        l2 = cell_row[to]
    o1 = lcv[l1]
    o2 = lcv[l2]
    lcv[l1] = line_conflict(board, l1, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, best)
    lcv[l2] = line_conflict(board, l2, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, best)
    undo[u, 0] = old_g
    undo[u, 1] = l1
    undo[u, 2] = o1
    undo[u, 3] = l2
    undo[u, 4] = o2
    return (new_g - old_g) + (lcv[l1] - o1) + (lcv[l2] - o2)


@njit(cache=True)
def _unmove(board, pos, slot, gcost, lcv, frm, to, undo, u):
    """Undo `_move(frm, to)`: the tile now at `to` goes back to `frm`."""
    f = board[to]
    j = slot[to]
    board[frm] = f
    board[to] = 0
    slot[frm] = j
    pos[f, j] = frm
    gcost[f] = undo[u, 0]
    lcv[undo[u, 1]] = undo[u, 2]
    lcv[undo[u, 3]] = undo[u, 4]


@njit(cache=True)
def bounded_dfs(board, pos, slot, gcost, lcv, nbr, gcnt, gcells, md, line_cells, line_len, line_kind,
                line_index, pure, gmin, gmax, cell_row, cell_col, nrows,
                st_blank, st_dir, st_next, st_nchild, st_order, st_h, undo, reg, bound, chunk, ordered):
    """Depth-first search of paths with g + h <= bound, resumable.

    All search state lives in the arrays, so the call returns PAUSED after `chunk` expansions
    and continues where it stopped when called again (this is how time limits and Ctrl-C are
    honoured without checks inside the compiled loop). reg = [depth, next_bound, nodes,
    generated, found_depth]. Returns FOUND (plan in st_dir[:found_depth]), EXHAUSTED
    (reg[1] = smallest f above bound, NO_BOUND if none) or PAUSED.
    """
    dp = np.empty(1 << min(gcells.shape[1], DP_MAX_GROUP), dtype=np.int64)
    best = np.empty(line_cells.shape[1], dtype=np.int64)
    hs = np.empty(4, dtype=np.int64)
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
                        hs[i] = _move(board, pos, slot, gcost, lcv, c, b, gcnt, gcells, md, line_cells,
                                      line_len, line_kind, line_index, pure, gmin, gmax, cell_row,
                                      cell_col, nrows, dp, best, undo, d)
                        _unmove(board, pos, slot, gcost, lcv, c, b, undo, d)
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
                dh = _move(board, pos, slot, gcost, lcv, c, b, gcnt, gcells, md, line_cells, line_len,
                           line_kind, line_index, pure, gmin, gmax, cell_row, cell_col, nrows, dp, best,
                           undo, d)
                gen += 1
                st_dir[d] = k
                st_blank[d + 1] = c
                st_h[d + 1] = st_h[d] + dh
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
        _unmove(board, pos, slot, gcost, lcv, st_blank[d], st_blank[d - 1], undo, d - 1)
        depth = d - 1


class TilesDepthFirst:
    """The tiles model's compiled depth-first searcher (IDA* iterations and capped DFS)."""

    CHUNK = 1 << 20

    def __init__(self, model: "TilesPuzzle") -> None:
        self.model = model
        self.tables = model.tables
        self.nbr = np.array(model.neighbours, dtype=np.int64)
        self.start = np.frombuffer(model.start, dtype=np.uint8).copy()
        self.h0 = int(heuristic(self.start, *self.tables.arrays))

    def bounded(self, bound: int, ctx: Any, ordered: bool = False) -> tuple[list[int] | None, int | None]:
        """Search every path with g + h <= bound. Returns (plan actions, None) or (None, next bound)."""
        t = self.tables
        board = self.start.copy()
        pos, slot = _positions(board, t.gcnt.shape[0], t.gcells.shape[1])
        dp = np.empty(1 << min(t.gcells.shape[1], DP_MAX_GROUP), dtype=np.int64)
        best = np.empty(t.line_cells.shape[1], dtype=np.int64)
        gcost = np.array([0] + [group_cost(f, pos, t.gcnt, t.gcells, t.md, dp) for f in range(1, t.gcnt.shape[0])],
                         dtype=np.int64)
        lcv = np.array([line_conflict(board, line, t.line_cells, t.line_len, t.line_kind, t.line_index,
                                      t.pure, t.gmin, t.gmax, best) for line in range(t.line_cells.shape[0])],
                       dtype=np.int64)
        size = bound + 2
        st_blank = np.zeros(size, dtype=np.int64)
        st_blank[0] = int(np.flatnonzero(board == 0)[0])
        st_dir = np.zeros(size, dtype=np.int64)
        st_next = np.full(size, -1, dtype=np.int64)
        st_nchild = np.zeros(size, dtype=np.int64)
        st_order = np.zeros((size, 4), dtype=np.int64)
        st_h = np.zeros(size, dtype=np.int64)
        st_h[0] = int(gcost.sum() + lcv.sum())
        undo = np.zeros((size, 5), dtype=np.int64)
        reg = np.array([0, NO_BOUND, 0, 0, 0], dtype=np.int64)
        stats = ctx.stats
        nodes0, gen0 = stats.nodes, stats.generated
        while True:
            code = bounded_dfs(board, pos, slot, gcost, lcv, self.nbr, t.gcnt, t.gcells, t.md, t.line_cells,
                               t.line_len, t.line_kind, t.line_index, t.pure, t.gmin, t.gmax, t.cell_row,
                               t.cell_col, self.model.rows, st_blank, st_dir, st_next, st_nchild, st_order,
                               st_h, undo, reg, bound, self.CHUNK, ordered)
            stats.nodes = nodes0 + int(reg[2])
            stats.generated = gen0 + int(reg[3])
            if code == FOUND:
                return [int(x) for x in st_dir[:reg[4]]], None
            if code == EXHAUSTED:
                return None, (None if reg[1] >= NO_BOUND else int(reg[1]))
            ctx.poll()
