"""Pattern databases for sliding tiles: exact entries, admissible sums, ranking, cache, kernel.

Every check compares against plain-Python breadth-first searches on small boards (2x3, 3x3,
2x4), with and without repeated faces.
"""
from __future__ import annotations

import itertools
import math
import random
from collections import deque
from math import comb
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzleplan.models.tiles import pdb, pdb_build, pdb_cache, pdb_patterns, pdb_rank
from puzzleplan.models.tiles.heuristic_kernels import heuristic
from puzzleplan.models.tiles.heuristic_tables import HeuristicTables
from puzzleplan.models.tiles.model import TilesPuzzle
from puzzleplan.models.tiles.searcher import TilesDepthFirst
from puzzleplan.plans.core.context import SearchContext

BOARDS = {
    "2x3": ("1 2 3 / 4 5 _", "_ 5 4 / 3 2 1"),
    "2x3 repeated": ("a a b / b c _", "c b _ / a b a"),
    "3x3": ("1 2 3 / 4 5 6 / 7 8 _", "8 6 7 / 2 5 4 / 3 _ 1"),
    "3x3 repeated": ("a b a / c _ c / b a b", "b c a / a b _ / c b a"),
    "2x4": ("_ 1 2 3 / 4 5 6 7", "7 6 5 4 / 3 2 1 _"),
    "2x4 repeated": ("a b a b / c c d _", "d c b a / _ c b a"),
}


def model_of(name: str) -> TilesPuzzle:
    goal, start = BOARDS[name]
    grid = lambda text: [row.split() for row in text.split("/")]
    return TilesPuzzle.from_grids(grid(start), grid(goal))


def geometry_of(model: TilesPuzzle) -> pdb_patterns.Geometry:
    return pdb_patterns.Geometry(model.rows, model.cols, model.goal)


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test gets an empty cache directory and an empty in-memory table memo."""
    monkeypatch.setenv("PUZZLEPLAN_CACHE_DIR", str(tmp_path))
    pdb_cache.clear_cache()
    return tmp_path / "pdb"


# -- plain-Python references -------------------------------------------------------------------------
def abstract_distances(geometry: pdb_patterns.Geometry, faces: set[int]) -> dict[tuple[int, ...], int]:
    """0-1 BFS over (pattern faces per cell, blank cell) from the goal; min over the blank."""
    nbr = geometry.neighbours()
    goal = tuple(f if f in faces else 0 for f in geometry.goal)
    dist = {(goal, geometry.blank): 0}
    queue = deque([(goal, geometry.blank)])
    best: dict[tuple[int, ...], int] = {}
    while queue:
        board, blank = state = queue.popleft()
        d = dist[state]
        best[board] = min(best.get(board, d), d)
        for t in (int(x) for x in nbr[blank] if x >= 0):
            cells = list(board)
            cells[blank], cells[t] = cells[t], 0
            nxt, cost = (tuple(cells), t), (1 if board[t] else 0)
            if nxt not in dist or dist[nxt] > d + cost:
                dist[nxt] = d + cost
                (queue.append if cost else queue.appendleft)(nxt)
    return best


def real_distances(model: TilesPuzzle) -> dict[bytes, int]:
    """Distance to the goal of every state that reaches it."""
    dist = {model.goal: 0}
    queue = deque([model.goal])
    while queue:
        state = queue.popleft()
        for _, child in model.successors(state):
            if child not in dist:
                dist[child] = dist[state] + 1
                queue.append(child)
    return dist


def min_manhattan(geometry: pdb_patterns.Geometry, board: tuple[int, ...], faces: set[int]) -> int:
    """Manhattan distance of the pattern tiles, minimised over assignments of identical faces."""
    md = geometry.manhattan()
    total = 0
    for f in faces:
        here = [c for c, x in enumerate(board) if x == f]
        goal = geometry.goal_cells(f)
        total += min(sum(int(md[a, b]) for a, b in zip(here, perm)) for perm in itertools.permutations(goal))
    return total


def placements(pattern: pdb_patterns.Pattern) -> list[tuple[int, ...]]:
    """The abstract board (face or 0 per cell) of every rank, by unranking."""
    g = pattern.geometry
    gcnt, radix = np.array([pattern.counts]), np.array([pattern.radix()])
    binom = pdb_rank.binomials(g.n)
    cells = np.empty(pattern.tiles, dtype=np.int64)
    subs = np.empty(len(pattern.counts), dtype=np.int64)
    out = []
    for r in range(pattern.entries):
        pdb_rank.unrank_cells(r, gcnt, radix, 0, binom, g.n, cells, subs)
        board = [0] * g.n
        faces = [f for f, k in zip(pattern.faces, pattern.counts) for _ in range(k)]
        for c, f in zip(cells, faces):
            board[int(c)] = f
        out.append(tuple(board))
    return out


def some_patterns(geometry: pdb_patterns.Geometry) -> list[pdb_patterns.Pattern]:
    """A few partitions' patterns: tiny, medium and the whole face set (when small)."""
    out = [pdb_patterns.Pattern.of(geometry, p)
           for limit in (40, 2_000) for p in pdb_patterns.auto_partition(geometry, limit)]
    whole = pdb_patterns.Pattern.of(geometry, geometry.faces())
    return out + [whole] if whole.entries <= 50_000 else out


