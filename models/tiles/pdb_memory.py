"""The memory pattern databases take: estimated before anything is allocated, refused over the limit.

The memory a build needs (`build_bytes`: bitmaps, records, the tables) is known from the
pattern alone, so a set of tables over the memory limit is refused with a one-line ValueError
naming the size (`check_memory`) before a byte is allocated; the default limit
(`default_memory_limit_mb`) is the process-wide memory limit less what the process holds.
"""
from __future__ import annotations

from typing import Sequence

from puzzleplan.models.tiles.pdb_patterns import Pattern


def default_memory_limit_mb() -> float | None:
    """The memory table builds may take when no limit is given: the process-wide default
    (`puzzleplan.plans.core.memory`, 75 % of the available memory or $PUZZLEPLAN_MEMORY_LIMIT) less
    what the process holds already, in MiB; None (no limit) where the memory cannot be read."""
    from puzzleplan.plans.core.memory import default_memory_limit_mb as process_limit, resident_mb
    limit = process_limit()
    return None if limit is None else max(0.0, limit - resident_mb())


def table_bytes(pattern: Pattern) -> int:
    """Memory of one finished table at most: a byte per entry (a 4-bit table takes half)."""
    return pattern.entries


def build_bytes(pattern: Pattern) -> int:
    """Peak memory of building one table, as `abstract_distances` allocates: two frontier
    bitmaps of one bit per (placement, blank region) state, one record per placement (uint32,
    int64 above 24 free cells), the 4-bit table, and at the end the byte table and a boolean
    temporary of one byte per placement each."""
    entries, nfree = pattern.entries, pattern.geometry.n - pattern.tiles
    words = (entries * nfree + 63) // 64
    return 16 * words + entries * (4 if nfree <= 24 else 8) + (entries + 1) // 2 + 2 * entries


def memory_needed(patterns: Sequence[Pattern], missing: Sequence[Pattern], concurrent: bool = False,
                  search: bool = False) -> int:
    """Peak bytes of loading `patterns` and building the `missing` ones among them: every finished
    table, plus the working memory of the builds running at once (all of them when `concurrent`,
    else the largest); `search` adds the copy the search kernels read (`kernel_arrays`)."""
    tables = sum(table_bytes(p) for p in patterns)
    work = [build_bytes(p) for p in missing]
    return tables * (2 if search else 1) + (sum(work) if concurrent else max(work, default=0))


def size_text(nbytes: float) -> str:
    """Bytes in GiB or MiB, e.g. `31.9 GiB`."""
    return f"{nbytes / 2**30:.1f} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.1f} MiB"


def check_memory(patterns: Sequence[Pattern], missing: Sequence[Pattern], memory_limit_mb: float | None,
                 face_names: Sequence[str] | None = None, concurrent: bool = False, search: bool = False) -> None:
    """Raise ValueError, one line naming the sizes, when `memory_needed` is above
    `memory_limit_mb` (MiB; what the memory limit leaves beside what the process holds; None:
    no limit). Called before anything is allocated."""
    need = memory_needed(patterns, missing, concurrent, search)
    if memory_limit_mb is None or need <= memory_limit_mb * 2**20:
        return
    names = (lambda p: " ".join(face_names[f] for f in p.faces)) if face_names else \
        (lambda p: " ".join(map(str, p.faces)))
    if missing:
        worst = max(missing, key=build_bytes)
        what = (f"building pattern '{names(worst)}' ({worst.entries:,} entries) needs about "
                f"{size_text(build_bytes(worst))} of memory to build ({size_text(need)} in all)")
    else:
        what = f"the pattern databases need about {size_text(need)} of memory"
    # every caller passes what the process-wide limit leaves beside what the process holds
    raise ValueError(f"{what}, more than the {size_text(memory_limit_mb * 2**20)} left under the memory limit; "
                     "choose smaller patterns (or raise --memory-limit)")


def fits_memory(patterns: Sequence[Pattern], missing: Sequence[Pattern], memory_limit_mb: float | None,
                concurrent: bool = False, search: bool = False) -> bool:
    """True when `check_memory` would pass."""
    return memory_limit_mb is None or memory_needed(patterns, missing, concurrent, search) <= memory_limit_mb * 2**20
