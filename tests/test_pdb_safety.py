"""Pattern databases under bad conditions: damaged cache files, odd cache directories, tables too
large for memory, time limits during builds, boards up to 16x16, and trivial instances that must
not wait for a build."""
from __future__ import annotations

import json
import os
import random
import struct
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from catalogue import EXAMPLES
from helpers import run_cli
from puzzleplan.models import load
from puzzleplan.models.tiles import heuristic_tables as K
from puzzleplan.models.tiles import pdb, pdb_build, pdb_cache, pdb_memory, pdb_patterns, pdb_rank
from puzzleplan.models.tiles.model import TilesPuzzle
from puzzleplan.models.tiles.searcher import TilesDepthFirst
from puzzleplan.plans.core.context import LimitReached
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Limits, Request, Status

KORF79 = EXAMPLES / "tiles" / "korf-079.yaml"
EIGHT = EXAMPLES / "tiles" / "eight-31.yaml"
SAFE = EXAMPLES / "tiles" / "malok-safe.yaml"


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test gets an empty cache directory and an empty in-memory table memo."""
    monkeypatch.setenv("PUZZLEPLAN_CACHE_DIR", str(tmp_path))
    pdb_cache.clear_cache()
    return tmp_path / "pdb"


def grid(text: str) -> list[list[str]]:
    return [row.split() for row in text.split("/")]


def near_goal(rows: int, cols: int, moves: int, seed: int = 1, repeated: int = 0) -> tuple[TilesPuzzle, int]:
    """A board `moves` random blank moves (no immediate undo) from its goal: (model, moves)."""
    n = rows * cols
    faces = [str(1 + i % repeated) if repeated else str(i + 1) for i in range(n - 1)] + ["_"]
    board = faces[:]
    rng = random.Random(seed)
    blank, prev = n - 1, -1
    for _ in range(moves):
        r, c = divmod(blank, cols)
        options = [(r + dr) * cols + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                   if 0 <= r + dr < rows and 0 <= c + dc < cols and (r + dr) * cols + c + dc != prev]
        cell = rng.choice(options)
        board[blank], board[cell] = board[cell], "_"
        prev, blank = blank, cell
    rows_of = lambda cells: [cells[r * cols:(r + 1) * cols] for r in range(rows)]
    return TilesPuzzle.from_grids(rows_of(board), rows_of(faces), name=f"{rows}x{cols} near goal"), moves


def cached_table(private_cache: Path) -> tuple[pdb_patterns.Pattern, Path, bytes]:
    """A small table written to the cache: (pattern, file, its bytes)."""
    model = TilesPuzzle.from_grids(grid("a b c d / e f g _"), grid("a a b b / c c d _"))
    pattern = pdb_patterns.Pattern.of(pdb_patterns.Geometry(model.rows, model.cols, model.goal), [1, 2])
    table = pdb.get_table(pattern, min_cached=0)
    assert table.path is not None and table.path.parent == private_cache
    return pattern, table.path, table.path.read_bytes()


def split(raw: bytes) -> tuple[dict[str, Any], bytes]:
    (size,) = struct.unpack("<Q", raw[len(pdb_cache.MAGIC):len(pdb_cache.MAGIC) + 8])
    start = len(pdb_cache.MAGIC) + 8
    return json.loads(raw[start:start + size]), raw[start + size:]


def joined(head: Any, data: bytes) -> bytes:
    text = json.dumps(head).encode()
    return pdb_cache.MAGIC + struct.pack("<Q", len(text)) + text + data


# -- cache headers ----------------------------------------------------------------------------------
BAD_FIELDS = [
    ("format", "1"), ("format", 2), ("format", None), ("format", True),
    ("key", None), ("key", 12), ("key", "tiles-2x4-00000000000000000000"),
    ("rows", "2"), ("rows", True), ("rows", 2.0), ("rows", -2), ("rows", 10 ** 30), ("cols", [4]),
    ("blank", "7"), ("blank", 99), ("blank", -1), ("blank", None),
    ("groups", "x"), ("groups", None), ("groups", []), ("groups", [["a"]]), ("groups", [[0.5]]),
    ("groups", {"0": 1}), ("groups", [[1, 1]]), ("groups", [[7]]), ("groups", [[True]]), ("groups", [[]]),
    ("entries", "420"), ("entries", 420.0), ("entries", 1), ("entries", None), ("entries", -5),
    ("packed", 1), ("packed", "true"), ("packed", None),
    ("bytes", 1.5), ("bytes", "210"), ("bytes", 3),
    ("crc32", -1), ("crc32", 2 ** 40), ("crc32", "abc"), ("crc32", None),
    ("faces", 7), ("faces", "ab"), ("faces", [1, 2]), ("faces", ["a"]), ("faces", {"a": 1}),
    ("build_seconds", "slow"), ("build_seconds", [1]), ("build_seconds", None), ("build_seconds", True),
    ("build_seconds", -1), ("build_seconds", 1e400),
    ("created", 5), ("created", None),
]


@pytest.mark.parametrize("field, bad", BAD_FIELDS, ids=[f"{f}={b!r}"[:40] for f, b in BAD_FIELDS])
def test_a_header_field_of_the_wrong_type_is_a_missing_table(private_cache: Path, field: str, bad: Any,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    pattern, path, good = cached_table(private_cache)
    head, data = split(good)
    head[field] = bad
    path.write_bytes(joined(head, data))
    assert pdb_cache.read_header(path) is None
    assert pdb_cache.load_table(pattern, private_cache) is None
    [entry] = pdb_cache.cache_info()
    assert not entry.valid_header
    assert pdb_cache.cached_partition(pattern.geometry) is None
    for args in (("pdb", "info"), ("pdb", "info", "--json")):
        code, out, err = run_cli(capsys, *args)
        assert code == 0 and err == "" and path.name in out
    pdb_cache._memo.clear()
    again = pdb.get_table(pattern, min_cached=0)       # rebuilt, and the file is good again
    assert not again.from_cache and path.read_bytes()[-len(data):] == data
    assert pdb_cache.read_header(path) is not None


@pytest.mark.parametrize("field", ["build_seconds", "created", "faces", "crc32", "packed"])
def test_a_missing_header_field_is_a_missing_table(private_cache: Path, field: str) -> None:
    pattern, path, good = cached_table(private_cache)
    head, data = split(good)
    del head[field]
    path.write_bytes(joined(head, data))
    if field == "faces":   # written as null when the names are unknown: absent reads the same
        assert pdb_cache.load_table(pattern, private_cache) is not None
    else:
        assert pdb_cache.read_header(path) is None and pdb_cache.load_table(pattern, private_cache) is None


@pytest.mark.parametrize("payload", [b"[1, 2]", b"null", b"\xff\xfe", b"[" * 100_000 + b"]" * 100_000,
                                     b'{"format": 1', b'{"a": NaN}'])
def test_a_header_that_is_not_an_object_is_a_missing_table(private_cache: Path, payload: bytes) -> None:
    pattern, path, good = cached_table(private_cache)
    path.write_bytes(pdb_cache.MAGIC + struct.pack("<Q", len(payload)) + payload)
    assert pdb_cache.read_header(path) is None and pdb_cache.load_table(pattern, private_cache) is None
    assert [e.valid_header for e in pdb_cache.cache_info()] == [False]


@pytest.mark.parametrize("heuristic", [None, "pdb"])
def test_a_damaged_header_never_blocks_a_solve(private_cache: Path, heuristic: str | None) -> None:
    dbs = pdb.databases_for(load(EIGHT))
    [path] = [t.path for t in dbs.tables if t.path is not None]
    head, data = split(path.read_bytes())
    head["groups"], head["build_seconds"] = "oops", {"x": 1}
    path.write_bytes(joined(head, data))
    pdb_cache._memo.clear()
    result = solve(load(EIGHT), "idastar", Request(options={"heuristic": heuristic} if heuristic else {}))
    assert result.status is Status.OPTIMAL and result.plan is not None and result.plan.length == 31
    if heuristic == "pdb":   # asked for: rebuilt, and the file is good again
        assert result.stats.extra["heuristic"] == "pdb" and pdb_cache.read_header(path) is not None


# -- odd cache directories ------------------------------------------------------------------------------
def test_symlink_loops_and_odd_files_in_the_cache(private_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pattern, path, _ = cached_table(private_cache)
    (private_cache / "tiles-loop.pdb").symlink_to("tiles-loop.pdb")
    (private_cache / "tiles-a.pdb").symlink_to("tiles-b.pdb")
    (private_cache / "tiles-b.pdb").symlink_to("tiles-a.pdb")
    (private_cache / "tiles-dangling.pdb").symlink_to("nowhere")
    (private_cache / "tiles-dir.pdb").mkdir()
    os.mkfifo(private_cache / "tiles-fifo.pdb")   # opening it to read would block
    (private_cache / f"{pattern.key()}.pdb").unlink()
    (private_cache / f"{pattern.key()}.pdb").symlink_to(f"{pattern.key()}.pdb")   # the table's own name loops
    pdb_cache._memo.clear()
    entries = pdb_cache.cache_info()
    assert len(entries) == 7 and not any(e.valid_header for e in entries)
    assert pdb_cache.load_table(pattern, private_cache) is None and not pdb_cache.is_cached(pattern)
    assert pdb_cache.cached_partition(pattern.geometry) is None
    for args in (("pdb", "info"), ("pdb", "info", "--json")):
        code, out, err = run_cli(capsys, *args)
        assert code == 0 and err == "" and "tiles-loop.pdb" in out
    pdb_cache._memo.clear()
    table = pdb.get_table(pattern, min_cached=0)   # rebuilt; the loop is replaced by the new file
    assert not table.from_cache and pdb_cache.load_table(pattern, private_cache) is not None
    assert pdb_cache.clear_cache() >= 6               # the directory is left
    assert [p.name for p in private_cache.iterdir()] == ["tiles-dir.pdb"]


def test_a_cache_directory_that_is_a_symlink_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    base = tmp_path / "loop"
    base.mkdir()
    (base / "pdb").symlink_to("pdb2")
    (base / "pdb2").symlink_to("pdb")
    monkeypatch.setenv("PUZZLEPLAN_CACHE_DIR", str(base))
    assert pdb_cache.cache_info() == [] and pdb_cache.clear_cache() == 0
    model = load(EIGHT)
    result = solve(model, "idastar", Request(options={"heuristic": "pdb"}))   # built, cannot be saved
    assert result.status is Status.OPTIMAL and result.plan is not None and result.plan.length == 31
    code, out, err = run_cli(capsys, "pdb", "info")
    assert code == 0 and err == ""


def test_unreadable_files_are_missing_tables(private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pattern, path, _ = cached_table(private_cache)
    real_open = open

    def refuse(file: Any, *args: Any, **kw: Any) -> Any:
        if str(file).startswith(str(private_cache)):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kw)
    monkeypatch.setattr(pdb_cache, "open", refuse, raising=False)   # root ignores chmod: refuse in the module
    assert pdb_cache.read_header(path) is None and pdb_cache.load_table(pattern, private_cache) is None
    assert [e.valid_header for e in pdb_cache.cache_info()] == [False]
    pdb_cache._memo.clear()
    assert not pdb.get_table(pattern, min_cached=0).from_cache


def test_a_damaged_file_is_read_once(private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pattern, path, good = cached_table(private_cache)
    raw = bytearray(good)
    raw[-2] ^= 0x11
    path.write_bytes(bytes(raw))
    reads = []
    real = pdb_cache._load
    monkeypatch.setattr(pdb_cache, "_load", lambda *a: reads.append(1) or real(*a))
    for _ in range(3):
        assert pdb_cache.load_table(pattern, private_cache) is None
    assert len(reads) == 1
    path.write_bytes(good)                  # a new file (size, time or inode differ) is read again
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert pdb_cache.load_table(pattern, private_cache) is not None


# -- the build budget decides rebuilds --------------------------------------------------------------
def test_damaged_data_under_a_tiny_budget_is_not_rebuilt(private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model, _ = near_goal(3, 4, moves=8, seed=4)
    optimum = solve(model, "idastar", Request(options={"heuristic": "manhattan"})).plan.length  # type: ignore[union-attr]
    g = pdb_patterns.Geometry(model.rows, model.cols, model.goal)
    halves = [pdb_patterns.Pattern.of(g, range(1, 6)), pdb_patterns.Pattern.of(g, range(6, 11))]
    assert all(p.entries >= pdb_cache.MIN_CACHED_ENTRIES for p in halves)
    pdb.build_databases(g, halves)
    assert len(list(private_cache.glob("tiles-*.pdb"))) == 2
    path = private_cache / f"{halves[0].key()}.pdb"
    raw = bytearray(path.read_bytes())
    raw[-7] ^= 0x24                          # the header stays valid, the CRC does not
    path.write_bytes(bytes(raw))
    damaged = path.read_bytes()
    pdb_cache._memo.clear()
    monkeypatch.setattr(pdb_patterns, "DEFAULT_BUDGET_SECONDS", 0.0)   # no build fits
    assert pdb_cache.is_cached(halves[0]) and pdb_cache.missing_tables(halves) == [halves[0]]
    assert not pdb_cache.cheap_or_cached(halves, 0.0)
    assert K.choose_patterns(model) is None
    again = lambda: TilesPuzzle.from_grids(model.start_grid, model.goal_grid)
    for engine in ("idastar", "astar", "greedy", "dfs"):
        result = solve(again(), engine, Request(max_moves=optimum if engine == "dfs" else None))
        assert result.plan is not None and result.status in (Status.OPTIMAL, Status.SOLVED)
        if engine == "idastar":
            assert result.stats.extra["heuristic"] == "manhattan" and result.plan.length == optimum
    assert path.read_bytes() == damaged                  # not rebuilt
    named = [[str(f) for f in range(1, 6)], [str(f) for f in range(6, 11)], ["11"]]
    result = solve(again(), "idastar", Request(options={"partition": named}))   # asked for: rebuilt
    assert result.stats.extra["heuristic"] == "pdb" and result.plan is not None and result.plan.length == optimum
    assert path.read_bytes() != damaged and pdb_cache.load_table(halves[0], private_cache) is not None


def test_larger_cached_tables_with_damaged_data_give_way_to_the_automatic_split(private_cache: Path) -> None:
    model = load(EIGHT)
    g = pdb_patterns.Geometry(model.rows, model.cols, model.goal)
    whole = [pdb_patterns.Pattern.of(g, g.faces())]
    pdb.build_databases(g, whole)
    [path] = private_cache.glob("tiles-*.pdb")
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0x01
    path.write_bytes(bytes(raw))
    pdb_cache._memo.clear()
    chosen = K.choose_patterns(model, budget=0.01)    # rebuilding the whole set is estimated at 0.36 s
    assert chosen is not None and len(chosen) > 1 and all(p.entries < whole[0].entries for p in chosen)


# -- memory --------------------------------------------------------------------------------------------
def test_the_size_estimate_follows_the_allocations() -> None:
    g = pdb_patterns.Geometry(4, 4, bytes(range(16)))
    seven = pdb_patterns.Pattern.of(g, range(1, 8))
    entries = 16 * 15 * 14 * 13 * 12 * 11 * 10
    assert seven.entries == entries
    assert pdb_memory.build_bytes(seven) == \
        2 * 8 * ((entries * 9 + 63) // 64) + 4 * entries + (entries + 1) // 2 + 2 * entries
    big = pdb_patterns.Geometry(7, 7, bytes(list(range(1, 49)) + [0]))
    wide = pdb_patterns.Pattern.of(big, range(1, 4))       # 46 free cells: 8-byte records
    assert pdb_memory.build_bytes(wide) > 8 * wide.entries


@pytest.mark.parametrize("partition", ["1 2 3 4 5 6 7 8 9 / 10 11 12 13 14 15", "1 2 3 4 5 6 7 8 9 10 11 12 / 13 14 15"])
def test_an_oversized_partition_is_refused_in_one_line(partition: str, private_cache: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "pdb", "build", KORF79, "--partition", partition, "--budget", "5")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("puzzleplan: error:") and "GiB of memory" in err and "entries" in err
    assert "Traceback" not in err
    code, out, err = run_cli(capsys, "solve", KORF79, "--partition", partition)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "GiB of memory" in err
    assert not private_cache.exists() or not list(private_cache.iterdir())


def test_a_small_memory_limit_refuses_before_allocating(private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = load(KORF79)
    six = [[str(i) for i in range(1, 7)]]
    calls = []
    monkeypatch.setattr(pdb_build, "abstract_distances", lambda *a, **k: calls.append(a))
    with pytest.raises(ValueError) as info:
        pdb.databases_for(model, six, memory_limit_mb=20)
    text = str(info.value)
    assert "\n" not in text and "5,765,760 entries" in text and "MiB of memory" in text and "20.0 MiB" in text
    with pytest.raises(ValueError, match="the 20.0 MiB left under the memory limit"):
        K.HeuristicTables.build(model, "pdb", six, memory_limit_mb=20)
    with pytest.raises(ValueError, match="memory limit"):
        model.native_searcher("pdb", partition=six, memory_limit_mb=20)
    assert not calls and not private_cache.exists()
    # the default heuristic does not ask for tables: too large for the limit means Manhattan
    assert K.choose_patterns(model, memory_limit_mb=1) is None
    assert K.HeuristicTables.build(model, memory_limit_mb=1).name == "manhattan"


def test_concurrent_builds_that_do_not_fit_run_one_after_another(monkeypatch: pytest.MonkeyPatch) -> None:
    g = pdb_patterns.Geometry(4, 4, bytes(range(16)))
    pair = [pdb_patterns.Pattern.of(g, range(1, 5)), pdb_patterns.Pattern.of(g, range(5, 9))]
    monkeypatch.setattr(pdb.numba, "get_num_threads", lambda: 2)
    assert pdb._concurrent(pair)
    both = pdb_memory.memory_needed(pair, pair, concurrent=True)
    one = pdb_memory.memory_needed(pair, pair, concurrent=False)
    assert one < both
    used = []
    real = pdb_build.build_table
    monkeypatch.setattr(pdb, "build_table", lambda p, progress=None, parallel=True: used.append(parallel)
                        or real(p, progress, parallel))
    pdb.build_databases(g, pair, memory_limit_mb=(one + both) / 2 / 2**20, min_cached=1 << 40)
    assert used == [True, True]   # one after another, each across the cores


def test_default_memory_limit_is_a_share_of_available_memory() -> None:
    limit = pdb_memory.default_memory_limit_mb()
    assert limit is not None and 0 < limit


# -- time limits during builds --------------------------------------------------------------------------
@pytest.mark.parametrize("faces", [[list(range(1, 7))], [list(range(1, 7)), list(range(7, 13))]],
                         ids=["one table across the cores", "two tables at once"])
def test_a_time_limit_stops_a_build(faces: list[list[int]], private_cache: Path) -> None:
    model = load(KORF79)
    partition = [[str(f) for f in grp] for grp in faces]
    t0 = time.monotonic()
    with pytest.raises(LimitReached):
        pdb.databases_for(model, partition, time_limit=0.3)
    assert time.monotonic() - t0 < 2.5          # generous: the limit is checked about every 0.2 s
    assert not [t for t in threading.enumerate() if t.name.startswith("pdb-build")]
    assert not list(private_cache.glob(".tmp-*"))


def test_a_search_time_limit_stops_an_explicit_partition_build(private_cache: Path) -> None:
    model = load(KORF79)
    request = Request(options={"partition": [[str(i) for i in range(1, 7)], [str(i) for i in range(7, 13)]]},
                      limits=Limits(time_limit=0.3))
    t0 = time.monotonic()
    result = solve(model, "idastar", request)
    assert result.status is Status.LIMIT_REACHED and "time limit" in result.message
    assert time.monotonic() - t0 < 2.5


def test_a_time_limit_stops_the_build_behind_h(private_cache: Path) -> None:
    """A* (and greedy) build the default tables inside `h`, outside any loop of theirs that
    polls: the build polls the run's limits itself (a 2 s limit ran 10-20 s before)."""
    model = load(KORF79)
    t0 = time.monotonic()
    result = solve(model, "astar", Request(limits=Limits(time_limit=0.5)))
    assert result.status is Status.LIMIT_REACHED and "time limit" in result.message
    assert time.monotonic() - t0 < 3.0          # generous: the build polls about every 0.2 s
    assert not list(private_cache.glob(".tmp-*"))   # tables finished before the limit are kept


