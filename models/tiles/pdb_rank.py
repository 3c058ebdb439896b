"""Compiled primitives of the pattern databases: bit tricks, ranking placements, table lookups.

A placement (which cells hold a pattern's tiles, face group by face group) is ranked perfectly:
face groups in a fixed order, each group's cells as a combination of the cells the earlier
groups left free, colex order, mixed radix over the groups (`rank_cells`, `unrank_cells`).
Entries are stored as 4 bits, (distance - Manhattan) / 2, or one byte each when a table does not
pack (see `puzzleplan.models.tiles.pdb`); `table_value` reads either kind. The build
(`pdb_build`) and the search kernels (`heuristic_kernels`, `ida_kernel`) share these.
"""
from __future__ import annotations

from math import comb

import llvmlite.ir as ir
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

MAX_PACKED_GROUP = 12       # exact Manhattan assignment (subset DP) up to this many tiles of a face
INT64_MAX = (1 << 63) - 1

# Hot helpers allocate nothing, so they run without numba's runtime: with it, every array
# argument is reference-counted on each call, which measured 10 to 25 times a small lookup.
HOT = {"cache": True, "_nrt": False}
INLINE = {**HOT, "inline": "always"}  # numba-level inlining: calls with many array arguments cost


# -- compiled primitives -----------------------------------------------------------------------
@intrinsic
def popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """Set bits of an int64 (the CPU's popcount instruction, via LLVM)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])
    return types.int64(types.int64), codegen


@intrinsic
def lowest_bit(typingctx, x):  # type: ignore[no-untyped-def]
    """Index of the lowest set bit of an int64 (64 for 0)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.int64(types.int64), codegen


@intrinsic
def atomic_or(typingctx, arr, idx, val):  # type: ignore[no-untyped-def]
    """arr[idx] |= val as one atomic operation; returns the old value (builds run on all cores)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        value = context.cast(builder, args[2], signature.args[2], aryty.dtype)
        return builder.atomic_rmw("or", ptr, value, "monotonic")
    return arr.dtype(arr, idx, val), codegen


@njit(**HOT)
def select_bit(mask: int, k: int) -> int:
    """The cell of the k-th (0-based) set bit of `mask`."""
    for _ in range(k):
        mask &= mask - 1
    return lowest_bit(mask)


@njit(**INLINE)
def rank_cells(cells, gcnt, radix, row, binom, tmp) -> int:
    """Perfect rank of a placement of pattern `row` (gcnt, radix: [patterns, groups], 0-padded).

    cells[] lists each face group's cells, groups in order; a group's rank is its cells' colex
    rank as a combination of the cells the earlier groups left free, mixed radix over groups.
    """
    r = 0
    used = 0
    idx = 0
    for g in range(gcnt.shape[1]):
        k = gcnt[row, g]
        if k == 1:
            c = cells[idx]
            sub = c - popcount(used & ((1 << c) - 1))
            used |= 1 << c
        else:
            for j in range(k):
                x = cells[idx + j]
                i = j
                while i > 0 and tmp[i - 1] > x:
                    tmp[i] = tmp[i - 1]
                    i -= 1
                tmp[i] = x
            sub = 0
            for j in range(k):
                c = tmp[j]
                sub += binom[c - popcount(used & ((1 << c) - 1)), j + 1]
            for j in range(k):
                used |= 1 << tmp[j]
        r = r * radix[row, g] + sub
        idx += k
    return r


@njit(**HOT)
def unrank_cells(r, gcnt, radix, row, binom, n, cells, subs) -> int:
    """Inverse of `rank_cells`: fill cells[] and return the occupied-cell mask."""
    ng = gcnt.shape[1]
    for g in range(ng - 1, -1, -1):
        subs[g] = r % radix[row, g]
        r //= radix[row, g]
    full = (1 << n) - 1
    used = 0
    idx = 0
    for g in range(ng):
        k = gcnt[row, g]
        s = subs[g]
        free = full & ~used
        if k == 1:
            cells[idx] = select_bit(free, s)
        else:
            for j in range(k, 0, -1):
                x = j - 1
                while binom[x + 1, j] <= s:
                    x += 1
                s -= binom[x, j]
                cells[idx + j - 1] = select_bit(free, x)
        for j in range(k):
            used |= 1 << cells[idx + j]
        idx += k
    return used


@njit(**HOT)
def flood(seed: int, free: int, cols: int, not_first: int, not_last: int) -> int:
    """The connected component of `seed` within the cell set `free` on the board's grid (4 neighbours;
    not_first, not_last: `Board.edge_masks`)."""
    r = seed
    while True:
        g = (r | ((r << 1) & not_first) | ((r >> 1) & not_last) | (r << cols) | (r >> cols)) & free
        if g == r:
            return r
        r = g


@njit(**HOT)
def assignment_md(cells, at, goals, k, md, dp) -> int:
    """Least total Manhattan distance matching k tiles at cells[at:at+k] to goals[:k] (exact)."""
    if k == 1:
        return md[cells[at], goals[0]]
    if k == 2:
        a = md[cells[at], goals[0]] + md[cells[at + 1], goals[1]]
        b = md[cells[at], goals[1]] + md[cells[at + 1], goals[0]]
        return a if a < b else b
    full = (1 << k) - 1
    for mask in range(full + 1):
        dp[mask] = 1 << 40
    dp[0] = 0
    for mask in range(full):
        i = popcount(mask)
        for j in range(k):
            if not (mask >> j) & 1:
                v = dp[mask] + md[cells[at + i], goals[j]]
                if v < dp[mask | (1 << j)]:
                    dp[mask | (1 << j)] = v
    return dp[full]


@njit(**INLINE)
def table_value(pdb, off, packed, r, md_sum) -> int:
    """Entry r of the table at pdb[off:]; packed entries add the pattern's Manhattan distance."""
    if packed:
        return md_sum + 2 * ((pdb[off + (r >> 1)] >> ((r & 1) << 2)) & 15)
    return pdb[off + r]


def binomials(n: int) -> np.ndarray:
    """binom[a, k] = C(a, k) for a, k <= n + 1, saturated at the int64 maximum.

    Saturation is exact where it matters: a rank only reads C(a, k) below its table's size, and
    tables are refused long before that size nears 2**63 (see `check_memory`); without it a
    board above 66 cells raised OverflowError (C(68, 34) > 2**63) before any table was chosen.
    """
    b = np.zeros((n + 2, n + 2), dtype=np.int64)
    for a in range(n + 2):
        for k in range(min(a, n + 1) + 1):
            b[a, k] = min(comb(a, k), INT64_MAX)
    return b