# -- the tables -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(BOARDS))
def test_every_entry_is_the_exact_abstract_distance(name: str) -> None:
    geometry = geometry_of(model_of(name))
    for pattern in some_patterns(geometry):
        faces = set(pattern.faces)
        reference = abstract_distances(geometry, faces)
        dist, _, _ = pdb_build.abstract_distances(pattern)
        table = pdb_build.build_table(pattern)
        boards = placements(pattern)
        assert len(set(boards)) == pattern.entries
        for rank, board in enumerate(boards):
            assert dist[rank] == reference.get(board, pdb_build.UNREACHED), (name, pattern.faces, board)
            if board in reference:
                assert table.value(rank, min_manhattan(geometry, board, faces)) == reference[board]


@pytest.mark.parametrize("name", ["3x3", "3x3 repeated", "2x4 repeated", "2x3"])
def test_additive_sum_never_exceeds_the_true_distance(name: str) -> None:
    model = model_of(name)
    truth = real_distances(model)
    partition = [[model.faces[f] for f in p] for p in pdb_patterns.auto_partition(geometry_of(model), 60)]
    assert len(partition) > 1
    tables = HeuristicTables.build(model, "pdb", partition)
    assert ("transpose" in tables.pdb_description) == (name == "3x3")
    states = list(truth)
    random.Random(7).shuffle(states)
    for state in states[:4000]:
        h = int(heuristic(np.frombuffer(state, dtype=np.uint8), *tables.arrays))
        assert h <= truth[state]
    assert int(heuristic(np.frombuffer(model.goal, dtype=np.uint8), *tables.arrays)) == 0


def test_whole_face_set_is_exact_on_the_8_puzzle() -> None:
    model = model_of("3x3")
    tables = HeuristicTables.build(model, "pdb")
    assert tables.name == "pdb" and "transpose" in tables.pdb_description
    assert int(heuristic(np.frombuffer(model.start, dtype=np.uint8), *tables.arrays)) == 31


def test_transpose_view_only_when_the_goal_allows_it() -> None:
    assert len(pdb_patterns.symmetries(geometry_of(model_of("3x3")))) == 2
    assert len(pdb_patterns.symmetries(geometry_of(model_of("3x3 repeated")))) == 1
    assert len(pdb_patterns.symmetries(geometry_of(model_of("2x4")))) == 1
    korf = pdb_patterns.Geometry(4, 4, bytes(range(16)))
    (_, ident), (cells, faces) = pdb_patterns.symmetries(korf)
    assert list(cells[:5]) == [0, 4, 8, 12, 1] and list(faces[:5]) == [0, 4, 8, 12, 1]


def test_standard_15_puzzle_partition_is_at_least_6_6_3() -> None:
    korf = pdb_patterns.Geometry(4, 4, bytes(range(16)))
    patterns = pdb_patterns.auto_partition(korf, budget=30.0)  # the CLI's default budget
    sizes = sorted((len(p) for p in patterns), reverse=True)
    assert sum(sizes) == 15 and sizes[0] >= 6 and sizes[1] >= 6


