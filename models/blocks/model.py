"""Sliding-block puzzles as a model: canonical states, moves under three metrics, goal, bound.

State: a tuple of anchor indices, one per slot; slots are grouped by class of interchangeable
pieces and each class's anchors are kept sorted (see board.py), so two positions that differ
only by swapping identical pieces are one state. An action is (slot, destination, path); its
move string is the slot's letter (the piece's rank in its class) and the path, `B:DD`.
"""
from __future__ import annotations

from typing import Any, Iterator, Sequence

from puzzleplan.models.base import ModelBase
from puzzleplan.models.blocks.board import EMPTY, METRICS, WALL, Board, move_name
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
        self.distinct = frozenset(spec.distinct) | {letter for letter, _ in spec.targets}
        board = Board(self.rows, self.cols, spec.walls, spec.pieces, self.distinct)
        self.board = board
        self.goal = self._goal(board)

    def _goal(self, board: Board) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """(class, its sorted target anchors) for every class the goal constrains."""
        if self.spec.layout is None:
            where = {letter: board.index(*anchor) for letter, anchor in self.spec.targets}
            return tuple((board.slot_class[s], (where[letter],)) for s, letter in enumerate(board.slot_letter)
                         if letter in where)
        cells: dict[str, list[tuple[int, int]]] = {}
        for r, row in enumerate(self.spec.layout):
            for c, ch in enumerate(row):
                if ch not in (EMPTY, WALL):
                    cells.setdefault(ch, []).append((r, c))
        out = []
        for k, group in enumerate(board.classes):
            anchors = sorted(board.index(min(r for r, _ in cells[p.letter]), min(c for _, c in cells[p.letter]))
                             for p in group)
            out.append((k, tuple(anchors)))
        return tuple(out)

    @classmethod
    def from_document(cls, doc: Document) -> "Blocks":
        return cls(read_document(doc))

    def with_options(self, metric: str | None = None, **_: Any) -> "Blocks":
        """The same instance under another metric (a new sealed model); the other families'
        options (such as Sokoban's `prune`) have no meaning here and change nothing."""
        return Blocks(self.spec, metric or self.metric).seal()

    def with_metric(self, metric: str) -> "Blocks":
        return self.with_options(metric=metric)

    # -- the rules ------------------------------------------------------------------------------
    def initial(self) -> State:
        return self.board.start()

    def is_goal(self, state: State) -> bool:
        span = self.board.class_span
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
        """Admissible: under `step` the Manhattan distance of each distinct goal piece plus, per
        goal class of look-alikes, the pieces off every target; otherwise the goal pieces off target
        (one move moves one piece)."""
        span, cols, total = self.board.class_span, self.cols, 0
        for k, target in self.goal:
            now = state[span[k][0]:span[k][1]]
            if len(target) == 1 and self.metric == "step":
                (r, c), (tr, tc) = divmod(now[0], cols), divmod(target[0], cols)
                total += abs(r - tr) + abs(c - tc)
            else:
                total += sum(1 for a in now if a not in target)
        return total

    def unsolvable_reason(self) -> str | None:
        """A goal piece whose target its unit steps cannot reach even on an empty board (walls)."""
        board = self.board
        start = board.start()
        for k, target in self.goal:
            lo, hi = board.class_span[k]
            reach: set[int] = set()
            for slot in range(lo, hi):
                reach |= {a for a, _ in board.destinations(slot, start[slot], 0, "piece")} | {start[slot]}
            for a in target:
                if a not in reach:
                    r, c = board.cell(a)
                    return (f"piece {board.slot_letter[lo]} cannot reach its target at row {r + 1}, column {c + 1}: "
                            "walls block every path")
        return None

    # -- showing it -----------------------------------------------------------------------------
    def grid(self, state: State | None = None) -> list[str]:
        state = self.initial() if state is None else state
        board = self.board
        cells = [[EMPTY] * self.cols for _ in range(self.rows)]
        for r, c in board.walls:
            cells[r][c] = WALL
        for slot, a in enumerate(state):
            r, c = board.cell(a)
            for dr, dc in board.slot_shape[slot]:
                cells[r + dr][c + dc] = board.slot_letter[slot]
        return ["".join(row) for row in cells]

    def render(self, state: State) -> str:
        return "\n".join(self.grid(state))

    def notation(self, kind: str) -> str:
        if kind == "grid":
            return "\n".join(self.grid()) + "\n"
        return to_yaml(self)
