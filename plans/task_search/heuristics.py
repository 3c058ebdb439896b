"""The named heuristics of the task engines, as functions of a packed state.

    blind   0 everywhere (A* is then uniform-cost search)
    hmax    h^max over facts (plans/task_search/hmax.py)
    pdb     projection pattern databases chosen along the causal graph (patterns.py), built in
            turn under saturated cost partitioning (each database gets the costs the earlier
            ones left unused), so their sum is admissible (pdb.py)

All are admissible for costs and 0 on goal states. The pattern databases are built under the
run's limits: `ctx.poll()` between steps, a pattern whose transitions would not fit the memory
limit is skipped, and the builds stop after BUILD_SHARE of the time limit (the search gets the
rest) or MAX_BUILD_SECONDS; the databases finished by then are used (none: blind search).

Measured with task-astar on the 50 example cases (3x3 tiles and smaller, Rush Hour and Sokoban
under both metrics): pdb expands the fewest nodes (151k in all; blind 348k; hmax 243k without
the two Sokoban dungeon runs it could not finish in 30 s, a numpy fixpoint per state costing up
to 3.5 ms). Blind is faster in seconds (2.4 s in all against 5.3 s) only because most of these
spaces are a few thousand states, where the databases' build (0.01-0.5 s) is the run's main
cost; on the 3x3 tiles (eight-31) pdb takes 0.3 s against blind's 1.3 s, and the 4x4 instances
of 24 moves solve in about 1 s with pdb, not within 60 s blind. pdb is the default.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.memory import resident_mb
from puzzleplan.plans.search.common import POLL_EVERY
from puzzleplan.plans.task_search import patterns as choose
from puzzleplan.plans.task_search.hmax import HMax
from puzzleplan.plans.task_search.pdb import PatternDatabase, Projection, build
from puzzleplan.plans.task_search.space import DEAD_END, Space

NAMES = ("blind", "hmax", "pdb")
DEFAULT = "pdb"
MAX_STATES = 200_000        # abstract states of one pattern
MAX_PATTERNS = 16
BUILD_SHARE = 0.3           # of the time limit, at most, for building pattern databases
MAX_BUILD_SECONDS = 20.0    # for building them with or without a time limit
BYTES_PER_TRANSITION = 72   # peak while one database is built (transition arrays, sort, gathers)


@dataclass
class Heuristic:
    """A heuristic ready to evaluate, with what it is made of for the run's statistics."""

    name: str
    h: Callable[[int], int]
    info: dict[str, Any] = field(default_factory=dict)
    poll_every: int = POLL_EVERY       # expansions between limit checks: fewer when h is costly


def make(name: str | None, space: Space, ctx: SearchContext) -> Heuristic:
    """The heuristic `name` (None: the default) for `space`; ValueError naming the choices."""
    name = DEFAULT if name is None else name
    if name not in NAMES:
        raise ValueError(f"heuristic {name!r}: expected one of {', '.join(NAMES)}")
    if name == "blind":
        return Heuristic("blind", _zero)
    if name == "hmax":
        return Heuristic("hmax", HMax(space.task, space.packing), poll_every=8)
    started = time.monotonic()
    databases = pattern_databases(space, ctx)
    info: dict[str, Any] = {"patterns": [list(db.pattern) for db in databases],
                            "pdb_states": sum(len(db.table) for db in databases),
                            "pdb_seconds": round(time.monotonic() - started, 3)}
    if not databases:
        return Heuristic("blind", _zero, info)
    return Heuristic("pdb", additive(databases), info)


def _zero(_key: int) -> int:
    return 0


class _OverBudget(Exception):
    """The time share for building databases is spent."""


def pattern_databases(space: Space, ctx: SearchContext, max_states: int = MAX_STATES) -> list[PatternDatabase]:
    """Databases for the chosen patterns under saturated cost partitioning, within the limits."""
    task = space.task
    limit = ctx.limits.time_limit
    budget = MAX_BUILD_SECONDS if limit is None else min(MAX_BUILD_SECONDS, BUILD_SHARE * limit)
    deadline = time.monotonic() + budget

    def poll() -> None:
        ctx.poll()
        if time.monotonic() > deadline:
            raise _OverBudget

    costs = np.array(space.costs, dtype=np.int64)
    built: list[PatternDatabase] = []
    ctx.phase = "pattern databases"
    for pattern in choose.select(task, max_states, MAX_PATTERNS):
        if not costs.any():
            break                                    # nothing left to share out
        projection = Projection(task, pattern)
        if not _fits_memory(projection, ctx):
            continue
        try:
            poll()
            distances, saturated = build(projection, costs, poll)
        except _OverBudget:
            break
        if distances.max() == 0:
            continue                                 # no information: all goal states
        built.append(PatternDatabase(projection, distances, space.packing))
        costs = costs - saturated
    return built


def _fits_memory(projection: Projection, ctx: SearchContext) -> bool:
    limit = ctx.limits.memory_mb
    if limit is None:
        return True
    need = projection.transitions_estimate() * BYTES_PER_TRANSITION / 2**20
    return resident_mb() + need < limit


def additive(databases: list[PatternDatabase]) -> Callable[[int], int]:
    """h(key) = the sum of the databases' values (DEAD_END when one of them says so)."""
    parts = tuple((db.parts, db.table) for db in databases)

    def h(key: int) -> int:
        total = 0
        for fields, table in parts:
            index = 0
            for shift, mask, radix in fields:
                index += (key >> shift & mask) * radix
            value = table[index]
            if value >= DEAD_END:
                return DEAD_END
            total += value
        return total

    return h
