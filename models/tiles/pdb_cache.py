"""Pattern tables kept: in memory for this process, and on disk between runs.

Tables are cached on disk per pattern (see `cache_dir`), keyed by the board size, the blank's
goal cell and the pattern's goal cells, with a header and CRC-32 checked on every load. Every
header field is checked for presence, type and consistency (`header_problem`); a file that is
damaged anywhere, unreadable, or not a regular file (links that loop, directories, FIFOs)
counts as missing, and whether a missing table is built at all is the build budget's choice
(see `puzzleplan.models.tiles.heuristic_tables.choose_patterns`). In memory, the tables of
this process are kept up to MEMO_BYTES (`known_table`, `store_table`); `clear_cache` empties both.
"""
from __future__ import annotations

import json
import os
import stat
import struct
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from puzzleplan.models.tiles.pdb_build import PatternTable
from puzzleplan.models.tiles.pdb_patterns import (DEFAULT_BUDGET_SECONDS, FORMAT, MAX_CELLS, Geometry, Pattern,
                                                  auto_partition, estimate_seconds, pattern_entries, table_key)

MAGIC = b"PZPDB\x00\x01\n"
MIN_CACHED_ENTRIES = 1 << 16  # smaller tables are rebuilt in memory, never written to disk
MEMO_BYTES = 1 << 30

_memo: dict[str, PatternTable] = {}  # key -> table, oldest first
_memo_lock = threading.Lock()
last_kernel_arrays: list[Any] = []   # [key, KernelArrays] of the last `PatternDatabases.kernel_arrays`
_damaged: set[tuple[str, int, int, int]] = set()  # (path, inode, size, mtime) of files that failed to load


def cache_dir() -> Path:
    """$PUZZLEPLAN_CACHE_DIR/pdb, else $XDG_CACHE_HOME/puzzleplan/pdb, else ~/.cache/puzzleplan/pdb."""
    own = os.environ.get("PUZZLEPLAN_CACHE_DIR")
    if own:
        return Path(own) / "pdb"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "puzzleplan" / "pdb"


