"""The SAT side: a layered encoding interface and the solver drivers (fixed and incremental).

An encoding is built in layers so one solver can be reused across horizons: `initial()` fixes
step 0, `layer(t)` adds the actions of step t and the state at t+1, and the horizon-dependent
parts (`goal(T)`, `cuts(T)`) are added under an activation literal and switched on through
assumptions. Variables are tuple keys in a `pysat.formula.IDPool`, so `("at", face, cell, t)`
is both readable and the DIMACS variable map.
"""
from __future__ import annotations

import threading
import time
from typing import Any, ClassVar, Iterable, Iterator

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from puzzleplan.encoders.base import Answer, EncodingOptions, HorizonResult, steps_of

Clause = list[int]


class UndecodableModel(ValueError):
    """A model that holds no plan: none was given, or it names no value where decoding needs one
    (an outside solver's answer, read by encoders/export.py `read_model_literals`)."""


class SatEncoding:
    """Base of the SAT encodings: the pool, cardinality helpers and the layered contract."""

    backend: ClassVar[str] = "sat"
    family: ClassVar[str] = ""
    name: ClassVar[str] = ""
    # Under `goal: by`, ("idle", t) is the padding of a plan: true at every step after its last
    # move, and a shortest plan so padded satisfies the formula (see fewer_steps).
    idle_pads: ClassVar[bool] = False

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        self.model = model
        self.options = options
        self.pool = IDPool()
        self._card = getattr(EncType, options.card)

    # -- variables and cardinality ------------------------------------------------------------
    def var(self, *key: Any) -> int:
        return self.pool.id(key)

    def exactly_one(self, lits: list[int]) -> list[Clause]:
        return CardEnc.equals(lits=lits, bound=1, vpool=self.pool, encoding=self._card).clauses

    def at_most_one(self, lits: list[int]) -> list[Clause]:
        if len(lits) <= 1:
            return []
        return CardEnc.atmost(lits=lits, bound=1, vpool=self.pool, encoding=self._card).clauses

    # -- the layered contract (implemented by each encoding) ----------------------------------
    def initial(self) -> list[Clause]:
        raise NotImplementedError

    def layer(self, t: int) -> list[Clause]:
        """Actions of step t (t -> t+1) and the constraints on the state at t+1."""
        raise NotImplementedError

    def goal(self, horizon: int) -> list[Clause]:
        raise NotImplementedError

    def cuts(self, horizon: int) -> list[Clause]:
        """Horizon-dependent cuts (distance-to-goal); [] when disabled."""
        return []

    def decode(self, true: set[int], horizon: int) -> list[str]:
        raise NotImplementedError

    def fewer_steps(self, horizon: int) -> tuple[list[int], list[Clause]] | None:
        """Assumptions and clauses that leave, of this encoding's formula for `horizon`, the
        plans of at most horizon - 1 moves: how `verify` asks its bound on the solver that
        found the plan (solve_then_fewer). None when the encoding cannot say it.

        For an `idle_pads` encoding under `by`: assume idle(horizon - 1) and add the cuts of
        horizon - 1 behind it. Why UNSAT then proves that no plan has at most horizon - 1
        moves: if one had, a shortest plan, padded with idle steps to `horizon`, satisfies the
        formula (the encoding's own argument for UNSAT under `by`: its cuts hold for padded
        shortest plans), is idle at step horizon - 1 (it has at most horizon - 1 moves), and
        satisfies the cuts of horizon - 1 (they hold for every plan that short)."""
        if not (self.idle_pads and self.options.goal == "by") or horizon < 1:
            return None
        idle = self.var("idle", horizon - 1)
        return [idle], [[-idle] + clause for clause in self.cuts(horizon - 1)]

    def connect(self, solver: Solver, horizon: int, guard: int | None) -> dict[str, Any]:
        """Attach what the encoding reasons with beside its clauses (an external propagator)
        before a solve at `horizon`; `guard`: that horizon's activation literal under
        incremental solving, None for a formula of one horizon. Returns notes for the result's
        `extra` (e.g. which bound a propagator adds, or that none could be attached).
        Default: nothing attached, no notes."""
        return {}

    # -- whole formula --------------------------------------------------------------------------
    def clauses(self, horizon: int) -> list[Clause]:
        out = self.initial()
        for t in range(horizon):
            out += self.layer(t)
        return out + self.goal(horizon) + self.cuts(horizon)

    def names(self) -> dict[int, str]:
        """DIMACS variable -> readable key (e.g. 'at 3 5 7'), for the variable map."""
        return {v: " ".join(str(x) for x in key) for v, key in self.pool.id2obj.items() if isinstance(key, tuple)}


def _solve_limited(solver: Solver, assumptions: list[int], time_limit: float | None) -> bool | None:
    """Solve; with a time limit, interrupt where the solver supports it.

    Solvers without interrupts (CaDiCaL in python-sat) are time-limited by the caller running
    them in a child process (see encoders/runner.py); here they simply run.
    """
    if time_limit is None or not supports_interrupt(solver):
        return solver.solve(assumptions=assumptions)
    timer = threading.Timer(max(time_limit, 0.0), solver.interrupt)
    timer.start()
    try:
        return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        timer.cancel()
        solver.clear_interrupt()