def test_progress_is_called_often_during_a_large_level(monkeypatch: pytest.MonkeyPatch) -> None:
    g = pdb_patterns.Geometry(4, 4, bytes(range(16)))
    stamps: list[float] = []

    class Enough(Exception):
        pass

    def progress(done: int, total: int) -> None:
        stamps.append(time.perf_counter())
        if done > total // 3:
            raise Enough()
    pdb_build.build_table(pdb_patterns.Pattern.of(g, [1, 2]), parallel=False)   # kernels loaded before timing
    with pytest.raises(Enough):
        pdb_build.build_table(pdb_patterns.Pattern.of(g, range(1, 7)), progress, parallel=False)
    gaps = np.diff(stamps)
    assert len(stamps) > 10 and gaps.max() < 1.5   # aimed at ~0.1 s; generous for a loaded machine


# -- large boards -----------------------------------------------------------------------------------------
def test_binomials_saturate_instead_of_overflowing() -> None:
    b = pdb_rank.binomials(256)
    assert b[66, 33] == 7219428434016265740 and b[257, 128] == pdb_rank.INT64_MAX and b[10, 3] == 120
    assert pdb.no_databases(256, 256)[-1].size <= 16


@pytest.mark.parametrize("engine", ["idastar", "astar", "greedy", "dfs"])
@pytest.mark.parametrize("size, repeated", [((9, 9), 0), ((10, 10), 0), ((16, 16), 0), ((16, 16), 7),
                                            ((7, 7), 0), ((5, 9), 0)])
