"""Sliding-block states packed into one uint64, and the move rule applied to whole arrays of them.

Key: each slot's anchor as its index among that slot's legal anchors (`sorted(board.masks(slot))`)
in a bit field just wide enough. Within a class of look-alikes the slots share one anchor list, so
sorted indices are sorted anchors: the canonical form of `board.moved`.

Moves are computed on bitboards of the (at most 64) cells, in cell space: a piece's cells are its
anchor's bit shifted by the offsets of its shape, so "the piece fits at anchor a with the other
pieces' cells free" is, for every anchor at once, the slot's legal anchors ANDed with the free
cells shifted down by each offset (`fit`). A unit step is a shift of the anchor bit (by 1 or by
`cols`, dropping bits that wrap round a row) masked by `fit`; a slide repeats it in one direction;
`piece` floods it to a fixpoint. Every destination is then one child. `fits` checks that this
cell-space reading agrees with `board.masks` and `board.step` for every slot, anchor and
direction, and `tests/test_blocks_packed.py` that the moves are exactly `Blocks.successors`.

Move code: (slot * 64 + from anchor) * 64 + destination anchor; the slot is the parent's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from puzzleplan.models.blocks.board import DIRECTIONS, Board

if TYPE_CHECKING:
    from puzzleplan.models.blocks.model import Blocks, Move, State

ONE = np.uint64(1)


def _legal_bits(board: Board, slot: int) -> int:
    return sum(1 << a for a in board.masks(slot))


def _shift_step(board: Board, bits: int, direction: str) -> int:
    """The anchor bits one cell away in `direction` (no wrap round a row), as python ints."""
    cols, full = board.cols, (1 << board.rows * board.cols) - 1
    left_col = sum(1 << board.index(r, 0) for r in range(board.rows))
    right_col = left_col << (cols - 1)
    if direction == "R":
        return (bits << 1) & ~left_col & full
    if direction == "L":
        return (bits >> 1) & ~right_col
    if direction == "D":
        return (bits << cols) & full
    return bits >> cols


def _shape_offsets(board: Board, slot: int) -> list[int] | None:
    """The cell offsets (from the anchor) of the slot's piece, when one pattern gives its mask at
    every legal anchor; None otherwise."""
    masks = board.masks(slot)
    first = min(masks)
    pattern = masks[first] >> first
    if any(m != pattern << a for a, m in masks.items()):
        return None
    return [i for i in range(pattern.bit_length()) if pattern >> i & 1]


class BlocksPacked:
    """The packed space of one Blocks model (see module docstring)."""

    reversible = True   # a step, slide or piece move is undone by the same move back: its route stays free

    def __init__(self, model: "Blocks") -> None:
        self.model = model
        board = self.board = model.board
        n = self.slots = len(board.slot_class)
        anchors = [sorted(board.masks(s)) for s in range(n)]
        widths = [(len(a) - 1).bit_length() for a in anchors]
        self.shift = np.cumsum([0] + widths[:-1]).astype(np.uint64)
        self.field = np.array([(1 << w) - 1 for w in widths], dtype=np.uint64)
        self.index_of = [{a: i for i, a in enumerate(row)} for row in anchors]
        width = max(len(a) for a in anchors)
        self.width = width
        self.base = (np.arange(n, dtype=np.intp) * width)[None, :]
        self.anchor_at = np.zeros((n, width), dtype=np.uint64)     # [slot, index] -> anchor cell (flat)
        self.cells_at = np.zeros((n, width), dtype=np.uint64)      # [slot, index] -> cell bits
        self.index_at = np.zeros((n, 64), dtype=np.uint64)         # [slot, anchor] -> index
        for s, row in enumerate(anchors):
            masks = board.masks(s)
            for i, a in enumerate(row):
                self.anchor_at[s, i], self.cells_at[s, i], self.index_at[s, a] = a, masks[a], i
        self.anchor_at, self.cells_at, self.index_at = self.anchor_at.ravel(), self.cells_at.ravel(), self.index_at.ravel()
        self.legal = np.array([_legal_bits(board, s) for s in range(n)], dtype=np.uint64)[None, :]
        offsets = [_shape_offsets(board, s) or [0] for s in range(n)]   # never None once `fits`
        depth = max(len(o) for o in offsets)   # padded by repeating an offset: AND is idempotent
        self.offsets = np.array([o + [o[0]] * (depth - len(o)) for o in offsets], dtype=np.uint64)
        self.cols = np.uint64(board.cols)
        left = sum(1 << board.index(r, 0) for r in range(board.rows))
        self.not_left = np.uint64(~left & (2**64 - 1))
        self.not_right = np.uint64(~(left << (board.cols - 1)) & (2**64 - 1))
        self.classes = [(lo, hi) for lo, hi in board.class_span]
        self.metric = model.metric
        self._goal()

    @staticmethod
    def fits(model: "Blocks") -> bool:
        """True when the board has at most 64 cells, the fields fit 64 bits and the cell-space
        move rule agrees with the board's (`board.masks`, `board.step`) everywhere."""
        board = model.board
        n = len(board.slot_class)
        if board.rows * board.cols > 64 or n == 0 or n > 64:
            return False
        if sum((len(board.masks(s)) - 1).bit_length() for s in range(n)) > 64:
            return False
        for lo, hi in board.class_span:
            if any(board.masks(s) != board.masks(lo) for s in range(lo + 1, hi)):
                return False
        for s in range(n):
            masks = board.masks(s)
            if not masks or _shape_offsets(board, s) is None:
                return False
            legal = _legal_bits(board, s)
            for a in masks:
                for d in DIRECTIONS:
                    near = _shift_step(board, 1 << a, d) & legal
                    if board.step(s, a, d) != (near.bit_length() - 1 if near else None):
                        return False
        return True

    def _goal(self) -> None:
        """The goal as (key & goal_bits) == goal_key, and the exit test's table."""
        board, model = self.board, self.model
        bits = key = 0
        self.reachable_goal = True
        for k, target in model.goal:
            lo, hi = board.class_span[k]
            if len(target) != hi - lo or any(a not in self.index_of[lo] for a in target):
                self.reachable_goal = False
                continue
            for i, a in enumerate(target):
                bits |= int(self.field[lo + i]) << int(self.shift[lo + i])
                key |= self.index_of[lo + i][a] << int(self.shift[lo + i])
        self.goal_bits, self.goal_key = np.uint64(bits), np.uint64(key)
        self.exit_slot: int | None = None
        if model.exit_goal is not None:
            slot, anchors = model.exit_goal
            self.exit_slot = slot
            self.exit_bits = np.uint64(sum(1 << i for a, i in self.index_of[slot].items() if a in anchors))

    # -- keys ---------------------------------------------------------------------------------
    def pack(self, state: "State") -> int:
        return sum(self.index_of[s][a] << int(self.shift[s]) for s, a in enumerate(state))

    def unpack(self, key: int) -> "State":
        return tuple(int(self.anchor_at[s * self.width + ((key >> int(sh)) & int(f))])
                     for s, (sh, f) in enumerate(zip(self.shift, self.field)))

    def indices(self, keys: np.ndarray) -> np.ndarray:
        """[N, slots] anchor index of every slot."""
        return ((keys[:, None] >> self.shift[None, :]) & self.field[None, :]).astype(np.intp)

    # -- moves --------------------------------------------------------------------------------
    def _near(self, bits: np.ndarray) -> np.ndarray:
        """The anchors one unit step from `bits` in any direction (walls and pieces not yet applied)."""
        return ((bits << ONE) & self.not_left) | ((bits >> ONE) & self.not_right) | (bits << self.cols) | (bits >> self.cols)

    def _line(self, bits: np.ndarray, direction: str) -> np.ndarray:
        if direction == "R":
            return (bits << ONE) & self.not_left
        if direction == "L":
            return (bits >> ONE) & self.not_right
        return bits << self.cols if direction == "D" else bits >> self.cols

    def _reach(self, start: np.ndarray, fit: np.ndarray) -> np.ndarray:
        """The destinations of each (state, slot) under the metric, from its anchor bit `start`,
        through anchors in `fit` (flat arrays; `start` excluded)."""
        if self.metric == "step":
            return self._near(start) & fit
        if self.metric == "slide":
            out = np.zeros_like(start)
            for d in DIRECTIONS:
                rows = np.arange(start.size)
                at = start
                while rows.size:
                    at = self._line(at, d) & fit[rows]
                    moved = at != 0
                    rows, at = rows[moved], at[moved]
                    out[rows] |= at
            return out
        reach = start.copy()
        rows = np.arange(start.size)
        while rows.size:                  # flood fill to a fixpoint, only over the rows still growing
            now = reach[rows]
            grown = (now | self._near(now)) & fit[rows]
            changed = grown != now
            rows = rows[changed]
            reach[rows] = grown[changed]
        return reach & ~start

    def expand(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        index = self.indices(keys)
        flat = index + self.base
        cells = self.cells_at[flat]                                   # [N, S]
        occ = np.bitwise_or.reduce(cells, axis=1)
        free = ~(occ[:, None] ^ cells)                                # cells not held by another piece
        fit = self.legal & (free >> self.offsets[None, :, 0])
        for k in range(1, self.offsets.shape[1]):
            fit &= free >> self.offsets[None, :, k]
        anchors = self.anchor_at[flat]
        start = ONE << anchors
        dest = self._reach(start.ravel(), fit.ravel()).reshape(start.shape)
        parts = [part for lo, hi in self.classes if (part := self._moves(keys, index, anchors, dest, lo, hi))[0].size]
        if not parts:
            empty = np.zeros(0, dtype=np.intp)
            return np.zeros(0, dtype=np.uint64), empty, empty
        children, parents, codes = (np.concatenate(column) for column in zip(*parts))
        return children, parents, codes

    def _moves(self, keys: np.ndarray, index: np.ndarray, anchors: np.ndarray, dest: np.ndarray,
               lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(child keys, parents, move codes) of the moves of the pieces of class lo..hi: one per
        destination bit, the moved slot's field set and the class's fields sorted again."""
        width = hi - lo
        block = dest[:, lo:hi].ravel()
        where = np.flatnonzero(block)
        left = block[where]
        found, tos = [], []
        while where.size:                 # lowest destination bit first
            low = left & (~left + ONE)
            found.append(where)
            tos.append(np.frexp(low.astype(np.float64))[1] - 1)   # exact: a power of two
            left = left ^ low
            more = left != 0
            where, left = where[more], left[more]
        if not found:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
        parent, rank = np.divmod(np.concatenate(found), width)
        to = np.concatenate(tos).astype(np.intp)
        slot = rank + lo
        frm = anchors.ravel().take(parent * self.slots + slot).astype(np.intp)
        new = self.index_at.take(slot * 64 + to)
        fields = self.field[lo:hi] << self.shift[lo:hi]
        base = keys[parent] & ~np.bitwise_or.reduce(fields)
        if width == 1:
            children = base | (new << self.shift[lo])
        else:
            group = index[parent, lo:hi].astype(np.uint64)
            group[np.arange(parent.size), rank] = new
            group.sort(axis=1)
            children = base | np.bitwise_or.reduce(group << self.shift[None, lo:hi], axis=1)
        return children, parent, (slot * 64 + frm) * 64 + to

    def goal_mask(self, keys: np.ndarray) -> np.ndarray:
        if not self.reachable_goal:
            return np.zeros(keys.shape, dtype=bool)
        ok = (keys & self.goal_bits) == self.goal_key
        if self.exit_slot is not None:
            s = self.exit_slot
            ok &= ((self.exit_bits >> ((keys >> self.shift[s]) & self.field[s])) & ONE) == ONE
        return ok

    def action(self, code: int) -> "Move":
        slot, rest = divmod(int(code), 64 * 64)
        frm, to = divmod(rest, 64)
        return slot, to, self.board.displacement(frm, to)
