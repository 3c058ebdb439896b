"""Compile the numba kernels ahead of time (`puzzleplan warm-up`).

The tiles IDA* kernel and the pattern-database builders are compiled on their first use and
cached next to the installed package (numba `cache=True`). Compiling takes about 10 s and
cannot be interrupted, so a first `--time-limit 3` run would take longer than asked; running
`puzzleplan warm-up` once after installing removes that cost, and `solve` says up front when a
run is about to pay it.
"""
from __future__ import annotations

import importlib.util
import os
import tempfile
import time
from pathlib import Path
from typing import Any

KERNEL_MODULES = ("puzzleplan.models.tiles.ida_kernel", "puzzleplan.models.tiles.heuristic_kernels",
                  "puzzleplan.models.tiles.pdb_rank", "puzzleplan.models.tiles.pdb_build")

# A 3x3 board far enough from its goal that IDA* runs its kernel with tables and without.
_WARM_UP_PUZZLE = """\
puzzle: tiles
name: warm-up
start: |
  8 6 7
  2 5 4
  3 _ 1
goal: |
  1 2 3
  4 5 6
  7 8 _
"""


def _cache_dirs(module: str) -> list[Path]:
    spec = importlib.util.find_spec(module)
    dirs = []
    if spec is not None and spec.origin:
        dirs.append(Path(spec.origin).parent / "__pycache__")
    if os.environ.get("NUMBA_CACHE_DIR"):
        dirs.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    return dirs


def kernels_cached() -> bool:
    """True when every kernel module has compiled code in numba's cache (no import of numba)."""
    for module in KERNEL_MODULES:
        stem = module.rsplit(".", 1)[1]
        try:
            found = any(any(d.rglob(f"{stem}*.nbi")) for d in _cache_dirs(module) if d.is_dir())
        except (OSError, ImportError, ValueError):
            return False
        if not found:
            return False
    return True


def warm_up() -> dict[str, Any]:
    """Compile every kernel by solving a small board with and without pattern databases.

    The tables are built in a temporary cache, so the user's cache is left as it was."""
    from puzzleplan.models import load
    from puzzleplan.plans.solve import solve
    from puzzleplan.plans.core.types import Request
    started = time.monotonic()
    saved = os.environ.get("PUZZLEPLAN_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="puzzleplan-warm-up-") as scratch:
        os.environ["PUZZLEPLAN_CACHE_DIR"] = scratch
        try:
            path = Path(scratch) / "warm-up.yaml"
            path.write_text(_WARM_UP_PUZZLE, encoding="utf-8")
            model = load(str(path))
            for heuristic in ("pdb", "manhattan"):
                result = solve(model, "idastar", Request(options={"heuristic": heuristic}))
                if not result.status.has_plan:
                    raise RuntimeError(f"warm-up solve ended with {result.status.value}: {result.message}")
        finally:
            if saved is None:
                os.environ.pop("PUZZLEPLAN_CACHE_DIR", None)
            else:
                os.environ["PUZZLEPLAN_CACHE_DIR"] = saved
    where = _cache_dirs(KERNEL_MODULES[0])
    return {"seconds": round(time.monotonic() - started, 3), "cached": kernels_cached(),
            "cache": str(where[0]) if where else "numba's cache"}
