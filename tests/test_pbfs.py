"""Parallel BFS (plans/parallel/pbfs.py) against the serial explorer and bfs; all optimal plans."""
from __future__ import annotations

import multiprocessing as mp
import subprocess
import sys
import textwrap
from functools import lru_cache
from pathlib import Path

import pytest

from helpers import run_cli
from puzzleplan.models.base import ModelError

from puzzleplan.models import load
from puzzleplan.models.document import read_document
from puzzleplan.models.user.model import user_model_from_document
from puzzleplan.models.tiles.model import TilesPuzzle
from puzzleplan.plans.all_optimal import all_optimal_plans
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.explore import explore
from puzzleplan.plans.parallel import pbfs
from puzzleplan.plans.parallel.pbfs import WorkerGroup, explore_parallel, stable_hash
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Limits, Request, Status

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
HANOI = EXAMPLES / "user" / "hanoi.yaml"
JUGS = EXAMPLES / "user" / "water-jugs.yaml"


def _cases() -> list[tuple[Path, str]]:
    cases = []
    for path in sorted((EXAMPLES / "tiles").glob("*.yaml")):
        model = load(path)
        if model.rows * model.cols <= 10:  # 15-puzzle spaces do not fit in test time
            cases.append((path, "step"))
    for path in sorted((EXAMPLES / "rush-hour").glob("*.yaml")):
        for metric in type(load(path)).metrics:
            cases.append((path, metric))
    return cases


CASES = _cases()
# explored only: the whole space, dead positions Sokoban's search prunes counted too
SOKOBAN = [(EXAMPLES / "sokoban" / f"{name}.yaml", metric) for name in ("seed-004", "pocket")
           for metric in ("moves", "pushes")]


def _id(case: tuple[Path, str]) -> str:
    return f"{case[0].parent.name}/{case[0].stem}/{case[1]}"


def _model(case: tuple[Path, str]):
    return load(case[0], {"metric": case[1]})


@lru_cache(maxsize=None)
def _serial(case: tuple[Path, str]):
    return explore(_model(case))


@lru_cache(maxsize=None)
def _bfs_length(case: tuple[Path, str]):
    model = _model(case)
    result = solve(model, "bfs", Request(max_moves=model.max_moves))
    return result.status, None if result.plan is None else result.plan.length


@pytest.fixture(scope="module")
def groups():
    made = {w: WorkerGroup(w) for w in (1, 2)}
    yield made
    for group in made.values():
        group.close()


@pytest.fixture
def pbfs_engine():
    """pbfs is a registered engine (plans/core/engines.py); kept as the tests' explicit dependency."""
    return "pbfs"


def _user(path: Path):
    return user_model_from_document(read_document(path), path.parent)


def _workers() -> set:
    return {p for p in mp.active_children() if p.name.startswith("pbfs-worker")}


@pytest.fixture
def no_leftover_workers():
    """Fails the test when it leaves pbfs workers of its own running."""
    before = _workers()
    yield
    assert not _workers() - before


# -- exploration --------------------------------------------------------------------------------------
def test_workers_are_not_plain_forks() -> None:
    assert pbfs.start_method() in ("forkserver", "spawn")


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("case", CASES + SOKOBAN, ids=_id)
def test_explore_agrees_with_serial(groups, case, workers: int) -> None:
    serial = _serial(case)
    out = explore_parallel(_model(case), ctx=SearchContext(), group=groups[workers])
    assert out.complete, out.message
    assert out.reachable == serial.reachable
    assert out.per_depth == serial.per_depth
    assert out.goal_distance == serial.goal_distance
    assert out.goals == serial.goals
    assert out.stats.nodes == serial.stats.nodes and out.stats.generated == serial.stats.generated
    expected = _model(case).expect.get("reachable")
    if expected is not None:
        assert out.reachable == expected


def test_explore_with_its_own_workers_cleans_up(no_leftover_workers) -> None:
    model = load(EXAMPLES / "tiles" / "small-2x3.yaml")
    out = explore_parallel(model, 2)
    assert out.complete and out.reachable == 180 and out.stats.extra["workers"] == 2