def test_explicit_partition_is_checked() -> None:
    model = model_of("2x4 repeated")
    g = geometry_of(model)
    assert [p.faces for p in pdb_patterns.partition_of(g, model.faces, [["a", "b"], ["c"]])] == [
        (model.faces.index("a"), model.faces.index("b")), (model.faces.index("c"),)]
    with pytest.raises(ValueError):
        pdb_patterns.partition_of(g, model.faces, [["a"], ["a", "c"]])
    with pytest.raises(ValueError):
        pdb_patterns.partition_of(g, model.faces, [["z"]])


# -- ranking --------------------------------------------------------------------------------------
@st.composite
def layouts(draw: st.DrawFn) -> tuple[int, list[int], list[list[int]]]:
    """(cells, group sizes, a placement: the cells of each group)."""
    n = draw(st.integers(2, 20))
    counts = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    while sum(counts) > n - 1:
        counts.pop()
    counts = counts or [1]
    order = draw(st.permutations(range(n)))
    groups, at = [], 0
    for k in counts:
        groups.append(sorted(order[at:at + k]))
        at += k
    return n, counts, groups


@settings(max_examples=200, deadline=None)
@given(layouts())
def test_rank_unrank_round_trip(layout: tuple[int, list[int], list[list[int]]]) -> None:
    n, counts, groups = layout
    gcnt = np.array([counts], dtype=np.int64)
    radix = np.array([[comb(n - sum(counts[:g]), k) for g, k in enumerate(counts)]], dtype=np.int64)
    binom = pdb_rank.binomials(n)
    cells = np.array([c for grp in groups for c in reversed(grp)], dtype=np.int64)
    r = pdb_rank.rank_cells(cells, gcnt, radix, 0, binom, np.empty(len(cells), dtype=np.int64))
    assert 0 <= r < pdb_patterns.pattern_entries(n, counts)
    back = np.empty(len(cells), dtype=np.int64)
    occ = pdb_rank.unrank_cells(r, gcnt, radix, 0, binom, n, back, np.empty(len(counts), dtype=np.int64))
    at = 0
    for grp in groups:
        assert sorted(back[at:at + len(grp)].tolist()) == grp
        at += len(grp)
    assert occ == sum(1 << c for c in cells.tolist())


def test_ranks_are_a_bijection() -> None:
    g = pdb_patterns.Geometry(2, 4, bytes([1, 2, 1, 2, 3, 3, 3, 0]))
    pattern = pdb_patterns.Pattern.of(g, [1, 3])
    boards = placements(pattern)
    assert pattern.entries == 8 * 7 // 2 * 20 == len(set(boards))


# -- the cache ------------------------------------------------------------------------------------
def test_build_then_load_hits_the_cache(private_cache: Path) -> None:
    pattern = pdb_patterns.Pattern.of(geometry_of(model_of("3x3")), [1, 2, 3, 4])
    built = pdb.get_table(pattern, min_cached=0)
    assert not built.from_cache and built.path is not None and built.path.parent == private_cache
    pdb_cache._memo.clear()
    loaded = pdb.get_table(pattern, min_cached=0)
    assert loaded.from_cache and loaded.packed == built.packed
    assert np.array_equal(loaded.data, built.data)
    [entry] = pdb_cache.cache_info()
    assert entry.key == pattern.key() and entry.valid_header and entry.size == built.path.stat().st_size
    assert entry.entries == pattern.entries
    data = built.path.read_bytes()
    built.path.write_bytes(data[:len(data) - 100])     # a body cut short under a sound header
    [entry] = pdb_cache.cache_info()
    assert not entry.valid_header and entry.size == len(data) - 100


