"""Sokoban: the player walks and pushes boxes (one at a time, never pulls) onto the goals.

Levels are written in XSB: `#` wall, ` `/`-`/`_` floor, `$` box, `.` goal, `*` box on a goal,
`@` player, `+` player on a goal. Ragged rows are padded with floor; the walls must enclose the
player. An optional player goal (seed 004) asks the player to end on a given cell as well.
Outside the player's walled area nothing can move: boxes on goals there (sealed in wall pockets,
Microban 155) are kept as they are and the model's cells, states and rules leave them out (the
checker still sees them in `lines`, on their goals); a box off a goal or an empty goal out there
makes the level unsolvable, said by `unsolvable_reason` before any search.

Metrics:
    moves   every step counts; an action is one letter, `lurd` a walk, `LURD` a push
    pushes  only pushes count; an action is one push (box cell, direction) and the walk to it is
            free. States keep the player on the top-left-most cell it can reach, so positions that
            differ only by a free walk are one state. `plan_moves` expands the pushes into the full
            step-by-step LURD string (shortest walks, lowercase; pushes uppercase) and `plan_cost`
            counts the pushes. With a player goal the final walk to it is appended (free).

State: one Python int, `boxes << pbits | player`: a bitset of the box cells above the player's
cell number. Cells are the floor cells the player's walls enclose, numbered in row-major order.

Heuristic (admissible; consistent wherever a matching exists, since one step changes it by at
most one; 0 where none does, which pruning never generates): the cost of a
minimum-cost perfect matching of boxes to goals, the cost of a pair being the push distance of
the box to the goal on the empty level (computed per goal by a reverse search over pulls: a box
at b can be pulled to b+d when b+d and b+2d are floor). Every box needs at least that many
pushes whatever the others do, so the matching bounds the pushes left, hence the moves left.
Under `moves` with a player goal, also at least the player's walking distance to it (walls
only); the larger of the two is used. Matchings are solved with OR-Tools' linear sum
assignment and remembered per box set in the model's `Analysis` (analysis.py), not on the model.

Pruning (on by default, `prune=False` turns it off; the optimum never changes, a test checks):
    dead squares   a cell from which the pull search reaches no goal: a box pushed there can
                   never reach a goal, so such pushes are never generated;
    freeze         after a push, the pushed box is tested for being frozen: on each axis a wall on
                   either side, or dead squares on both sides, or a neighbouring box that is itself
                   frozen (boxes on the current chain of the test count as walls). No box of a
                   frozen group can move before another one of it has moved, so none ever moves
                   again (pushes onto dead squares aside); if any is off a goal the push is dropped;
    matching       a push after which no perfect matching of boxes to goals exists (some goal
                   is out of every box's reach) is dropped.
The start position is tested the same way by `unsolvable_reason`.

YAML (`puzzle: sokoban`):
    level: |          the XSB rows (indented under the key; use '-' for floor outside the walls
      #####           or `level: |2` when a row starts with spaces)
      #@$.#
      #####
    player_goal       optional [row, col], 0-based: the player must end there too
    notation          xsb (default), or seed-004: the rows in seed 004's letters, and `target:`
                      its map of where the boxes and the worker must end (notation.py)
    name, description, metric (moves|pushes), max_moves (the cap, in the metric's unit),
    expect            optimal_moves, optimal_pushes, solvable, valid_plans (checked by the tests)
Collection files (.xsb/.sok) are read by `load_collection(path, level)`.

Layers: level.py (the XSB characters, the four steps, the move rule `steps`, the Level data)
<- notation.py (readers returning a `SokobanSpec`, writers), analysis.py (distances, dead
squares, freeze test, matchings) <- model.py (this module). The model is immutable once built.
"""
from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any, Iterator, Sequence

from puzzleplan.models.base import ModelBase, ModelError, quote
from puzzleplan.models.document import MAX_COLLECTION_BYTES, Document, file_head, read_text
from puzzleplan.models.sokoban.analysis import Analysis, walk_distances
from puzzleplan.models.sokoban.level import (BOX, BOX_ON_GOAL, DIRS, GOAL, METRICS, OPPOSITE, PLAYER, PLAYER_ON_GOAL,
                                             PUSH, WALK, Level, bits, neighbours, step_table, steps)
