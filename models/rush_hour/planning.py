"""Planning search for Rush Hour (seed 001: Bird's "planning solves the Rush Hour problem").

The idea is the one a person uses: "to get the primary out I must move it through these cells;
the next cell is taken by C, so C has to go up or down out of the way; going down, C's next
cell is taken by F, so F has to move first ...". A search path is

    (moves so far, state, plan)

where the plan is a list of pending goal moves `(vehicle, cell)`: "vehicle moves one cell so
that it newly covers `cell`" (cells are positions along the vehicle's own row or column). The
start path's plan is the primary's walk to the exit, one cell at a time. A path has two kinds
of successors:

* asuccs (plan-following): make the plan concrete. If its first move cannot be made now, it is
  replaced by the freeing moves of whatever blocks the target cell -- the blocker shifted
  forward or backward along its line just far enough to clear the cell, each direction where
  it fits on the board -- and that recursively, until the first move is legal. Every concrete
  plan obtained this way yields a child: make its first move, keep the rest of the plan. Like
  Bird, a premove list is skipped when it contains a move already in the plan (this stops
  "A waits for B which waits for A" loops and makes the recursion finite). These children go
  to the FRONT of a deque, so plans are followed depth-first.
* bsuccs (free moves): every legal single-cell move, each with a fresh goal plan. These go to
  the BACK, so they are tried breadth-first once the front runs dry.

A set of closed states stops re-expansion. When the front list is empty the back list becomes
the front (Bird's `psearch` with two lists).

Generalisations over Bird's program (6x6, cells numbered 1..41 in rows of 7, exit at cell 20,
no walls, vehicles of length 2 and 3, horizontal primary exiting right):
  - any board size, vehicle lengths and orientations, walls, any exit side;
  - leading plan moves that already hold (the vehicle covers the cell, e.g. because a premove
    shifted a vehicle the plan mentions later) are dropped; Bird's `mkplans` has no case for
    them. As in Bird, the first move is expanded into single cells from where its vehicle is
    now, so the fresh goal plan is stored as one move (primary, exit cell);
  - children whose state is already closed are not queued (Bird queues them and skips them
    when they are taken: the same search, less memory);
  - premove lists that cross a wall are dropped at once: a wall can never be freed;
  - the back list is first-in first-out by default (Bird prepends each expansion's free moves
    to it: `bsuccs p ++ rs`, the newest expansion's first). Either order holds the paths one free
    move further out, but the order decides which plan comes out: on Bird's g1, 34 moves after
    83 expansions first-in first-out, 38 after 169 in Bird's order; on seed 000, 113 after
    1,200 against 141 after 715. `--rule seed_order=on` searches in Bird's order;
  - the goal test is made when a path is taken from the deque, as in Bird.

Metrics. The search itself is on single-cell moves. Under the `step` metric the plan is those
moves; under `slide` consecutive single-cell moves of one vehicle in one direction are merged
into one slide, which is legal (nothing else moved in between and every crossed cell was free)
and is what a slide player would do. The plan is therefore legal under either metric. (Making
the free moves whole slides instead was tried: on seed 000's board it gives a longer plan, 116
slides against 94, after twice the expansions; it is used only under a cap, below.)

Not optimal. The plan-following children are explored depth-first, so the first goal reached
is the end of whatever plan happened to work first, detours included; the closed set then
keeps that long route even where a shorter one through the same states exists. The search is
fast because few expansions are needed when plans work out (compare `front_expansions` and
`back_expansions` in the statistics with the nodes of `bfs`), not because its plans are short.

Under a move cap (`max_moves`) the search is made exhaustive, so it never returns a plan over
the cap and an empty deque is a proof. Each path carries its cost: the number of moves on it.
A child is dropped when its cost plus the model's admissible bound `h` exceeds the cap, and a
state is expanded again when a cheaper path reaches it (the closed set becomes "cheapest cost
expanded at"). Every expansion generates every free move, so, as in a depth-bounded graph
search with re-opening, a plan within the cap is found whenever one exists, whatever the order
of the deque. Under `slide` the free moves are then the model's slides (any distance) and every
move costs 1; plan-following moves are still single cells costing 1 each, and merging them can
only shorten the plan, so the returned plan is within the cap too. This costs re-expansions:
with a cap at the optimum the capped search does several times the work of `bfs`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from puzzleplan.models.rush_hour.board import clearing, entered, path, toward
from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import all_explored, count
from puzzleplan.plans.search.common import POLL_EVERY, finish

if TYPE_CHECKING:
    from puzzleplan.models.rush_hour.board import Board
    from puzzleplan.models.rush_hour.model import RushHour

ENGINE = "plan"
FREE = -1
WALL = -2
PLAN_POLL_EVERY = 16384  # plan-making steps between limit checks (a plan can branch a lot)


class _Tables:
    """The board's geometry (board.py) as the plain integer tables this search walks: cells,
    owners, single-cell moves."""

    def __init__(self, board: "Board") -> None:
        vehicles = board.vehicles
        self.lengths = tuple(v.length for v in vehicles)
        self.spans = board.spans
        self.vertical = tuple(not v.horizontal for v in vehicles)
        self.cell = board.line_cells      # cell[v][p]: the board cell of position p along v's line
        # position[v][cell]: the position of a board cell along v's line (-1 off its line)
        ncells = board.rows * board.cols
        self.position = [[-1] * ncells for _ in vehicles]
        for row, cells in zip(self.position, board.line_cells):
            for p, i in enumerate(cells):
                row[i] = p
        empty = [FREE] * ncells
        for r, c in board.walls:
            empty[board.index(r, c)] = WALL
        self.empty = empty
        # steps[v][o]: {position entered: (new offset as a byte, delta)} for v's single-cell
        # moves from offset o (back, then forward): board.py's runs, nearest cells only
        self.steps = tuple(
            tuple({entered(o, length, d): (after, d) for run in runs_o for _, d, after in run[:1]}
                  for o, runs_o in enumerate(runs_v))
            for length, runs_v in zip(self.lengths, board.runs))
        # the primary's goal: cover the position beside the exit
        self.goal_plan = ((board.primary, board.exit_position),)
        self._paths: dict[tuple[int, int, int], tuple] = {}     # memo of `moves_to`
        self._clears: dict[tuple[int, int, int], tuple] = {}    # memo of `clears`

    def owners(self, state: bytes) -> list[int]:
        """Per board cell: the vehicle on it, FREE or WALL."""
        own = self.empty.copy()
        cell, lengths = self.cell, self.lengths
        for v, o in enumerate(state):
            cv = cell[v]
            for q in range(o, o + lengths[v]):
                own[cv[q]] = v
        return own

    def free_moves(self, state: bytes, own: list[int]) -> list[tuple[int, int]]:
        """Every legal single-cell move as (vehicle, newly covered position); `-` before `+`."""
        out = []
        cell, steps = self.cell, self.steps
        for v, o in enumerate(state):
            cv = cell[v]
            for q in steps[v][o]:
                if own[cv[q]] == FREE:
                    out.append((v, q))
        return out

    def apply(self, state: bytes, move: tuple[int, int]) -> tuple[bytes, tuple[int, int]]:
        """The state after a legal single-cell move, and the move as a model action (v, +-1)."""
        v, c = move
        after, d = self.steps[v][state[v]][c]
        return state[:v] + after + state[v + 1:], (v, d)

    def moves_to(self, v: int, o: int, c: int) -> tuple:
        """The single-cell moves (v, position entered) that take v from offset o to cover c."""
        key = (v, o, c)
        found = self._paths.get(key)
        if found is None:
            length = self.lengths[v]
            found = self._paths[key] = tuple((v, q) for q in path(o, toward(o, length, c), length))
        return found

    def clears(self, b: int, o: int, q: int) -> tuple:
        """(back, forward): the single-cell moves that take b from offset o off position q of its
        line, each way; None where b would leave the board."""
        key = (b, o, q)
        found = self._clears.get(key)
        if found is None:
            length = self.lengths[b]
            found = self._clears[key] = tuple(
                None if to is None else tuple((b, p) for p in path(o, to, length))
                for to in clearing(length, self.spans[b], q))
        return found

    def newplans(self, state: bytes, own: list[int], plan: tuple, counter: list[int],
                 ctx: SearchContext) -> list[tuple]:
        """Every concrete version of `plan` whose first move is legal in `state` (Bird's newplans)."""
        lengths, cell = self.lengths, self.cell
        i, n = 0, len(plan)
        while i < n:                              # drop goal moves that already hold
            v, c = plan[i]
            o = state[v]
            if not o <= c < o + lengths[v]:
                break
            i += 1
        if i == n:
            return []
        v, c = plan[i]
        o = state[v]
        # expand the first goal move into single cells from where the vehicle is now
        head = self.moves_to(v, o, c)
        out: list[tuple] = []
        stack = [head + plan[i + 1:]]
        position = self.position
        while stack:
            counter[0] += 1
            if counter[0] % PLAN_POLL_EVERY == 0:
                ctx.poll()
            ms = stack.pop()
            w, c = ms[0]                          # always adjacent to w, on the board
            at = cell[w][c]
            b = own[at]
            if b == FREE:
                out.append(ms)
                continue
            if b == WALL:
                continue                          # a wall is never freed
            # the blocker b must clear position q of its own line: forward or backward
            q = position[b][at]
            cb = cell[b]
            back, fwd = self.clears(b, state[b], q)
            options = (back, fwd) if self.vertical[b] else (fwd, back)   # Bird: up first, right first
            children = []
            for pms in options:
                if pms is None:
                    continue
                if any(own[cb[p]] == WALL for _, p in pms):
                    continue
                if any(m in ms for m in pms):     # Bird: no move already in the plan
                    continue
                children.append(pms + ms)
            stack.extend(reversed(children))      # depth-first, first option first
        return out


def _actions(trail: Any) -> list[tuple[int, int]]:
    out = []
    while trail is not None:
        trail, action = trail
        out.append(action)
    out.reverse()
    return out


def _merge(actions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Consecutive single-cell moves of one vehicle in one direction as one slide."""
    out: list[tuple[int, int]] = []
    for v, d in actions:
        if out and out[-1][0] == v and (out[-1][1] > 0) == (d > 0):
            out[-1] = (v, out[-1][1] + d)
        else:
            out.append((v, d))
    return out


ABOUT = "Bird's planning search (Rush Hour): follows plans that free the primary's path; fast, not optimal"
# The engine's switchable rules (plans/core/engine_rules.py: `--rule NAME=on|off`)
RULES: dict[str, tuple[bool, str]] = {
    "seed_order": (False, "the back list in seed 001's order: each expansion's free moves before the earlier ones"),
}


def run(model: "RushHour", request: Request, ctx: SearchContext) -> Result:
    """Bird's planning search, generalised; a plan, not a shortest one."""
    if getattr(model, "family", None) != "rush-hour":
        return finish(ctx, ENGINE, model, Status.UNSUPPORTED,
                      message="the planning search knows Rush Hour only (its plans free a vehicle's path)")
    board = _Tables(model.board)
    cap = request.max_moves
    slide = model.metric == "slide"
    # Under a cap with the slide metric the free moves are the model's slides (see the docstring).
    slide_edges = slide and cap is not None
    seed_order = bool(request.options.get("seed_order", RULES["seed_order"][0]))
    stats = ctx.stats
    ctx.phase = "plan"
    counter = [0]
    front_expansions = back_expansions = layers = plan_children = 0

    # A path: (state, plan or None for a fresh goal plan, trail, cost); trail = (trail, action)
    # is the path's own move list, shared with its parent, so a re-expanded state cannot mix
    # two routes.
    start = model.initial()
    front: list[tuple] = [(start, None, None, 0)]
    back: list[list[tuple]] = []         # one list of free-move paths per expansion, oldest first
    closed: set[bytes] = set()           # no cap: Bird's closed set
    best: dict[bytes, int] = {}          # a cap: the cheapest cost each state was expanded at
    pruned = False

    def seen() -> int:
        return len(best) if cap is not None else len(closed)

    def record() -> None:
        stats.states = seen()
        stats.extra.update(front_expansions=front_expansions, back_expansions=back_expansions,
                           layers=layers, plan_children=plan_children, plan_steps=counter[0])

    def done(status: Status, actions: Any = None, message: str = "", lower: int | None = None) -> Result:
        record()
        return finish(ctx, ENGINE, model, status, actions, lower, message)

    def admit(child: bytes, cg: int) -> bool:
        """Whether a child path is worth queueing (not closed; under a cap: not dominated, fits)."""
        nonlocal pruned
        if cap is None:
            return child not in closed
        if best.get(child, cg + 1) <= cg:
            return False
        if cg + model.h(child) > cap:
            pruned = True
            return False
        return True

    try:
        while True:
            if not front:
                if not back:
                    break
                batches = reversed(back) if seed_order else back
                front = [path for batch in batches for path in batch][::-1]   # pop() takes them in order
                back = []
                layers += 1
            state, plan, trail, g = front.pop()
            if model.is_goal(state):
                actions = _actions(trail)
                if slide:
                    actions = _merge(actions)
                stats.depth = len(actions)
                return done(Status.SOLVED, actions)
            if cap is None:
                if state in closed:
                    continue
                closed.add(state)
            else:
                if best.get(state, g + 1) <= g:
                    continue
                best[state] = g
            stats.nodes += 1
            if plan is None:
                back_expansions += 1
                plan = board.goal_plan
            else:
                front_expansions += 1
            if stats.nodes % POLL_EVERY == 0:
                stats.states = seen()
                ctx.poll()
            own = board.owners(state)

            # asuccs: every concrete plan, its first move made; depth-first (front)
            kids = []
            for ms in board.newplans(state, own, plan, counter, ctx):
                child, action = board.apply(state, ms[0])
                stats.generated += 1
                if admit(child, g + 1):
                    kids.append((child, ms[1:], (trail, action), g + 1))
            plan_children += len(kids)
            front.extend(reversed(kids))

            # bsuccs: every free move with a fresh goal plan; breadth-first (back)
            if slide_edges:
                free = list(model.successors(state))
            else:
                free = [board.apply(state, move)[::-1] for move in board.free_moves(state, own)]
            batch = []
            for action, child in free:
                stats.generated += 1
                if admit(child, g + 1):
                    batch.append((child, None, (trail, action), g + 1))
            if batch:
                back.append(batch)
    except (LimitReached, KeyboardInterrupt, MemoryError):
        record()                              # the runner reports the limit; keep the counts
        raise

    if cap is not None and pruned:
        return done(Status.NO_PLAN_WITHIN_CAP, lower=cap + 1,
                    message=f"no plan within {count(cap, 'move')} (the capped planning search is exhaustive)")
    return done(Status.UNSOLVABLE, message=all_explored(seen()))
