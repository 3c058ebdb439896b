"""Sliding-block puzzles as a model: canonical states, moves under three metrics, goal, bound.

State: a tuple of anchor indices, one per slot; slots are grouped by class of interchangeable
pieces and each class's anchors are kept sorted (see board.py), so two positions that differ
only by swapping identical pieces are one state. An action is (slot, destination, path); its
move string is the slot's letter (the piece's rank in its class) and the path, `B:DD`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterator, Sequence

from puzzleplan.models.base import ModelBase
from puzzleplan.models.blocks.board import EMPTY, METRICS, WALL, Board, move_name
from puzzleplan.models.blocks.heuristic import bound_of
from puzzleplan.models.blocks.notation import BlocksSpec, read_document, to_yaml
from puzzleplan.models.document import Document

State = tuple[int, ...]
Move = tuple[int, int, str]     # (slot, destination anchor, path)


class Blocks(ModelBase):
    """One sliding-block instance under a metric (immutable once built)."""

    family = "blocks"
    metrics = METRICS
    default_engine = "bfs"
    notations = ("grid", "yaml")

    def __init__(self, spec: BlocksSpec, metric: str | None = None) -> None:
        self.spec = spec
        self.rows, self.cols = len(spec.grid), len(spec.grid[0])
        self.metric = metric or spec.metric
        self.name = spec.name
        self.description = spec.description
        self.max_moves = spec.max_moves
        self.expect = dict(spec.expect)
        self.distinct = frozenset(spec.distinct) | {letter for letter, _ in spec.targets} | (
            {spec.leave} if spec.leave else set())
        board, self.shift, band = self._board(spec)
        self.board = board
        self.goal = self._goal(board)
        # (slot, anchors): the piece that must leave through the exit, and its anchors wholly outside
        self.exit_goal: tuple[int, frozenset[int]] | None = None
        if spec.leave is not None:
            slot = board.slot_letter.index(spec.leave)
            self.exit_goal = (slot, frozenset(a for a, m in board.masks(slot).items() if m & ~band == 0))

    def _board(self, spec: BlocksSpec) -> tuple[Board, tuple[int, int], int]:
        """The board the pieces move on: the grid, enlarged past an exit by a band as deep as the
        leaving piece, open only to that piece (and the band's cells as bits)."""
        if spec.exit is None or spec.leave is None:
            return Board(self.rows, self.cols, spec.walls, spec.pieces, self.distinct), (0, 0), 0
        shape = next(p.shape for p in spec.pieces if p.letter == spec.leave)
        side = spec.exit.side
        depth = 1 + max(r for r, _ in shape) if side in ("top", "bottom") else 1 + max(c for _, c in shape)
        rows, cols, dr, dc, band = spec.exit.band(self.rows, self.cols, depth)
        inside = {(r + dr, c + dc) for r in range(self.rows) for c in range(self.cols)}
        walls = {(r + dr, c + dc) for r, c in spec.walls} | {
            (r, c) for r in range(rows) for c in range(cols) if (r, c) not in inside and (r, c) not in band}
        pieces = [replace(p, anchor=(p.anchor[0] + dr, p.anchor[1] + dc)) for p in spec.pieces]
        board = Board(rows, cols, walls, pieces, self.distinct, band, spec.leave)
        return board, (dr, dc), sum(1 << board.index(r, c) for r, c in band)

    def _goal(self, board: Board) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """(class, its sorted target anchors) for every class the goal constrains."""
        dr, dc = self.shift
        if self.spec.layout is None:
            where = {letter: board.index(r + dr, c + dc) for letter, (r, c) in self.spec.targets}
            return tuple((board.slot_class[s], (where[letter],)) for s, letter in enumerate(board.slot_letter)
                         if letter in where)
        target = {p.letter: p.anchor for p in self.spec.layout_pieces}
        return tuple((k, tuple(sorted(board.index(*target[p.letter]) for p in group)))
                     for k, group in enumerate(board.classes))

    @classmethod
    def from_document(cls, doc: Document) -> "Blocks":
        return cls(read_document(doc))

    def with_options(self, metric: str | None = None, **_: Any) -> "Blocks":
        """The same instance under another metric (a new sealed model); the other families'
        options (such as Sokoban's `prune`) have no meaning here and change nothing."""
        return Blocks(self.spec, self.checked_metric(metric) if metric else self.metric).seal()

    def with_metric(self, metric: str) -> "Blocks":
        return self.with_options(metric=metric)

    # -- the rules ------------------------------------------------------------------------------
    def initial(self) -> State:
        return self.board.start()

    def is_goal(self, state: State) -> bool:
        span = self.board.class_span
        if self.exit_goal is not None and state[self.exit_goal[0]] not in self.exit_goal[1]:
            return False
        return all(state[span[k][0]:span[k][1]] == target for k, target in self.goal)

    def successors(self, state: State) -> Iterator[tuple[Move, State]]:
        board = self.board
        occ = board.occupancy(state)
        for slot, a in enumerate(state):
            others = occ & ~board.masks(slot)[a]
            for to, path in board.destinations(slot, a, others, self.metric):
                yield (slot, to, path), board.moved(state, slot, to)

    def plan_moves(self, actions: Sequence[Move]) -> list[str]:
        return [move_name(self.board.slot_letter[slot], path) for slot, _, path in actions]

    def h(self, state: State) -> int:
        """Admissible and consistent: the goal pieces' moves on the board with only walls, plus one
        move for each other piece in the way of a target or the exit (models/blocks/heuristic.py)."""
        return bound_of(self).value(state)

    def unsolvable_reason(self) -> str | None:
        """A goal piece whose target its unit steps cannot reach even on an empty board (walls)."""
        board = self.board
        start = board.start()

        def reach(slot: int) -> set[int]:
            return {a for a, _ in board.destinations(slot, start[slot], 0, "piece")} | {start[slot]}
        for k, target in self.goal:
            lo, hi = board.class_span[k]
            reached = set().union(*(reach(slot) for slot in range(lo, hi)))
            for a in target:
                if a not in reached:
                    r, c = board.cell(a)
                    r, c = r - self.shift[0], c - self.shift[1]
                    return (f"piece {board.slot_letter[lo]} cannot reach its target at row {r + 1}, column {c + 1}: "
                            "walls block every path")
        if self.exit_goal is not None and not reach(self.exit_goal[0]) & self.exit_goal[1]:
            return f"piece {board.slot_letter[self.exit_goal[0]]} cannot reach the exit: walls block every path"
        return None

    def packed_space(self) -> Any:
        """States as uint64 keys for the array-based breadth-first search (None if they do not fit)."""
        from puzzleplan.models.blocks.packed import BlocksPacked   # numpy: only when asked
        return BlocksPacked(self) if BlocksPacked.fits(self) else None

    # -- showing it -----------------------------------------------------------------------------
    def grid(self, state: State | None = None, exit_band: bool = True) -> list[str]:
        """The board's rows (with the band past an exit, drawn with ' ' beside the opening,
        unless `exit_band` is False)."""
        state = self.initial() if state is None else state
        board = self.board
        cells = [[EMPTY] * board.cols for _ in range(board.rows)]
        for r, c in board.walls:
            cells[r][c] = WALL
        for slot, a in enumerate(state):
            r, c = board.cell(a)
            for dr, dc in board.slot_shape[slot]:
                cells[r + dr][c + dc] = board.slot_glyph[slot]
        dr, dc = self.shift
        if not exit_band:
            return ["".join(row[dc:dc + self.cols]) for row in cells[dr:dr + self.rows]]
        inside = lambda r, c: dr <= r < dr + self.rows and dc <= c < dc + self.cols  # noqa: E731
        return ["".join(" " if ch == WALL and not inside(r, c) else ch for c, ch in enumerate(row)).rstrip()
                for r, row in enumerate(cells)]

    def render(self, state: State) -> str:
        return "\n".join(self.grid(state))

    def notation(self, kind: str) -> str:
        if kind == "grid":
            return "\n".join(self.grid(exit_band=False)) + "\n"
        return to_yaml(self)
