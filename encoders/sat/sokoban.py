"""A SAT encoding of Sokoban under the `moves` metric (one step per letter), with step variables.

`sok-onehot` (SokobanOneHot). Cells are the model's floor cells (`model.cells`, row-major
numbering, neighbours `model.nbr` in the order u d l r of models/sokoban/level.py). Box cells are the floor cells that are
not dead squares (`model.dead`: no goal is reachable from them by pushes on the empty level, so
a box standing there can never be solved; every plan keeps its boxes off them).

Variables:
    ("player", c, t)  the player stands on cell c at step t; exactly one c per step (CardEnc,
                      encoding from options.card).
    ("box", c, t)     a box stands on box cell c at step t. Never on the player's cell.
    ("go", d, t)      the step t -> t+1 goes in direction d (0..3 = u d l r); with ("idle", t)
                      under `goal: by`, exactly one per step.
    ("push", t)       only with the reversal cut: step t was a push (the player's cell at t+1
                      held a box at t).
Step t, the player on c going d, j the cell beyond c in d and k the cell beyond j:
    no j (a wall)             player(c,t) & go(d,t) is forbidden;
    otherwise                 player(c,t) & go(d,t) -> player(j,t+1);
    a box on j (a push)       player(c,t) & go(d,t) & box(j,t) -> box(k,t+1) & -box(k,t)
                              (forbidden when k is a wall or a dead square);
    idle                      player(c,t) & idle(t) -> player(c,t+1).
Frame (no action lists): a box stays unless the player steps onto its cell,
    box(c,t) -> box(c,t+1) | player(c,t+1),
and a box appears on c only as the one just pushed there: if box(c,t+1) & -box(c,t), the player
stands at t+1 on a neighbour j of c, went from j's far side towards c, and j held a box at t:
    -box(c,t) & box(c,t+1) -> OR_j player(j,t+1),
    -box(c,t) & box(c,t+1) & player(j,t+1) -> go(d,t) & box(j,t)   (d: the direction j -> c).
Together these keep the number of boxes constant without a cardinality constraint: a push moves
the box from j (the player's new cell, so -box(j,t+1)) to k, any other box stays, and nothing
else appears. The goal at T: a box on every goal cell (there are as many boxes as goals) and,
with a player goal, the player on it.
Cuts (options):
    no_reversal (goal `by` only): a walk immediately undone, walk d at t-1 then d's opposite
        at t, is forbidden (the two steps leave the position as it was, so a shortest plan never
        makes them; a push followed by the opposite walk moved a box and is kept).
        ("push", t) <-> OR_c player(c,t+1) & box(c,t) supplies the "walk" test. With it, walk
        order: a horizontal walk then a vertical one is forbidden when the vertical step could
        be taken first (its cell free): the two orders reach the same cell. No shortcut: D + 2
        walks in a row from c to a cell e at wall distance D <= 3, when a shortest wall path from c
        to e (one per pair, encoders/sat/sokoban_bound.py `wall_paths`) holds no box: walking
        that path is 2 moves shorter, so no shortest plan does it (a detour d1, d2,
        opposite(d1) is the case D = 1); an idle last step releases the clause (the idle tail of
        a padded plan after its final walk to a player goal). No loop: 4 to 12 walks in a row
        that end where they began. Without a player goal, no walk right before the idle tail.
    idle_at_end (goal `by`): idle(t) -> idle(t+1). With it (or under `exact`), and `parity`, the
        player's chessboard colour: every move changes it, so before the idle tail the player
        stands at step t on cells of the start's colour exactly when t is even (holds for every
        plan; halves the player's cells per step).
    distance_cuts (horizon-dependent, hold for every plan): a box on c at step t needs at least
        the push distance from c to its nearest goal (on the empty level) further moves, so
        -box(c,t) when that exceeds T - t; with a player goal, -player(c,t) when the walking
        distance to it exceeds T - t. Pattern bounds (encoders/sat/sokoban_bound.py): for one
        box, and for two when the level has three or more, with the player on p, the fewest
        moves that pattern alone needs to reach goals and from the start, by breadth-first
        search; a pattern is forbidden at step t when the first exceeds T - t or the second
        exceeds t (one clause per pattern, player cell and step; without the player literal
        where every player cell is ruled out). (The near-sum budget of sok-push is left out:
        with every walk wasting a move its slack is large, and it measured slower on Microban.)
Deadlock clauses (every plan, every step): frozen patterns of boxes off goals are forbidden
(encoders/sat/sokoban_deadlock.py); dead squares have no box variable.
Only the `moves` metric is encoded: under `pushes` the constructor raises ValueError.
"""
from __future__ import annotations

