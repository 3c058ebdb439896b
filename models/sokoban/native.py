"""push: Sokoban's own optimal engine, A* over pushes compiled with numba (both metrics).

The search runs on the push graph (kernel_search.py): a state is the boxes and the player, an
edge one push together with the walk to it, so walking never costs a node. Its lower bound is a
minimum matching of boxes to goals on player-aware push distances (tables.py) (optionally raised
to the sum over disjoint pairs of boxes of their two-box distances where that is higher:
kernel_rules.pair_bound, pairs.py), plus under moves the walk to the next push
(kernel_rules.walk_to_push); its pruning is sound by the rule each states: dead cells, frozen
boxes (kernel_rules.frozen), two-box deadlocks (pairs.py), three-box deadlocks near the pushed
box (triples.py), arrangements of the boxes near the goals that can never be completed (the
goal-room table, rooms.py), no perfect matching, PI-corrals without a push into them (a deadlock under
either metric), and under pushes PI-corral pruning (kernel_rules.pi_corral) and forced pushes
into dead-end goal corridors (kernel_rules.forced_push).

    moves    one search: edge cost = walk + 1, the player on its exact cell.
    pushes   First the fewest pushes P (player normalised), recording the graph it expands.
             Then that search goes on until every state with pushes + bound <= P is expanded
             (`_Search.finish_layer`; states PI-corral pruning cut, when it was on, are
             expanded again with all their pushes), and a backward pass over the recorded graph gives each
             stored state a lower bound D on its pushes to go (kernel_search.to_go): only states
             on push-optimal plans keep pushes + D <= P. Last, among plans of P pushes, the
             fewest moves: a search on exact player cells with edge cost SCALE + walk + 1,
             keeping only states that can still finish within P pushes (pushes done + bound <=
             P, the bound raised to the D of the child's normalised form where it is stored).
             Every goal it can reach then has exactly P pushes (none has fewer), so its cost
             SCALE * P + moves is least for the fewest moves; its bound SCALE * b + b + w is
             admissible (b pushes and b + w moves at least are left). If a limit is hit after
             the first goal, the first plan is returned (still optimal in pushes) and the
             statistics say the moves were not minimised.

With `symmetry`, a state and its images under the level's turns and mirrors that fix the start
are one state (symmetry.py).

With `perimeter` (perimeter.py), once the searches have expanded PERIMETER_AFTER nodes a
backward search over pulls stores the positions within K pushes of the goal with their exact
pushes to go, and each new child's bound is raised to that distance, or to K + 1 when the
position is not stored (`_LazyPerimeter` says how it grows and when it is dropped). Under moves
it is the moves perimeter: the same search one move at a time on the player's exact cell, whose
exact moves to go raise matching + walk.

Options (Request.options; RULES below names them with their defaults, and `--rule NAME=on|off`
sets them from the command line): `prune` (default True; False turns off every pruning rule, for the
tests), `fewest_moves` (default True: the second search under pushes), `corrals` (default True:
PI-corral pruning under pushes, corral deadlocks under both metrics), `pairs` (default True: the
two-box table of pairs.py, its deadlocks and its bound), `triples` (default True: the
three-box deadlock table of triples.py), `rooms` (default True: the goal-room table of rooms.py), `pair_bound` (default False: also the bound of
disjoint pairs; fewer nodes, but on Microban no faster), `walk` (default True: the moves
bound adds the walk before the next push), `symmetry` (default True: fold symmetric states),
`to_go` (default True: the layer, D and its use in the fewest-moves search; False: that search
keeps every state with pushes + bound <= P), `layer_first` (default False: PI-corral pruning in
the first search, the states it cut re-queued for the layer; True: when the layer follows, the
first search runs without PI-corral pruning, corral deadlocks only, so the layer has nothing to
re-expand: fewer nodes in all, Microban 93 2.75 M against 3.32 M (27.8 s against 29.7 s), but P
is proved later, after 1.87 M nodes against 1.0 M (17.9 s against 8.6 s; Microban 153: 320 s
against 106 s), so a limit reached in the layer still leaves the user a proved optimum),
`dead_ends` (default True: under pushes a position with a box that must go on into a dead-end
goal corridor keeps that push alone, kernel_rules.forced_push; the layer expands those positions
again with all their pushes, as those PI-corral pruning cut), `sealed` (default True: boxes frozen
on goals at the start are walls, sealed.py), `perimeter` (default True: the bound read from
the perimeter). `workers` (default 1; `solve --workers N`): the threads that make each batch's children (kernel_search.py; the statistics then say `threads`).
Statistics: nodes, generated, states of all searches together; extra: pushes, moves,
`fewest_moves` (True when the moves among push-optimal plans were minimised), corral prunes,
pair deadlocks, triple deadlocks, room deadlocks, `pair_bound_wins` (children whose pair bound beat the
matching), `no_push_left`, `dead_end_pushes` (positions that kept a forced push alone),
`sealed_boxes` (when any); under pushes `first_nodes` and `first_seconds` (to the first goal),
`requeued`, `layer_nodes`, `to_go_seconds`, `to_go_states` (stored states with pushes + D <= P),
`to_go_reads` (children of the last search that found their D), `second_nodes`; with the
perimeter `perimeter_states`, `perimeter_depth` (K, or "all" when the backward search ran dry),
`perimeter_seconds`, `perimeter_reads` (children looked up in it), `perimeter_raised` (those
whose bound it raised) and `perimeter_share` (raised per look-up, at its last decision). The
pruning counters are there when a limit stops the search too.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import count
from puzzleplan.plans.search.common import finish

if TYPE_CHECKING:
    from puzzleplan.models.sokoban.model import Sokoban
    from puzzleplan.models.sokoban.perimeter import Perimeter

ENGINE = "push"
ABOUT = "Sokoban's own A* over pushes (numba): matching bound with the player's side, PI-corrals; optimal"
SLICE = 4096                # expansions between limit checks
START_STATES = 1 << 16
BATCH = 64                  # states popped and expanded together (kernel_search.expand_slice)
MAX_CELLS = 32767           # cells fit in int16
PERIMETER_AFTER = 50_000    # nodes expanded before the perimeter is built (easy levels never need it)
PERIMETER_MB = 256          # the perimeter's arrays at most
PERIMETER_RATIO = 4         # the perimeter doubles after 1/RATIO as many nodes as it holds states
PERIMETER_MOVES_RATIO = 2   # the moves perimeter's states cost about half a pushes one's: twice the ratio
PERIMETER_READS = 0.01      # it waits while fewer than this share of the states stored were looked up
PERIMETER_GROW = 0.10       # it grows while it raised at least this share of the bounds it looked up
PERIMETER_KEEP = 0.02       # below this share it is dropped


@contextmanager
def warm_up_settings() -> Iterator[None]:
    """What `puzzleplan warm-up` solves under: arrays of 16 states and the perimeter built at once,
    so a small level takes every path a large one does (growth, rehashing, the perimeter's
    kernels), and numba compiles them all ahead of the first real run."""
    global START_STATES, PERIMETER_AFTER
    saved = START_STATES, PERIMETER_AFTER
    START_STATES, PERIMETER_AFTER = 16, 0
    try:
        yield
    finally:
        START_STATES, PERIMETER_AFTER = saved


def supports(model: Any) -> str | None:
    if getattr(model, "family", None) != "sokoban":
        return "push is an engine of Sokoban alone"
    if model.ncells > MAX_CELLS:
        return f"the level has {model.ncells} cells; push handles up to {MAX_CELLS}"
    return None


# The engine's switchable rules (plans/core/engine_rules.py: `--rule NAME=on|off`, the API's rules=):
# name -> (default, what it does). `run` reads each as the boolean option of that name.
RULES: dict[str, tuple[bool, str]] = {
    "prune": (True, "every pruning rule and the pair table (off: A* on the matching alone)"),
    "corrals": (True, "PI-corral pruning under pushes, corral deadlocks under both metrics"),
    "pairs": (True, "the two-box deadlock table (pairs.py)"),
    "triples": (True, "the three-box deadlock table (triples.py), looked up near the pushed box"),
    "rooms": (True, "the goal-room deadlock table (rooms.py): the boxes near the goals in an order never completed"),
    "pair_bound": (False, "the matching raised to disjoint pairs' two-box distances"),
    "walk": (True, "moves: the walk to the next push added to the bound"),
    "symmetry": (True, "states folded by the level's turns and mirrors (symmetry.py)"),
    "dead_ends": (True, "pushes: a box in a dead-end goal corridor pushed on alone"),
    "sealed": (True, "boxes frozen on goals at the start drawn as walls (sealed.py)"),
    "fewest_moves": (True, "pushes: then the fewest moves among push-optimal plans"),
    "to_go": (True, "pushes: the layer's bounds on pushes to go for the fewest-moves search"),
    "layer_first": (False, "pushes: no PI-corral pruning before the layer (fewer nodes, the pushes proved later)"),
    "perimeter": (True, "exact pushes (moves) to go near the goal, by a backward search over pulls (perimeter.py)"),
}


@dataclass(frozen=True)
class Rules:
    """Which pruning rules and bounds a search uses (RULES' options of the same names)."""

    prune: bool
    corrals: bool
    walk: bool
    pair_bound: bool
    symmetry: bool
    layer_first: bool
    dead_ends: bool


class _Search:
    """One A* run of the kernel in one mode, with the arrays it owns and grows."""

    def __init__(self, model: "Sokoban", lv: tuple, mode: int, start_player: int, cap: int | None,
                 pbound: int | None, rules: Rules, record: bool = False, ref: "_Search | None" = None,
                 to_go: np.ndarray | None = None, outer: np.ndarray | None = None, threads: int = 1,
                 perimeter: "_LazyPerimeter | None" = None) -> None:
        """`record`: keep the graph expanded (for `to_go`); `ref` and its `to_go` bounds: read
        them for each new child (kernel_search.py's docstring); `outer`: each cell's number in
        the level as given, when `model` is it with sealed boxes as walls (sealed.py); `threads`:
        how many threads expand each batch of BATCH states; `perimeter`: read once the search
        has expanded PERIMETER_AFTER nodes (built then, if no search built it before)."""
        self.outer = outer
        from puzzleplan.models.sokoban import kernel_search as ks
        self.ks = ks
        self.lv = lv
        nb = len(model.goal_cells)
        self.nb = nb
        cap_states = START_STATES
        self.boxes = np.zeros((cap_states, nb), np.int16)
        self.player = np.zeros(cap_states, np.int16)
        self.keys = np.zeros(cap_states, np.uint64)
        self.g = np.zeros(cap_states, np.int64)
        self.gp = np.zeros(cap_states, np.int32)
        self.h = np.zeros(cap_states, np.int32)
        self.w = np.zeros(cap_states, np.int16)
        self.parent = np.zeros(cap_states, np.int32)
        self.move = np.zeros(cap_states, np.int32)
        self.sym = np.zeros(cap_states, np.int8)
        self.record = record
        self.estart = np.zeros(cap_states if record else 1, np.int64)
        self.ecount = np.zeros(cap_states if record else 1, np.int32)
        self.edge = np.zeros(cap_states * 4 if record else 1, np.int32)
        self.table = np.full(cap_states * 4, -1, np.int64)
        self.hkey = np.zeros(cap_states, np.int64)
        self.hidx = np.zeros(cap_states, np.int32)
        self.ctr = np.zeros(ks.NCTR, np.int64)
        pg = -1 if model.pg is None else model.pg
        corrals = (ks.DEADLOCKS_ONLY if rules.layer_first and record else 1) if rules.corrals else 0
        self.par = np.array([mode, corrals, -1 if cap is None else cap, -1 if pbound is None else pbound,
                             pg, int(rules.prune), int(rules.walk), int(rules.pair_bound), int(record),
                             int(ref is not None), -1, int(rules.dead_ends), BATCH, threads, 0], np.int64)
        self.mode = mode
        self.pipe = ks.pipeline(BATCH, nb, threads)
        from puzzleplan.models.sokoban.symmetry import find as symmetries, none
        self.symmetries = symmetries(model, exact=mode != ks.PUSHES) if rules.symmetry and rules.prune else \
            none(model.ncells)
        if ref is not None and to_go is not None:
            self.ref = (ref.table, ref.boxes, ref.symmetries.cells, to_go)
        else:
            self.ref = (np.full(1, -1, np.int64), np.zeros((1, self.nb), np.int16), none(model.ncells).cells,
                        np.zeros(1, np.int32))
        self.unfolded = none(model.ncells).cells
        self.ref += (np.full(1, -1, np.int64), np.zeros((1, self.nb), np.int16), self.unfolded, np.zeros(1, np.int32))
        self.perimeter = perimeter
        self.read_version = 0
        self.root_bound = self._seed(model, start_player)

    def _arrays(self) -> tuple:
        return (self.boxes, self.player, self.keys, self.g, self.gp, self.h, self.w, self.parent, self.move, self.table,
                self.hkey, self.hidx, self.sym, self.estart, self.ecount, self.edge)

    def _seed(self, model: "Sokoban", start_player: int) -> int:
        """Store the root; its bound (-1: no perfect matching, nothing is stored)."""
        from puzzleplan.models.sokoban.kernel_rules import bound
        from puzzleplan.models.sokoban.level import bits
        ks = self.ks
        side, pdist, zbox, zplayer = self.lv[3], self.lv[4], self.lv[6], self.lv[7]
        boxes = np.array(sorted(bits(model.start_boxes)), np.int16)
        cost = np.zeros((self.nb, self.nb), np.int64)
        m = self.nb + 1
        work = tuple(np.zeros(m, np.int64) for _ in range(6))
        b = int(bound(boxes, start_player, side, pdist, cost, work))
        if b < 0:
            return b
        key = np.uint64(zplayer[start_player])
        for c in boxes:
            key ^= zbox[c]
        slot = ks.find(self.table, self.boxes, key, boxes, start_player)
        self.table[-slot - 1] = ks.entry(key, start_player, 0)
        self.boxes[0] = boxes
        self.player[0] = start_player
        self.keys[0] = key
        self.parent[0] = -1
        self.move[0] = -1
        self.h[0] = b
        self.ctr[ks.C_STATES] = 1
        ks.heap_push(self.hkey, self.hidx, self.ctr, ks._key_of(self.mode, 0, 0, b, 0), 0)
        return b

    def run(self, ctx: SearchContext, base: tuple[int, int, int]) -> int:
        """Search until a goal (its index), -1 when the queue runs dry; LimitReached from ctx."""
        ks = self.ks
        nodes0, generated0, states0 = base
        while True:
            if self.perimeter is not None:
                self._perimeter(ctx)
            code = ks.expand_slice(self.lv, self._arrays(), self.par, self.ctr, SLICE, self.symmetries.cells,
                                   self.ref, self.pipe)
            stats = ctx.stats
            stats.nodes = nodes0 + int(self.ctr[ks.C_NODES])
            stats.generated = generated0 + int(self.ctr[ks.C_GENERATED])
            stats.states = states0 + int(self.ctr[ks.C_STATES])
            stats.depth = max(stats.depth, int(self.ctr[ks.C_DEPTH]))
            f = int(self.ctr[ks.C_F])
            ctx.lower_bound = f // ks.SCALE if self.mode == ks.LEXICAL else f
            if code == ks.GOAL:
                return int(self.ctr[ks.C_GOAL])
            if code == ks.EXHAUSTED:
                return -1
            if code == ks.GROW_STATES:
                self._grow_states()
            elif code == ks.GROW_HEAP:
                size = len(self.hkey) * 2
                self.hkey = ks.grown(self.hkey, size)
                self.hidx = ks.grown(self.hidx, size)
            elif code == ks.GROW_EDGES:
                self.edge = ks.grown(self.edge, len(self.edge) * 2)
            elif code == ks.GROW_TABLE:
                self.table = np.full(len(self.table) * 2, -1, np.int64)
                ks.rehash(self.table, self.keys, self.player, int(self.ctr[ks.C_STATES]))
            ctx.poll()

    def _perimeter(self, ctx: SearchContext) -> None:
        """Read the perimeter once built, again when it has grown; stop when it is dropped."""
        ks = self.ks
        perimeter = self.perimeter.get(ctx, id(self), int(self.ctr[ks.C_PERIMETER]),
                                       int(self.ctr[ks.C_PERIMETER_READS]), int(self.ctr[ks.C_STATES]))
        if perimeter is None:
            if self.read_version:
                self.par[ks.P_PERIMETER] = 0     # dropped (kernel_search.py: the optimum stays)
                self.read_version = 0
        elif self.perimeter.version != self.read_version:
            self._read(perimeter, self.perimeter.version)

    def _read(self, perimeter: "Perimeter", version: int) -> None:
        """Raise each new child's bound by the perimeter from now on (kernel_search.py): the
        states stored so far keep theirs, lower bounds too, and as the perimeter only grows,
        a child's bound is never below its parent's by more than the push (still consistent)."""
        self.ref = self.ref[:4] + (perimeter.table, perimeter.boxes, self.unfolded, perimeter.dist)
        self.par[self.ks.P_PERIMETER] = perimeter.bound()
        self.read_version = version

    def _grow_states(self) -> None:
        size = len(self.player) * 2
        self.boxes = self.ks.grown(self.boxes, size)
        for name in ("player", "keys", "g", "gp", "h", "w", "parent", "move", "sym") + \
                (("estart", "ecount") if self.record else ()):
            setattr(self, name, self.ks.grown(getattr(self, name), size))

    def pushes_to(self, goal_index: int) -> list[tuple[int, int]]:
        """The pushes (box cell, direction) from the root to a stored state, mapped back from
        the folded states (symmetry.py) onto the real ones, in the level as given."""
        steps = []
        s = goal_index
        while self.move[s] != -1:
            code = int(self.move[s])
            if code >= 0:
                steps.append((code >> 2, code & 3, int(self.sym[s])))
            s = int(self.parent[s])
        steps.reverse()
        pushes = self.symmetries.unfold(steps)
        if self.outer is not None:
            pushes = [(int(self.outer[cell]), d) for cell, d in pushes]
        return pushes

    def finish_layer(self, ctx: SearchContext, pushes: int) -> np.ndarray:
        """After the first goal (`pushes` pushes, optimal), expand every state left with
        pushes + bound <= `pushes`, then return lower bounds on the pushes to go of the states
        stored (kernel_search.to_go, capped at pushes + 1). With the whole layer expanded, a
        child never expanded has pushes + bound > `pushes`, so it adds nothing to the bound of
        a state on no push-optimal plan: those get pushes + bound > `pushes`, and the second
        search leaves them."""
        ks = self.ks
        self.par[ks.P_FMAX] = pushes
        stats = ctx.stats
        if (self.par[ks.P_PI] or self.par[ks.P_DEAD_ENDS]) and self.par[ks.P_PRUNE]:
            # the states PI-corral pruning or a forced push cut get all their pushes (the moves need them all)
            if self.par[ks.P_PI]:
                self.par[ks.P_PI] = ks.DEADLOCKS_ONLY
            self.par[ks.P_DEAD_ENDS] = 0
            need = int(self.ctr[ks.C_HEAP] + self.ctr[ks.C_STATES])
            if len(self.hkey) < need:       # room for every state queued once more
                self.hkey = ks.grown(self.hkey, need)
                self.hidx = ks.grown(self.hidx, need)
            stats.extra["requeued"] = int(ks.requeue(self._arrays(), self.ctr, pushes))
        while self.run(ctx, (0, 0, 0)) >= 0:
            pass                            # another goal: not expanded, its bound 0 is exact
        stats.extra["layer_nodes"] = int(self.ctr[ks.C_NODES]) - stats.extra.get("first_nodes", 0)
        started = time.monotonic()
        bounds = ks.to_go(self.h, self.estart, self.ecount, self.edge, int(self.ctr[ks.C_STATES]), pushes + 1)
        stats.extra["to_go_seconds"] = round(time.monotonic() - started, 3)
        stats.extra["to_go_states"] = int((self.gp[:len(bounds)] + bounds <= pushes).sum())
        return bounds

    def counters(self) -> dict[str, int]:
        ks = self.ks
        return {"corral_prunes": int(self.ctr[ks.C_CORRALS]), "corral_deadlocks": int(self.ctr[ks.C_DEADLOCKS]),
                "pair_deadlocks": int(self.ctr[ks.C_PAIRS]),
                "triple_deadlocks": int(self.ctr[ks.C_TRIPLES]), "room_deadlocks": int(self.ctr[ks.C_ROOMS]),
                "no_push_left": int(self.ctr[ks.C_STUCK]),
                "pair_bound_wins": int(self.ctr[ks.C_PAIR_BOUND]), "dead_end_pushes": int(self.ctr[ks.C_FORCED]),
                "perimeter_raised": int(self.ctr[ks.C_PERIMETER]),
                "perimeter_reads": int(self.ctr[ks.C_PERIMETER_READS])}


class _LazyPerimeter:
    """The perimeter (perimeter.py) of one solve, shared by its searches: built once the
    searches have expanded PERIMETER_AFTER nodes, then doubled each time they have expanded
    1/PERIMETER_RATIO as many nodes again as it holds states (a perimeter state costs a
    fraction of a node: about 0.7-2.6 us against 5 us on Microban 93 and 144, so the backward
    search stays within about the forward one's time), up to PERIMETER_MB. A state of the
    moves perimeter costs 0.5-0.9 us, so it doubles after half as many nodes again
    (PERIMETER_MOVES_RATIO), for the same balance.

    A child is looked up only when its matching is below the perimeter's bound (nothing stored
    is further). Since it last grew: while fewer than PERIMETER_READS of the states stored were
    looked up, the search is not near the goal yet, and the perimeter waits (Microban 153,
    hundreds of pushes deep, for most of its search); when the look-ups raised fewer than
    PERIMETER_KEEP of their bounds it is dropped, fewer than PERIMETER_GROW it stops growing.
    Decisions on counts alone, so node counts repeat."""

    def __init__(self, lv: tuple, goal_cells: tuple[int, ...], moves: bool = False, pgoal: int = -1) -> None:
        """`moves`: the moves perimeter (for the MOVES search; perimeter.py), `pgoal` its player's
        goal cell (-1: none)."""
        self.lv = lv
        self.goal_cells = goal_cells
        self.moves = moves
        self.pgoal = pgoal
        self.built: "Perimeter | None" = None
        self.grown_at = 0
        self.version = 0
        self.growing = True
        self.dropped = False
        self.marks: dict[int, tuple[int, int, int]] = {}

    @property
    def ratio(self) -> float:
        return PERIMETER_RATIO * (PERIMETER_MOVES_RATIO if self.moves else 1)

    def get(self, ctx: SearchContext, search: int, raised: int, reads: int, stored: int) -> "Perimeter | None":
        """The perimeter to read for the search `search` (an id; `raised`, `reads` and
        `stored`: its children the perimeter raised, those it looked up, and its states so
        far), None before it is built or once it is dropped."""
        from puzzleplan.models.sokoban.perimeter import Perimeter, budget_states
        if self.dropped:
            return None
        nodes = ctx.stats.nodes
        per = self.built
        if per is None:
            if nodes < PERIMETER_AFTER:
                return None
            per = self.built = Perimeter(self.lv, self.goal_cells, self.moves, self.pgoal)
            target = max(PERIMETER_AFTER, 1 << 12)
        elif per.complete or not self.growing or self.ratio * (nodes - self.grown_at) < per.states:
            return per
        else:
            raised0, reads0, stored0 = self.marks.get(search, (0, 0, 0))
            if reads - reads0 <= 0 or reads - reads0 < PERIMETER_READS * (stored - stored0):
                return per                  # not near the goal yet: wait
            self.marks[search] = (raised, reads, stored)
            share = (raised - raised0) / (reads - reads0)
            ctx.stats.extra["perimeter_share"] = round(share, 4)
            if share < PERIMETER_KEEP:
                self.dropped = True
                return None
            if share < PERIMETER_GROW:
                self.growing = False
                return per
            target = 2 * per.states
        target = min(target, budget_states(len(self.goal_cells), PERIMETER_MB))
        if target <= per.states and self.version > 0:
            return per
        phase = ctx.phase
        ctx.phase = f"{phase}: perimeter"
        try:
            per.extend(target, poll=ctx.poll)   # nothing to do when the seeds alone fill the budget
        finally:
            ctx.phase = phase
            self.grown_at = nodes
            self.version += 1
            extra = ctx.stats.extra
            extra["perimeter_states"] = per.states
            extra["perimeter_depth"] = "all" if per.complete else per.depth
            extra["perimeter_seconds"] = round(per.seconds, 3)
        return per


def run(model: "Sokoban", request: Request, ctx: SearchContext) -> Result:
    """Optimal plan under the model's metric (pushes: fewest moves among the fewest pushes)."""
    reason = supports(model)
    if reason is not None:
        return finish(ctx, ENGINE, model, Status.UNSUPPORTED, message=reason)
    from puzzleplan.models.sokoban import kernel_search as ks
    from puzzleplan.models.sokoban.sealed import without_sealed
    from puzzleplan.models.sokoban.tables import build
    started = time.monotonic()
    options = request.options or {}
    def on(name: str) -> bool:
        return bool(options.get(name, RULES[name][0]))

    prune = bool(options.get("prune", getattr(model, "prune", True)))
    rules = Rules(prune, on("corrals"), on("walk"), on("pair_bound"), on("symmetry"), on("layer_first"),
                  on("dead_ends"))
    fewest_moves = on("fewest_moves")
    inner, outer = without_sealed(model) if prune and on("sealed") else (model, None)
    if outer is not None:
        ctx.stats.extra["sealed_boxes"] = len(model.goal_cells) - len(inner.goal_cells)
    tables = build(inner, pairs=prune and on("pairs"), triples=prune and on("triples"), rooms=prune and on("rooms"))
    lv = tables.as_tuple()
    ctx.stats.extra["setup_seconds"] = round(time.monotonic() - started, 6)
    threads = _threads(options.get("workers"))
    moves = model.metric == "moves"
    pgoal = -1 if inner.pg is None else int(inner.pg)
    perimeter = _LazyPerimeter(lv, inner.goal_cells, moves, pgoal) if prune and on("perimeter") else None
    if threads > 1:
        ctx.stats.extra["threads"] = threads
    cap = request.max_moves
    stats = ctx.stats
    ctx.phase = ENGINE
    if moves:
        search = _Search(inner, lv, ks.MOVES, inner.start_player, cap, None, rules, outer=outer, threads=threads,
                         perimeter=perimeter)
        found = _counted(search, ctx)
        return _conclude(ctx, model, search, found, cap)
    record = fewest_moves and cap is None and prune and on("to_go")
    first = _Search(inner, lv, ks.PUSHES, inner.initial() & inner.pmask, cap, None, rules, record=record,
                    outer=outer, threads=threads, perimeter=perimeter)
    found = _counted(first, ctx)
    if found < 0 or not fewest_moves:
        if found >= 0:
            stats.extra["fewest_moves"] = False
        return _conclude(ctx, model, first, found, cap)
    pushes = first.pushes_to(found)
    stats.extra["first_nodes"] = stats.nodes
    stats.extra["first_seconds"] = round(ctx.timed(), 3)   # on the clock of stats.seconds
    ctx.phase = f"{ENGINE}: fewest moves of {count(len(pushes), 'push', 'pushes')}"
    try:
        to_go = first.finish_layer(ctx, len(pushes)) if record else None
        base = (stats.nodes, stats.generated, stats.states)
        second = _Search(inner, lv, ks.LEXICAL, inner.start_player, None, len(pushes), rules,
                         ref=first if to_go is not None else None, to_go=to_go, outer=outer, threads=threads,
                         perimeter=perimeter)
        best = second.run(ctx, base)
        stats.extra["to_go_reads"] = int(second.ctr[ks.C_TO_GO])
        stats.extra["second_nodes"] = int(second.ctr[ks.C_NODES])
    except LimitReached as exc:
        stats.extra["fewest_moves"] = False
        stats.extra["fewest_moves_message"] = f"moves not minimised: {exc}"
        return _plan(ctx, model, pushes, Status.OPTIMAL, len(pushes),
                     message=f"fewest pushes; moves not minimised ({exc})")
    if best < 0:
        raise RuntimeError("the fewest-moves search lost the push-optimal plan (engine bug)")
    better = second.pushes_to(best)
    assert len(better) == len(pushes)
    stats.extra["fewest_moves"] = True
    return _plan(ctx, model, better, Status.OPTIMAL, len(pushes))


def _threads(workers: Any) -> int:
    """The threads to make children on (`--workers N`; default 1), at most numba's; sets numba's
    count for this thread."""
    if not workers or int(workers) <= 1:
        return 1
    import numba
    threads = min(int(workers), numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(threads)
    return threads


def _counted(search: _Search, ctx: SearchContext) -> int:
    """search.run from the root (-1 when the root is dead), its pruning counters put in the
    statistics however it ends, a limit included."""
    try:
        return search.run(ctx, (0, 0, 0)) if search.root_bound >= 0 else -1
    finally:
        ctx.stats.extra.update(search.counters())


def _conclude(ctx: SearchContext, model: "Sokoban", search: _Search, found: int, cap: int | None) -> Result:
    ks = search.ks
    if found >= 0:
        pushes = search.pushes_to(found)
        if model.metric == "moves":
            moves = model.with_metric("pushes").plan_moves(pushes)
            return _plan(ctx, model, moves, Status.OPTIMAL, len(moves))
        return _plan(ctx, model, pushes, Status.OPTIMAL, len(pushes))
    if search.root_bound < 0:
        return finish(ctx, ENGINE, model, Status.UNSOLVABLE,
                      message="the boxes cannot be matched to goals (player-aware push distances)")
    if search.ctr[ks.C_CAPPED] and cap is not None:
        unit = "move" if model.metric == "moves" else "push"
        return finish(ctx, ENGINE, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=cap + 1,
                      message=f"no plan within {count(cap, unit, unit + 'es' if unit == 'push' else None)}")
    return finish(ctx, ENGINE, model, Status.UNSOLVABLE,
                  message=f"{'all ' if ctx.stats.states != 1 else ''}{count(ctx.stats.states, 'state')} left by "
                          "pruning explored, none is a goal")


def _plan(ctx: SearchContext, model: "Sokoban", actions: list[Any], status: Status, cost: int,
          message: str = "") -> Result:
    """Finish with a plan: `actions` as the model's metric takes them; both counts in the stats."""
    moves = model.plan_moves(actions)
    ctx.stats.extra["pushes"] = sum(1 for m in moves if m.isupper())
    ctx.stats.extra["moves"] = len(moves)
    return finish(ctx, ENGINE, model, status, actions, lower_bound=cost, message=message)
