"""Building one pattern database: a compiled breadth-first search over abstract states.

The abstract state of a pattern is where its tiles are plus the region the blank can reach (the
connected component, among the cells holding no pattern tile, that contains the blank; see
`puzzleplan.models.tiles.pdb`). The search runs backwards from the goal, level by level over
bitmaps of (placement, blank region) states, the region named by its lowest cell; moving a
pattern tile costs 1, moving the blank within its region costs nothing. Large levels are split
across numba's threads (shared bits are set atomically). The compiled calls are sized to take
about CHUNK_SECONDS, and the progress callback between them may raise to stop the build.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numba
import numpy as np
from numba import njit, prange

from puzzleplan.models.tiles.pdb_patterns import MAX_CELLS, Geometry, Pattern
from puzzleplan.models.tiles.pdb_rank import (HOT, MAX_PACKED_GROUP, assignment_md, atomic_or, binomials, flood,
                                              lowest_bit, popcount, rank_cells, select_bit, table_value,
                                              unrank_cells)

Progress = Callable[[int, int], None]

UNREACHED = 255
CHUNK_WORDS = (1 << 10, 1 << 22)  # frontier words per compiled call, chosen between these bounds ...
CHUNK_SECONDS = 0.1          # ... so that a call takes about this long (see `abstract_distances`)
PARALLEL_WORDS = 1 << 12     # smaller searches run on one thread: waking the others costs more


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
def _expand_words(cur, nxt, rec, packed, w0, w1, level, gcnt, radix, binom, nbr, n, cols, not_first, not_last,
                  nfree, goals, md, out, shared):
    """`_expand_core` with freshly allocated work arrays (shared: other threads write too)."""
    m = nbr.shape[0] - nfree
    ng = gcnt.shape[1]
    work = (np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(ng, dtype=np.int64),
            np.empty(ng, dtype=np.int64), np.empty(m, dtype=np.int64), np.empty(ng, dtype=np.int64),
            np.empty(1 << min(goals.shape[1], MAX_PACKED_GROUP), dtype=np.int64))
    _expand_core(cur, nxt, rec, packed, w0, w1, level, gcnt, radix, binom, nbr, n, cols, not_first, not_last,
                 nfree, goals, md, out, work, shared)


@njit(**HOT)
def _expand_core(cur, nxt, rec, packed, w0, w1, level, gcnt, radix, binom, nbr, n, cols, not_first, not_last,
                 nfree, goals, md, out, work, shared):
    """Expand the frontier states whose bits lie in cur[w0:w1].

    A state is placement * nfree + slot, the slot being the rank among the free cells of the
    lowest cell of the blank's region. rec[placement] holds distance + 1 in its low byte (0 while
    unreached) and one seen-bit per slot above it, so a generated state costs one random memory
    access. New states go to nxt; a placement reached for the first time also gets its packed
    entry (distance - Manhattan) / 2. out += [new states, new placements, entries that do not pack,
    states expanded]. not_first, not_last: `Board.edge_masks` (for `flood`).
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
def _expand_parallel(cur, nxt, rec, packed, w0, w1, level, gcnt, radix, binom, nbr, n, cols, not_first, not_last,
                     nfree, goals, md, out):
    """`_expand_words` over cur[w0:w1] split across threads. Records, frontier words and nibbles
    are shared, so they are updated with atomic ORs; the returned old record tells exactly one
    thread that it claimed a new state or placement."""
    pieces = 64
    counts = np.zeros((pieces, 4), dtype=np.int64)
    # a bool, not the literal True: a literal is another signature of _expand_words, which
    # warm-up (one of the two paths) would leave to be compiled in a user's timed run
    shared = pieces > 1
    for k in prange(pieces):
        a = w0 + (w1 - w0) * k // pieces
        b = w0 + (w1 - w0) * (k + 1) // pieces
        _expand_words(cur, nxt, rec, packed, a, b, level, gcnt, radix, binom, nbr, n, cols, not_first, not_last,
                      nfree, goals, md, counts[k], shared)
    for k in range(pieces):
        for j in range(4):
            out[j] += counts[k, j]


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
    binom = binomials(n)
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
    not_first, not_last = g.board.edge_masks()
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
                _expand_parallel(cur, nxt, rec, packed, w0, hi, level, gcnt, radix, binom, nbr, n, g.cols, not_first,
                                 not_last, nfree, goals, md, out)
            else:
                _expand_words(cur, nxt, rec, packed, w0, hi, level, gcnt, radix, binom, nbr, n, g.cols, not_first,
                              not_last, nfree, goals, md, out, False)
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