from typing import Any

from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sat.base import Clause, SatEncoding, UndecodableModel
from puzzleplan.encoders.sat.sokoban_bound import PatternBounds, wall_paths
from puzzleplan.encoders.sat.sokoban_deadlock import frozen_patterns
from puzzleplan.models.sokoban.analysis import INF
from puzzleplan.models.sokoban.level import OPPOSITE, PUSH, WALK


def sokoban_geometry(model: Any) -> tuple[list[bool], list[int]]:
    """Which cells may hold a box (not dead squares), and each cell's push distance to the
    nearest goal on the empty level (INF where none), shared with the CP-SAT encoding."""
    dead = getattr(model, "dead", None) or (False,) * model.ncells
    near = [min((d[c] for d in model.goal_dist), default=INF) for c in range(model.ncells)]
    return [not dead[c] for c in range(model.ncells)], near


def check_metric(model: Any, name: str) -> None:
    if getattr(model, "metric", "moves") != "moves":
        raise ValueError(f"{name}: Sokoban encodings support the moves metric only "
                         f"(got {model.metric!r})")


class SokobanLevel:
    """What both Sokoban encodings (SAT and CP-SAT) read off the model, set up once."""

    def read_level(self, model: Any, options: EncodingOptions) -> None:
        self.n = model.ncells
        self.nbr = model.nbr
        self.boxable, self.near = sokoban_geometry(model)
        self.idle = options.goal == "by"
        self.start_boxes = [c for c in range(self.n) if model.start_boxes >> c & 1]
        # a box or goal outside the player's area (the model's stray cells) is never paired:
        # no plan at all, whatever the horizon
        self.hopeless = bool(getattr(getattr(model, "level", None), "stray", ()))
        self.colour = [(r + c) % 2 for r, c in model.cells]
        self.start_colour = self.colour[model.start_player]

    def colour_cells(self, moves: int) -> list[int]:
        """The cells the player can stand on after exactly `moves` moves: every move takes it to
        a neighbouring cell, so the colour of its cell on a chessboard changes each time."""
        want = (self.start_colour + moves) % 2
        return [c for c in range(self.n) if self.colour[c] == want]


