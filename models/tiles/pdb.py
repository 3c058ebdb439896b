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

Tables are cached on disk per pattern (see `cache_dir`), keyed by the board size, the blank's
goal cell and the pattern's goal cells, with a header and CRC-32 checked on every load. Every
header field is checked for presence, type and consistency (`header_problem`); a file that is
damaged anywhere, unreadable, or not a regular file (links that loop, directories, FIFOs)
counts as missing, and whether a missing table is built at all is the build budget's choice
(see `tiles_kernels.choose_patterns`).
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
import tempfile
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import llvmlite.ir as ir
import numba
import numpy as np
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

Progress = Callable[[int, int], None]

FORMAT = 1
MAGIC = b"PZPDB\x00\x01\n"
MAX_CELLS = 49              # int64 bitboards, and a seen-bit per free cell in an int64 record
MAX_PACKED_GROUP = 12       # exact Manhattan assignment (subset DP) up to this many tiles of a face
DEFAULT_MAX_ENTRIES = 60_000_000
DEFAULT_BUDGET_SECONDS = float(os.environ.get("PUZZLEPLAN_PDB_BUDGET", "30"))  # env: tests use a small one
MIN_CACHED_ENTRIES = 1 << 16  # smaller tables are rebuilt in memory, never written to disk
UNREACHED = 255
CHUNK_WORDS = (1 << 10, 1 << 22)  # frontier words per compiled call, chosen between these bounds ...
CHUNK_SECONDS = 0.1          # ... so that a call takes about this long (see `abstract_distances`)
PARALLEL_WORDS = 1 << 12     # smaller searches run on one thread: waking the others costs more
SECONDS_PER_ENTRY = 1.0e-6   # build time per table entry (measured: 0.6 to 1.9 us on 2 shared cores)

MEMO_BYTES = 1 << 30

_memo: dict[str, "PatternTable"] = {}  # key -> table, oldest first
_memo_lock = threading.Lock()
_last_arrays: list[Any] = []            # [key, KernelArrays] of the last PatternDatabases.kernel_arrays
_damaged: set[tuple[str, int, int, int]] = set()  # (path, inode, size, mtime) of files that failed to load

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
    """The connected component of `seed` within the cell set `free` (4-neighbour grid)."""
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


@njit(**HOT)
def _placement_md(cells, gcnt, goals, md, gman, dp) -> int:
    """Manhattan distance of a placement, minimised per face group; gman[g] gets each group's share."""
    total = 0
    at = 0
    for g in range(gcnt.shape[1]):
        if gcnt[0, g] > MAX_PACKED_GROUP:
            gman[g] = 0
        else:
            gman[g] = assignment_md(cells, at, goals[g], gcnt[0, g], md, dp)
        total += gman[g]
        at += gcnt[0, g]
    return total