@pytest.mark.parametrize("workers", [1, 2])
def test_user_family_in_workers(groups, workers: int) -> None:
    """A class loaded from a file by path is re-imported by path inside the workers."""
    for model in (_user(HANOI), load(JUGS)):  # JUGS is a rules file: its model pickles without closures
        serial = explore(model)
        out = explore_parallel(model, group=groups[workers])
        assert (out.reachable, out.per_depth, out.goal_distance, out.goals) == \
               (serial.reachable, serial.per_depth, serial.goal_distance, serial.goals)


def test_string_states_partition_consistently(tmp_path: Path, groups) -> None:
    """str hashes are salted per process; the partition must not depend on that."""
    (tmp_path / "bits.py").write_text(textwrap.dedent('''
        class Bits:
            def __init__(self, n):
                self.n = n
            def initial(self):
                return "0" * self.n
            def is_goal(self, s):
                return s == "1" * self.n
            def successors(self, s):
                for i in range(self.n):
                    yield i, s[:i] + ("1" if s[i] == "0" else "0") + s[i + 1:]
    '''))
    (tmp_path / "bits.yaml").write_text("puzzle: python:./bits.py:Bits\nn: 9\n")
    model = _user(tmp_path / "bits.yaml")
    out = explore_parallel(model, group=groups[2])
    assert out.reachable == 512 and out.goal_distance == 9
    assert out.per_depth == [1, 9, 36, 84, 126, 126, 84, 36, 9, 1]


def test_stable_hash_is_the_same_in_another_process() -> None:
    values = ["abc", b"\x00\x01", 12345678901234567890, (1, "x", b"y", (None, True)), frozenset({"a", "b"})]
    here = [stable_hash(v) for v in values]
    code = ("from puzzleplan.plans.parallel.pbfs import stable_hash; "
            f"print([stable_hash(v) for v in {values!r}])")
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": "12345"}).stdout.strip()
    assert there == str(here)


def test_state_limit_between_layers(no_leftover_workers) -> None:
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")
    out = explore_parallel(model, 2, SearchContext(Limits(max_states=1000)))
    assert not out.complete and "state limit of 1000" in out.message
    assert 1000 < out.reachable < 181440 and sum(out.per_depth) == out.reachable


def test_time_limit(no_leftover_workers) -> None:
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")
    out = explore_parallel(model, 2, SearchContext(Limits(time_limit=0.05)))
    assert not out.complete and "time limit" in out.message
    assert out.per_depth[0] == 1 and out.reachable == sum(out.per_depth) < 181440  # the start at least