@pytest.mark.parametrize("damage", ["flip", "truncate", "header", "empty"])
def test_a_damaged_file_is_rebuilt(private_cache: Path, damage: str) -> None:
    pattern = pdb_patterns.Pattern.of(geometry_of(model_of("2x4 repeated")), [1, 2])
    good = pdb.get_table(pattern, min_cached=0)
    path = good.path
    assert path is not None
    raw = bytearray(path.read_bytes())
    if damage == "flip":
        raw[-3] ^= 0x40
    elif damage == "truncate":
        raw = raw[:-5]
    elif damage == "header":
        raw = raw.replace(b'"entries": ', b'"entries": 1')
    else:
        raw = bytearray()
    path.write_bytes(bytes(raw))
    assert pdb_cache.load_table(pattern, private_cache) is None
    pdb_cache._memo.clear()
    again = pdb.get_table(pattern, min_cached=0)
    assert not again.from_cache and np.array_equal(again.data, good.data)
    assert pdb_cache.load_table(pattern, private_cache) is not None


def test_clear_removes_every_file(private_cache: Path) -> None:
    g = geometry_of(model_of("2x3"))
    for faces in ([1, 2], [3, 4], [5]):
        pdb.get_table(pdb_patterns.Pattern.of(g, faces), min_cached=0)
    (private_cache / ".tmp-left-over.part").write_bytes(b"x")
    assert len(pdb_cache.cache_info()) == 3
    assert pdb_cache.clear_cache() == 4
    assert pdb_cache.cache_info() == [] and not list(private_cache.iterdir())


def test_progress_is_reported() -> None:
    calls: list[tuple[int, int]] = []
    g = geometry_of(model_of("3x3 repeated"))
    patterns = [pdb_patterns.Pattern.of(g, p) for p in pdb_patterns.auto_partition(g, 300)]
    pdb.build_databases(g, patterns, lambda done, total: calls.append((done, total)))
    total = sum(p.entries for p in patterns)
    assert calls and calls[-1] == (total, total)
    assert all(0 <= d <= t == total for d, t in calls)


def test_concurrent_serial_and_parallel_builds_agree(private_cache: Path) -> None:
    g = geometry_of(model_of("3x3 repeated"))
    patterns = [pdb_patterns.Pattern.of(g, p) for p in pdb_patterns.auto_partition(g, 300)]
    assert len(patterns) >= 2
    dbs = pdb.build_databases(g, patterns, min_cached=0)
    assert sorted(dbs.built) == sorted(p.key() for p in patterns)
    for table, pattern in zip(dbs.tables, patterns):
        for parallel in (False, True):
            alone = pdb_build.build_table(pattern, parallel=parallel)
            assert alone.packed == table.packed and np.array_equal(alone.data, table.data)


class Stop(Exception):
    pass


def test_a_limit_during_concurrent_builds_stops_every_worker(private_cache: Path) -> None:
    import threading
    g = pdb_patterns.Geometry(4, 4, bytes(range(16)))
    patterns = [pdb_patterns.Pattern.of(g, faces) for faces in ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])]

    def give_up(done: int, total: int) -> None:
        raise Stop()
    with pytest.raises(Stop):
        pdb.build_databases(g, patterns, give_up)
    assert not [t for t in threading.enumerate() if t.name.startswith("pdb-build")]
    assert not list(private_cache.glob(".tmp-*"))
    for entry in pdb_cache.cache_info():   # whatever finished before the stop is complete and valid
        assert entry.valid_header


# -- the search -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(BOARDS))
def test_idastar_with_databases_finds_the_optimum(name: str) -> None:
    model = model_of(name)
    truth = real_distances(model)
    if model.start not in truth:
        pytest.skip("unsolvable instance")
    partition = [[model.faces[f] for f in p] for p in pdb_patterns.auto_partition(geometry_of(model), 400)]
    for kind in ("manhattan", "pdb"):
        searcher = TilesDepthFirst(model, kind, partition if kind == "pdb" else None)
        assert searcher.heuristic_name == kind
        ctx = SearchContext()
        bound = searcher.h0
        plan, nxt = searcher.bounded(bound, ctx)
        while plan is None:
            assert nxt is not None
            bound = nxt
            plan, nxt = searcher.bounded(bound, ctx)
        assert len(plan) == truth[model.start]