@njit(cache=True, nogil=True)
def _expand_words(cur, nxt, rec, packed, w0, w1, level, gcnt, radix, binom, nbr, n, cols, nfree, goals, md, out,
                  shared):
    """`_expand_core` with freshly allocated work arrays (shared: other threads write too)."""
    m = nbr.shape[0] - nfree
    ng = gcnt.shape[1]
    work = (np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(ng, dtype=np.int64),
            np.empty(ng, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(ng, dtype=np.int64),
            np.empty(1 << min(goals.shape[1], MAX_PACKED_GROUP), dtype=np.int64))
    _expand_core(cur, nxt, rec, packed, w0, w1, level, gcnt, radix, binom, nbr, n, cols, nfree, goals, md, out,
                 work, shared)


@njit(**HOT)
def _expand_core(cur, nxt, rec, packed, w0, w1, level, gcnt, radix, binom, nbr, n, cols, nfree, goals, md, out,
                 work, shared):
    """Expand the frontier states whose bits lie in cur[w0:w1].

    A state is placement * nfree + slot, the slot being the rank among the free cells of the
    lowest cell of the blank's region. rec[placement] holds distance + 1 in its low byte (0 while
    unreached) and one seen-bit per slot above it, so a generated state costs one random memory
    access. New states go to nxt; a placement reached for the first time also gets its packed
    entry (distance - Manhattan) / 2. out += [new states, new placements, entries that do not pack,
    states expanded].
    """
    m = nbr.shape[0] - nfree
    ng = gcnt.shape[1]
    cells, tmp, subs, gman, group, start, dp = work
    at = 0
    for g in range(ng):
        start[g] = at
        for j in range(gcnt[0, g]):
            group[at + j] = g
        at += gcnt[0, g]
    full = (1 << n) - 1
    not_first = 0
    not_last = 0
    for c in range(n):
        if c % cols != 0:
            not_first |= 1 << c
        if c % cols != cols - 1:
            not_last |= 1 << c
    lastp = -1
    occ = 0
    man = 0
    new_states = 0
    expanded = 0
    new_places = 0
    unpacked = 0
    for w in range(w0, w1):
        word = cur[w]
        if word == 0:
            continue
        cur[w] = 0
        while word != 0:
            low = word & -word
            word ^= low
            s = w * 64 + lowest_bit(low)
            expanded += 1
            p = s // nfree
            if p != lastp:
                occ = unrank_cells(p, gcnt, radix, 0, binom, n, cells, subs)
                man = _placement_md(cells, gcnt, goals, md, gman, dp)
                lastp = p
            free = full & ~occ
            region = flood(1 << select_bit(free, s - p * nfree), free, cols, not_first, not_last)
            for i in range(m):
                c = cells[i]
                for d in range(4):
                    t = nbr[c, d]
                    if t < 0 or ((region >> t) & 1) == 0:
                        continue
                    cells[i] = t
                    q = rank_cells(cells, gcnt, radix, 0, binom, tmp)
                    nfree_mask = free ^ (1 << t) ^ (1 << c)
                    nreg = flood(1 << c, nfree_mask, cols, not_first, not_last)
                    slot = popcount(nfree_mask & ((nreg & -nreg) - 1))
                    sbit = 1 << (8 + slot)
                    r = rec[q]
                    if r & sbit == 0:
                        add = sbit if r & 255 else sbit | (level + 2)
                        ns = q * nfree + slot
                        if shared:
                            old = atomic_or(rec, q, add)
                            if old & sbit == 0:
                                atomic_or(nxt, ns >> 6, 1 << (ns & 63))
                        else:
                            old = r
                            rec[q] = r | add
                            nxt[ns >> 6] |= 1 << (ns & 63)
                        if old & sbit == 0:
                            new_states += 1
                        if old & 255 == 0:
                            new_places += 1
                            g = group[i]
                            if gcnt[0, g] > MAX_PACKED_GROUP:
                                unpacked += 1
                            else:
                                moved = assignment_md(cells, start[g], goals[g], gcnt[0, g], md, dp)
                                diff = level + 1 - (man - gman[g] + moved)
                                if diff < 0 or diff > 30 or diff & 1:
                                    unpacked += 1
                                else:
                                    nib = (diff >> 1) << ((q & 1) << 2)
                                    if shared:
                                        atomic_or(packed, q >> 1, nib)
                                    else:
                                        packed[q >> 1] |= nib
                    cells[i] = c
    out[0] += new_states
    out[3] += expanded
    out[1] += new_places
    out[2] += unpacked


@njit(cache=True, parallel=True)
def _expand_parallel(cur, nxt, rec, packed, w0, w1, level, gcnt, radix, binom, nbr, n, cols, nfree, goals, md,
                     out):
    """`_expand_words` over cur[w0:w1] split across threads. Records, frontier words and nibbles
    are shared, so they are updated with atomic ORs; the returned old record tells exactly one
    thread that it claimed a new state or placement."""
    pieces = 64
    counts = np.zeros((pieces, 4), dtype=np.int64)
    for k in prange(pieces):
        a = w0 + (w1 - w0) * k // pieces
        b = w0 + (w1 - w0) * (k + 1) // pieces
        _expand_words(cur, nxt, rec, packed, a, b, level, gcnt, radix, binom, nbr, n, cols, nfree, goals, md,
                      counts[k], True)
    for k in range(pieces):
        for j in range(4):
            out[j] += counts[k, j]


# -- patterns ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Geometry:
    """The board a table is built for: size and the goal layout (face index per cell)."""

    rows: int
    cols: int
    goal: bytes

    @property
    def n(self) -> int:
        return self.rows * self.cols

    @property
    def blank(self) -> int:
        return self.goal.index(0)

    def goal_cells(self, face: int) -> tuple[int, ...]:
        return tuple(c for c, f in enumerate(self.goal) if f == face)

    def faces(self) -> list[int]:
        """The tile faces (not the blank), in index order."""
        return sorted(set(self.goal) - {0})

    def neighbours(self) -> np.ndarray:
        """[n, 4] neighbour cell in directions U R D L, or -1."""
        nbr = np.full((self.n, 4), -1, dtype=np.int64)
        for c in range(self.n):
            r, k = divmod(c, self.cols)
            for d, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
                if 0 <= r + dr < self.rows and 0 <= k + dc < self.cols:
                    nbr[c, d] = (r + dr) * self.cols + k + dc
        return nbr

    def manhattan(self) -> np.ndarray:
        rc = np.array([divmod(c, self.cols) for c in range(self.n)], dtype=np.int64).reshape(self.n, 2)
        return np.abs(rc[:, None, 0] - rc[None, :, 0]) + np.abs(rc[:, None, 1] - rc[None, :, 1])


@dataclass(frozen=True)
class Pattern:
    """A set of faces of one geometry, groups in canonical order (by their goal cells)."""

    geometry: Geometry
    faces: tuple[int, ...]

    @classmethod
    def of(cls, geometry: Geometry, faces: Iterable[int]) -> "Pattern":
        return cls(geometry, tuple(sorted(set(faces), key=geometry.goal_cells)))

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """Goal cells of each face group (this, with the board and blank cell, is the table's key)."""
        return tuple(self.geometry.goal_cells(f) for f in self.faces)

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(len(g) for g in self.groups)

    @property
    def tiles(self) -> int:
        return sum(self.counts)

    def radix(self) -> tuple[int, ...]:
        """Number of ways to place each group on the cells the earlier groups left free."""
        avail = self.geometry.n
        out = []
        for k in self.counts:
            out.append(comb(avail, k))
            avail -= k
        return tuple(out)

    @property
    def entries(self) -> int:
        return pattern_entries(self.geometry.n, self.counts)

    def key(self) -> str:
        g = self.geometry
        return table_key(g.rows, g.cols, g.blank, self.groups)


def table_key(rows: int, cols: int, blank: int, groups: Sequence[Sequence[int]]) -> str:
    """The cache key (and file name) of a table: board size, blank goal cell, goal cells per group."""
    text = json.dumps([FORMAT, rows, cols, blank, [list(g) for g in groups]])
    return f"tiles-{rows}x{cols}-{hashlib.sha256(text.encode()).hexdigest()[:20]}"


def pattern_entries(n: int, counts: Sequence[int]) -> int:
    """Table size for groups of `counts` tiles on n cells (a multinomial coefficient)."""
    total, avail = 1, n
    for k in counts:
        total *= comb(avail, k)
        avail -= k
    return total


def estimate_seconds(pattern: Pattern) -> float:
    """Rough build time of one table (the search costs about the same per placement)."""
    return pattern.entries * SECONDS_PER_ENTRY


# -- memory ----------------------------------------------------------------------------------------
def default_memory_limit_mb() -> float | None:
    """The memory table builds may take when no limit is given: the process-wide default
    (`puzzleplan.plans.core.memory`, 75 % of the available memory or $PUZZLEPLAN_MEMORY_LIMIT) less
    what the process holds already, in MiB; None (no limit) where the memory cannot be read."""
    from puzzleplan.plans.core.memory import default_memory_limit_mb as process_limit, resident_mb
    limit = process_limit()
    return None if limit is None else max(0.0, limit - resident_mb())


def table_bytes(pattern: Pattern) -> int:
    """Memory of one finished table at most: a byte per entry (a 4-bit table takes half)."""
    return pattern.entries


def build_bytes(pattern: Pattern) -> int:
    """Peak memory of building one table, as `abstract_distances` allocates: two frontier
    bitmaps of one bit per (placement, blank region) state, one record per placement (uint32,
    int64 above 24 free cells), the 4-bit table, and at the end the byte table and a boolean
    temporary of one byte per placement each."""
    entries, nfree = pattern.entries, pattern.geometry.n - pattern.tiles
    words = (entries * nfree + 63) // 64
    return 16 * words + entries * (4 if nfree <= 24 else 8) + (entries + 1) // 2 + 2 * entries


def memory_needed(patterns: Sequence[Pattern], missing: Sequence[Pattern], concurrent: bool = False,
                  search: bool = False) -> int:
    """Peak bytes of loading `patterns` and building the `missing` ones among them: every finished
    table, plus the working memory of the builds running at once (all of them when `concurrent`,
    else the largest); `search` adds the copy the search kernels read (`kernel_arrays`)."""
    tables = sum(table_bytes(p) for p in patterns)
    work = [build_bytes(p) for p in missing]
    return tables * (2 if search else 1) + (sum(work) if concurrent else max(work, default=0))


def size_text(nbytes: float) -> str:
    """Bytes in GiB or MiB, e.g. `31.9 GiB`."""
    return f"{nbytes / 2**30:.1f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.1f} MiB"


def check_memory(patterns: Sequence[Pattern], missing: Sequence[Pattern], memory_limit_mb: float | None,
                 face_names: Sequence[str] | None = None, concurrent: bool = False, search: bool = False) -> None:
    """Raise ValueError, one line naming the sizes, when `memory_needed` is above the limit (MiB;
    None: no limit). Called before anything is allocated."""
    need = memory_needed(patterns, missing, concurrent, search)
    if memory_limit_mb is None or need <= memory_limit_mb * 2**20:
        return
    names = (lambda p: " ".join(face_names[f] for f in p.faces)) if face_names else \
        (lambda p: " ".join(map(str, p.faces)))
    if missing:
        worst = max(missing, key=build_bytes)
        what = (f"building pattern '{names(worst)}' ({worst.entries:,} entries) needs about "
                f"{size_text(build_bytes(worst))} of memory to build ({size_text(need)} in all)")
    else:
        what = f"the pattern databases need about {size_text(need)} of memory"
    raise ValueError(f"{what}, over the memory limit of {size_text(memory_limit_mb * 2**20)}; "
                     "choose smaller patterns")


def fits_memory(patterns: Sequence[Pattern], missing: Sequence[Pattern], memory_limit_mb: float | None,
                concurrent: bool = False, search: bool = False) -> bool:
    """True when `check_memory` would pass."""
    return memory_limit_mb is None or memory_needed(patterns, missing, concurrent, search) <= memory_limit_mb * 2**20


def auto_partition(geometry: Geometry, max_entries: int = DEFAULT_MAX_ENTRIES,
                   budget: float = DEFAULT_BUDGET_SECONDS, faces: Iterable[int] | None = None) -> list[tuple[int, ...]]:
    """Split the faces into bands of neighbouring goal cells: patterns of at most `max_entries`
    entries whose tables together are estimated to build within `budget` seconds.

    Faces are taken in reading order of their goal cells (along rows, or along columns on a
    board taller than wide), starting next to the blank's goal cell; each pattern takes the next
    faces while its table fits, and what it uses comes off the budget of the next patterns.
    For the 15-puzzle this gives rows 1-6 | 7-12 | 13-15: on random instances it needed about
    half the nodes of 6-6-3 made of compact blocks, because the transposed lookup then sees
    column bands, a different view (blocks are nearly symmetric, so both lookups agree).
    """
    only = set(geometry.faces() if faces is None else faces)
    order = [f for f in reading_order(geometry) if f in only]
    if not order:
        return []
    room = budget / SECONDS_PER_ENTRY
    out: list[tuple[int, ...]] = []
    pat: list[int] = []
    for face in order:
        counts = [len(geometry.goal_cells(f)) for f in pat + [face]]
        if pat and pattern_entries(geometry.n, counts) > min(max_entries, room):
            room -= pattern_entries(geometry.n, counts[:-1])
            out.append(tuple(pat))
            pat = []
        pat.append(face)
    return out + [tuple(pat)]


def reading_order(geometry: Geometry) -> list[int]:
    """Faces by their nearest goal cell's distance from the blank's goal cell in reading order."""
    rows, cols = geometry.rows, geometry.cols

    def index(cell: int) -> int:
        r, c = divmod(cell, cols)
        return cell if cols >= rows else c * rows + r

    home = index(geometry.blank)
    return sorted(geometry.faces(),
                  key=lambda f: (min(abs(index(c) - home) for c in geometry.goal_cells(f)), f))


def symmetries(geometry: Geometry) -> list[tuple[np.ndarray, np.ndarray]]:
    """(cell map, face map) pairs mapping the goal onto itself: identity, and the transpose if valid."""
    n = geometry.n
    ident = (np.arange(n, dtype=np.int64), np.arange(max(geometry.goal) + 1, dtype=np.int64))
    views = [ident]
    if geometry.rows != geometry.cols:
        return views
    side = geometry.cols
    cellmap = np.array([(c % side) * side + c // side for c in range(n)], dtype=np.int64)
    facemap = np.full(max(geometry.goal) + 1, -1, dtype=np.int64)
    for c in range(n):
        f, g = geometry.goal[c], geometry.goal[cellmap[c]]
        if facemap[f] not in (-1, g):
            return views
        facemap[f] = g
    if facemap[0] != 0 or len(set(facemap.tolist())) != len(facemap):
        return views
    views.append((cellmap, facemap))
    return views


# -- building ------------------------------------------------------------------------------------
INT64_MAX = (1 << 63) - 1


def _binomials(n: int) -> np.ndarray:
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


def abstract_distances(pattern: Pattern, progress: Progress | None = None,
                       parallel: bool = True) -> tuple[np.ndarray, np.ndarray, bool]:
    """Every placement's exact abstract distance, by a compiled breadth-first search.

    Returns (distances as uint8, UNREACHED where none; the 4-bit table; whether every entry
    packed). `progress(placements reached, placements)` is called between compiled chunks.
    parallel: split large levels across numba's threads (False: this thread only, which
    releases the GIL, so several tables can build at once in Python threads).
    """
    g = pattern.geometry
    n, nfree = g.n, g.n - pattern.tiles
    if n > MAX_CELLS:
        raise ValueError(f"pattern databases need at most {MAX_CELLS} cells, got {n}")
    gcnt = np.array([pattern.counts], dtype=np.int64)
    radix = np.array([pattern.radix()], dtype=np.int64)
    binom = _binomials(n)
    total = pattern.entries
    words = (total * nfree + 63) // 64
    cur = np.zeros(words, dtype=np.int64)
    nxt = np.zeros(words, dtype=np.int64)
    rec = np.zeros(total, dtype=np.uint32 if nfree <= 24 else np.int64)
    packed = np.zeros((total + 1) // 2, dtype=np.uint8)
    k = max(pattern.counts)
    goals = np.array([list(grp) + [0] * (k - len(grp)) for grp in pattern.groups], dtype=np.int64)
    goal_cells = np.array([c for grp in pattern.groups for c in grp], dtype=np.int64)
    q = rank_cells(goal_cells, gcnt, radix, 0, binom, np.empty(len(goal_cells), dtype=np.int64))
    free = ((1 << n) - 1) & ~sum(1 << int(c) for c in goal_cells)
    region = _region(g, g.blank, free)
    slot = bin(free & ((region & -region) - 1)).count("1")
    rec[q] = (1 << (8 + slot)) | 1
    s = q * nfree + slot
    cur.view(np.uint64)[s >> 6] |= np.uint64(1 << (s & 63))
    nbr = g.neighbours()
    md = g.manhattan().astype(np.int64)
    placed, level, unpacked = 1, 0, 0
    parallel = parallel and words > PARALLEL_WORDS and numba.get_num_threads() > 1
    out = np.zeros(4, dtype=np.int64)
    frontier, per_state = 1, 1e-6  # states in cur; seconds per expanded state (measured as it goes)
    while True:
        out[:] = 0
        w0 = 0
        level_density = density = frontier / (64 * words)
        while w0 < words:
            # Chunks are sized so each compiled call takes about CHUNK_SECONDS: progress (and every
            # limit the callback checks) is seen that often whatever the level's density. States
            # cluster, so the density ahead is taken from the chunk just done (at least the level's
            # average). Each call costs up to ~10 ms to wake the threads on a loaded machine, so
            # calls stay as large as that allows.
            span = int(min(max(CHUNK_SECONDS / per_state / density / 64, CHUNK_WORDS[0]), CHUNK_WORDS[1]))
            hi = min(words, w0 + span)
            t0 = time.perf_counter()
            before = int(out[3])
            if parallel:
                _expand_parallel(cur, nxt, rec, packed, w0, hi, level, gcnt, radix, binom, nbr, n, g.cols, nfree,
                                 goals, md, out)
            else:
                _expand_words(cur, nxt, rec, packed, w0, hi, level, gcnt, radix, binom, nbr, n, g.cols, nfree,
                              goals, md, out, False)
            states = int(out[3]) - before
            if states >= 4096:
                per_state = max(0.8 * per_state, (time.perf_counter() - t0) / states)  # the dearest lately
            density = max(states / (64 * (hi - w0)), level_density)
            w0 = hi
            if progress is not None:
                progress(min(total, placed + int(out[1])), total)
        placed += int(out[1])
        unpacked += int(out[2])
        frontier = max(int(out[0]), 1)
        if out[0] == 0:
            dist = rec.astype(np.uint8)  # the low byte: distance + 1, or 0 when unreached
            dist -= 1  # wraps 0 to 255 = UNREACHED
            complete = not (dist == UNREACHED).any()
            return dist, packed, unpacked == 0 and complete
        cur, nxt = nxt, cur
        level += 1
        if level >= UNREACHED:
            raise ValueError("abstract distances above 254 moves do not fit a byte")


def _region(g: Geometry, blank: int, free: int) -> int:
    """Python twin of `flood` (for the seed state)."""
    nbr = g.neighbours()
    region, todo = 1 << blank, [blank]
    while todo:
        c = todo.pop()
        for t in nbr[c]:
            if t >= 0 and (free >> int(t)) & 1 and not (region >> int(t)) & 1:
                region |= 1 << int(t)
                todo.append(int(t))
    return region


@dataclass
class PatternTable:
    """One pattern's stored table, as the kernels read it."""

    pattern: Pattern
    data: np.ndarray
    packed: bool
    seconds: float = 0.0
    from_cache: bool = False
    path: Path | None = None

    def value(self, rank: int, manhattan: int) -> int:
        """Entry `rank` (the placement's Manhattan distance is needed for packed tables)."""
        return int(table_value(self.data, 0, self.packed, rank, manhattan))


def build_table(pattern: Pattern, progress: Progress | None = None, parallel: bool = True) -> PatternTable:
    """Build one pattern's table in memory (no cache)."""
    t0 = time.perf_counter()
    dist, packed, ok = abstract_distances(pattern, progress, parallel)
    return PatternTable(pattern, packed if ok else dist, ok, time.perf_counter() - t0)


# -- the cache -------------------------------------------------------------------------------------
def cache_dir() -> Path:
    """$PUZZLEPLAN_CACHE_DIR/pdb, else $XDG_CACHE_HOME/puzzleplan/pdb, else ~/.cache/puzzleplan/pdb."""
    own = os.environ.get("PUZZLEPLAN_CACHE_DIR")
    if own:
        return Path(own) / "pdb"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "puzzleplan" / "pdb"


def _header(table: PatternTable, face_names: Sequence[str] | None) -> dict:
    p = table.pattern
    g = p.geometry
    return {"format": FORMAT, "key": p.key(), "rows": g.rows, "cols": g.cols, "blank": g.blank,
            "groups": [list(grp) for grp in p.groups], "entries": p.entries, "packed": table.packed,
            "bytes": int(table.data.nbytes), "crc32": zlib.crc32(table.data),
            "faces": [face_names[f] for f in p.faces] if face_names else None,
            "build_seconds": round(table.seconds, 3),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S")}


def save_table(table: PatternTable, directory: Path, face_names: Sequence[str] | None = None) -> Path:
    """Write atomically: a temporary file in the same directory, then a rename."""
    directory.mkdir(parents=True, exist_ok=True)
    head = json.dumps(_header(table, face_names)).encode()
    path = directory / f"{table.pattern.key()}.pdb"
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + struct.pack("<Q", len(head)) + head)
            f.write(table.data.data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_header(path: Path) -> tuple[dict, int] | None:
    """(header, data offset) of a cache file, or None when it is not one: not a regular file
    (a directory, a FIFO, a dangling link or a link loop), unreadable (any OSError), not this
    format, or a header with any field missing or of the wrong type or value (`header_problem`)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                return None
            (size,) = struct.unpack("<Q", f.read(8))
            if size > 1 << 20:
                return None
            head = json.loads(f.read(size).decode())
    except (OSError, ValueError, struct.error, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if not isinstance(head, dict) or header_problem(head) is not None:
        return None
    return head, len(MAGIC) + 8 + size


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def header_problem(head: dict) -> str | None:
    """What is wrong with a table header (every field: presence, type, range, consistency), or
    None. A header that passes describes a table this code could have written: the key is the
    hash of the board, blank and groups it states, and entries and bytes follow from them."""
    for name in ("format", "rows", "cols", "blank", "entries", "bytes", "crc32"):
        if not _is_int(head.get(name)):
            return f"{name}: expected an integer"
    if head["format"] != FORMAT:
        return f"format {head['format']}: expected {FORMAT}"
    rows, cols, blank = head["rows"], head["cols"], head["blank"]
    if not (1 <= rows and 1 <= cols and rows * cols <= MAX_CELLS):
        return f"rows, cols: not a board of at most {MAX_CELLS} cells"
    n = rows * cols
    if not 0 <= blank < n:
        return "blank: not a cell of the board"
    groups = head.get("groups")
    if not isinstance(groups, list) or not groups or len(groups) >= n:
        return "groups: expected a non-empty list of cell lists"
    used = {blank}
    for grp in groups:
        if not isinstance(grp, list) or not grp or not all(_is_int(c) and 0 <= c < n for c in grp) \
                or grp != sorted(set(grp)) or used & set(grp):
            return "groups: expected disjoint sorted lists of cells, the blank's goal cell in none"
        used.update(grp)
    if groups != sorted(groups):
        return "groups: not in canonical order"
    if not isinstance(head.get("key"), str) or head["key"] != table_key(rows, cols, blank, groups):
        return "key: does not match the board, blank and groups"
    if head["entries"] != pattern_entries(n, [len(g) for g in groups]):
        return "entries: does not match the groups"
    if not isinstance(head.get("packed"), bool):
        return "packed: expected true or false"
    if head["bytes"] != ((head["entries"] + 1) // 2 if head["packed"] else head["entries"]):
        return "bytes: does not match entries and packed"
    if not 0 <= head["crc32"] < 1 << 32:
        return "crc32: expected a 32-bit checksum"
    faces = head.get("faces")
    if faces is not None and not (isinstance(faces, list) and len(faces) == len(groups)
                                  and all(isinstance(f, str) for f in faces)):
        return "faces: expected null or one name per group"
    seconds = head.get("build_seconds")
    if not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0 <= seconds < float("inf")):
        return "build_seconds: expected a non-negative number"
    if not isinstance(head.get("created"), str):
        return "created: expected a date string"
    return None


def load_table(pattern: Pattern, directory: Path) -> PatternTable | None:
    """The cached table, or None when missing, unreadable, for another key, truncated or corrupt.
    A file found damaged is remembered (by inode, size and time) and not read again."""
    path = directory / f"{pattern.key()}.pdb"
    try:
        info = os.stat(path)
        sign = (str(path), info.st_ino, info.st_size, info.st_mtime_ns)
    except (OSError, ValueError):
        return None
    if sign in _damaged:
        return None
    table = _load(pattern, path)
    if table is None:
        _damaged.add(sign)
    return table


def _load(pattern: Pattern, path: Path) -> PatternTable | None:
    found = read_header(path)
    if found is None:
        return None
    head, offset = found
    g = pattern.geometry
    expect = {"key": pattern.key(), "rows": g.rows, "cols": g.cols, "blank": g.blank,
              "groups": [list(grp) for grp in pattern.groups], "entries": pattern.entries}
    if any(head[k] != v for k, v in expect.items()):
        return None
    nbytes = head["bytes"]
    try:
        data = np.fromfile(path, dtype=np.uint8, count=nbytes + 1, offset=offset)
    except (OSError, ValueError, MemoryError):
        return None
    if data.shape[0] != nbytes or zlib.crc32(data) != head["crc32"]:
        return None
    return PatternTable(pattern, data, head["packed"], float(head["build_seconds"]), True, path)


def is_cached(pattern: Pattern, directory: Path | None = None) -> bool:
    """True when a table for `pattern` is in memory or its cache file has a valid header (the data
    is not read: `missing_tables` verifies it)."""
    if pattern.key() in _memo:
        return True
    found = read_header((directory or cache_dir()) / f"{pattern.key()}.pdb")
    return found is not None and found[0].get("key") == pattern.key()


def get_table(pattern: Pattern, progress: Progress | None = None, face_names: Sequence[str] | None = None,
              directory: Path | None = None, min_cached: int = MIN_CACHED_ENTRIES) -> PatternTable:
    """The table from memory, else from the cache, else built (and cached when large enough)."""
    table = known_table(pattern, directory, min_cached)
    if table is None:
        table = store_table(build_table(pattern, progress), face_names, directory, min_cached)
    return table


def known_table(pattern: Pattern, directory: Path | None = None,
                min_cached: int = MIN_CACHED_ENTRIES) -> PatternTable | None:
    """The table from memory or from a valid cache file, else None."""
    key = pattern.key()
    if key in _memo:
        return _memo[key]
    table = load_table(pattern, directory or cache_dir()) if pattern.entries >= min_cached else None
    if table is not None:
        _remember(key, table)
    return table


def store_table(table: PatternTable, face_names: Sequence[str] | None = None, directory: Path | None = None,
                min_cached: int = MIN_CACHED_ENTRIES) -> PatternTable:
    """Keep a freshly built table in memory and, when large enough, in the cache."""
    if table.pattern.entries >= min_cached:
        try:
            table.path = save_table(table, directory or cache_dir(), face_names)
        except OSError:
            pass  # an unwritable cache only costs a rebuild next time
    _remember(table.pattern.key(), table)
    return table


def _remember(key: str, table: PatternTable) -> None:
    """Keep tables in memory for this process, dropping the oldest beyond MEMO_BYTES."""
    with _memo_lock:   # build threads store their tables at the same time
        _memo[key] = table
        while sum(t.data.nbytes for t in _memo.values()) > MEMO_BYTES and len(_memo) > 1:
            del _memo[next(iter(_memo))]


@dataclass(frozen=True)
class CacheEntry:
    """One file of the cache, as `cache_info` lists it."""

    path: Path
    size: int                  # bytes on disk
    valid_header: bool         # False: not a table file of this format (it would be rebuilt)
    key: str | None = None
    board: str = "?"           # rows x cols
    blank: int | None = None   # the blank's goal cell
    groups: list[list[int]] | None = None  # goal cells of each face group
    faces: list[str] | None = None         # the groups' face names when first built
    entries: int | None = None
    packed: bool | None = None
    build_seconds: float | None = None


def _cache_files(directory: Path, *patterns: str) -> list[Path]:
    """Names in the cache directory matching the glob patterns; [] when it cannot be listed."""
    try:
        if not directory.is_dir():
            return []
        return sorted(path for pattern in patterns for path in directory.glob(pattern))
    except (OSError, ValueError):
        return []


def cache_info(directory: Path | None = None) -> list[CacheEntry]:
    """Every table file in the cache directory (header checks only; loading verifies the CRC).
    Files that are not valid tables (damaged headers, links that loop or dangle, directories,
    unreadable files) are listed with valid_header False and their own size (0 if unknown)."""
    directory = directory or cache_dir()
    out = []
    for path in _cache_files(directory, "tiles-*.pdb"):
        try:
            size = path.lstat().st_size if path.is_symlink() and not path.exists() else path.stat().st_size
        except OSError:
            size = 0
        found = read_header(path)
        if found is None:
            out.append(CacheEntry(path, size, False))
            continue
        head = found[0]
        out.append(CacheEntry(path, size, True, head["key"], f"{head['rows']}x{head['cols']}", head["blank"],
                              head["groups"], head["faces"], head["entries"], head["packed"], head["build_seconds"]))
    return out


def clear_cache(directory: Path | None = None) -> int:
    """Delete every table (and stale temporary) file; returns how many were removed (names that
    cannot be removed, e.g. directories, are left)."""
    directory = directory or cache_dir()
    removed = 0
    for path in _cache_files(directory, "tiles-*.pdb", ".tmp-*.part"):
        try:
            path.unlink(missing_ok=True)
            removed += 1
        except OSError:
            pass
    _memo.clear()
    _last_arrays.clear()
    _damaged.clear()
    return removed


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
        if _last_arrays and _last_arrays[0] == key:
            return _last_arrays[1]
        arrays = self._kernel_arrays(nfaces)
        _last_arrays[:] = [key, arrays]
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
                _binomials(self.geometry.n))

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
            np.zeros((0, nfaces), dtype=np.int64), _binomials(1))  # no pattern: ranks are never computed


def partition_of(geometry: Geometry, faces: Sequence[str], partition: Sequence[Sequence[str]] | None,
                 max_entries: int = DEFAULT_MAX_ENTRIES, budget: float = DEFAULT_BUDGET_SECONDS) -> list[Pattern]:
    """Patterns from explicit face names (each face at most once), or the automatic partition."""
    if partition is None:
        return [Pattern.of(geometry, p) for p in auto_partition(geometry, max_entries, budget)]
    index = {name: i for i, name in enumerate(faces)}
    seen: set[int] = set()
    out = []
    for names in partition:
        ids = []
        for name in names:
            if name not in index or index[name] == 0:
                raise ValueError(f"unknown face {name!r} in the pattern partition")
            if index[name] in seen:
                raise ValueError(f"face {name!r} is in two patterns; patterns must be disjoint")
            seen.add(index[name])
            ids.append(index[name])
        if ids:
            out.append(Pattern.of(geometry, ids))
    return out


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
        return store_table(build_table(p, step, parallel), face_names, directory, min_cached)

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


def cached_partition(geometry: Geometry, budget: float = DEFAULT_BUDGET_SECONDS,
                     directory: Path | None = None) -> list[Pattern] | None:
    """The largest disjoint cached tables for this board and goal (e.g. a 7-8 split built once
    with `puzzleplan pdb build --partition`), the faces they leave in automatic patterns; None
    when no cached table fits this geometry."""
    by_goal = {geometry.goal_cells(f): f for f in geometry.faces()}
    found = []
    for entry in cache_info(directory):
        if not entry.valid_header or entry.board != f"{geometry.rows}x{geometry.cols}" \
                or entry.blank != geometry.blank or not entry.groups:
            continue
        faces = [by_goal.get(tuple(cells)) for cells in entry.groups]
        if None not in faces:
            pattern = Pattern.of(geometry, [f for f in faces if f is not None])
            if pattern.key() == entry.key:
                found.append(pattern)
    chosen: list[Pattern] = []
    used: set[int] = set()
    for pattern in sorted(found, key=lambda p: -p.entries):
        if used.isdisjoint(pattern.faces):
            chosen.append(pattern)
            used.update(pattern.faces)
    if not chosen:
        return None
    rest = [f for f in geometry.faces() if f not in used]
    return chosen + [Pattern.of(geometry, p) for p in auto_partition(geometry, budget=budget, faces=rest)]


def usable(geometry: Geometry) -> bool:
    """Pattern databases apply: a board small enough for int64 bitboards, with at least one tile."""
    return geometry.n <= MAX_CELLS and bool(geometry.faces())


def missing_tables(patterns: Sequence[Pattern], directory: Path | None = None,
                   min_cached: int = MIN_CACHED_ENTRIES) -> list[Pattern]:
    """The patterns whose tables would have to be built: not in memory, and no cache file that
    loads completely with a valid header and CRC (a damaged file counts as missing; the tables
    that load are kept in memory for the build that follows)."""
    return [p for p in patterns if known_table(p, directory, min_cached) is None]


def missing_seconds(patterns: Sequence[Pattern], directory: Path | None = None) -> float:
    """Estimated seconds to build the tables of `patterns` that `missing_tables` names."""
    return sum(estimate_seconds(p) for p in missing_tables(patterns, directory))


def cheap_or_cached(patterns: Sequence[Pattern], budget: float = DEFAULT_BUDGET_SECONDS,
                    directory: Path | None = None) -> bool:
    """True when the tables that would have to be built (damaged cache files included) are
    estimated to build within `budget` seconds."""
    return missing_seconds(patterns, directory) <= budget


def databases_for(model: Any, partition: Sequence[Sequence[str]] | None = None, progress: Progress | None = None,
                  budget: float = DEFAULT_BUDGET_SECONDS, memory_limit_mb: float | None = None,
                  time_limit: float | None = None) -> PatternDatabases:
    """Load, or build and cache, the databases a search of this tiles model uses (any object with
    rows, cols, goal and faces): what `puzzleplan pdb build` runs.

    partition: face names per pattern (None: the automatic split sized by `budget` seconds).
    memory_limit_mb: refuse (ValueError naming the size, before allocating) tables whose build
    needs more (None: `default_memory_limit_mb()`). time_limit: seconds after which a build
    stops with LimitReached (plans.context); `progress` may raise to stop it as well.
    """
    geometry = Geometry(model.rows, model.cols, model.goal)
    if not usable(geometry):
        raise ValueError(f"pattern databases need a board of at most {MAX_CELLS} cells")
    patterns = partition_of(geometry, model.faces, partition, budget=budget)
    return build_databases(geometry, patterns, progress, model.faces, memory_limit_mb=memory_limit_mb,
                           time_limit=time_limit)
