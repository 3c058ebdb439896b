"""Sliding-tiles states packed into one uint64, and the move rule applied to arrays of them.

Key: cell i's face index in bits 4i..4i+3 (so at most 15 cells and 15 tile faces), the blank's
cell in bits 60..63. A move swaps the blank with its neighbour in the model's `neighbours`
(`board.Board.neighbours`, the one statement of the board's adjacency); `tests/test_packed.py`
checks that the moves produced here are exactly `TilesPuzzle.successors`. Move code: the
blank's direction (U R D L).
"""
from __future__ import annotations

import numpy as np

from puzzleplan.models.tiles.board import BLANK_INDEX, Instance

BLANK_SHIFT = np.uint64(60)
NIBBLE = np.uint64(15)


class TilesPacked:
    """The packed space of one TilesPuzzle (see module docstring)."""

    reversible = True

    def __init__(self, model: Instance) -> None:
        self.nbr = np.array(model.neighbours, dtype=np.int64)
        self.goal = np.uint64(self.pack(model.goal))

    @staticmethod
    def fits(model: Instance) -> bool:
        return model.n <= 15 and len(model.faces) <= 16

    @staticmethod
    def pack(state: bytes) -> int:
        key = state.index(BLANK_INDEX) << 60
        for cell, face in enumerate(state):
            key |= face << (4 * cell)
        return key

    def expand(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        blank = (keys >> BLANK_SHIFT).astype(np.int64)
        children, parents, codes = [], [], []
        for direction in range(4):
            cell = self.nbr[blank, direction]
            rows = np.flatnonzero(cell >= 0)
            key, b, c = keys[rows], blank[rows].astype(np.uint64), cell[rows].astype(np.uint64)
            face = (key >> (np.uint64(4) * c)) & NIBBLE
            moved = (key & ~(NIBBLE << (np.uint64(4) * c)) & ~(NIBBLE << BLANK_SHIFT)) \
                | (face << (np.uint64(4) * b)) | (c << BLANK_SHIFT)
            children.append(moved)
            parents.append(rows)
            codes.append(np.full(rows.size, direction, dtype=np.int64))
        return np.concatenate(children), np.concatenate(parents), np.concatenate(codes)

    def goal_mask(self, keys: np.ndarray) -> np.ndarray:
        return keys == self.goal

    def action(self, code: int) -> int:
        return code