@pytest.mark.parametrize("kind", ["pdb", "manhattan"])
@pytest.mark.parametrize("name", ["3x3", "3x3 repeated", "2x4 repeated"])
def test_incremental_values_match_a_fresh_computation(name: str, kind: str) -> None:
    from puzzleplan.models.tiles import ida_kernel as K
    from puzzleplan.models.tiles.heuristic_kernels import root_parts

    model = model_of(name)
    partition = [[model.faces[f] for f in p] for p in pdb_patterns.auto_partition(geometry_of(model), 400)]
    t = HeuristicTables.build(model, kind, partition if kind == "pdb" else None)
    assert (t.line_cells.shape[0] == 0) == (kind == "pdb")   # linear conflicts only without tables
    board = np.frombuffer(model.start, dtype=np.uint8).copy()
    pos, slot, gcost, lcv, pval, psum, mlc = root_parts(board, *t.arrays)
    work = K.work_arrays(t, model.n, pval.shape[0])
    dps = work[4]
    undo = np.zeros((1, K.UNDO + max(1, pval.shape[0])), dtype=np.int64)
    nbr = np.array(model.neighbours, dtype=np.int64)
    rng = random.Random(3)
    for _ in range(400):
        blank = int(np.flatnonzero(board == 0)[0])
        cell = rng.choice([int(c) for c in nbr[blank] if c >= 0])
        mlc += K._move((board, pos, slot, gcost, lcv, pval), cell, blank, t.board_arrays, t.pdb, work, undo, 0)
        psum += dps[:len(psum)]
        expect = int(heuristic(board, *t.arrays))
        assert max([int(mlc)] + [int(x) for x in psum]) == expect
        if rng.random() < 0.3:  # undo restores every part exactly
            K._unmove((board, pos, slot, gcost, lcv, pval), t.pdb[7], cell, blank, undo, 0)
            fresh = root_parts(board, *t.arrays)
            for kept, again in zip((gcost, lcv, pval), (fresh[2], fresh[3], fresh[4])):
                assert np.array_equal(kept, again)
            psum, mlc = pval.sum(axis=1), gcost.sum() + lcv.sum()


def test_default_heuristic_uses_cached_tables() -> None:
    model = model_of("2x4")
    assert TilesDepthFirst(model, "manhattan").heuristic_name == "manhattan"
    searcher = TilesDepthFirst(model)
    assert searcher.heuristic_name == "pdb" and model.tables is searcher.tables
    assert searcher.h0 == int(heuristic(np.frombuffer(model.start, dtype=np.uint8), *searcher.tables.arrays))


def test_larger_cached_tables_are_picked_by_default(private_cache: Path) -> None:
    model = model_of("3x3")
    g = geometry_of(model)
    halves = [pdb_patterns.Pattern.of(g, [1, 2, 3, 4]), pdb_patterns.Pattern.of(g, [5, 6, 7, 8])]
    pdb.build_databases(g, halves, min_cached=0)      # as `pdb build --partition` would
    found = pdb_cache.cached_partition(g)
    assert found is not None and sorted(p.faces for p in found) == [(1, 2, 3, 4), (5, 6, 7, 8)]
    small = HeuristicTables.build(model, "pdb", [["1"], ["2"]], budget=0.001)
    assert "1 2 3 4" not in small.pdb_description
    chosen = HeuristicTables.build(model, "pdb", budget=0.001)   # the automatic split would be tiny
    assert chosen.pdb_description.startswith("1 2 3 4 (3,024) | 5 6 7 8 (3,024)")
    other = pdb_patterns.Geometry(3, 3, bytes([1, 2, 3, 4, 5, 6, 7, 0, 8]))   # another blank cell: not usable
    assert pdb_cache.cached_partition(other) is None


def test_naming_a_partition_asks_for_the_tables() -> None:
    model = model_of("3x3")
    tables = HeuristicTables.build(model, None, [["1", "2", "3", "4"], ["5", "6", "7", "8"]], budget=0.0)
    assert tables.name == "pdb" and tables.pdb_description.startswith("1 2 3 4 (3,024)")
    assert HeuristicTables.build(model, "manhattan", [["1", "2"]]).name == "manhattan"


