"""`tiles-pdb`: `tiles-h`'s formula without its Manhattan clauses, and a pattern-table lower
bound (the native pattern databases; on boards of up to 3x3 cells small additive tables built
in numpy, encoders/sat/tiles_patterns.py) added lazily by an external propagator on CaDiCaL
1.9.5, which also makes the solver's decisions walk forward in time
(encoders/sat/tiles_propagator.py).

Proof semantics are those of `tiles-h`: every clause the propagator adds holds for every plan
within the horizon (the bound is admissible), so UNSAT proves what it proves for `tiles-h`.
With another solver (no IPASIR-UP), or in an exported DIMACS file, the formula stands alone:
still sound and complete, without the bound.
"""
from __future__ import annotations

from typing import Any

from pysat.solvers import Solver

from puzzleplan.encoders.base import EncodingOptions
from puzzleplan.encoders.sat.tiles_h import TilesHeuristic
from puzzleplan.encoders.sat.tiles_patterns import PatternBound
from puzzleplan.encoders.sat.tiles_propagator import (SMALL_BOARD, BoundPropagator, LowerBound, ManhattanBound,
                                                      bound_for)


class TilesPatternBound(TilesHeuristic):
    """Factored directions with the native lower bound added by an external propagator.

    As `tiles-h`, the reversal cut stays sound under exact horizons by an even idle tail."""

    name = "tiles-pdb"
    static_bounds = False

    @staticmethod
    def loads_kernels(model: Any) -> bool:
        """True when its bound runs the family's compiled kernels (boards over SMALL_BOARD cells),
        so the CLI notes a first compile up front."""
        return model.n > SMALL_BOARD

    @staticmethod
    def prepare(model: Any) -> None:
        """Load the bound's tables (about 0.45 s for a 15-puzzle's cached pattern databases)
        into this process's memo, where `connect` finds them."""
        bound_for(model)

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        super().__init__(model, options)
        self._lower: PatternBound | LowerBound | ManhattanBound | None = None
        self.propagator: BoundPropagator | None = None
        self._attached: Solver | None = None      # the solver the propagator is attached to

    def connect(self, solver: Solver, horizon: int, guard: int | None) -> dict[str, Any]:
        """Attach the bound propagator to `solver` (CaDiCaL 1.9.5 only). `--no-distance-cuts`
        leaves it off too: the bound is this encoding's distance cut. The notes say which bound
        ran, or why none did."""
        if not self.options.distance_cuts:
            return {"bound": "none (distance cuts off)"}
        if not hasattr(solver.solver, "connect_propagator"):
            return {"bound": "none (this solver takes no external propagator; use cadical195)"}
        if self._lower is None:
            self._lower = bound_for(self.model)
        if self.propagator is not None and self._attached is solver:
            solver.disconnect_propagator()     # incremental: the next horizon's propagator replaces it
        actions = [[self.direction(k, t) for k in range(4)] + [self.var("idle", t) if self.idle else 0]
                   for t in range(horizon)]
        self.propagator = BoundPropagator(self.model.start, self.nbr, horizon, actions, self.at, self._lower, guard)
        solver.connect_propagator(self.propagator)
        self._attached = solver
        for row in actions:
            for v in row:
                if v:
                    solver.observe(v)
        return {"bound": self._lower.label}
