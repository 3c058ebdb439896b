"""A hand-tuned SAT encoding of sliding-block puzzles (Klotski) under the step, slide and piece
metrics, with step variables.

State: one variable per class of look-alike pieces and legal anchor (board.masks),
    ("at", k, a, t)   some piece of class k has its anchor at a at step t,
so a step's state is the set of anchors of each class: exactly the model's canonical state
(each class's anchors sorted), and no symmetry among identical pieces is left to break.
    ("occ", c, t)     cell c is covered at step t: at -> occ, occ -> OR(at covering c), and at
                      most one of the at's covering a cell (CardEnc): pieces never overlap.
Implied counts, stated because they propagate (measured: each alone made UNSAT proofs 3-15
times faster on the Klotski boards): exactly |class| at's per class, exactly as many covered
cells as the pieces have.
Moves: ("from", k, a, t) <-> at(k,a,t) & -at(k,a,t+1) and ("to", k, b, t) <-> -at(k,b,t) &
at(k,b,t+1) (these equivalences are the frame); ("mc", k, t) class k moves: from/to -> mc,
mc -> some from and some to, at most one from and one to per class, exactly one mc (or
("idle", t) under `goal: by`). One move per step is thus one distinct (piece, destination);
the piece moved is the one at the from anchor (its rank in the class, which decode() reads
by replaying the model). The destination's cells are free because pieces never overlap at
t+1 (the others stay). Then, per metric:
    step   from(k,a) -> OR to(k,b) over the unit-step neighbours b of a, and back.
    slide  direction bits ("hz", t), ("pos", t); ("ray", k, p, t): the mover passes p.
           to(k,b) -> ray(k,b); ray(k,p) & dir d -> from(k,p-d) | ray(k,p-d) (false when p-d
           is no legal anchor); ray(k,p) -> ok(k,p). Every position passed, not only the
           cells swept by the front, is checked: a shape that is not convex may cross cells
           neither end covers.
    piece  ("reach", k, p, j, t): the mover reaches p within j unit steps, j = 1..K, reach_0
           = from; reach_j(p) -> reach_{j-1}(p) | OR reach_{j-1}(q) over p's neighbours q;
           reach_j(p) -> ok(k,p); to(k,b) -> reach_K(b). Layers make the support well founded
           (a cycle of reach literals cannot hold itself up). K bounds every shortest route
           (route_bound): with the others fixed the mover stays within its room, the cells
           the class can cover less those the other pieces must cover of them.
    ("ok", k, p, t): position p of class k is clear of the other pieces at t: per cell c of
           p, -ok | -occ(c,t) | OR from(k,a,t) over the anchors a of class k covering c (the
           mover's own cells).
Goal(T): each goal class's target anchors hold at T (with the count kept, that is equality);
for `leave:` the leaving piece (no look-alikes: it is distinct) at one of its anchors outside.

Cuts (sound under `goal: by`, see encoders/base.py):
    no_reversal (shortest-plan cuts, on consecutive moves of the same piece: the piece that
        arrived at b at t-1 leaves b at t):
        step   it does not go straight back;
        slide  its second move is perpendicular to the first (two collinear slides of one
               piece merge into one, or cancel: every cell either crosses is free of others,
               and so is every cell of the merged slide);
        piece  it does not move again (the others stand still, so its second destination is
               reachable in one move from its first position: merge, or drop both).
    idle_at_end: idle(t) -> idle(t+1).
    distance_cuts: a piece of a goal class at p at step t is within T - t moves (walls only)
        of the nearest target; every piece at p at step t is within t moves of a start of
        its class (horizon-free, in layer()). Under `piece` one move goes anywhere on an empty
        board, so there the distance is the unit-step one over K, rounded up.
Left out, measured: a commuting-moves cut (two consecutive moves that could be swapped, keyed
order) and a mirror-image cut on the first move were no faster on Klotski, where nearly every
pair of consecutive moves shares a freed cell; per-class covered-cell counts and occupancy
frame axioms neither.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from pysat.card import CardEnc, EncType

from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sat.base import Clause, SatEncoding
from puzzleplan.models.base import bits
from puzzleplan.models.blocks.board import DIRECTIONS

__all__ = ["BlocksSat"]

OPPOSITE = {"U": "D", "D": "U", "L": "R", "R": "L"}
# direction -> (hz, pos) literal signs: R = hz & pos, L = hz & -pos, D = -hz & pos, U = -hz & -pos
DIRECTION_BITS = {"R": (True, True), "L": (True, False), "D": (False, True), "U": (False, False)}


@dataclass
class ClassGeometry:
    """One class of look-alike pieces: its anchors, cells, neighbours and distance tables."""

    slot: int                                    # the class's first slot (all share its masks)
    size: int                                    # pieces in the class
    anchors: list[int]                           # legal anchors, ascending
    masks: dict[int, int]                        # legal anchor -> its cell bits
    cells: dict[int, list[int]]                  # legal anchor -> its cells
    nbr: dict[int, dict[str, int]]               # anchor -> direction -> neighbouring anchor
    cover: dict[int, list[int]]                  # cell -> anchors covering it
    start: tuple[int, ...]                       # the class's anchors at step 0
    reach_bound: int = 0                         # K: unit steps within one `piece` move, at most
    from_start: dict[int, int] = field(default_factory=dict)   # anchor -> moves from the nearest start
    to_goal: dict[int, int] | None = None        # anchor -> moves to the nearest target (goal classes)

    @property
    def shape_size(self) -> int:
        return len(next(iter(self.cells.values())))


ROUTE_BUDGET = 20_000     # route-search nodes before falling back to the counting bound


def route_bound(geo: ClassGeometry, room: int) -> int:
    """The most unit steps a shortest route of one move can take when the mover has `room` cells
    (its own and the free ones) to move in: the longest route of distinct positions whose cells
    together fit in `room` (a shortest route never repeats a position, and all of its cells are
    free or the mover's). Counting bound when the search is too large: a shape S has at most
    room - |S| + 1 translates within `room` cells (order them by anchor: each after the first
    adds its own last cell), so a route has at most room - |S| steps."""
    counted = min(len(geo.anchors) - 1, room - geo.shape_size)
    if counted <= 0:
        return max(counted, 0)
    best, nodes = 0, 0

    def walk(at: int, seen: set[int], union: int, steps: int) -> None:
        nonlocal best, nodes
        best = max(best, steps)
        for nxt in geo.nbr[at].values():
            nodes += 1
            grown = union | geo.masks[nxt]
            if nxt not in seen and grown.bit_count() <= room and nodes <= ROUTE_BUDGET and best < counted:
                seen.add(nxt)
                walk(nxt, seen, grown, steps + 1)
                seen.discard(nxt)
    for a in geo.anchors:
        walk(a, {a}, geo.masks[a], 0)
    return counted if nodes > ROUTE_BUDGET else best


def _distances(board: Any, slot: int, sources: list[int], metric: str, per_move: int) -> dict[int, int]:
    """Walls-only distance in moves of `metric` from the nearest source to every anchor reached.
    Under `piece` (one move goes anywhere on an empty board) it is the unit-step distance over
    `per_move` (a move's route takes at most that many unit steps), rounded up."""
    walk = "step" if metric == "piece" else metric
    dist = {a: 0 for a in sources}
    queue = list(sources)
    for a in queue:
        for b, _ in board.destinations(slot, a, 0, walk):
            if b not in dist:
                dist[b] = dist[a] + 1
                queue.append(b)
    if metric != "piece":
        return dist
    if per_move == 0:
        return {a: 0 for a in sources}
    return {a: -(-d // per_move) for a, d in dist.items()}


def geometry(model: Any) -> list[ClassGeometry]:
    """Per class: anchors, cells, neighbours, covers, the reach bound and distance tables."""
    board, start = model.board, model.initial()
    out = []
    for lo, hi in board.class_span:
        masks = dict(board.masks(lo))
        cells = {a: bits(m) for a, m in masks.items()}
        anchors = sorted(masks)
        cover: dict[int, list[int]] = {}
        for a in anchors:
            for c in cells[a]:
                cover.setdefault(c, []).append(a)
        nbr = {a: {d: b for d in DIRECTIONS if (b := board.step(lo, a, d)) is not None} for a in anchors}
        out.append(ClassGeometry(lo, hi - lo, anchors, masks, cells, nbr, cover, tuple(sorted(start[lo:hi]))))
    for k, geo in enumerate(out):
        # the cells the class can cover, less what the other pieces must cover of them (each at
        # its least overlap): the room one of its pieces has to move in
        region = set(geo.cover)
        taken = sum(min(len(region.intersection(cs)) for cs in other.cells.values()) * (other.size - (j == k))
                    for j, other in enumerate(out))
        geo.reach_bound = route_bound(geo, len(region) - taken)
    targets: dict[int, list[int]] = {k: list(t) for k, t in model.goal}
    if model.exit_goal is not None:
        slot, anchors = model.exit_goal
        targets.setdefault(board.slot_class[slot], []).extend(sorted(anchors))
    for k, geo in enumerate(out):
        geo.from_start = _distances(board, geo.slot, list(geo.start), model.metric, geo.reach_bound)
        if k in targets:
            geo.to_goal = _distances(board, geo.slot, targets[k], model.metric, geo.reach_bound)
    return out


class BlocksSat(SatEncoding):
    """Class-set states, from/to move literals; step, slide (rays) and piece (layered reach)."""

    family: ClassVar[str] = "blocks"
    name: ClassVar[str] = "blocks-sat"
    metrics: ClassVar[tuple[str, ...]] = ("step", "slide", "piece")
    idle_pads: ClassVar[bool] = True   # idle: no from/to, so the frame keeps every anchor

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        reason = self.supports(model)
        if reason is not None:
            raise ValueError(reason)
        super().__init__(model, options)
        self.metric = model.metric
        self.idle = options.goal == "by"
        self.geo = geometry(model)
        self.classes = range(len(self.geo))
        cover: dict[int, list[tuple[int, int]]] = {}
        for k, geo in enumerate(self.geo):
            for c, anchors in geo.cover.items():
                cover.setdefault(c, []).extend((k, a) for a in anchors)
        self.cover = cover
        self.cells = sorted(cover)
        self.covered = sum(g.shape_size * g.size for g in self.geo)

    @classmethod
    def supports(cls, model: Any) -> str | None:
        """None for a sliding-block model this encoding can state, else the reason."""
        if getattr(model, "family", None) != cls.family:
            return f"{cls.__name__} encodes blocks, not {getattr(model, 'family', '?')}"
        if model.metric not in cls.metrics:
            return f"{cls.__name__} encodes the {', '.join(cls.metrics)} metrics, not {model.metric}"
        board = model.board
        for lo, hi in board.class_span:
            if any(board.masks(s) != board.masks(lo) for s in range(lo + 1, hi)):
                return f"{cls.__name__} needs look-alike pieces to share their legal anchors"
        if model.exit_goal is not None:
            lo, hi = board.class_span[board.slot_class[model.exit_goal[0]]]
            if hi - lo > 1:
                return f"{cls.__name__} needs the leaving piece to have no look-alikes"
        return None

    # -- literals -------------------------------------------------------------------------------
    def exactly(self, lits: list[int], bound: int) -> list[Clause]:
        """Exactly `bound` of `lits` (CardEnc, encoding from options.card; counters where it has none)."""
        if bound == 0:
            return [[-x] for x in lits]
        if bound == len(lits):
            return [[x] for x in lits]
        if 2 * bound > len(lits):       # count the other side: a counter's size grows with the bound
            return self.exactly([-x for x in lits], len(lits) - bound)
        card = self._card if bound == 1 or self.options.card not in ("pairwise", "bitwise", "ladder") else \
            EncType.seqcounter
        return CardEnc.equals(lits=lits, bound=bound, vpool=self.pool, encoding=card).clauses

    def at(self, k: int, a: int, t: int) -> int:
        return self.var("at", k, a, t)

    def occ(self, c: int, t: int) -> int:
        return self.var("occ", c, t)

    def frm(self, k: int, a: int, t: int) -> int:
        return self.var("from", k, a, t)

    def to(self, k: int, a: int, t: int) -> int:
        return self.var("to", k, a, t)

    def mc(self, k: int, t: int) -> int:
        return self.var("mc", k, t)

    def reach(self, k: int, p: int, j: int, t: int) -> int:
        return self.frm(k, p, t) if j == 0 else self.var("reach", k, p, j, t)

    def not_direction(self, d: str, t: int) -> list[int]:
        """The literals whose disjunction says "the direction at t is not d"."""
        hz, pos = DIRECTION_BITS[d]
        h, p = self.var("hz", t), self.var("pos", t)
        return [-h if hz else h, -p if pos else p]

    # -- state ----------------------------------------------------------------------------------
    def _state(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        for c in self.cells:
            lits = [self.at(k, a, t) for k, a in self.cover[c]]
            out += self.at_most_one(lits)
            o = self.occ(c, t)
            out += [[-x, o] for x in lits]
            out.append([-o] + lits)
        # implied counts, stated for propagation: the cells covered, and each class's pieces
        out += self.exactly([self.occ(c, t) for c in self.cells], self.covered)
        for k, geo in enumerate(self.geo):
            out += self.exactly([self.at(k, a, t) for a in geo.anchors], geo.size)
            if self.options.distance_cuts and t > 0:
                out += [[-self.at(k, a, t)] for a in geo.anchors if geo.from_start.get(a, t + 1) > t]
        return out

    def initial(self) -> list[Clause]:
        out = self._state(0)
        for k, geo in enumerate(self.geo):
            out += [[self.at(k, a, 0) if a in geo.start else -self.at(k, a, 0)] for a in geo.anchors]
        return out

    # -- actions --------------------------------------------------------------------------------
    def layer(self, t: int) -> list[Clause]:
        out = self._state(t + 1) + self._moves(t)
        out += {"step": self._step, "slide": self._slide, "piece": self._piece}[self.metric](t)
        if t > 0:
            out += self._consecutive(t)
        return out

    def _moves(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        movers = [self.mc(k, t) for k in self.classes]
        if self.idle:
            movers.append(self.var("idle", t))
        out += self.exactly_one(movers)
        for k, geo in enumerate(self.geo):
            m = self.mc(k, t)
            froms, tos = [], []
            for a in geo.anchors:
                x, y = self.at(k, a, t), self.at(k, a, t + 1)
                f, g = self.frm(k, a, t), self.to(k, a, t)
                out += [[-f, x], [-f, -y], [f, -x, y], [-g, -x], [-g, y], [g, x, -y], [-f, m], [-g, m]]
                froms.append(f)
                tos.append(g)
            out += [[-m] + froms, [-m] + tos]
            out += self.at_most_one(froms) + self.at_most_one(tos)
        return out

    def _step(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        for k, geo in enumerate(self.geo):
            for a in geo.anchors:
                near = list(geo.nbr[a].values())
                out.append([-self.frm(k, a, t)] + [self.to(k, b, t) for b in near])
                out.append([-self.to(k, a, t)] + [self.frm(k, b, t) for b in near])
        return out

    def _ok(self, k: int, p: int, t: int) -> list[Clause]:
        """ok(k,p,t) -> every cell of p is free or the mover's own at t."""
        geo, ok = self.geo[k], self.var("ok", k, p, t)
        return [[-ok, -self.occ(c, t)] + [self.frm(k, a, t) for a in geo.cover[c]] for c in geo.cells[p]]

    def _slide(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        for k, geo in enumerate(self.geo):
            for p in geo.anchors:
                ray = self.var("ray", k, p, t)
                out.append([-self.to(k, p, t), ray])
                out.append([-ray, self.var("ok", k, p, t)])
                out += self._ok(k, p, t)
                for d in DIRECTIONS:
                    back = geo.nbr[p].get(OPPOSITE[d])
                    tail = [] if back is None else [self.frm(k, back, t), self.var("ray", k, back, t)]
                    out.append([-ray] + self.not_direction(d, t) + tail)
        return out

    def _piece(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        for k, geo in enumerate(self.geo):
            top = geo.reach_bound
            for p in geo.anchors:
                if top == 0:
                    out.append([-self.to(k, p, t)])
                    continue
                out.append([-self.to(k, p, t), self.reach(k, p, top, t)])
                out += self._ok(k, p, t)
                for j in range(1, top + 1):
                    r = self.reach(k, p, j, t)
                    out.append([-r, self.var("ok", k, p, t)])
                    out.append([-r, self.reach(k, p, j - 1, t)] + [self.reach(k, q, j - 1, t)
                                                                   for q in geo.nbr[p].values()])
        return out

    # -- cuts on consecutive steps (t-1, t) -----------------------------------------------------
    def _consecutive(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        if self.idle and self.options.idle_at_end:
            out.append([-self.var("idle", t - 1), self.var("idle", t)])
        if self.options.no_reversal:
            out += self._no_reversal(t)
        return out

    def _no_reversal(self, t: int) -> list[Clause]:
        out: list[Clause] = []
        for k, geo in enumerate(self.geo):
            for b in geo.anchors:
                again = [-self.to(k, b, t - 1), -self.frm(k, b, t)]       # the same piece moves again
                if self.metric == "piece":
                    out.append(again)
                elif self.metric == "slide":
                    h0, h1 = self.var("hz", t - 1), self.var("hz", t)
                    out += [again + [h0, h1], again + [-h0, -h1]]
                else:
                    out += [again + [-self.frm(k, a, t - 1), -self.to(k, a, t)] for a in geo.nbr[b].values()]
        return out

    # -- goal, cuts, decode ---------------------------------------------------------------------
    def goal(self, horizon: int) -> list[Clause]:
        out: list[Clause] = [[self.at(k, a, horizon)] for k, target in self.model.goal for a in target]
        if self.model.exit_goal is not None:
            slot, anchors = self.model.exit_goal
            k = self.model.board.slot_class[slot]
            out.append([self.at(k, a, horizon) for a in sorted(anchors)])
        return out

    def cuts(self, horizon: int) -> list[Clause]:
        out: list[Clause] = []
        if not self.options.distance_cuts:
            return out
        for k, geo in enumerate(self.geo):
            if geo.to_goal is None:
                continue
            for t in range(horizon + 1):
                out += [[-self.at(k, a, t)] for a in geo.anchors if geo.to_goal.get(a, horizon + 1) > horizon - t]
        return out

    def decode(self, true: set[int], horizon: int) -> list[str]:
        """Replay the class-set moves through the model: the move whose child is the next state."""
        model, board = self.model, self.model.board
        state, plan = model.initial(), []
        for t in range(horizon):
            moved = [(k, a, b) for k, geo in enumerate(self.geo) for a in geo.anchors if self.frm(k, a, t) in true
                     for b in geo.anchors if self.to(k, b, t) in true]
            if not moved:
                continue                       # idle
            k, a, b = moved[0]
            lo, hi = board.class_span[k]
            slot = lo + state[lo:hi].index(a)
            child = board.moved(state, slot, b)
            move = next((m for m, nxt in model.successors(state) if nxt == child), None)
            if move is None:
                raise RuntimeError(f"blocks-sat decoded an illegal move at step {t}")
            plan += model.plan_moves([move])
            state = child
        return plan
