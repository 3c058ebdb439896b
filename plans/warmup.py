"""Compile the numba kernels ahead of time (`puzzleplan warm-up`).

The tiles IDA* kernel, the pattern-database builders and Sokoban's `push` engine are compiled on
their first use and cached next to the installed package (numba `cache=True`). Compiling takes
10-35 s a family (Sokoban's push engine about 35 s) and cannot be interrupted, so a first
`--time-limit 3` run would take longer than asked; running `puzzleplan warm-up` once after
installing removes that cost, and `solve` says up front when a run is about to pay it.
"""
from __future__ import annotations

import ast
import contextlib
import importlib.util
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable

def _cache_dirs(module: str) -> list[Path]:
    """Where numba keeps `module`'s compiled code: $NUMBA_CACHE_DIR alone when set (numba's own
    order: it wins, and numba then never reads the package's cache), else the package's
    __pycache__."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return [Path(os.environ["NUMBA_CACHE_DIR"])]
    spec = importlib.util.find_spec(module)
    return [Path(spec.origin).parent / "__pycache__"] if spec is not None and spec.origin else []


def kernel_modules(families_: Any = None) -> list[str]:
    """Every compiled module the families declare (`Family.kernels` and `table_kernels`)."""
    from puzzleplan.models.family import families
    descs = families(outside=False).values() if families_ is None else families_
    return [module for desc in descs for module in desc.kernels + desc.table_kernels]


def compiled_functions(module: str) -> list[str]:
    """The functions of `module` numba compiles and caches on their own: top-level functions
    decorated `@njit`/`@jit` (bare, called, or as `numba.`/`nb.` attributes), except those
    inlined into their callers (`inline="always"`, or a `**INLINE` options mapping). Read from
    the source with `ast`: no import of the module or of numba."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        return []
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    return [node.name for node in tree.body
            if isinstance(node, ast.FunctionDef) and any(_compiled_alone(d) for d in node.decorator_list)]


def _compiled_alone(decorator: ast.expr) -> bool:
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call is not None else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    if name not in ("njit", "jit"):
        return False
    for keyword in call.keywords if call is not None else ():
        if keyword.arg == "inline" and isinstance(keyword.value, ast.Constant) and keyword.value.value == "always":
            return False
        if keyword.arg is None and "INLINE" in ast.unparse(keyword.value):   # **INLINE: the package's inline options
            return False
    return True


def kernels_cached(modules: Any = None) -> bool:
    """True when every compiled function of every kernel module has code in numba's cache (no
    import of numba). Each function is compiled on its first call, so a module with some of its
    functions cached may still compile for seconds (a module-wide check missed the Sokoban
    perimeter's kernels, which only a large level reaches)."""
    for module in kernel_modules() if modules is None else modules:
        stem = module.rsplit(".", 1)[1]
        try:
            cached = {path.name for d in _cache_dirs(module) if d.is_dir() for path in d.rglob(f"{stem}.*.nbi")}
            functions = compiled_functions(module)
        except (OSError, ImportError, ValueError):
            return False
        if not functions and not cached:
            return False
        for name in functions:
            if not any(entry.startswith(f"{stem}.{name}-") for entry in cached):
                return False
    return True


def warm_up(names: Iterable[str] | None = None) -> dict[str, Any]:
    """Compile every family's kernels (or those of the families `names`) by solving its warm-up
    puzzle with each kernel engine.

    Each engine runs once per heuristic the family names (IDA*'s kernels differ per heuristic)
    and once per metric (an engine may compile a kernel per metric). Pattern databases are built
    in a temporary cache, so the user's cache is left as it was."""
    from puzzleplan.models.family import families
    started = time.monotonic()
    saved = os.environ.get("PUZZLEPLAN_CACHE_DIR")
    wanted = None if names is None else set(names)
    warmed = []
    with tempfile.TemporaryDirectory(prefix="puzzleplan-warm-up-") as scratch:
        os.environ["PUZZLEPLAN_CACHE_DIR"] = scratch
        try:
            for desc in families(outside=False).values():
                if desc.warm_up is not None and (wanted is None or desc.name in wanted):
                    _warm_family(desc)
                    warmed.append(desc.name)
        finally:
            if saved is None:
                os.environ.pop("PUZZLEPLAN_CACHE_DIR", None)
            else:
                os.environ["PUZZLEPLAN_CACHE_DIR"] = saved
    modules = kernel_modules()
    where = _cache_dirs(modules[0]) if modules else []
    return {"seconds": round(time.monotonic() - started, 3), "cached": kernels_cached(), "families": warmed,
            "cache": str(where[0]) if where else "numba's cache"}


def uncompiled(names: Iterable[str]) -> list[str]:
    """The families among `names` whose kernels are not all in numba's cache yet."""
    from puzzleplan.models.family import families
    known = families(outside=False)
    return sorted(name for name in set(names) if name in known and kernel_modules([known[name]])
                  and not kernels_cached(kernel_modules([known[name]])))


def compile_first(names: Iterable[str]) -> list[str]:
    """Warm up the families among `names` not compiled yet, saying so on stderr; the families
    warmed. A batch does this before its runs: compiling inside a run would eat its time limit
    (a first run under `time_limit: 3` would end at the limit, and so would every rerun, as a
    run killed while compiling leaves nothing in the cache)."""
    import sys
    todo = uncompiled(names)
    if todo:
        print(f"puzzleplan: note: compiling the numba kernels of {', '.join(todo)} before the runs "
              "(once per installation; about a minute)", file=sys.stderr, flush=True)
        warm_up(todo)
    return todo


def _warm_family(desc: Any) -> None:
    """Solve the family's warm-up puzzle under each metric with its first kernel engine (the others
    share its kernels), once per heuristic, under the family's warm-up settings."""
    from puzzleplan.models.family import resolve
    settings = resolve(desc.warm_up_settings) if desc.warm_up_settings else contextlib.nullcontext
    with settings():
        _warm_metrics(desc)


def _warm_metrics(desc: Any) -> None:
    from puzzleplan.models import loads
    from puzzleplan.models.family import resolve
    from puzzleplan.plans.core.types import Request
    from puzzleplan.plans.solve import solve
    for metric in desc.metrics:
        model = loads(str(resolve(desc.warm_up)), f"<{desc.name} warm-up>", {"metric": metric})
        engine = desc.kernel_engines[0]
        for heuristic in desc.heuristics or (None,):
            options = {} if heuristic is None else {"heuristic": heuristic}
            result = solve(model, engine, Request(options=options))
            if result.message.startswith("interrupted"):   # Ctrl-C, which solve turned into a status
                raise KeyboardInterrupt
            if not result.status.has_plan:
                raise RuntimeError(f"warm-up solve ({engine}, {metric}) ended with {result.status.value}: "
                                   f"{result.message}")
