"""`tiles-h`: the factored-direction tiles encoding with the native search's pruning inside.

State and action variables are those of `tiles-dirs` (encoders/sat/tiles.py). On top:

- Per-step heuristic bounds, both ways: at step t the Manhattan sum to the goal is at most
  T - t, and the Manhattan sum from the start is at most t (each tile counted to its nearest
  goal / start cell of the same face, so repeated faces stay admissible). Both hold for every
  plan of at most T moves, shortest or not. Each tile's distance is unary ("tile of face f at
  step t is at least k away"), and the sum goes through a pysat cardinality encoding
  (`BOUND_CARD`: a sequential counter, measured beside pysat's totalizer and sorting network).
- The reversal cut (the blank never goes straight back) and idle steps only at the end, also
  under `goal: exact` without the cut (the proof setting of `verify`): there the formula
  allows an idle tail of even length, and the reversal cut is always on. That formula is
  satisfiable exactly when a plan of exactly T moves exists: such a plan, with its reversal
  pairs taken out one by one, is a plan without reversals of T - 2j moves, so it fits with an
  idle tail of 2j steps; and a plan of T - 2j moves becomes one of exactly T moves by j
  reversal pairs at its end, which is how `decode` returns it. So UNSAT still proves what
  exact-T UNSAT proves (encoders/base.py), while the search space shrinks as in IDA*.
  `goal: exact` with `no_reversal` on keeps the strict meaning (no idle; reversals cut), and
  `goal: by` follows the options as `tiles-dirs` does.
- Sliding tiles have no commuting moves (every move shifts the one blank, and two different
  orders of two moves leave the blank on different cells), so no commuting-move cut applies.
"""
from __future__ import annotations

from typing import Any, ClassVar

from pysat.card import CardEnc, EncType

from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sat.base import Clause
from puzzleplan.encoders.sat.tiles import DIRS, TilesDirections

BOUND_CARD = EncType.seqcounter   # the per-step distance sums (measured: fewer clauses than a totalizer, as fast)


def reversal_padding(moves: list[str], horizon: int, blank_moves: tuple[str, ...]) -> list[str]:
    """`moves` lengthened to `horizon` by reversal pairs at its end (horizon - len even).

    `blank_moves` are the directions the blank can take from its cell at the start (used when
    the plan is empty)."""
    out = list(moves)
    while len(out) < horizon:
        last = out[-1] if out else blank_moves[0]
        back = DIRS[(DIRS.index(last) + 2) % 4]
        out += [back, last] if out else [last, back]
    return out


class TilesHeuristic(TilesDirections):
    """Factored directions with per-step Manhattan sums as clauses, both ways.

    The reversal cut stays sound under exact horizons by an even idle tail (module docstring)."""

    name = "tiles-h"
    static_bounds: ClassVar[bool] = True    # the per-step Manhattan sums as clauses

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self.padded = options.goal == "exact" and not options.no_reversal
        self.idle = options.goal == "by" or self.padded
        self.reversal_cut = options.no_reversal or self.padded
        self.idle_tail = self.padded or options.idle_at_end
        self.to_goal = model.board.face_distances(model.goal)
        self.from_start = model.board.face_distances(model.start)
        self.copies = {f: model.goal.count(f) for f in self.faces}

    # -- per-step distance sums ----------------------------------------------------------------
    def _units(self, side: str, table: dict[int, list[int]], t: int) -> tuple[list[int], list[Clause]]:
        """Unary literals whose count is at least the distance sum at step t, with the clauses
        forcing them: a single-copy face gets a chain (at least k away -> at least k-1 away);
        a repeated face one literal per unit of each cell's distance."""
        lits: list[int] = []
        out: list[Clause] = []
        for f in self.faces:
            if f == 0:
                continue
            dist = table[f]
            if self.copies[f] == 1:
                chain = [self.var("far", side, f, k, t) for k in range(1, max(dist) + 1)]
                lits += chain
                out += [[-chain[k], chain[k - 1]] for k in range(1, len(chain))]
                out += [[-self.at(f, c, t), chain[d - 1]] for c, d in enumerate(dist) if d > 0]
            else:
                for c, d in enumerate(dist):
                    units = [self.var("far", side, f, c, k, t) for k in range(d)]
                    lits += units
                    out += [[-self.at(f, c, t), u] for u in units]
        return lits, out

    def _bound(self, side: str, table: dict[int, list[int]], t: int, bound: int) -> list[Clause]:
        lits, out = self._units(side, table, t)
        if bound < 0:
            return [[]]
        if bound >= len(lits):
            return out
        return out + CardEnc.atmost(lits=lits, bound=bound, vpool=self.pool, encoding=BOUND_CARD).clauses

    def cuts(self, horizon: int) -> list[Clause]:
        if not self.options.distance_cuts:
            return []
        out = super().cuts(horizon)   # one tile too far from its goal; the blank's colour (no idle)
        for t in range(1, horizon):
            out += [[-self.at(f, c, t)] for f, dist in self.from_start.items() for c, d in enumerate(dist) if d > t]
            if self.static_bounds:
                out += self._bound("goal", self.to_goal, t, horizon - t)
                out += self._bound("start", self.from_start, t, t)
        return out

    # -- actions: tiles-dirs' layer, with the cut and tail set in __init__ ----------------------
    def goal(self, horizon: int) -> list[Clause]:
        out = super().goal(horizon)
        if self.padded and horizon > 0:
            # the idle tail has even length: its first step has the parity of the horizon
            out += [[-self.var("idle", t), self.var("idle", t - 1)]
                    for t in range(1, horizon) if (horizon - t) % 2]
            out.append([-self.var("idle", 0)] if horizon % 2 else [])
            out = [c for c in out if c]
        return out

    def decode(self, true: set[int], horizon: int) -> list[str]:
        moves = super().decode(true, horizon)
        if not self.padded:
            return moves
        blank = self.model.start.index(0)
        legal = tuple(DIRS[k] for k, c in enumerate(self.nbr[blank]) if c >= 0)
        return reversal_padding(moves, horizon, legal)