NO_ASSUMPTIONS = ("kissat",)  # python-sat solvers that ignore assumptions: no incremental horizons


def supports_assumptions(name: str) -> bool:
    return not name.startswith(NO_ASSUMPTIONS)


def known_solver(name: str) -> bool:
    """Whether `name` is one of python-sat's solver names or aliases."""
    from pysat.solvers import SolverNames
    return any(name in aliases for key, aliases in vars(SolverNames).items() if not key.startswith("_"))


def supports_interrupt(solver: Solver) -> bool:
    try:
        solver.clear_interrupt()
    except NotImplementedError:
        return False
    return True


def _answer(outcome: bool | None) -> Answer:
    return Answer.UNKNOWN if outcome is None else (Answer.SAT if outcome else Answer.UNSAT)


def solve_fixed(encoding: SatEncoding, horizon: int, solver_name: str = "cadical195",
                time_limit: float | None = None) -> HorizonResult:
    """Build the whole formula for one horizon and solve it with a fresh solver."""
    started = time.perf_counter()
    clauses = encoding.clauses(horizon)
    with Solver(name=solver_name, bootstrap_with=clauses) as solver:
        notes = encoding.connect(solver, horizon, None)
        built = time.perf_counter()   # a propagator's set-up (e.g. loading its tables) is building
        outcome = _solve_limited(solver, [], time_limit)
        return _result(encoding, solver, outcome, horizon, len(clauses), built - started,
                       time.perf_counter() - built, notes)


def _result(encoding: SatEncoding, solver: Solver, outcome: bool | None, horizon: int, clauses: int,
            build_seconds: float, solve_seconds: float, notes: dict[str, Any],
            about: int | None = None) -> HorizonResult:
    """The HorizonResult of a finished solve of the formula for `horizon`, its plan decoded on
    SAT; `about`: the horizon the answer speaks of, when not `horizon` (solve_then_fewer)."""
    moves = None
    if outcome:
        moves = encoding.decode({lit for lit in solver.get_model() if lit > 0}, horizon)
    return HorizonResult(horizon if about is None else about, _answer(outcome), moves, encoding.pool.top, clauses,
                         build_seconds, solve_seconds, notes, None if moves is None else steps_of(encoding, moves))


def solve_then_fewer(encoding: SatEncoding, horizon: int, solver_name: str = "cadical195",
                     time_limit: float | None = None) -> Iterator[HorizonResult]:
    """Two answers from one solver: the formula for `horizon`, then, under the assumptions of
    `encoding.fewer_steps(horizon)`, plans of at most horizon - 1 moves (its result carries
    horizon - 1). The second solve keeps what the first learnt; on Rush Hour seed 000 (step,
    93) the proof at 92 took 2.1 s after the plan against 5.3 s on a fresh solver (medians of
    nine numberings: benchmarks/rush_hour_encodings.py --seeds 9 with and without --shared)."""
    started = time.perf_counter()
    clauses = encoding.clauses(horizon)
    fewer = encoding.fewer_steps(horizon)
    if fewer is None:
        raise ValueError(f"{encoding.name} cannot ask for fewer steps on one solver")
    assumptions, extra = fewer
    clauses += extra
    with Solver(name=solver_name, bootstrap_with=clauses) as solver:
        notes = encoding.connect(solver, horizon, None)
        built = time.perf_counter()
        for asked, below in (([], horizon), (assumptions, horizon - 1)):
            began = time.perf_counter()
            left = None if time_limit is None else time_limit - (began - started)
            outcome = _solve_limited(solver, asked, left)
            yield _result(encoding, solver, outcome, horizon, len(clauses),
                          built - started if below == horizon else 0.0, time.perf_counter() - began, notes, below)
            if outcome is None:
                return


class IncrementalSat:
    """One solver across horizons: layers are added once; goal and cuts sit behind assumptions."""

    def __init__(self, encoding: SatEncoding, solver_name: str = "cadical195") -> None:
        self.encoding = encoding
        self.solver = Solver(name=solver_name)
        self.built = 0
        self.clause_count = 0
        self._add(encoding.initial())

    def _add(self, clauses: Iterable[Clause]) -> None:
        for clause in clauses:
            self.solver.add_clause(clause)
            self.clause_count += 1

    def solve(self, horizon: int, time_limit: float | None = None) -> HorizonResult:
        started = time.perf_counter()
        while self.built < horizon:
            self._add(self.encoding.layer(self.built))
            self.built += 1
        act = self.encoding.var("activate", horizon)
        self._add([-act] + clause for clause in self.encoding.goal(horizon) + self.encoding.cuts(horizon))
        notes = self.encoding.connect(self.solver, horizon, act)
        built = time.perf_counter()
        outcome = _solve_limited(self.solver, [act], time_limit)
        result = _result(self.encoding, self.solver, outcome, horizon, self.clause_count, built - started,
                         time.perf_counter() - built, notes)
        self._add([[-act]])  # retire this horizon's goal for good
        return result

    def close(self) -> None:
        self.solver.delete()
