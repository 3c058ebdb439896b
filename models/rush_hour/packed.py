"""Rush Hour states packed into one uint64, and the move rule applied to whole arrays of them.

Key: each vehicle's offset in a bit field just wide enough for its largest offset. Occupancy is a
bitboard of the rows*cols cells (at most 64), built from the board's tables (`board.Board`:
`masks`, and `runs`, the cells each move enters): those tables are the one statement of where a
vehicle is and which cell it crosses next, and `tests/test_packed.py` checks that the moves
produced here are exactly `RushHour.successors`. The model is passed in (typed under
TYPE_CHECKING only: this module never imports it).
Move code: vehicle * 64 + (signed distance + 32).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from puzzleplan.models.rush_hour.model import RushHour

BLOCKED = np.uint64(2**64 - 1)   # the "cell" beyond the board's edge: always occupied


class RushHourPacked:
    """The packed space of one RushHour model (see module docstring)."""

    reversible = True

    def __init__(self, model: "RushHour") -> None:
        self.model = model
        board = model.board
        nv = len(board.vehicles)
        spans = board.spans
        top = [s - v.length for s, v in zip(spans, board.vehicles)]     # largest offset
        widths = [max(1, int(t).bit_length()) for t in top]
        self.shift = np.cumsum([0] + widths[:-1]).astype(np.uint64)
        self.field = np.array([(1 << w) - 1 for w in widths], dtype=np.uint64)
        self.unit = np.uint64(1) << self.shift                          # offset + 1
        width = max(spans)
        self.width = width
        # masks[v, o]: cells of vehicle v at offset o; behind/ahead[v, o, d - 1]: the cell entered
        # moving d cells back / forward (BLOCKED past the edge).
        self.masks = np.zeros((nv, width), dtype=np.uint64)
        self.behind = np.full((nv, width, width), BLOCKED, dtype=np.uint64)
        self.ahead = np.full((nv, width, width), BLOCKED, dtype=np.uint64)
        for v in range(nv):
            for o, m in enumerate(board.masks[v]):
                self.masks[v, o] = m
                back, forward = board.runs[v][o]
                for table, run in ((self.behind, back), (self.ahead, forward)):
                    for d, (bit, _, _) in enumerate(run):
                        table[v, o, d] = bit
        self.flat_base = (np.arange(nv, dtype=np.intp) * width)[None, :]
        self.wall = np.uint64(board.wall_mask)
        self.max_distance = 1 if model.metric == "step" else width - 1
        p = board.primary
        self.goal_shift, self.goal_field = self.shift[p], self.field[p]
        self.goal_offset = np.uint64(board.goal_offset)

    @staticmethod
    def fits(model: "RushHour") -> bool:
        """True when the board has at most 64 cells and the offsets fit 64 bits."""
        board = model.board
        bits = sum(max(1, s - v.length).bit_length() for s, v in zip(board.spans, board.vehicles))
        return board.rows * board.cols <= 64 and bits <= 64

    def pack(self, state: bytes) -> int:
        return sum(int(o) << int(s) for o, s in zip(state, self.shift))

    def unpack(self, key: int) -> bytes:
        return bytes((key >> int(s)) & int(f) for s, f in zip(self.shift, self.field))

    def offsets(self, keys: np.ndarray) -> np.ndarray:
        """[N, V] offsets of every vehicle."""
        return ((keys[:, None] >> self.shift[None, :]) & self.field[None, :]).astype(np.intp)

    def expand(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cell = self.offsets(keys) + self.flat_base          # [N, V] index of (vehicle, offset)
        occ = np.bitwise_or.reduce(self.masks.ravel()[cell], axis=1) | self.wall
        children, parents, codes = [], [], []
        w = self.width
        for table, sign in ((self.behind.ravel(), -1), (self.ahead.ravel(), 1)):
            rows, vs = np.nonzero((table[cell * w] & occ[:, None]) == 0)  # one cell free that way
            at = cell[rows, vs] * w
            d = 1
            while rows.size:
                step = self.unit[vs] * np.uint64(d)
                children.append(keys[rows] + step if sign > 0 else keys[rows] - step)
                parents.append(rows)
                codes.append(vs * 64 + (sign * d + 32))
                if d == self.max_distance:
                    break
                free = (table[at + d] & occ[rows]) == 0                      # and the next one
                rows, vs, at = rows[free], vs[free], at[free]
                d += 1
        if not children:
            empty = np.zeros(0, dtype=np.intp)
            return np.zeros(0, dtype=np.uint64), empty, empty
        return np.concatenate(children), np.concatenate(parents), np.concatenate(codes)

    def goal_mask(self, keys: np.ndarray) -> np.ndarray:
        return ((keys >> self.goal_shift) & self.goal_field) == self.goal_offset

    def action(self, code: int) -> tuple[int, int]:
        return code // 64, code % 64 - 32