def test_large_boards_near_the_goal_solve(size: tuple[int, int], repeated: int, engine: str) -> None:
    model, moves = near_goal(*size, moves=6, seed=sum(size), repeated=repeated)
    request = Request(max_moves=moves if engine == "dfs" else None)
    t0 = time.monotonic()
    result = solve(model, engine, request)
    assert result.plan is not None and result.plan.length <= moves
    if engine in ("idastar", "astar"):
        assert result.status is Status.OPTIMAL
    assert time.monotonic() - t0 < 60          # seconds, not the minutes of a table build
    assert not list(Path(os.environ["PUZZLEPLAN_CACHE_DIR"]).glob("pdb/tiles-*"))


def test_the_generic_search_runs_when_the_kernel_cannot(monkeypatch: pytest.MonkeyPatch) -> None:
    model, moves = near_goal(9, 9, moves=5, seed=3)
    monkeypatch.setattr(TilesDepthFirst, "supports", staticmethod(lambda model: False))
    assert model.native_searcher() is None
    result = solve(model, "idastar")
    assert result.status is Status.OPTIMAL and result.plan is not None and result.plan.length <= moves
    assert "heuristic" not in result.stats.extra   # the generic searcher: no kernel statistics


def test_verify_lower_bound_on_a_large_board() -> None:
    model, _ = near_goal(9, 9, moves=4, seed=5)
    assert model.cheap_h(model.start) <= 4 and model.h(model.start) <= 4