class _InterruptingContext(SearchContext):
    """Raises KeyboardInterrupt (as Ctrl-C would) on the n-th limit check."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after = after

    def poll(self) -> None:
        self.after -= 1
        if self.after <= 0:
            raise KeyboardInterrupt
        super().poll()


def test_ctrl_c_stops_the_workers(no_leftover_workers) -> None:
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")
    out = explore_parallel(model, 2, _InterruptingContext(5))
    assert not out.complete and out.message == "interrupted (Ctrl-C)"


def test_worker_exception_is_reported(tmp_path: Path, no_leftover_workers) -> None:
    (tmp_path / "boom.py").write_text(textwrap.dedent('''
        class Boom:
            def initial(self):
                return 0
            def is_goal(self, s):
                return False
            def successors(self, s):
                if s >= 3:
                    raise RuntimeError("rule bug at " + str(s))
                yield "up", s + 1
    '''))
    (tmp_path / "boom.yaml").write_text("puzzle: python:./boom.py:Boom\n")
    with pytest.raises(ModelError, match="rule bug at 3"):  # the user's bug, in one line
        explore_parallel(_user(tmp_path / "boom.yaml"), 2)


# -- the engine ------------------------------------------------------------------------------------------
SOLVE_CASES = [c for c in CASES if _model(c).unsolvable_reason() is None]


@pytest.mark.parametrize("native", [True, False], ids=["threads-if-packed", "processes"])
@pytest.mark.parametrize("case", SOLVE_CASES, ids=_id)
def test_solve_matches_bfs(pbfs_engine, case, native: bool) -> None:
    model = _model(case)
    status, length = _bfs_length(case)
    result = solve(model, "pbfs", Request(max_moves=model.max_moves, options={"workers": 2, "native": native}))
    assert result.status is status, result.message
    if length is None:
        assert result.plan is None
        if status is Status.UNSOLVABLE:
            assert f"all {_serial(case).reachable} reachable states" in result.message
        return
    assert result.plan.length == length and result.lower_bound == length
    assert check_plan(model, list(result.plan.moves)).valid
    assert result.stats.extra["workers"] == 2


@pytest.mark.parametrize("name", ["small-2x3", "eight-31"])
def test_solve_one_worker(pbfs_engine, name: str) -> None:
    model = load(EXAMPLES / "tiles" / f"{name}.yaml")
    result = solve(model, "pbfs", Request(max_moves=model.max_moves, options={"workers": 1}))
    assert result.status is Status.OPTIMAL and result.plan.length == model.expect["optimal"]


def test_unsolvable_proved_with_reachable_count() -> None:
    model = load(EXAMPLES / "rush-hour" / "unsolvable.yaml")
    result = pbfs.run(model, Request(options={"workers": 2}), SearchContext())  # no shortcut via a reason
    assert result.status is Status.UNSOLVABLE
    assert result.message == "all 513 reachable states explored, none is a goal"


def test_cap_is_honoured(pbfs_engine) -> None:
    model = load(EXAMPLES / "tiles" / "small-2x3.yaml")
    result = solve(model, "pbfs", Request(max_moves=12, options={"workers": 2}))
    assert result.status is Status.NO_PLAN_WITHIN_CAP and result.lower_bound == 13 and result.plan is None
    result = solve(model, "pbfs", Request(max_moves=13, options={"workers": 2}))
    assert result.status is Status.OPTIMAL and result.plan.length == 13


def test_start_is_goal(pbfs_engine) -> None:
    grid = (("a", "b"), ("c", "_"))
    model = TilesPuzzle.from_grids(grid, grid)
    result = solve(model, "pbfs", Request(options={"workers": 2}))
    assert result.status is Status.OPTIMAL and result.plan.length == 0


def test_engine_limits(pbfs_engine, no_leftover_workers) -> None:
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")
    result = solve(model, "pbfs", Request(limits=Limits(max_states=2000), options={"workers": 2}))
    assert result.status is Status.LIMIT_REACHED and "state limit" in result.message
    result = solve(model, "pbfs", Request(limits=Limits(memory_mb=1), options={"workers": 2}))
    assert result.status is Status.LIMIT_REACHED and "memory limit" in result.message


def test_engine_on_user_family(pbfs_engine) -> None:
    model = _user(HANOI)
    result = solve(model, "pbfs", Request(options={"workers": 2}))
    assert result.status is Status.OPTIMAL and result.plan.length == 15


# -- every optimal plan ------------------------------------------------------------------------------
def _brute_force(model, length: int) -> set[tuple[str, ...]]:
    """Every legal move sequence of exactly `length` moves that ends on a goal."""
    found = set()

    def walk(state, actions):
        if len(actions) == length:
            if model.is_goal(state):
                found.add(tuple(model.plan_moves(actions)))
            return
        for action, child in model.successors(state):
            walk(child, actions + [action])

    walk(model.initial(), [])
    return found


def _tiles(start: str, goal: str) -> TilesPuzzle:
    rows = lambda text: [row.split() for row in text.split("/")]
    return TilesPuzzle.from_grids(rows(start), rows(goal))


ALL_OPTIMAL = {
    "2x3-repeated": (lambda: _tiles("_ b c / b a a", "a a b / b c _"), 11, 4),
    "2x3-distinct": (lambda: _tiles("4 5 2 / 3 _ 1", "1 2 3 / 4 5 _"), 13, 2),
    "rush-hour-walls-slide": (lambda: load(EXAMPLES / "rush-hour" / "walls.yaml", {"metric": "slide"}), 4, 3),
    "water-jugs": (lambda: load(JUGS), 6, None),
    "hanoi": (lambda: _user(HANOI), 15, 1),
}


@pytest.mark.parametrize("name", list(ALL_OPTIMAL))
def test_all_optimal_plans_match_brute_force(name: str) -> None:
    make, length, count = ALL_OPTIMAL[name]
    model = make()
    counted = all_optimal_plans(model, count_only=True)
    assert counted.status is Status.OPTIMAL and counted.length == length and counted.plans is None
    listed = all_optimal_plans(model)
    assert listed.count == counted.count and listed.complete
    plans = [tuple(p) for p in listed.plans]
    assert len(plans) == len(set(plans)) == listed.count
    if count is not None:
        assert listed.count == count
    if name != "hanoi":  # 3**15 sequences is too many to brute-force; the plan is unique anyway
        assert set(plans) == _brute_force(model, length)
    for plan in plans:
        assert len(plan) == length
        assert check_plan(model, list(plan)).valid


def test_all_optimal_limit_and_count() -> None:
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")
    result = all_optimal_plans(model, limit=5)
    assert result.status is Status.OPTIMAL and result.length == 31
    assert result.count > 5 and len(result.plans) == 5 and not result.complete
    assert all(check_plan(model, plan).valid for plan in result.plans)
    assert "5 plans" in result.message and "optimal plans of 31 moves" in result.text()
    assert result.exit_code == 0   # the listing limit asked for is no search limit


def test_all_optimal_counts_in_the_metric_s_unit_and_every_expansion() -> None:
    """Sokoban under pushes: plans of 4 pushes (9 to 13 moves); the listing's expansions count
    their children too, so nodes never outrun what was generated."""
    model = load(EXAMPLES / "sokoban" / "seed-004.yaml", {"metric": "pushes"})
    result = all_optimal_plans(model)
    assert result.length == 4 and result.count == 4 and result.as_dict()["unit"] == "pushes"
    assert "4 push-optimal push sequences of 4 pushes" in result.text()   # each walked shortest
    assert sorted(len(plan) for plan in result.plans) == [9, 11, 11, 13]
    for listed in (result, all_optimal_plans(model, count_only=True)):
        assert 0 < listed.stats.nodes <= listed.stats.generated


def test_all_optimal_cut_by_a_limit_exits_3(capsys) -> None:
    """Seed 000 has about 2.5e37 optimal plans: a time limit ends the listing, keeps the exact
    count and the plans so far, and the command says a limit was reached."""
    code, out, _ = run_cli(capsys, "solve", EXAMPLES / "rush-hour" / "seed-000-hardest.yaml", "--all-optimal",
                           "--time-limit", "1")
    assert code == 3 and "time limit of 1 s reached" in out and "optimal plans of 93 moves" in out


def test_all_optimal_negative_answers() -> None:
    result = all_optimal_plans(load(EXAMPLES / "rush-hour" / "unsolvable.yaml"))
    assert result.status is Status.UNSOLVABLE and result.count == 0
    model = load(EXAMPLES / "tiles" / "small-2x3.yaml").with_changes(max_moves=12)
    result = all_optimal_plans(model)
    assert result.status is Status.NO_PLAN_WITHIN_CAP and "12" in result.message
    result = all_optimal_plans(load(EXAMPLES / "tiles" / "eight-31.yaml"), SearchContext(Limits(max_states=500)))
    assert result.status is Status.LIMIT_REACHED and "state limit" in result.message


def test_all_optimal_at_the_goal() -> None:
    grid = "a b / c _"
    result = all_optimal_plans(_tiles(grid, grid))
    assert result.length == 0 and result.count == 1 and result.plans == [[]]


@pytest.mark.parametrize("case", [c for c in CASES if _model(c).packed_space() is not None], ids=_id)
def test_threaded_packed_explore_agrees_with_serial(case, monkeypatch: pytest.MonkeyPatch) -> None:
    from puzzleplan.plans.search import layered
    monkeypatch.setattr(layered, "MIN_THREAD_CHUNK", 3)   # many pieces per layer even on small boards
    model = _model(case)
    threaded, serial = explore(model, workers=2), _serial(case)
    assert threaded.stats.extra["workers"] == 2 and threaded.complete
    assert (threaded.per_depth, threaded.goals, threaded.goal_distance) == \
        (serial.per_depth, serial.goals, serial.goal_distance)


def test_explore_cli_uses_threads_for_packed_states(capsys) -> None:
    from helpers import run_json
    code, out = run_json(capsys, "explore", EXAMPLES / "tiles" / "small-2x3.yaml", "--workers", "2")
    assert code == 0 and out["reachable"] == 180 and out["stats"]["kernel"] == "packed layers"
    assert out["stats"]["workers"] == 2
