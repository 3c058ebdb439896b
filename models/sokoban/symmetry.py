"""The level's symmetries that the push engine may fold states by.

A symmetry is one of the eight turns and mirrors of the grid that maps the floor cells onto
themselves, the goals onto the goals, the start boxes onto the start boxes, the player goal (if
any) onto itself, and the player onto its own cell (`exact`) or into its own start area (the
player normalised, under pushes).

Why folding a state s with its image σ(s) keeps every optimum: σ is an automorphism of the
push graph (it maps walls, floor, every walk and every push, with the same walk length, onto
themselves), so σ maps each plan from s onto a plan from σ(s) of the same pushes and moves, and
since σ fixes the goals (and the player goal) a solution onto a solution: s and σ(s) are as far
from solved. As σ fixes the start as well, it maps each path from the start to s onto one of the
same cost from the start to σ(s): both are as far from the start too. So A* may store one
representative of {s, σ(s), ...} (the least, `kernel_rules.canonical`) with the cost of the
cheapest path to any of them; a plan to the representative turns into a plan of the same cost
to the real state by mapping each push back (`Symmetries.unfold`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from puzzleplan.models.sokoban.level import DELTAS

if TYPE_CHECKING:
    from puzzleplan.models.sokoban.model import Sokoban

# the eight linear maps of the grid, as (r, c) -> (a*r + b*c, e*r + f*c)
TURNS = ((1, 0, 0, 1), (1, 0, 0, -1), (-1, 0, 0, 1), (-1, 0, 0, -1),
         (0, 1, 1, 0), (0, 1, -1, 0), (0, -1, 1, 0), (0, -1, -1, 0))


@dataclass(frozen=True)
class Symmetries:
    """The symmetries other than the identity: cells[k, c] is the image of cell c under the
    k-th, dirs[k, d] the image of direction d; `inverse[k]` is the index of its inverse."""

    cells: np.ndarray       # int16 [k, n]
    dirs: np.ndarray        # int64 [k, 4]
    inverse: tuple[int, ...]

    @property
    def count(self) -> int:
        return int(self.cells.shape[0])

    def unfold(self, steps: Sequence[tuple[int, int, int]]) -> list[tuple[int, int]]:
        """The real pushes (box cell, direction) of a path of stored states: each step is the
        push (box cell, direction) that made a state, in its parent's frame, and the symmetry
        (0: none, k + 1: the k-th) that folded the child into the state stored."""
        n = self.cells.shape[1]
        frame = np.arange(n)                # maps a stored state's cells onto the real ones
        frame_dirs = np.arange(4)
        out = []
        for cell, d, k in steps:
            out.append((int(frame[cell]), int(frame_dirs[d])))
            if k > 0:
                inv = self.inverse[k - 1]
                # real = frame(child) and stored = σ(child), so the new frame is frame ∘ σ^-1
                frame = frame[self.cells[inv]]
                frame_dirs = frame_dirs[self.dirs[inv]]
        return out


def find(model: "Sokoban", exact: bool) -> Symmetries:
    """The symmetries of `model`'s level and start (see the module's docstring); `exact`: the
    player's own cell must be fixed, else only its start area."""
    cells = list(model.cells)
    index = model.index
    goals = set(model.goal_cells)
    boxes = {index[b] for b in model.level.boxes}
    player = model.start_player
    area = _area(model, player)
    maps: list[list[int]] = []
    dir_maps: list[list[int]] = []
    for a, b, e, f in TURNS[1:]:
        image = [(a * r + b * c, e * r + f * c) for r, c in cells]
        dr = min(r for r, _ in cells) - min(r for r, _ in image)
        dc = min(c for _, c in cells) - min(c for _, c in image)
        mapped = [index.get((r + dr, c + dc), -1) for r, c in image]
        if -1 in mapped:
            continue
        if {mapped[g] for g in goals} != goals or {mapped[x] for x in boxes} != boxes:
            continue
        if model.pg is not None and mapped[model.pg] != model.pg:
            continue
        if (mapped[player] != player) if exact else (mapped[player] not in area):
            continue
        maps.append(mapped)
        dir_maps.append([DELTAS.index((a * r + b * c, e * r + f * c)) for r, c in DELTAS])
    n = len(cells)
    table = np.array(maps, np.int16).reshape(len(maps), n)
    # they form a group (each condition survives composing and undoing), so each inverse is here
    inverse = [next(j for j in range(len(maps)) if np.array_equal(table[j], np.argsort(table[k])))
               for k in range(len(maps))]
    return Symmetries(table, np.array(dir_maps, np.int64).reshape(len(maps), 4), tuple(inverse))


def none(ncells: int) -> Symmetries:
    """No symmetry at all (folding off)."""
    return Symmetries(np.zeros((0, ncells), np.int16), np.zeros((0, 4), np.int64), ())


def _area(model: "Sokoban", player: int) -> set[int]:
    """The cells the player reaches at the start without pushing."""
    boxes = {model.index[b] for b in model.level.boxes}
    seen = {player}
    stack = [player]
    while stack:
        for x in model.nbr[stack.pop()]:
            if x >= 0 and x not in seen and x not in boxes:
                seen.add(x)
                stack.append(x)
    return seen
