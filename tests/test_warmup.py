"""`kernels_cached` asks for every compiled function of every kernel module, as numba compiles
(and caches) each on its first call: a module-wide check passed while the Sokoban perimeter's
kernels, which only a large level reaches, were still to compile (seconds past a time limit)."""
from __future__ import annotations

from pathlib import Path

import pytest

import puzzleplan.plans.warmup as warmup
from puzzleplan.models.family import family


def test_the_compiled_functions_are_read_from_the_source() -> None:
    found = warmup.compiled_functions("puzzleplan.models.sokoban.perimeter")
    assert {"seed", "grow", "grow_exact", "_add"} <= set(found)
    tiles = warmup.compiled_functions("puzzleplan.models.tiles.ida_kernel")
    assert "bounded_dfs" in tiles and "_child" not in tiles   # inlined into its callers: no cache entry


def test_every_module_with_compiled_functions_is_declared() -> None:
    """Each module of a family holding @njit functions is in its `kernels` (else warm-up and the
    cold-kernel note would not know of it)."""
    for name in ("tiles", "sokoban"):
        desc = family(name)
        package = Path(__file__).resolve().parent.parent / "models" / name
        for path in package.glob("*.py"):
            module = f"puzzleplan.models.{name}.{path.stem}"
            if warmup.compiled_functions(module):
                assert module in desc.kernels + desc.table_kernels, module


def test_one_function_missing_from_the_cache_means_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = "puzzleplan.models.sokoban.triples"
    names = warmup.compiled_functions(module)
    monkeypatch.setattr(warmup, "_cache_dirs", lambda m: [tmp_path])
    for name in names[1:]:
        (tmp_path / f"triples.{name}-10.py311.nbi").write_bytes(b"")
    assert not warmup.kernels_cached([module])
    (tmp_path / f"triples.{names[0]}-10.py311.nbi").write_bytes(b"")
    assert warmup.kernels_cached([module])


def test_numba_cache_dir_is_the_only_cache_when_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """numba reads $NUMBA_CACHE_DIR alone when it is set: the package's __pycache__ does not count."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert warmup._cache_dirs("puzzleplan.models.sokoban.triples") == [tmp_path]
    assert not warmup.kernels_cached(["puzzleplan.models.sokoban.triples"])


def test_decorators_in_every_spelling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kernels_sample.py").write_text(
        "import numba\nimport numba as nb\nfrom numba import njit, jit\nINLINE = {'inline': 'always'}\n"
        "@njit\ndef a(x): return x\n"
        "@njit(\n    cache=True,\n    nogil=True,\n)\ndef b(x): return x\n"
        "@nb.njit(cache=True)\ndef c(x): return x\n"
        "@numba.jit(nopython=True, cache=True)\ndef d(x): return x\n"
        "@njit(inline='always')\ndef e(x): return x\n"
        "@njit(**INLINE)\ndef f(x): return x\n"
        "@njit(inline='never', cache=True)\ndef g(x): return x\n"
        "def h(x): return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert warmup.compiled_functions("kernels_sample") == ["a", "b", "c", "d", "g"]