class SokobanOneHot(SokobanLevel, SatEncoding):
    """One-hot player cell, one boolean per box cell, direction actions (moves metric)."""

    family = "sokoban"
    name = "sok-onehot"
    metrics = ("moves",)
    preferred_solver = "glucose42"   # what `verify` runs unless asked otherwise (certify.solver_for)
    idle_pads = True    # idle steps come only after the last move; the cuts hold for padded shortest plans

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        check_metric(model, self.name)
        super().__init__(model, options)
        self.read_level(model, options)
        self.reversal = options.no_reversal and self.idle
        self.patterns = frozen_patterns(model, self.boxable)
        self.bounds = PatternBounds(model, self.boxable, len(self.start_boxes))
        self.shortcuts = [(c, e, path) for c, e, path in wall_paths(model.nbr)
                          if len(path) <= self.SHORTCUT_MAX] if self.reversal else []
        self._rows: dict[int, tuple[list[int], list[int]]] = {}

    # -- variables ------------------------------------------------------------------------------
    def player(self, c: int, t: int) -> int:
        return self.var("player", c, t)

    def box(self, c: int, t: int) -> int:
        return self.var("box", c, t)

    def go(self, d: int, t: int) -> int:
        return self.var("go", d, t)

    def rows(self, t: int) -> tuple[list[int], list[int]]:
        """The player and box variables of step t by cell (0: no box variable), kept for the
        cuts that read many of them."""
        got = self._rows.get(t)
        if got is None:
            got = ([self.player(c, t) for c in range(self.n)],
                   [self.box(c, t) if self.boxable[c] else 0 for c in range(self.n)])
            self._rows[t] = got
        return got

    def _false(self) -> list[Clause]:
        z = self.var("false")
        return [[z], [-z]]

    # -- layers ---------------------------------------------------------------------------------
    def _state(self, t: int) -> list[Clause]:
        out = self.exactly_one([self.player(c, t) for c in range(self.n)])
        for c in range(self.n):
            if self.boxable[c]:
                out.append([-self.player(c, t), -self.box(c, t)])
        for pattern in self.patterns:
            out.append([-self.box(c, t) for c in pattern])
        return out

    def initial(self) -> list[Clause]:
        out = self._state(0)
        out.append([self.player(self.model.start_player, 0)])
        if self.hopeless or any(not self.boxable[c] for c in self.start_boxes):
            return out + self._false()        # a box starts on a dead square or stray: unsolvable
        start = set(self.start_boxes)
        for c in range(self.n):
            if self.boxable[c]:
                out.append([self.box(c, 0) if c in start else -self.box(c, 0)])
        return out

    def layer(self, t: int) -> list[Clause]:
        out = self._state(t + 1)
        nbr, boxable = self.nbr, self.boxable
        acts = [self.go(d, t) for d in range(4)]
        if self.idle:
            idle = self.var("idle", t)
            acts.append(idle)
            if self.options.idle_at_end and t > 0:
                out.append([-self.var("idle", t - 1), idle])
        out += self.exactly_one(acts)
        for c in range(self.n):
            p, q = self.player(c, t), self.player(c, t + 1)
            if self.idle:
                out.append([-p, -self.var("idle", t), q])
            for d in range(4):
                g = self.go(d, t)
                j = nbr[c][d]
                if j < 0:
                    out.append([-p, -g])
                    continue
                out.append([-p, -g, self.player(j, t + 1)])
                if not boxable[j]:
                    continue
                k = nbr[j][d]
                x = self.box(j, t)
                if k < 0 or not boxable[k]:
                    out.append([-p, -g, -x])
                else:
                    out += [[-p, -g, -x, self.box(k, t + 1)], [-p, -g, -x, -self.box(k, t)]]
        for c in range(self.n):
            if not boxable[c]:
                continue
            x0, x1 = self.box(c, t), self.box(c, t + 1)
            out.append([-x0, x1, self.player(c, t + 1)])
            behind = []
            for d in range(4):
                j = nbr[c][OPPOSITE[d]]          # the player ends on j after pushing d into c
                if j < 0:
                    continue
                pj = self.player(j, t + 1)
                behind.append(pj)
                if boxable[j]:
                    out += [[x0, -x1, -pj, self.go(d, t)], [x0, -x1, -pj, self.box(j, t)]]
                else:
                    out.append([x0, -x1, -pj])
            out.append([x0, -x1] + behind)
        out += self._parity(t)
        if self.reversal:
            out += self._push_flag(t)
            if t > 0:
                for d in range(4):
                    out.append([-self.go(d, t - 1), self.var("push", t - 1), -self.go(OPPOSITE[d], t)])
                out += self._walk_order(t)
                if self.model.pg is None:   # no walk just before the idle tail: it would be wasted
                    out.append([-self.var("idle", t), self.var("push", t - 1), self.var("idle", t - 1)])
            out += self._no_shortcut(t)
            out += self._no_loop(t)
        return out

    def _parity(self, t: int) -> list[Clause]:
        """Every move takes the player to a neighbouring cell, so the colour of its cell on a
        chessboard changes at every move: before any idle step, at t+1 the player stands on
        the start's colour when t+1 is even and on the other one when odd (under goal `by`,
        idle steps come last with idle_at_end, so "step t is not idle" means steps 0..t moved)."""
        if not self.options.parity or (self.idle and not self.options.idle_at_end):
            return []
        release = [self.var("idle", t)] if self.idle else []
        allowed = set(self.colour_cells(t + 1))
        return [[-self.player(c, t + 1)] + release for c in range(self.n) if c not in allowed]

    SHORTCUT_MAX = 3            # wall distances D the shortcut cut covers (longer: more clauses, measured no faster)
    LOOPS = (4, 6, 8, 10, 12)   # walk-only loops forbidden (2 is the reversal cut)

    def _no_loop(self, t: int) -> list[Clause]:
        """No push from step s = t+1-k to t+1, step s a walk, the player back where it was: the
        walks before the idle tail are a loop, cut out of any shortest plan (k = LOOPS)."""
        out: list[Clause] = []
        for k in self.LOOPS:
            s = t + 1 - k
            if s < 0:
                continue
            # idle steps come last: step s not idle, some walk is in s..t and, as the player
            # comes back to c, the walks before the idle tail make a loop
            walks = [self.var("push", u) for u in range(s, t + 1)] + [self.var("idle", s)]
            out += [[-self.player(c, s), -self.player(c, t + 1)] + walks for c in range(self.n)]
        return out

    def _no_shortcut(self, t: int) -> list[Clause]:
        """No walk-only stretch of k = D + 2 steps ending at t+1 from c to e, where D is c's
        wall distance to e and the wall path from c to e (self.shortcuts) holds no box at its
        start: that path is D steps long, so no shortest plan walks the stretch (step t idle
        releases it: a padded plan's idle tail is no walk)."""
        out: list[Clause] = []
        push = [self.var("push", u) for u in range(t + 1)]
        idle = self.var("idle", t)
        after = self.rows(t + 1)[0]
        for c, e, path in self.shortcuts:
            s = t + 1 - (len(path) + 2)
            if s >= 0:
                players, boxes = self.rows(s)
                out.append([-players[c], -after[e], idle] + push[s:] + [boxes[x] for x in path if boxes[x]])
        return out

    def _walk_order(self, t: int) -> list[Clause]:
        """Two walks in a row, horizontal then vertical, are forbidden when the vertical one
        could come first (its cell is floor without a box): swapping them gives a plan of the
        same length through the same states but one, so some shortest plan walks vertical first."""
        out: list[Clause] = []
        for c in range(self.n):
            here = self.player(c, t - 1)
            for d1 in (2, 3):
                for d2 in (0, 1):
                    e = self.nbr[c][d2]
                    if e < 0 or self.nbr[c][d1] < 0:
                        continue
                    clause = [-here, -self.go(d1, t - 1), self.var("push", t - 1), -self.go(d2, t), self.var("push", t)]
                    if self.boxable[e]:
                        clause.append(self.box(e, t - 1))
                    out.append(clause)
        return out

    def _push_flag(self, t: int) -> list[Clause]:
        """("push", t) <-> the player's cell at t+1 held a box at t."""
        out: list[Clause] = []
        push = self.var("push", t)
        for c in range(self.n):
            q = self.player(c, t + 1)
            if self.boxable[c]:
                x = self.box(c, t)
                out += [[-q, -x, push], [-q, x, -push]]
            else:
                out.append([-q, -push])
        return out

    # -- goal and cuts --------------------------------------------------------------------------
    def goal(self, horizon: int) -> list[Clause]:
        out = [[self.box(g, horizon)] for g in self.model.goal_cells]
        if self.model.pg is not None:
            out.append([self.player(self.model.pg, horizon)])
        return out

    def cuts(self, horizon: int) -> list[Clause]:
        out: list[Clause] = []
        if not self.options.distance_cuts:
            return out
        pg_dist = self.model.pg_dist
        for t in range(horizon + 1):
            left = horizon - t
            for c in range(self.n):
                if self.boxable[c] and self.near[c] > left:
                    out.append([-self.box(c, t)])
                if pg_dist is not None and pg_dist[c] > left:
                    out.append([-self.player(c, t)])
        for cells, p, t in self.bounds.forbidden(horizon):
            players, boxes = self.rows(t)
            out.append([-boxes[c] for c in cells] + ([] if p is None else [-players[p]]))
        return out

    # -- decoding -------------------------------------------------------------------------------
    def decode(self, true: set[int], horizon: int) -> list[str]:
        moves = []
        for t in range(horizon):
            here = next((c for c in range(self.n) if self.player(c, t) in true), None)
            if here is None:
                raise UndecodableModel(f"the model puts the player on no cell at step {t}")
            for d in range(4):
                if self.go(d, t) in true:
                    j = self.nbr[here][d]
                    push = j >= 0 and self.boxable[j] and self.box(j, t) in true
                    moves.append(PUSH[d] if push else WALK[d])
        return moves
