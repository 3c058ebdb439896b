"""Engine options: their values and the engines that read them, declared once for the command
line, the Python API and batch specs (each used to keep its own partial copy, so a batch ran
`strategy: binary` on bfs and the API took `workers="x"`).

`check_options(engine, options)` raises ValueError naming the option: a value of the wrong type
or range, or an option the engine does not read (the SAT and CP-SAT engines' encoder options on
another engine; a heuristic on an engine that reads none).
"""
from __future__ import annotations

import numbers
from typing import Any

ENGINE_OPTIONS = frozenset({
    "encoding", "solver", "strategy", "goal", "no_reversal", "idle_at_end", "distance_cuts", "parity", "card",
    "params", "workers", "hint", "max_horizon", "heuristic", "partition", "native", "rules",
})

COMPARE_SOLVERS = ("cadical195", "glucose4")   # `compare`'s SAT solvers unless others are named (CLI and API)

_SAT_CPSAT = ("sat", "cpsat")
READERS: dict[str, tuple[str, ...]] = {   # option -> the only engines that read it
    "encoding": _SAT_CPSAT, "strategy": _SAT_CPSAT, "goal": _SAT_CPSAT, "no_reversal": _SAT_CPSAT,
    "idle_at_end": _SAT_CPSAT, "distance_cuts": _SAT_CPSAT, "parity": _SAT_CPSAT, "max_horizon": _SAT_CPSAT,
    "solver": ("sat",), "card": ("sat",), "params": ("cpsat",), "hint": ("cpsat",),
    "partition": ("idastar", "dfs"),   # the compiled tiles searcher's pattern databases
    "workers": ("cpsat", "pbfs", "push"),   # CP-SAT's threads, pbfs's processes, Sokoban's expanding threads
}
WHOLE = ("workers", "max_horizon")   # whole numbers within `bounds`
FLAGS = ("no_reversal", "idle_at_end", "distance_cuts", "parity", "native")


def bounds(key: str) -> tuple[int, int]:
    """The inclusive range of a whole-number option."""
    from puzzleplan.models.base import MAX_CAP   # imported here: `import puzzleplan` stays light
    return {"workers": (1, 64), "max_horizon": (0, MAX_CAP)}[key]


def choices(key: str) -> tuple[str, ...] | None:
    """The names option `key` takes, when it takes one of a few."""
    if key == "strategy":
        from puzzleplan.encoders.horizon import STRATEGIES
        return tuple(STRATEGIES)
    if key == "card":
        from puzzleplan.encoders.base import CARD_ENCODINGS
        return tuple(CARD_ENCODINGS)
    return ("by", "exact") if key == "goal" else None


def check_value(key: str, value: Any) -> None:
    """ValueError naming `key` when `value` is not of the option's type and range."""
    if key in WHOLE:
        low, high = bounds(key)
        if not (isinstance(value, numbers.Integral) and not isinstance(value, bool) and low <= value <= high):
            raise ValueError(f"{key}: expected a whole number from {low} to {high}, got {value!r}")
    elif key in FLAGS:
        if not isinstance(value, bool):
            raise ValueError(f"{key}: expected true or false, got {value!r}")
    else:
        named = choices(key)
        if named is not None and value not in named:
            raise ValueError(f"{key}: expected one of {', '.join(named)}, got {value!r}")


def check_reader(key: str, engine: str) -> None:
    """ValueError when `engine` does not read option `key`."""
    from puzzleplan.plans.core.engines import reads_heuristic
    readers = READERS.get(key)
    if readers is not None and engine not in readers:
        raise ValueError(f"{key}: goes with engine {' or '.join(readers)}, not {engine}")
    if key == "heuristic" and not reads_heuristic(engine):
        raise ValueError(f"heuristic: engine {engine} takes none (idastar and the task engines do)")


def heuristic_names(model: Any, engine: str) -> tuple[str, ...]:
    """The heuristics `engine` can be asked for on `model`: the task engines' domain-independent
    ones, else those the model's family names."""
    if engine.startswith("task-"):
        from puzzleplan.plans.task_search.heuristics import NAMES
        return tuple(NAMES)
    from puzzleplan.models.family import family_of
    desc = family_of(model)
    return tuple(desc.heuristics) if desc is not None else ()


def check_heuristic(model: Any, engine: str, name: str) -> None:
    """ValueError unless `name` is one of `heuristic_names(model, engine)`."""
    named = heuristic_names(model, engine)
    if name not in named:
        raise ValueError(f"heuristic: expected one of {', '.join(named)} for {model.family}, got {str(name)[:60]!r}"
                         if named else f"heuristic: {model.family} names no heuristics to choose from")


def check_options(engine: str, options: dict[str, Any]) -> None:
    """Every option given (None counts as not given) against its type and `engine`."""
    for key, value in options.items():
        if value is None:
            continue
        check_value(key, value)
        check_reader(key, engine)


__all__ = ["ENGINE_OPTIONS", "FLAGS", "READERS", "WHOLE", "bounds", "check_heuristic", "check_options",
           "check_reader", "check_value", "choices", "heuristic_names"]


def partition_groups(value: Any) -> list[list[str]]:
    """Pattern groups as the command line writes them, 'a b c / d e', or as lists of faces
    (numbers read as their text): [['a', 'b', 'c'], ['d', 'e']]. ValueError for no group."""
    if isinstance(value, str):
        groups = [group.split() for group in value.split("/") if group.split()]
    elif isinstance(value, (list, tuple)) and all(isinstance(g, (list, tuple)) for g in value):
        groups = [[str(face) for face in group] for group in value if len(group)]
    else:
        raise ValueError(f"expected groups of faces split by '/' ('1 2 3 / 4 5 6'), or lists of faces, got {value!r}")
    if not groups:
        raise ValueError("expected at least one group of faces ('1 2 3 / 4 5 6'), got none")
    return groups

