"""The compiled (numba) IDA* kernel for sliding tiles: a resumable bounded depth-first search.

The move rule is the board's (`board.Board.neighbours`, passed in as an [n, 4] array); the
kernel only applies it. Each move updates the lower bound's parts incrementally (`_move`: the
moved face's Manhattan assignment, the two lines it leaves and enters, one pattern's value per
view) and `_unmove` restores them from the undo row, so a node costs a few table lookups.
`bounded_dfs` keeps all its state in arrays and can pause and resume; `searcher.TilesDepthFirst`
drives it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from puzzleplan.models.tiles.heuristic_kernels import DP_MAX_GROUP, group_cost, line_conflict, pattern_value
from puzzleplan.models.tiles.pdb_rank import HOT, INLINE

if TYPE_CHECKING:
    from puzzleplan.models.tiles.heuristic_tables import HeuristicTables

FOUND, EXHAUSTED, PAUSED = 0, 1, 2
UNDO = 5  # undo columns before the per-view pattern values


@njit(**INLINE)
def _move(state, frm, to, tables, pdbt, work, undo, u):
    """Slide the tile at `frm` into the blank at `to`; update h parts; record undo in undo[u].

    state = (board, pos, slot, gcost, lcv, pval), tables = `HeuristicTables.board_arrays`,
    work = `work_arrays`. Returns the change of Manhattan + conflicts; work's dps[v] gets the
    change of view v's table sum.
    """
    board, pos, slot, gcost, lcv, pval = state
    gcnt, gcells, md, line_cells, line_len, line_kind, line_index, pure, gmin, gmax, cell_row, cell_col, nrows = tables
    dp, best, cells, tmp, dps, _ = work
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
    if line_cells.shape[0] > 0:  # no lines: conflicts off (see heuristic_tables._without_conflicts)
        if cell_row[frm] == cell_row[to]:   # lines are numbered rows first, then columns (Board.lines)
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
def _unmove(state, vpat, frm, to, undo, u):
    """Undo `_move(state, frm, to, ...)`: the tile now at `to` goes back to `frm`."""
    board, pos, slot, gcost, lcv, pval = state
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
def bounded_dfs(state, nbr, tables, pdbt, stack, reg, bound, chunk, ordered, work):
    """Depth-first search of paths with g + h <= bound, resumable.

    The arguments come in groups (tuples of arrays; numba passes a tuple as one structure and
    unpacks it for free, measured at the speed of separate arguments on Korf's instances):
    state = (board, pos, slot, gcost, lcv, pval), the board and the heuristic's parts;
    nbr: [n, 4] neighbour cells (`Board.neighbours`); tables = `HeuristicTables.board_arrays`;
    pdbt = the pattern databases' `pdb.KernelArrays`; stack = (st_blank, st_dir, st_next,
    st_nchild, st_order, st_h, st_mlc, st_ps, undo), one row per depth; work = `work_arrays`.

    All search state lives in the arrays, so the call returns PAUSED after `chunk` expansions
    and continues where it stopped when called again (this is how time limits and Ctrl-C are
    honoured without checks inside the compiled loop). h = max(st_mlc, st_ps[:, v] for each
    view v). reg = [depth, next_bound, nodes, generated, found_depth], next_bound starting at
    `heuristic_kernels.NO_BOUND`. Returns FOUND (plan in st_dir[:found_depth]), EXHAUSTED
    (reg[1] = smallest f above bound, NO_BOUND if none) or PAUSED.
    This function allocates nothing.
    """
    st_blank, st_dir, st_next, st_nchild, st_order, st_h, st_mlc, st_ps, undo = stack
    dps = work[4]
    hs = work[5]
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
                    if d > 0 and k == (st_dir[d - 1] + 2) % 4:   # undoing the last move (board.INVERSE)
                        continue
                    st_order[d, cnt] = k
                    cnt += 1
                if ordered and cnt > 1:
                    for i in range(cnt):
                        c = nbr[b, st_order[d, i]]
                        dh = _move(state, c, b, tables, pdbt, work, undo, d)
                        hs[i] = _child(st_mlc, st_ps, d, dh, dps)
                        _unmove(state, vpat, c, b, undo, d)
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
                dh = _move(state, c, b, tables, pdbt, work, undo, d)
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
        _unmove(state, vpat, st_blank[d], st_blank[d - 1], undo, d - 1)
        depth = d - 1


def work_arrays(t: "HeuristicTables", n: int, nviews: int) -> tuple[np.ndarray, ...]:
    """Scratch arrays of `bounded_dfs` and `_move`: dp, best, cells, tmp, dps, hs."""
    return (np.empty(1 << min(t.gcells.shape[1], DP_MAX_GROUP), dtype=np.int64),
            np.empty(t.line_cells.shape[1], dtype=np.int64), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64), np.zeros(max(nviews, 1), dtype=np.int64), np.empty(4, dtype=np.int64))
