"""The engine registry: names mapped to "module:attr" run functions, imported lazily.

An engine is `run(model, request, ctx) -> Result`. An engine whose module cannot be imported
(a missing optional dependency) simply does not appear in `available()`.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

ENGINES: dict[str, tuple[str, str]] = {
    # name: (module:function, one-line description)
    "bfs": ("puzzleplan.plans.search.bfs:run", "breadth-first search; optimal, proves unsolvability"),
    "astar": ("puzzleplan.plans.search.astar:run", "A* with the family's admissible heuristic; optimal"),
    "idastar": ("puzzleplan.plans.search.idastar:run", "IDA*, compiled kernel where the family has one; optimal"),
    "dfs": ("puzzleplan.plans.search.dfs:run", "depth-first within the cap; any plan, fast"),
    "greedy": ("puzzleplan.plans.search.greedy:run", "greedy best-first on h; any plan, fast"),
    "pbfs": ("puzzleplan.plans.parallel.pbfs:run",
             "parallel breadth-first search over processes (--workers); optimal, proves unsolvability"),
    "plan": ("puzzleplan.models.rush_hour.planning:run",
             "Bird's planning search (Rush Hour): follows plans that free the primary's path; fast, not optimal"),
    "sat": ("puzzleplan.encoders.engines:run_sat", "bounded-horizon SAT encodings (python-sat); optimal by horizon sweep"),
    "cpsat": ("puzzleplan.encoders.engines:run_cpsat", "bounded-horizon OR-Tools CP-SAT encodings; optimal by horizon sweep"),
}

OPTIMAL_ENGINES = {"bfs", "astar", "idastar", "pbfs"}  # always optimal; sat/cpsat are optimal per strategy


def engine(name: str) -> Callable[..., Any]:
    """The run function of engine `name` (KeyError if unknown, ImportError if unavailable)."""
    module, _, attr = ENGINES[name][0].partition(":")
    return getattr(importlib.import_module(module), attr)


def available() -> list[str]:
    """Names of the engines whose modules import on this machine."""
    names = []
    for name in ENGINES:
        try:
            engine(name)
        except ImportError:
            continue
        names.append(name)
    return names
