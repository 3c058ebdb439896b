"""Patterns of pattern databases: the board a table is for, the face sets, and how they are chosen.

A *pattern* is a set of faces, never of tile ids: all tiles showing a face in the pattern belong
to it (see `puzzleplan.models.tiles.pdb` for why disjoint patterns add up admissibly). Here:
the `Geometry` (board size and goal layout, read from `board`), `Pattern` and its table key
and size, the automatic partition into bands of neighbouring goal cells, explicit partitions
by face names, and the board's symmetries (the transposed lookup).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from math import comb
from typing import Iterable, Sequence

import numpy as np

from puzzleplan.models.tiles.board import BLANK_INDEX, Board

FORMAT = 1                  # of the tables and their cache files: part of every table's key
MAX_CELLS = 49              # int64 bitboards, and a seen-bit per free cell in an int64 record
DEFAULT_MAX_ENTRIES = 60_000_000


def _budget_from_environment() -> float:
    """$PUZZLEPLAN_PDB_BUDGET (seconds; tests use a small one), else 30; ValueError naming it."""
    text = os.environ.get("PUZZLEPLAN_PDB_BUDGET", "30")
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1e9:
        raise ValueError(f"PUZZLEPLAN_PDB_BUDGET: expected seconds above 0, got {text.strip()[:40]!r}")
    return value


DEFAULT_BUDGET_SECONDS = _budget_from_environment()
SECONDS_PER_ENTRY = 1.0e-6   # build time per table entry (measured: 0.6 to 1.9 us on 2 shared cores)
# Tables together hold at most this fraction of the board's layouts: on a small board with
# repeated faces (4x3: 60 M layouts) tables near its size took longer to build than a
# breadth-first search of the whole space (19 s against 3.6 s).
SPACE_SHARE = 32
SMALL_TABLES = 1_000_000     # entries that build in about a second, allowed on any board (the
                             # 8-puzzle's one table of all 8 tiles: a perfect heuristic)


@dataclass(frozen=True)
class Geometry:
    """The board a table is built for: size and the goal layout (face index per cell)."""

    rows: int
    cols: int
    goal: bytes

    @property
    def board(self) -> Board:
        return Board(self.rows, self.cols)

    @property
    def n(self) -> int:
        return self.rows * self.cols

    @property
    def blank(self) -> int:
        return self.goal.index(BLANK_INDEX)

    def goal_cells(self, face: int) -> tuple[int, ...]:
        return tuple(c for c, f in enumerate(self.goal) if f == face)

    def faces(self) -> list[int]:
        """The tile faces (not the blank), in index order."""
        return sorted(set(self.goal) - {BLANK_INDEX})

    def neighbours(self) -> np.ndarray:
        """[n, 4] neighbour cell in directions U R D L, or -1 (`Board.neighbour_array`)."""
        return self.board.neighbour_array()

    def manhattan(self) -> np.ndarray:
        """[n, n] Manhattan distance between cells (`Board.distances`)."""
        return self.board.distances()


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


def layouts(geometry: Geometry) -> int:
    """The board's layouts of its faces and blank (a multinomial coefficient): at least as many
    as its reachable states."""
    return pattern_entries(geometry.n, [geometry.goal.count(f) for f in set(geometry.goal)])


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


# -- choosing patterns ------------------------------------------------------------------------
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
    room = min(budget / SECONDS_PER_ENTRY, max(layouts(geometry) / SPACE_SHARE, SMALL_TABLES))
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
    """Faces by their nearest goal cell's distance from the blank's goal cell in reading order
    (row by row, or column by column on a board taller than wide)."""
    board = geometry.board

    def index(cell: int) -> int:
        return cell if board.cols >= board.rows else board.transpose(cell)

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
    cellmap = np.array([geometry.board.transpose(c) for c in range(n)], dtype=np.int64)
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


def usable(geometry: Geometry) -> bool:
    """Pattern databases apply: a board small enough for int64 bitboards, with at least one tile."""
    return geometry.n <= MAX_CELLS and bool(geometry.faces())

