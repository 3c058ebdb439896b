"""Where numba caches the compiled kernels when the installation itself is read-only.

numba caches a kernel beside its source (`__pycache__`), else in the user's cache folder; when
neither can be written (a read-only install run by a user without a writable home) it refuses
to compile a kernel declared with `cache=True` ("no locator available"), which ended every
tiles and Sokoban search with an internal error. `use_writable_cache()`, run when puzzleplan is
imported (before numba reads its settings), then points NUMBA_CACHE_DIR at a folder of the
system's temporary directory. An explicit NUMBA_CACHE_DIR is left alone.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

KERNEL_FAMILIES = ("tiles", "sokoban")   # the folders of puzzleplan.models whose modules cache kernels


def _writable(folder: Path) -> bool:
    """Whether numba could keep a cache in `folder` (its __pycache__, made if missing)."""
    cache = folder / "__pycache__"
    target = cache if cache.is_dir() else folder
    return os.access(target, os.W_OK | os.X_OK)


def _user_cache_writable() -> bool:
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(home)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder.exists() and os.access(folder, os.W_OK | os.X_OK)


def use_writable_cache(models_folder: Path) -> str | None:
    """Set NUMBA_CACHE_DIR when numba would find nowhere to cache the kernels of the families
    in `models_folder` (puzzleplan.models); the folder set, or None."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    roots = [models_folder / family for family in KERNEL_FAMILIES]
    if all(_writable(root) for root in roots if root.is_dir()) or _user_cache_writable():
        return None
    folder = os.path.join(tempfile.gettempdir(), f"puzzleplan-numba-{os.getuid() if hasattr(os, 'getuid') else 0}")
    os.environ["NUMBA_CACHE_DIR"] = folder
    return folder


__all__ = ["use_writable_cache"]
