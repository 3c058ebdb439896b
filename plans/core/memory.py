"""What this process holds and what the machine can still give: the memory limit's inputs.

Every search, table build and exploration runs under a memory limit that is on by default
(`default_memory_limit_mb`), so a run ends with `limit_reached` instead of swapping the
machine to a halt or being killed by the kernel's OOM killer.
"""
from __future__ import annotations

import os

_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
DEFAULT_SHARE = 0.75     # of the memory available when the run starts
MINIMUM_DEFAULT_MB = 256


def resident_mb(pid: int | str = "self") -> float:
    """Resident memory of a process (this one by default) in MiB; 0 where unavailable."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE_BYTES / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def available_mb() -> float | None:
    """Memory the kernel could give without swapping (MemAvailable), in MiB; None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def parse_memory_limit(text: str) -> int | None:
    """'2048' -> 2048 MiB, '4G' -> 4096, 'none' -> None (no limit). ValueError otherwise."""
    word = text.strip().lower()
    if word in ("none", "off", "0"):
        return None
    scale = 1
    if word and word[-1] in "mg":
        scale = 1024 if word[-1] == "g" else 1
        word = word[:-1]
    value = float(word) * scale  # ValueError for anything else
    if not value >= 1 or value != value or value > 2**40:   # under 1 MiB was read as 1
        raise ValueError(text)
    return int(value)


def default_memory_limit_mb() -> int | None:
    """The memory limit when none is given: 75 % of (available + already resident) memory.

    `PUZZLEPLAN_MEMORY_LIMIT` (MiB, `4G`, or `none`) overrides it (ValueError naming it when
    malformed). None (no limit) only where the machine's memory cannot be read.
    """
    env = os.environ.get("PUZZLEPLAN_MEMORY_LIMIT", "")
    if env.strip():
        try:
            return parse_memory_limit(env)
        except ValueError:   # said, not ignored: the user meant to set a limit
            raise ValueError(f"PUZZLEPLAN_MEMORY_LIMIT: expected MiB, '4G' or 'none', got {env.strip()[:40]!r}") from None
    available = available_mb()
    if available is None:
        return None
    return max(MINIMUM_DEFAULT_MB, int(DEFAULT_SHARE * (available + resident_mb())))
