"""The tiles lower bound, compiled (numba): Manhattan per face group, linear conflicts, pattern sums.

`heuristic` is the single implementation of the tiles lower bound: `TilesPuzzle.h` calls it
from Python and the IDA* kernel (`ida_kernel`) keeps the same parts up to date incrementally,
so the generic engines and the kernel agree by construction. Its tables (`HeuristicTables`,
`heuristic_tables`) come from the board (`board.Board`) and the pattern databases (`pdb`).

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
- Additive pattern databases (`pdb`), when enabled: h = max(Manhattan + conflicts, sum of
  the pattern tables, the same sum on the transposed board when the goal allows it). The IDA*
  kernel keeps every table's value up to date incrementally: a move changes one tile, hence
  one pattern's placement per view.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from puzzleplan.models.tiles.pdb_rank import INLINE, MAX_PACKED_GROUP, rank_cells, table_value

DP_MAX_GROUP = MAX_PACKED_GROUP  # packed tables need this exact assignment cost
NO_BOUND = 1 << 40


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
def heuristic(board, tables, pdbt):
    """The tiles lower bound of `board` (uint8 face per cell), computed from scratch; tables, pdbt:
    `HeuristicTables.arrays` (the board's tables and the pattern databases' kernel arrays)."""
    _, _, _, _, _, psum, mlc = root_parts(board, tables, pdbt)
    h = mlc
    for v in range(psum.shape[0]):
        if psum[v] > h:
            h = psum[v]
    return h


@njit(cache=True)
def root_parts(board, tables, pdbt):
    """pos, slot, gcost, lcv, pval, view sums and Manhattan + conflicts of the root board."""
    gcnt, gcells, md, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, _, _, _ = tables
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
