"""The engine registry: generic engines here, engines of one family from its descriptor.

An engine is `run(model, request, ctx) -> Result` beside `supports(model) -> str | None` (None:
it can run this model; else the reason it cannot), both named as lazy "module:attr" strings,
so nothing is imported until an engine is used. Capabilities are declared: the CLI's choices,
`puzzleplan families` and the test catalogue's engine x case matrix all come from `supports`.
An engine whose module cannot be imported (a missing dependency) is left out of `available()`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from puzzleplan.models.family import families, family_of, resolve


@dataclass(frozen=True)
class EngineSpec:
    """Where an engine lives and what it is."""

    run: str                     # "module:function" taking (model, request, ctx)
    supports: str | None         # "module:function" taking (model); None: every model
    about: str
    family: str | None = None    # an engine of one family alone (e.g. Rush Hour's `plan`)


GENERIC: dict[str, EngineSpec] = {
    "bfs": EngineSpec("puzzleplan.plans.search.bfs:run", "puzzleplan.plans.search.bfs:supports",
                      "breadth-first search; optimal, proves unsolvability"),
    "astar": EngineSpec("puzzleplan.plans.search.astar:run", "puzzleplan.plans.search.astar:supports",
                        "A* with the family's admissible heuristic; optimal"),
    "idastar": EngineSpec("puzzleplan.plans.search.idastar:run", "puzzleplan.plans.search.idastar:supports",
                          "IDA*, compiled kernel where the family has one; optimal"),
    "dfs": EngineSpec("puzzleplan.plans.search.dfs:run", "puzzleplan.plans.search.dfs:supports",
                      "depth-first within the cap (a table of depths); any plan, complete under the cap"),
    "greedy": EngineSpec("puzzleplan.plans.search.greedy:run", "puzzleplan.plans.search.greedy:supports",
                         "greedy best-first on h; any plan, fast"),
    "pbfs": EngineSpec("puzzleplan.plans.parallel.pbfs:run", "puzzleplan.plans.parallel.pbfs:supports",
                       "parallel breadth-first search (--workers); optimal, proves unsolvability"),
    "sat": EngineSpec("puzzleplan.encoders.engines:run_sat", "puzzleplan.encoders.engines:supports_sat",
                      "bounded-horizon SAT encodings (python-sat); optimal by horizon sweep"),
    "cpsat": EngineSpec("puzzleplan.encoders.engines:run_cpsat", "puzzleplan.encoders.engines:supports_cpsat",
                        "bounded-horizon OR-Tools CP-SAT encodings; optimal by horizon sweep"),
    "task-bfs": EngineSpec("puzzleplan.plans.task_search.engines:run_bfs",
                           "puzzleplan.plans.task_search.engines:supports",
                           "breadth-first (uniform-cost with costs) over the planning task; optimal by cost"),
    "task-astar": EngineSpec("puzzleplan.plans.task_search.engines:run_astar",
                             "puzzleplan.plans.task_search.engines:supports",
                             "A* over the planning task (--heuristic blind, hmax, pdb); optimal by cost"),
    "task-idastar": EngineSpec("puzzleplan.plans.task_search.engines:run_idastar",
                               "puzzleplan.plans.task_search.engines:supports",
                               "IDA* over the planning task (--heuristic blind, hmax, pdb); optimal by cost"),
}

def reads_heuristic(engine: str) -> bool:
    """Whether `engine` takes a `heuristic` option: IDA* (the family's named heuristics) and
    the task engines (their domain-independent ones); the others use the model's own bound."""
    return engine == "idastar" or engine.startswith("task-")


OPTIMAL_ENGINES = {"bfs", "astar", "idastar", "pbfs", "task-bfs", "task-astar", "task-idastar"}  # always optimal; sat/cpsat are optimal per strategy


def registry(outside: bool = True) -> dict[str, EngineSpec]:
    """Every engine: the generic ones, then each family's own (from its descriptor); `outside`
    False leaves out families from other packages' entry points (no scan of installed packages)."""
    out = dict(GENERIC)
    for desc in families(outside).values():
        for name, module in desc.engines.items():
            out.setdefault(name, EngineSpec(f"{module}:run", f"{module}:supports", "", desc.name))
    return out


def names() -> list[str]:
    return list(registry())


def spec(name: str) -> EngineSpec:
    """The engine's spec; ValueError naming the choices when there is no such engine."""
    known = registry(outside=False)
    if name not in known:
        known = registry()
    if name not in known:
        raise ValueError(f"no engine {name!r}; expected one of {', '.join(known)}")
    return known[name]


def engine(name: str) -> Callable[..., Any]:
    """The run function of engine `name` (ValueError if unknown, ImportError if unavailable)."""
    return resolve(spec(name).run)


def about(name: str) -> str:
    """One line on what the engine is (a family engine's module docstring, first line)."""
    found = spec(name)
    if found.about:
        return found.about
    module = resolve(found.run.partition(":")[0])
    if isinstance(getattr(module, "ABOUT", None), str):
        return module.ABOUT
    first = (module.__doc__ or "").strip().splitlines()
    return first[0] if first else ""


def supports(name: str, model: Any) -> str | None:
    """None when engine `name` can run on `model`, else the reason it cannot."""
    found = spec(name)
    if found.family is not None:
        desc = family_of(model)
        if desc is None or desc.name != found.family:
            return f"{name} is an engine of {found.family} alone"
    if found.supports is None:
        return None
    module, _, attr = found.supports.partition(":")
    try:
        check = getattr(resolve(module), attr, None)
    except ImportError as exc:
        return f"{name} is unavailable here ({type(exc).__name__}: {exc})"
    return None if check is None else check(model)  # a module without `supports` runs every model


def available() -> list[str]:
    """Names of the engines whose modules import on this machine."""
    out = []
    for name in registry():
        try:
            engine(name)
        except ImportError:
            continue
        out.append(name)
    return out


# Compatibility for callers that list names: the built-in registry as name -> (run, about).
ENGINES: dict[str, tuple[str, str]] = {name: (s.run, s.about) for name, s in registry(outside=False).items()}