# -- trivial instances never wait for a build ------------------------------------------------------------
@pytest.mark.parametrize("engine", ["idastar", "astar", "greedy", "dfs"])
@pytest.mark.parametrize("moves", [2, 5])
def test_a_trivial_instance_builds_no_table(engine: str, moves: int, private_cache: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdb_patterns, "DEFAULT_BUDGET_SECONDS", 30.0)   # the command line's default budget
    built = []
    real = pdb_build.build_table
    monkeypatch.setattr(pdb, "build_table", lambda *a, **k: built.append(a) or real(*a, **k))
    model, _ = near_goal(5, 5, moves=moves, seed=moves)
    assert K.deferred_patterns(model) is not None     # the default tables would have to be built
    result = solve(model, engine, Request(max_moves=moves if engine == "dfs" else None))
    assert result.plan is not None and result.plan.length <= moves
    assert not built and not list(private_cache.glob("*"))
    if engine == "idastar":
        assert result.status is Status.OPTIMAL and result.stats.extra["heuristic"] == "manhattan"
        assert result.stats.nodes < 100 and "probe_nodes" not in result.stats.extra


def test_cached_tables_are_used_at_once(private_cache: Path) -> None:
    assert K.deferred_patterns(load(EIGHT)) is not None
    pdb.databases_for(load(EIGHT))
    pdb_cache._memo.clear()
    assert K.deferred_patterns(load(EIGHT)) is None
    result = solve(load(EIGHT), "idastar")
    assert result.stats.extra["heuristic"] == "pdb" and "probe_nodes" not in result.stats.extra
    assert result.stats.nodes == 31              # the whole face set: the table is exact


