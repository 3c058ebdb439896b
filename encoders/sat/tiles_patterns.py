"""Small additive pattern tables for the tiles propagator on small boards, built in numpy.

A pattern is a set of faces, as in models/tiles/pdb.py: its table holds, for every placement of
the pattern's tiles, the fewest moves *of those tiles* that bring them to goal cells of their
faces, the other tiles ignored (the blank moves through them for free). Every move moves one
tile, which belongs to one pattern, so the values of disjoint patterns add up to at most the
moves left: the sum is admissible, also with repeated faces (the table's goal states are all
the ways identical tiles can fill their goal cells). Patterns hold at most MAX_TILES tiles and
at least two patterns split the tiles, so no table is the puzzle's own distance table.

The tables are built by a 0-1 breadth-first search from the goal over (tile cells, blank cell),
a state being the mixed-radix number sum(cell_i * n**i) with the blank as the top digit (n**(k+1)
slots, most unused): 15-25 ms per 4-tile table on a 3x3 board. The compiled pattern
databases (models/tiles/pdb.py) would need their kernels loaded, about a second per solver
process, more than the whole search there.
"""
from __future__ import annotations

from itertools import permutations
from typing import Any

import numpy as np

MAX_TILES = 4           # tiles per pattern
MAX_SLOTS = 1 << 21     # n**(tiles + 1): the largest index space built
FAR = 255


def partition(model: Any) -> list[list[int]] | None:
    """The faces (with their copies) cut into patterns of at most MAX_TILES tiles, in reading
    order of their goal cells, at least two patterns; None when the board is too large or has
    fewer than two tiles."""
    faces: list[int] = []
    for f in model.goal:
        if f and f not in faces:
            faces.append(f)
    tiles = sum(model.goal.count(f) for f in faces)
    if tiles < 2:
        return None
    size = min(MAX_TILES, (tiles + 1) // 2)
    if model.n ** (size + 1) > MAX_SLOTS:
        return None
    out: list[list[int]] = [[]]
    for f in faces:
        copies = model.goal.count(f)
        if copies > size:
            return None
        if sum(model.goal.count(g) for g in out[-1]) + copies > size:
            out.append([])
        out[-1].append(f)
    return out


def build(model: Any, faces: list[int]) -> tuple[np.ndarray, list[int]]:
    """The table of one pattern (indexed by sum(cell_i * n**i) over its tiles, in the order of
    the returned face list, one entry per copy) and that face list."""
    n = model.n
    tiles = [f for f in faces for _ in range(model.goal.count(f))]
    k = len(tiles)
    nbr = np.array(model.neighbours, dtype=np.int64).reshape(n, 4)
    weight = n ** np.arange(k + 1, dtype=np.int64)
    dist = np.full(n ** (k + 1), FAR, dtype=np.uint8)
    # goal states: every way identical tiles fill their goal cells, the blank on its goal cell
    slots: list[list[int]] = [[]]
    for f in faces:
        cells = [c for c, g in enumerate(model.goal) if g == f]
        slots = [s + list(p) for s in slots for p in permutations(cells)]
    blank = model.goal.index(0)
    frontier = np.unique(np.array([sum(c * n ** i for i, c in enumerate(s)) + blank * n ** k for s in slots],
                                  dtype=np.int64))
    d = 0
    while frontier.size:
        dist[frontier] = d
        layer, free = [frontier], frontier
        while free.size:      # the blank's free moves: cost 0
            free, _ = _moves(free, nbr, weight, k, n)
            free = np.unique(free[dist[free] == FAR])
            dist[free] = d
            layer.append(free)
        whole = np.concatenate(layer)
        _, paid = _moves(whole, nbr, weight, k, n)
        frontier = np.unique(paid[dist[paid] == FAR])
        d += 1
    return dist.reshape(n, n ** k).min(axis=0), tiles


def _moves(states: np.ndarray, nbr: np.ndarray, weight: np.ndarray, k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Successors of `states`: (blank moves onto a free cell, blank moves onto a pattern tile)."""
    cells = (states[:, None] // weight[None, :]) % n       # [s, k+1]: tile cells, then the blank
    blank = cells[:, k]
    free_out, paid_out = [], []
    for direction in range(4):
        to = nbr[blank, direction]
        ok = to >= 0
        hit = cells[:, :k] == to[:, None]                   # which tile (if any) sits there
        moved = hit.any(axis=1)
        step = (to - blank) * weight[k]
        free_out.append((states + step)[ok & ~moved])
        tile = np.argmax(hit, axis=1)
        paid = states + step + (blank - to) * weight[tile]
        paid_out.append(paid[ok & moved])
    return np.concatenate(free_out), np.concatenate(paid_out)


class PatternBound:
    """The sum of the small pattern tables of a partition (admissible, see the module docstring),
    with witnesses: the tiles of the largest pattern values."""

    def __init__(self, model: Any, groups: list[list[int]]) -> None:
        self.n = model.n
        self.tables: list[list[int]] = []
        self.tiles: list[list[int]] = []
        for faces in groups:
            table, tiles = build(model, faces)
            self.tables.append(table.tolist())
            self.tiles.append(tiles)
        # face -> (its pattern, the index weight of each of its copies)
        self.weights: dict[int, tuple[int, list[int]]] = {}
        for g, tiles in enumerate(self.tiles):
            for f in set(tiles):
                self.weights[f] = (g, [self.n ** i for i, x in enumerate(tiles) if x == f])
        self.label = "additive pattern tables " + "-".join(str(len(t)) for t in self.tiles)

    def parts(self, board: Any) -> list[int]:
        """Each pattern's table value for `board` (face index per cell)."""
        index = [0] * len(self.tables)
        seen = dict.fromkeys(self.weights, 0)
        for c, f in enumerate(board):
            w = self.weights.get(f)
            if w is not None:
                g, scales = w
                index[g] += c * scales[seen[f]]
                seen[f] += 1
        return [table[i] for table, i in zip(self.tables, index)]

    def value(self, board: Any) -> int:
        return sum(self.parts(board))

    def witness(self, board: Any, bound: int) -> list[tuple[int, int]] | None:
        """None when the sum is <= bound; else (face, cell) of the tiles of the largest pattern
        values whose sum alone exceeds `bound`."""
        parts = self.parts(board)
        if sum(parts) <= bound:
            return None
        total, faces = 0, set()
        for g in sorted(range(len(parts)), key=lambda q: -parts[q]):
            total += parts[g]
            faces.update(self.tiles[g])
            if total > bound:
                break
        return [(f, c) for c, f in enumerate(board) if f in faces]