def _header(table: PatternTable, face_names: Sequence[str] | None) -> dict:
    p = table.pattern
    g = p.geometry
    return {"format": FORMAT, "key": p.key(), "rows": g.rows, "cols": g.cols, "blank": g.blank,
            "groups": [list(grp) for grp in p.groups], "entries": p.entries, "packed": table.packed,
            "bytes": int(table.data.nbytes), "crc32": zlib.crc32(table.data),
            "faces": [face_names[f] for f in p.faces] if face_names else None,
            "build_seconds": round(table.seconds, 3),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S")}


def save_table(table: PatternTable, directory: Path, face_names: Sequence[str] | None = None) -> Path:
    """Write atomically: a temporary file in the same directory, then a rename."""
    directory.mkdir(parents=True, exist_ok=True)
    head = json.dumps(_header(table, face_names)).encode()
    path = directory / f"{table.pattern.key()}.pdb"
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + struct.pack("<Q", len(head)) + head)
            f.write(table.data.data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_header(path: Path) -> tuple[dict, int] | None:
    """(header, data offset) of a cache file, or None when it is not one: not a regular file
    (a directory, a FIFO, a dangling link or a link loop), unreadable (any OSError), not this
    format, or a header with any field missing or of the wrong type or value (`header_problem`)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                return None
            (size,) = struct.unpack("<Q", f.read(8))
            if size > 1 << 20:
                return None
            head = json.loads(f.read(size).decode())
    except (OSError, ValueError, struct.error, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if not isinstance(head, dict) or header_problem(head) is not None:
        return None
    return head, len(MAGIC) + 8 + size


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def header_problem(head: dict) -> str | None:
    """What is wrong with a table header (every field: presence, type, range, consistency), or
    None. A header that passes describes a table this code could have written: the key is the
    hash of the board, blank and groups it states, and entries and bytes follow from them."""
    for name in ("format", "rows", "cols", "blank", "entries", "bytes", "crc32"):
        if not _is_int(head.get(name)):
            return f"{name}: expected an integer"
    if head["format"] != FORMAT:
        return f"format {head['format']}: expected {FORMAT}"
    rows, cols, blank = head["rows"], head["cols"], head["blank"]
    if not (1 <= rows and 1 <= cols and rows * cols <= MAX_CELLS):
        return f"rows, cols: not a board of at most {MAX_CELLS} cells"
    n = rows * cols
    if not 0 <= blank < n:
        return "blank: not a cell of the board"
    groups = head.get("groups")
    if not isinstance(groups, list) or not groups or len(groups) >= n:
        return "groups: expected a non-empty list of cell lists"
    used = {blank}
    for grp in groups:
        if not isinstance(grp, list) or not grp or not all(_is_int(c) and 0 <= c < n for c in grp) \
                or grp != sorted(set(grp)) or used & set(grp):
            return "groups: expected disjoint sorted lists of cells, the blank's goal cell in none"
        used.update(grp)
    if groups != sorted(groups):
        return "groups: not in canonical order"
    if not isinstance(head.get("key"), str) or head["key"] != table_key(rows, cols, blank, groups):
        return "key: does not match the board, blank and groups"
    if head["entries"] != pattern_entries(n, [len(g) for g in groups]):
        return "entries: does not match the groups"
    if not isinstance(head.get("packed"), bool):
        return "packed: expected true or false"
    if head["bytes"] != ((head["entries"] + 1) // 2 if head["packed"] else head["entries"]):
        return "bytes: does not match entries and packed"
    if not 0 <= head["crc32"] < 1 << 32:
        return "crc32: expected a 32-bit checksum"
    faces = head.get("faces")
    if faces is not None and not (isinstance(faces, list) and len(faces) == len(groups)
                                  and all(isinstance(f, str) for f in faces)):
        return "faces: expected null or one name per group"
    seconds = head.get("build_seconds")
    if not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0 <= seconds < float("inf")):
        return "build_seconds: expected a non-negative number"
    if not isinstance(head.get("created"), str):
        return "created: expected a date string"
    return None


def load_table(pattern: Pattern, directory: Path) -> PatternTable | None:
    """The cached table, or None when missing, unreadable, for another key, truncated or corrupt.
    A file found damaged is remembered (by inode, size and time) and not read again."""
    path = directory / f"{pattern.key()}.pdb"
    try:
        info = os.stat(path)
        sign = (str(path), info.st_ino, info.st_size, info.st_mtime_ns)
    except (OSError, ValueError):
        return None
    if sign in _damaged:
        return None
    table = _load(pattern, path)
    if table is None:
        _damaged.add(sign)
    return table


def _load(pattern: Pattern, path: Path) -> PatternTable | None:
    found = read_header(path)
    if found is None:
        return None
    head, offset = found
    g = pattern.geometry
    expect = {"key": pattern.key(), "rows": g.rows, "cols": g.cols, "blank": g.blank,
              "groups": [list(grp) for grp in pattern.groups], "entries": pattern.entries}
    if any(head[k] != v for k, v in expect.items()):
        return None
    nbytes = head["bytes"]
    try:
        data = np.fromfile(path, dtype=np.uint8, count=nbytes + 1, offset=offset)
    except (OSError, ValueError, MemoryError):
        return None
    if data.shape[0] != nbytes or zlib.crc32(data) != head["crc32"]:
        return None
    return PatternTable(pattern, data, head["packed"], float(head["build_seconds"]), True, path)


def is_cached(pattern: Pattern, directory: Path | None = None) -> bool:
    """True when a table for `pattern` is in memory or its cache file has a valid header (the data
    is not read: `missing_tables` verifies it)."""
    if pattern.key() in _memo:
        return True
    found = read_header((directory or cache_dir()) / f"{pattern.key()}.pdb")
    return found is not None and found[0].get("key") == pattern.key()



def known_table(pattern: Pattern, directory: Path | None = None,
                min_cached: int = MIN_CACHED_ENTRIES) -> PatternTable | None:
    """The table from memory or from a valid cache file, else None."""
    key = pattern.key()
    if key in _memo:
        return _memo[key]
    table = load_table(pattern, directory or cache_dir()) if pattern.entries >= min_cached else None
    if table is not None:
        _remember(key, table)
    return table


def store_table(table: PatternTable, face_names: Sequence[str] | None = None, directory: Path | None = None,
                min_cached: int = MIN_CACHED_ENTRIES) -> PatternTable:
    """Keep a freshly built table in memory and, when large enough, in the cache."""
    if table.pattern.entries >= min_cached:
        try:
            table.path = save_table(table, directory or cache_dir(), face_names)
        except OSError:
            pass  # an unwritable cache only costs a rebuild next time
    _remember(table.pattern.key(), table)
    return table


def _remember(key: str, table: PatternTable) -> None:
    """Keep tables in memory for this process, dropping the oldest beyond MEMO_BYTES."""
    with _memo_lock:   # build threads store their tables at the same time
        _memo[key] = table
        while sum(t.data.nbytes for t in _memo.values()) > MEMO_BYTES and len(_memo) > 1:
            del _memo[next(iter(_memo))]


@dataclass(frozen=True)
class CacheEntry:
    """One file of the cache, as `cache_info` lists it."""

    path: Path
    size: int                  # bytes on disk
    valid_header: bool         # False: not a table file of this format (it would be rebuilt)
    key: str | None = None
    board: str = "?"           # rows x cols
    blank: int | None = None   # the blank's goal cell
    groups: list[list[int]] | None = None  # goal cells of each face group
    faces: list[str] | None = None         # the groups' face names when first built
    entries: int | None = None
    packed: bool | None = None
    build_seconds: float | None = None


def _cache_files(directory: Path, *patterns: str) -> list[Path]:
    """Names in the cache directory matching the glob patterns; [] when it cannot be listed."""
    try:
        if not directory.is_dir():
            return []
        return sorted(path for pattern in patterns for path in directory.glob(pattern))
    except (OSError, ValueError):
        return []


def cache_info(directory: Path | None = None) -> list[CacheEntry]:
    """Every table file in the cache directory (header and size checks only; loading verifies
    the CRC). Files that are not valid tables (damaged headers, a body cut short or too long,
    links that loop or dangle, directories, unreadable files) are listed with valid_header
    False and their own size (0 if unknown)."""
    directory = directory or cache_dir()
    out = []
    for path in _cache_files(directory, "tiles-*.pdb"):
        try:
            size = path.lstat().st_size if path.is_symlink() and not path.exists() else path.stat().st_size
        except OSError:
            size = 0
        found = read_header(path)
        if found is None or found[1] + found[0]["bytes"] != size:   # a header over a cut (or padded) body
            out.append(CacheEntry(path, size, False))
            continue
        head = found[0]
        out.append(CacheEntry(path, size, True, head["key"], f"{head['rows']}x{head['cols']}", head["blank"],
                              head["groups"], head["faces"], head["entries"], head["packed"], head["build_seconds"]))
    return out


def clear_cache(directory: Path | None = None) -> int:
    """Delete every table (and stale temporary) file; returns how many were removed (names that
    cannot be removed, e.g. directories, are left)."""
    directory = directory or cache_dir()
    removed = 0
    for path in _cache_files(directory, "tiles-*.pdb", ".tmp-*.part"):
        try:
            path.unlink(missing_ok=True)
            removed += 1
        except OSError:
            pass
    _memo.clear()
    last_kernel_arrays.clear()
    _damaged.clear()
    return removed


# -- what is cached ----------------------------------------------------------------------------
def cached_partition(geometry: Geometry, budget: float = DEFAULT_BUDGET_SECONDS,
                     directory: Path | None = None) -> list[Pattern] | None:
    """The largest disjoint cached tables for this board and goal (e.g. a 7-8 split built once
    with `puzzleplan pdb build --partition`), the faces they leave in automatic patterns; None
    when no cached table fits this geometry."""
    by_goal = {geometry.goal_cells(f): f for f in geometry.faces()}
    found = []
    for entry in cache_info(directory):
        if not entry.valid_header or entry.board != f"{geometry.rows}x{geometry.cols}" \
                or entry.blank != geometry.blank or not entry.groups:
            continue
        faces = [by_goal.get(tuple(cells)) for cells in entry.groups]
        if None not in faces:
            pattern = Pattern.of(geometry, [f for f in faces if f is not None])
            if pattern.key() == entry.key:
                found.append(pattern)
    chosen: list[Pattern] = []
    used: set[int] = set()
    for pattern in sorted(found, key=lambda p: -p.entries):
        if used.isdisjoint(pattern.faces):
            chosen.append(pattern)
            used.update(pattern.faces)
    if not chosen:
        return None
    rest = [f for f in geometry.faces() if f not in used]
    return chosen + [Pattern.of(geometry, p) for p in auto_partition(geometry, budget=budget, faces=rest)]



def missing_tables(patterns: Sequence[Pattern], directory: Path | None = None,
                   min_cached: int = MIN_CACHED_ENTRIES) -> list[Pattern]:
    """The patterns whose tables would have to be built: not in memory, and no cache file that
    loads completely with a valid header and CRC (a damaged file counts as missing; the tables
    that load are kept in memory for the build that follows)."""
    return [p for p in patterns if known_table(p, directory, min_cached) is None]


def missing_seconds(patterns: Sequence[Pattern], directory: Path | None = None) -> float:
    """Estimated seconds to build the tables of `patterns` that `missing_tables` names."""
    return sum(estimate_seconds(p) for p in missing_tables(patterns, directory))


def cheap_or_cached(patterns: Sequence[Pattern], budget: float = DEFAULT_BUDGET_SECONDS,
                    directory: Path | None = None) -> bool:
    """True when the tables that would have to be built (damaged cache files included) are
    estimated to build within `budget` seconds."""
    return missing_seconds(patterns, directory) <= budget