@pytest.mark.parametrize("engine, cap", [("idastar", None), ("dfs", 31)])
def test_when_the_probe_runs_out_the_tables_are_built(engine: str, cap: int | None, private_cache: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(K, "PROBE_NODES", 50)
    monkeypatch.setattr(K, "PROBE_MIN_SECONDS", 0.0)
    model = load(EIGHT)
    patterns = K.deferred_patterns(model)
    assert patterns is not None
    result = solve(model, engine, Request(max_moves=cap))
    assert result.plan is not None and result.plan.length == 31
    extra = result.stats.extra
    assert extra["heuristic"] == "pdb" and extra["probe_nodes"] == 50 and result.stats.nodes > 50
    assert extra["setup_seconds"] >= extra["pdb_seconds"] > 0
    if engine == "idastar":
        assert result.status is Status.OPTIMAL and result.lower_bound == 31
    assert model.tables.name == "pdb"       # shared with the model (A*, greedy) from now on
    assert pdb_cache.missing_tables(patterns) == [] and list(private_cache.glob("tiles-*.pdb"))


def test_the_probe_switch_keeps_idastar_optimal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switching heuristics between iterations restarts the bound with the stronger one: the
    lengths agree with the tables used from the start, probe size after probe size."""
    model = load(EIGHT)
    monkeypatch.setattr(K, "PROBE_MIN_SECONDS", 0.0)
    for probe in (1, 7, 300, 5000):
        monkeypatch.setattr(K, "PROBE_NODES", probe)
        pdb_cache.clear_cache()
        fresh = load(EIGHT)
        result = solve(fresh, "idastar")
        assert result.status is Status.OPTIMAL and result.plan is not None and result.plan.length == 31
        assert result.stats.extra["heuristic"] == "pdb" and result.stats.extra["probe_nodes"] == probe
    assert solve(model, "idastar", Request(options={"heuristic": "pdb"})).plan.length == 31  # type: ignore[union-attr]


def test_h_probes_with_manhattan_before_building(private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(K, "PROBE_H_CALLS", 5)
    monkeypatch.setattr(K, "PROBE_MIN_SECONDS", 0.0)
    model = load(EIGHT)
    values = [model.h(model.start) for _ in range(6)]
    assert K.known_tables(model) is model.tables and model.tables.name == "pdb"
    assert values[:5] == [model.cheap_h(model.start)] * 5 and values[5] == 31 == model.h(model.start)
