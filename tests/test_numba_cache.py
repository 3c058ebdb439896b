"""A read-only installation run without a writable home still gets a numba cache folder (a
non-root run gave 'internal error: cannot cache function ...: no locator available')."""
from __future__ import annotations

from pathlib import Path

import pytest

import puzzleplan.plans.core.numba_cache as numba_cache


def test_nowhere_writable_points_numba_at_a_temporary_folder(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")     # recorded first, so the variable is restored after the test
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(numba_cache, "_writable", lambda folder: False)
    monkeypatch.setattr(numba_cache, "_user_cache_writable", lambda: False)
    (tmp_path / "tiles").mkdir()
    folder = numba_cache.use_writable_cache(tmp_path)
    assert folder is not None and "puzzleplan-numba" in folder
    import os
    assert os.environ["NUMBA_CACHE_DIR"] == folder


@pytest.mark.parametrize("package, user", [(True, False), (False, True)])
def test_a_writable_place_is_left_to_numba(monkeypatch, tmp_path: Path, package: bool, user: bool) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")     # recorded first, so the variable is restored after the test
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(numba_cache, "_writable", lambda folder: package)
    monkeypatch.setattr(numba_cache, "_user_cache_writable", lambda: user)
    (tmp_path / "tiles").mkdir()
    assert numba_cache.use_writable_cache(tmp_path) is None


def test_an_explicit_cache_folder_is_kept(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_cache, "_writable", lambda folder: False)
    monkeypatch.setattr(numba_cache, "_user_cache_writable", lambda: False)
    assert numba_cache.use_writable_cache(tmp_path) is None
