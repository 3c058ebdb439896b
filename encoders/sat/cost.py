"""Cheapest plan within a step horizon by SAT: one formula, a totalizer, decreasing cost bounds.

For a task with action costs, `minimise_cost` builds an encoding at horizon T (goal `by`, so
plans of <= T steps), the encoding's cost literals (`cost_terms`: their count is the plan's
cost in some model and never less) and an incremental totalizer over them (pysat ITotalizer).
It then asks "a plan of cost <= C?" under the assumption that the totalizer's output for C+1
is false, with C = the best cost so far minus 1, until the solver says UNSAT.

What it proves, exactly: "no plan of at most T steps costs less than the best one found". The
step horizon bounds the search; a cheaper plan of more than T steps is not ruled out unless
every action costs at least 1 (then a plan of cost < C has at most (C-1) // min-cost steps, and
a horizon at least that large makes the bound global; encoders/engines.py checks this).
Cost weights enter in unary (one literal per unit of cost), which suits the small integer
costs of puzzles (Sokoban pushes: walks 0, pushes 1); pysat's pseudo-Boolean encodings would
need the optional pypblib.

A solver that ignores assumptions and solves once (python-sat's Kissat: sat/base.py's
NO_ASSUMPTIONS) gets a fresh instance a bound, the bound as a unit clause: with the assumption
dropped it answered the unbounded question, and its plan of cost 27 was taken for a proof that
one of cost <= 11 exists (a false disagreement in `verify`).
"""
from __future__ import annotations

import time
from contextlib import nullcontext
from typing import Iterator

from pysat.card import ITotalizer
from pysat.solvers import Solver

from puzzleplan.encoders.base import Answer, HorizonResult, steps_of
from puzzleplan.encoders.sat.base import SatEncoding, _solve_limited, supports_assumptions


def minimise_cost(encoding: SatEncoding, horizon: int, solver_name: str, upper: int | None,
                  floor: int = 0) -> Iterator[HorizonResult]:
    """Yield one HorizonResult per bound asked: plans of cost <= upper, then ever cheaper.

    upper: the first bound asked (None: any cost); floor: an admissible lower bound on the
    cost (the search stops when a plan reaches it). Each result's extra holds "cost_bound"
    (the bound asked) and, when SAT, "cost" (the decoded plan's cost)."""
    started = time.perf_counter()
    clauses = encoding.initial()
    for t in range(horizon):
        clauses += encoding.layer(t)
    clauses += encoding.goal(horizon) + encoding.cuts(horizon)
    terms, defs = encoding.cost_terms(horizon)  # type: ignore[attr-defined]
    clauses += defs
    built = time.perf_counter() - started
    totalizer: ITotalizer | None = None
    bound = upper
    incremental = supports_assumptions(solver_name)
    with (Solver(name=solver_name, bootstrap_with=clauses) if incremental else nullcontext()) as solver:
        while True:
            assumptions = []
            if bound is not None and bound < len(terms):
                if totalizer is None:   # built at the first real bound: later bounds only shrink
                    totalizer = ITotalizer(lits=terms, ubound=bound + 1, top_id=encoding.pool.top)
                    encoding.pool.top = max(encoding.pool.top, totalizer.top_id)
                    if solver is not None:
                        solver.append_formula(totalizer.cnf.clauses)
                    clauses += totalizer.cnf.clauses
                assumptions = [-totalizer.rhs[bound]]
            asked = time.perf_counter()
            if solver is not None:
                outcome = _solve_limited(solver, assumptions, None)
                true = {lit for lit in solver.get_model() if lit > 0} if outcome else None
            else:
                outcome, true = _solve_once(solver_name, clauses + [[a] for a in assumptions])
            solved = time.perf_counter() - asked
            answer = Answer.UNKNOWN if outcome is None else (Answer.SAT if outcome else Answer.UNSAT)
            result = HorizonResult(horizon, answer, None, encoding.pool.top, len(clauses), built, solved,
                                   {"cost_bound": bound})
            built = 0.0
            if not outcome:
                yield result
                return
            actions = encoding.decode_actions(true, horizon)  # type: ignore[attr-defined]
            result.moves = [a.name for a in actions]
            result.steps = steps_of(encoding, result.moves)
            cost = sum(a.cost for a in actions)
            result.extra["cost"] = cost
            yield result
            if cost <= floor or cost == 0:
                return
            bound = cost - 1


def _solve_once(solver_name: str, clauses: list[list[int]]) -> tuple[bool | None, set[int] | None]:
    """A fresh solver's answer to `clauses`, and the true variables of its model when SAT."""
    with Solver(name=solver_name, bootstrap_with=clauses) as once:
        outcome = once.solve()
        return outcome, ({lit for lit in once.get_model() if lit > 0} if outcome else None)