# -- the small numpy tables of the tiles-pdb propagator (encoders/sat/tiles_patterns.py) ---------
@pytest.mark.parametrize("name", sorted(BOARDS))
def test_small_tables_are_the_exact_abstract_distances(name: str) -> None:
    """Each small table entry is the plain-Python 0-1 BFS distance; no pattern is the whole
    puzzle (at least two patterns, at most MAX_TILES tiles each)."""
    from puzzleplan.encoders.sat.tiles_patterns import FAR, MAX_TILES, PatternBound, partition
    model = model_of(name)
    groups = partition(model)
    assert groups is not None and len(groups) >= 2
    assert sorted(f for g in groups for f in g) == sorted(set(model.goal) - {0})
    bound = PatternBound(model, groups)
    for g, faces in enumerate(groups):
        assert len(bound.tiles[g]) <= MAX_TILES
        reference = abstract_distances(geometry_of(model), set(faces))
        for board, d in reference.items():
            assert bound.parts(board)[g] == d, (name, faces, board)
        orders = 1   # the table holds each placement once per order of identical tiles
        for f in faces:
            orders *= math.factorial(model.goal.count(f))
        assert sum(1 for v in bound.tables[g] if v != FAR) == len(reference) * orders


@pytest.mark.parametrize("name", ["3x3", "3x3 repeated", "2x4 repeated", "2x3 repeated"])
def test_small_table_sum_is_admissible_and_its_witness_names_whole_patterns(name: str) -> None:
    from puzzleplan.encoders.sat.tiles_patterns import PatternBound, partition
    model = model_of(name)
    truth = real_distances(model)
    groups = partition(model)
    assert groups is not None
    bound = PatternBound(model, groups)
    states = list(truth)
    random.Random(5).shuffle(states)
    for state in states[:3000]:
        h = bound.value(state)
        assert h <= truth[state]
        for limit in {h - 1, h // 2} - {h}:
            tiles = bound.witness(state, limit)
            assert tiles is not None and all(state[c] == f != 0 for f, c in tiles)
            # the named tiles are whole patterns whose values alone exceed the limit
            named = {f for f, _ in tiles}
            chosen = [g for g, faces in enumerate(groups) if set(faces) <= named]
            assert named == {f for g in chosen for f in groups[g]}
            assert sum(bound.parts(state)[g] for g in chosen) > limit
        assert bound.witness(state, h) is None
    assert bound.value(model.goal) == 0


def test_automatic_tables_stay_a_small_share_of_a_small_boards_layouts() -> None:
    """A 4x3 board with repeated faces has 60 M layouts: its tables were 30 M and 20 M entries,
    slower to build than a search of the whole space; the 15-puzzle's split is unchanged."""
    grid = lambda text: [row.split() for row in text.split("/")]
    model = TilesPuzzle.from_grids(grid("10 11 _ / 7 9 6 / 4 11 9 / 1 5 7"), grid("7 7 6 / 10 9 4 / 1 11 11 / _ 5 9"))
    geometry = geometry_of(model)
    assert pdb_patterns.layouts(geometry) == math.factorial(12) // 8   # three faces twice
    counts = lambda pattern: [len(geometry.goal_cells(f)) for f in pattern]
    total = sum(pdb_patterns.pattern_entries(geometry.n, counts(p)) for p in pdb_patterns.auto_partition(geometry))
    assert total <= max(pdb_patterns.layouts(geometry) / pdb_patterns.SPACE_SHARE, pdb_patterns.SMALL_TABLES)
    fifteen = pdb_patterns.Geometry(4, 4, bytes(list(range(1, 16)) + [0]))
    assert [len(p) for p in pdb_patterns.auto_partition(fifteen, budget=30)] == [6, 6, 3]
    eight = pdb_patterns.Geometry(3, 3, bytes(list(range(1, 9)) + [0]))
    assert [len(p) for p in pdb_patterns.auto_partition(eight)] == [8]   # one perfect table still


def test_a_limit_before_the_tables_are_built_still_reports_the_cheap_bound() -> None:
    from puzzleplan.models import load
    from puzzleplan.plans.core.types import Limits, Request, Status
    from puzzleplan.plans.solve import solve
    model = load(Path(__file__).resolve().parents[1] / "examples" / "tiles" / "korf-012.yaml")
    result = solve(model, "idastar", Request(limits=Limits(time_limit=0), options={"heuristic": "pdb"}))
    assert result.status is Status.LIMIT_REACHED
    assert result.lower_bound == model.cheap_h(model.initial()) > 0
