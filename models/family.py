"""One descriptor per puzzle family, and the registry that finds them.

A family is one package under `models/` whose `__init__.py` holds `FAMILY = Family(...)`: the
name a puzzle file gives in `puzzle:`, and every part of the family as a lazy "module:attr"
string (the model class, its independent checker, its hand-tuned encodings, its exporters,
engines of its own, the readers of level collections). Nothing is imported until it is used,
so a part whose dependency is missing simply does not work, and `puzzleplan` starts fast.

Why descriptors instead of the registries they replace: family knowledge used to sit in six
places (FAMILIES, CHECKERS, ENCODINGS, the PDDL if-chain, the CLI's `convert --to` choices and
`family == "..."` branches); adding a family touched about 15 files. Now it is one package plus
one line in `BUILTIN` (or one entry point of the group `puzzleplan.models` naming a `Family`),
and every consumer asks the descriptor.

Capabilities are declared, not probed: engines, encodings and exporters each answer
`supports(model) -> None | reason`, and `puzzleplan families` prints the matrix they give.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Mapping

from puzzleplan.models.base import ModelError

# The built-in families: "module:attr" of each descriptor, one line per family.
BUILTIN: tuple[str, ...] = (
    "puzzleplan.models.tiles:FAMILY",
    "puzzleplan.models.rush_hour:FAMILY",
    "puzzleplan.models.sokoban:FAMILY",
    "puzzleplan.models.rules:FAMILY",
    "puzzleplan.models.pddl:FAMILY",
    "puzzleplan.models.blocks:FAMILY",
)
# Outside packages register here: an entry point naming a `Family` (a family with every part of
# its own), or naming a plain class (a user family, wrapped by models/user; see its docstring).
ENTRY_POINT_GROUP = "puzzleplan.models"


def resolve(spec: str) -> Any:
    """Import "package.module:attr" and return the attribute (ImportError / AttributeError)."""
    module, _, attr = spec.partition(":")
    value: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        value = getattr(value, part)
    return value


@dataclass(frozen=True)
class Family:
    """Everything puzzleplan knows of one family, as lazy "module:attr" strings.

    name:        the word in `puzzle:` (e.g. "rush-hour")
    model:       the model class; `Class.from_document(doc)` builds an instance
    metrics:     the metrics a file may choose (the first is the default)
    checker:     `replay(model, tokens, notation) -> (goal reached, cost)`, written apart from the
                 model on purpose; None: plans replay through the model's own successors
    tokens:      `tokens(text) -> list[str]`, how plan text without separators reads
    notations:   `convert --to` kinds this family writes (the model's `notation(kind)`)
    encodings:   encoding name -> encoding class (SAT or CP-SAT, hand-tuned for the family)
    exports:     format -> `writer(model) -> files`, e.g. "pddl"
    engines:     engine name -> module with `run(model, request, ctx)` and `supports(model)`
                 (engines of this family alone, such as Bird's planning search for Rush Hour)
    collections: file suffix -> `load_collection(path, level, overrides)` (many levels a file); the
                 reader's module also has `count_levels(path) -> int` (batch specs' `levels: all`)
    sample:      a small puzzle file's text, for the capability matrix and its test
    samples:     metric -> a sample for that metric in place of `sample` (under `cost`, one whose
                 actions cost other than 1, so the matrix's cost row is that of puzzles with costs)
    heuristics:  the names `--heuristic` may choose for this family's native searchers
    kernels:     modules compiled by numba on first use (`puzzleplan warm-up` compiles them)
    table_kernels: modules compiled only while tables are built, behind the build's own progress
                 line (tiles' pattern databases): warm-up and a batch compile them too, but the
                 note before a solve leaves them out (a solve that builds no table never
                 compiles them, and would otherwise be told of a compile at every run)
    kernel_engines: the engines that use those kernels (`solve` warns before compiling them)
    warm_up:     a puzzle file's text whose solve by each kernel engine (once per heuristic and
                 metric) compiles the kernels
    warm_up_settings: a context manager (module:name) the warm-up solves run under, e.g. tiny
                 start sizes so that every growth path, compiled on first use, runs once
    pattern_databases: a module with `databases_for`, `check_partition`, `cache_info`,
                 `cache_dir`, `clear_cache`, `DEFAULT_BUDGET_SECONDS` (the `pdb` command)
    task:        `compile(model) -> Compiled`: the puzzle as a planning task (models/task/ir.py),
                 from which the generic engines, encodings, PDDL export and checker work
    picture:     `draw(model, state) -> Scene` (plans/render/scene.py): one state as a picture;
                 its module may add `goal_state(model)`, a state showing the goal (drawn beside
                 the start). None: the generic view of `model.render(state)` (plans/render)
    """

    name: str
    model: str
    summary: str = ""
    metrics: tuple[str, ...] = ("step",)
    checker: str | None = None
    tokens: str | None = None
    notations: tuple[str, ...] = ()
    encodings: Mapping[str, str] = field(default_factory=dict)
    exports: Mapping[str, str] = field(default_factory=dict)
    engines: Mapping[str, str] = field(default_factory=dict)
    collections: Mapping[str, str] = field(default_factory=dict)
    sample: str | None = None
    samples: Mapping[str, str] = field(default_factory=dict)
    heuristics: tuple[str, ...] = ()
    kernels: tuple[str, ...] = ()
    table_kernels: tuple[str, ...] = ()
    kernel_engines: tuple[str, ...] = ("idastar", "dfs")
    warm_up: str | None = None
    warm_up_settings: str | None = None
    pattern_databases: str | None = None
    task: str | None = None
    picture: str | None = None

    def model_class(self) -> Any:
        return resolve(self.model)

    def sample_text(self, metric: str | None = None) -> str | None:
        """The sample puzzle's text (the metric's own sample where the family has one)."""
        chosen = self.samples.get(metric, self.sample) if metric is not None else self.sample
        return None if chosen is None else str(resolve(chosen))


@lru_cache(maxsize=None)
def builtin_families() -> dict[str, Family]:
    out: dict[str, Family] = {}
    for spec in BUILTIN:
        family = resolve(spec)
        out[family.name] = family
    return out


_registered: dict[str, Family] = {}


def register(family: Family) -> None:
    """Add a family at run time (tests, notebooks); a package would use the entry point."""
    if not isinstance(family, Family):
        raise TypeError(f"register() takes a Family, got {type(family).__name__}")
    _registered[family.name] = family


def unregister(name: str) -> None:
    _registered.pop(name, None)


_points_seen: dict[tuple[str, ...], dict[str, Any]] = {}


def _entry_points() -> dict[str, Any]:
    """The group's entry points by name, read once per `sys.path` (a scan of every installed
    distribution costs milliseconds; a new folder on the path, as in a test, is read anew)."""
    import sys
    key = tuple(sys.path)
    if key not in _points_seen:
        from importlib.metadata import entry_points
        _points_seen.clear()
        _points_seen[key] = {point.name: point for point in entry_points(group=ENTRY_POINT_GROUP)}
    return _points_seen[key]


def _entry_point_family(name: str) -> Family | None:
    point = _entry_points().get(name)
    if point is None:
        return None
    try:
        found = point.load()
    except Exception as exc:  # a broken outside package: one line, not a traceback
        raise ModelError(f"entry point {name!r} of {ENTRY_POINT_GROUP}: {type(exc).__name__}: {exc}") from None
    return found if isinstance(found, Family) else None  # a class: the user-family path


def family(name: str) -> Family | None:
    """The family named `name` (built-in, registered or from an entry point), or None."""
    if name in _registered:
        return _registered[name]
    builtin = builtin_families()
    if name in builtin:
        return builtin[name]
    return _entry_point_family(name)


def families(outside: bool = True) -> dict[str, Family]:
    """Every family with a descriptor: built-ins, registered ones and (unless `outside` is False)
    the entry points of `puzzleplan.models` that name a Family (plain user classes are not
    families until loaded). Reading entry points scans the installed distributions (about
    30 ms, once per sys.path), so hot paths ask for the built-ins first."""
    out = dict(builtin_families())
    for name in (_entry_points() if outside else ()):
        if name not in out:
            try:
                found = _entry_point_family(name)
            except ModelError:  # a broken outside package must not break the others; `family(name)` says why
                continue
            if found is not None:
                out[found.name] = found
    out.update(_registered)
    return out


def family_of(model: Any) -> Family | None:
    """The descriptor of a model's family (None for a family not registered, e.g. `python:`)."""
    return family(getattr(model, "family", ""))


def part(model: Any, kind: str, key: str | None = None) -> Any:
    """A family part for `model`: kind is "checker", "tokens", or with `key` one of
    "encodings", "exports", "engines", "collections". None when the family has none."""
    desc = family_of(model)
    if desc is None:
        return None
    spec = getattr(desc, kind)
    if key is not None:
        spec = spec.get(key)
    return None if spec is None else resolve(spec)