from puzzleplan.models.sokoban.notation import (SokobanSpec, collection_level, parse_level, read_collection, read_document,
                                                split_rows, to_xsb, to_yaml)

__all__ = ["Sokoban", "load_collection"]


def load_collection(path: str | Path, level: str | int | None = None,
                    overrides: dict[str, Any] | None = None) -> "Sokoban":
    """The level of an XSB/SOK collection file chosen by 1-based number or by title (see
    `notation.collection_level`); `overrides` may set `metric` and `max_moves`."""
    return Sokoban.from_spec(collection_level(path, level, overrides))


def claims(path: str | Path) -> bool:
    """Whether a file another family reads too (.txt) opens with Sokoban levels: XSB rows, and
    no line of Rush Hour's database (`MOVES BOARD CLUSTER`)."""
    head = file_head(path)
    if head is None:
        return False
    from puzzleplan.models.rush_hour.database import is_database_line
    if any(is_database_line(line) for line in head.splitlines()):
        return False
    return bool(read_collection(head))


def count_levels(path: str | Path) -> int:
    """How many levels an XSB/SOK collection file holds."""
    return len(read_collection(read_text(Path(path), "a level collection", limit=MAX_COLLECTION_BYTES)))


class Sokoban(ModelBase):
    """One Sokoban level under a metric (immutable once built)."""

    family = "sokoban"
    metrics = METRICS
    default_engine = "push"   # models/sokoban/native.py: A* over pushes, compiled; see its docstring
    notations = ("xsb", "yaml")

    def __init__(self, level: Level | str | Sequence[str], player_goal: tuple[int, int] | None = None,
                 metric: str = "moves", name: str = "", max_moves: int | None = None,
                 expect: dict[str, Any] | None = None, prune: bool = True, description: str = "") -> None:
        if not isinstance(level, Level):
            level = parse_level(split_rows(level)[0] if isinstance(level, str) else list(level))
        if metric not in self.metrics:
            raise ModelError(f"metric: expected one of {', '.join(self.metrics)}, got {quote(metric)}")
        self.level = level
        self.metric = metric
        self.name = name
        self.description = description
        self.max_moves = max_moves
        self.expect = dict(expect or {})
        self.prune = prune
        self.rows, self.cols = level.height, level.width
        self.cells = level.region
        self.index = {cell: i for i, cell in enumerate(self.cells)}
        if player_goal is not None:
            player_goal = (int(player_goal[0]), int(player_goal[1]))
            if player_goal not in self.index:
                raise ModelError(f"player_goal: {list(player_goal)} is not a floor cell inside the walls")
        self.player_goal = player_goal
        n = len(self.cells)
        self.ncells = n
        self.pbits = max(1, (n - 1).bit_length())
        self.pmask = (1 << self.pbits) - 1
        self.nbr: tuple[tuple[int, ...], ...] = neighbours(self.cells)
        self.ahead = step_table(self.nbr)       # the input of level.steps, the move rule
        self.goal_cells = tuple(self.index[g] for g in level.goals)
        # the distances, dead squares, freeze test and matchings (with their memo): built once
        self.analysis = Analysis(self.nbr, self.goal_cells)
        self._matching, self._push_ok = self.analysis.matching, self.analysis.push_ok
        self.goals = self.analysis.goals
        # what the boxes must be for the goal: never matched when a box or goal outside the
        # player's area can never be paired (the level is unsolvable, see unsolvable_reason)
        self.goal_boxes = -1 if level.stray else self.goals
        self.start_boxes = sum(1 << self.index[b] for b in level.boxes)
        self.start_player = self.index[level.player]
        self.goal_dist = self.analysis.goal_dist
        self.dead = self.analysis.dead
        self.pg = None if player_goal is None else self.index[player_goal]
        self.pg_dist = None if self.pg is None else walk_distances(self.nbr, self.pg)

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_spec(cls, spec: SokobanSpec) -> "Sokoban":
        return cls(spec.level, player_goal=spec.player_goal, metric=spec.metric, name=spec.name,
                   max_moves=spec.max_moves, expect=spec.expect, description=spec.description)

    @classmethod
    def from_document(cls, doc: Document) -> "Sokoban":
        return cls.from_spec(read_document(doc))

    def with_options(self, **changes: Any) -> "Sokoban":
        """A new model (sealed like a loaded one) with some of metric, prune, max_moves, name,
        expect, player_goal changed."""
        kw = dict(player_goal=self.player_goal, metric=self.metric, name=self.name, max_moves=self.max_moves,
                  expect=self.expect, prune=self.prune, description=self.description)
        kw.update(changes)
        self.checked_metric(kw["metric"])
        return Sokoban(self.level, **kw).seal()

    def with_metric(self, metric: str) -> "Sokoban":
        return self.with_options(metric=metric)

    def whole_space(self) -> "Sokoban":
        """This level without pruning: every legal push, dead positions included (`explore`)."""
        return self.with_options(prune=False) if self.prune else self

    def notation(self, kind: str) -> str:
        """The level written as XSB (with a `; name` line) or as a YAML puzzle file."""
        if kind == "xsb":
            return to_xsb(self)
        if kind == "yaml":
            return to_yaml(self)
        raise ValueError(f"unknown notation {quote(kind)}; expected one of {', '.join(self.notations)}")

    @property
    def lines(self) -> tuple[str, ...]:
        """The start position as canonical XSB rows (padded), straight from the parser: what the
        independent checker reads (it never sees the model's cell numbering)."""
        return self.level.grid

    # -- static analysis ------------------------------------------------------------------------
    def unsolvable_reason(self) -> str | None:
        for what, (r, c) in self.level.stray:
            if what == "box":
                return (f"the box at row {r + 1}, column {c + 1} is off a goal where the player can never "
                        "reach it (outside the walls around the player)")
            return (f"the goal at row {r + 1}, column {c + 1} is where no box can ever be pushed "
                    "(outside the walls around the player)")
        boxes = self.start_boxes
        for b in bits(boxes):
            r, c = self.cells[b]
            if self.dead[b]:
                return f"the box at row {r + 1}, column {c + 1} can never be pushed onto a goal"
        for b in bits(boxes):
            stuck = self.analysis.frozen_off_goal(boxes, b)
            if stuck is not None:
                r, c = self.cells[stuck]
                return f"the box at row {r + 1}, column {c + 1} is frozen off a goal (it and its neighbours can never move)"
        if self.analysis.matching(boxes) is None:
            return "the boxes cannot be matched to the goals: some goal is out of every box's reach"
        return None

    # -- the rules ------------------------------------------------------------------------------
    def start_state(self) -> int:
        """The start position with the player where the level puts it (under both metrics)."""
        return self.start_boxes << self.pbits | self.start_player

    def initial(self) -> int:
        if self.metric == "pushes":
            return self.start_boxes << self.pbits | self._normal(self.start_player, self.start_boxes)
        return self.start_state()

    def _reach(self, p: int, boxes: int) -> int:
        """The bitset of cells the player at p reaches without pushing."""
        seen = 1 << p
        stack = [p]
        nbr = self.nbr
        while stack:
            c = stack.pop()
            for n in nbr[c]:
                if n >= 0 and not (seen >> n) & 1 and not (boxes >> n) & 1:
                    seen |= 1 << n
                    stack.append(n)
        return seen

    def _normal(self, p: int, boxes: int) -> int:
        reach = self._reach(p, boxes)
        return (reach & -reach).bit_length() - 1

    def is_goal(self, state: int) -> bool:
        boxes = state >> self.pbits
        if boxes != self.goal_boxes:
            return False
        if self.pg is None:
            return True
        p = state & self.pmask
        if self.metric == "pushes":
            return bool(self._reach(p, boxes) >> self.pg & 1)
        return p == self.pg

    def successors(self, state: int) -> Iterator[tuple[Any, int]]:
        if self.metric == "pushes":
            return self._push_successors(state)
        return self._move_successors(state)

    def _move_successors(self, state: int) -> Iterator[tuple[str, int]]:
        pbits = self.pbits
        p, boxes = state & self.pmask, state >> pbits
        for d, j, k in steps(self.ahead, p, boxes):
            if k < 0:
                yield WALK[d], boxes << pbits | j
                continue
            moved = boxes ^ (1 << j) ^ (1 << k)
            if self.prune and not self._push_ok(moved, k):
                continue
            yield PUSH[d], moved << pbits | j

    def _push_successors(self, state: int) -> Iterator[tuple[tuple[int, int], int]]:
        pbits = self.pbits
        p, boxes = state & self.pmask, state >> pbits
        nbr, prune = self.nbr, self.prune
        push_ok = self._push_ok
        reach = self._reach(p, boxes)
        for j in bits(boxes):
            for d in range(4):
                behind = nbr[j][OPPOSITE[d]]
                if behind < 0 or not reach >> behind & 1:
                    continue
                k = nbr[j][d]
                if k < 0 or boxes >> k & 1:
                    continue
                moved = boxes ^ (1 << j) ^ (1 << k)
                if prune and not push_ok(moved, k):
                    continue
                yield (j, d), moved << pbits | self._normal(j, moved)

    def h(self, state: int) -> int:
        value = self._matching(state >> self.pbits)
        if value is None:
            value = 0  # no perfect matching: unsolvable from here, and 0 is a bound like any other
        if self.metric == "moves" and self.pg_dist is not None:
            value = max(value, self.pg_dist[state & self.pmask])
        return value

    # -- plans ----------------------------------------------------------------------------------
    def plan_summary(self, moves: Sequence[str]) -> dict[str, int]:
        """Counts shown beside a plan: pushes (uppercase letters) and moves."""
        return {"pushes": sum(1 for m in moves if m.isupper()), "moves": len(moves)}

    def plan_moves(self, actions: Sequence[Any]) -> list[str]:
        """Move letters: the actions themselves under moves; pushes expanded with their walks."""
        if self.metric == "moves":
            return [str(a) for a in actions]
        moves: list[str] = []
        p, boxes = self.start_player, self.start_boxes
        for j, d in actions:
            behind = self.nbr[j][OPPOSITE[d]]
            moves += self._walk(p, behind, boxes)
            k = self.nbr[j][d]
            moves.append(PUSH[d])
            boxes ^= (1 << j) ^ (1 << k)
            p = j
        if self.pg is not None:
            moves += self._walk(p, self.pg, boxes)
        return moves

    def plan_cost(self, actions: Sequence[Any]) -> int:
        """The plan's cost in the metric: pushes under pushes, moves under moves."""
        return len(actions)

    def _walk(self, start: int, target: int, boxes: int) -> list[str]:
        """A shortest walk (lowercase letters) from start to target around the boxes."""
        if start == target:
            return []
        came: dict[int, tuple[int, int]] = {start: (-1, -1)}
        queue = deque([start])
        while queue:
            c = queue.popleft()
            for d in range(4):
                n = self.nbr[c][d]
                if n < 0 or n in came or boxes >> n & 1:
                    continue
                came[n] = (c, d)
                if n == target:
                    path = []
                    while n != start:
                        n, d = came[n]
                        path.append(WALK[d])
                    return path[::-1]
                queue.append(n)
        raise RuntimeError(f"no walk from cell {self.cells[start]} to {self.cells[target]} (engine bug)")

    def states_along(self, moves: Sequence[str]) -> list[int]:
        """The positions after each single move letter, for display (no legality check here)."""
        p, boxes = self.start_player, self.start_boxes
        states = [self.start_state()]
        for move in moves:
            d = DIRS.find(move.lower())
            for d2, j, k in steps(self.ahead, p, boxes):
                if d2 == d:
                    if k >= 0:
                        boxes ^= (1 << j) ^ (1 << k)
                    p = j
                    break
            states.append(boxes << self.pbits | p)
        return states

    # -- rendering ------------------------------------------------------------------------------
    def render(self, state: int) -> str:
        """The position in XSB (floor as spaces; rows keep the level's full width)."""
        p, boxes = state & self.pmask, state >> self.pbits
        # outside the player's area nothing ever moves: walls, sealed boxes on goals, stray ones
        rows = [list(row) for row in self.level.grid]
        for r, c in self.cells:
            rows[r][c] = " "
        for i, (r, c) in enumerate(self.cells):
            goal = self.goals >> i & 1
            if boxes >> i & 1:
                rows[r][c] = BOX_ON_GOAL if goal else BOX
            elif i == p:
                rows[r][c] = PLAYER_ON_GOAL if goal else PLAYER
            elif goal:
                rows[r][c] = GOAL
        return "\n".join("".join(row) for row in rows)

