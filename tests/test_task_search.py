"""The generic task engines (task-bfs, task-astar, task-idastar) and their parts.

Examples: each engine finds the stated optimum (by cost: Sokoban pushes count pushes, walks are
free) and its plan passes the family's checker. Parts: packing round trips, the packed successor
generator against the task's own, admissibility of h^max and the pattern databases against true
costs from an independent backward Dijkstra, costs deciding over plan length, caps and limits.
"""
from __future__ import annotations

import heapq
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import run_json
from puzzleplan.models import load
from puzzleplan.models.task.compile import compiled
from puzzleplan.models.task.ir import Task, Variable, action
from puzzleplan.models.task.model import TaskModel
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core import engines
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Limits, Request, Status
from puzzleplan.plans.solve import solve
from puzzleplan.plans.task_search.heuristics import make
from puzzleplan.plans.task_search.packing import Packing
from puzzleplan.plans.task_search.space import DEAD_END, Space

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ENGINES = ("task-bfs", "task-astar", "task-idastar")
SLOW_FOR_IDASTAR = {   # seconds measured for task-idastar (2 cores); the other engines take < 1 s
    ("seed-000-hardest", "step"): 4.8, ("seed-000-hardest", "slide"): 4.4,
    ("seed-000-typed", "step"): 4.8, ("seed-000-typed", "slide"): 4.4,
    ("dungeon", "moves"): 5.1, ("dungeon", "pushes"): 15.4,
}


def _cases() -> list[tuple[Path, str]]:
    out = []
    for path in sorted((EXAMPLES / "tiles").glob("*.yaml")):
        model = load(path)
        if model.rows * model.cols <= 9:
            out.append((path, "step"))
    for path in sorted((EXAMPLES / "rush-hour").glob("*.yaml")):
        out += [(path, "step"), (path, "slide")]
    for path in sorted((EXAMPLES / "sokoban").glob("*.yaml")):
        out += [(path, "moves"), (path, "pushes")]
    for folder in ("rules", "pddl", "user"):     # families that are tasks, or compile to one
        out += [(path, "") for path in sorted((EXAMPLES / folder).glob("*.yaml"))]
    return out


CASES = _cases()


def _load(path: Path, metric: str) -> Any:
    return load(path, {"metric": metric}) if metric else load(path)


def _expected(model: Any, metric: str) -> int | None:
    return model.expect.get(f"optimal_{metric or model.metric}", model.expect.get("optimal"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].parent.name}/{c[0].stem}/{c[1] or 'default'}")
def test_engine_finds_the_stated_optimum(engine: str, case: tuple[Path, str]) -> None:
    path, metric = case
    if engine == "task-idastar" and (path.stem, metric) in SLOW_FOR_IDASTAR:
        pytest.skip(f"IDA* re-expands this space: {SLOW_FOR_IDASTAR[path.stem, metric]} s")
    model = _load(path, metric)
    result = solve(model, engine, Request(limits=Limits(time_limit=60)))
    optimum = _expected(model, metric)
    if model.expect.get("solvable") is False:
        assert result.status is Status.UNSOLVABLE and result.message
        return
    assert optimum is not None
    assert result.status is Status.OPTIMAL, result.message
    assert result.plan is not None and result.plan.cost == optimum and result.lower_bound == optimum
    assert check_plan(model, list(result.plan.moves)).valid
    stats = result.stats
    assert stats.nodes >= 1 and stats.generated >= stats.nodes - 1 and stats.states >= 1


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name, metric", [("tiles/small-2x3", "step"), ("rush-hour/seed-003-card", "slide"),
                                          ("sokoban/three", "pushes"), ("sokoban/pocket", "moves")])
def test_cap_one_below_the_optimum_is_proved_and_at_it_found(engine: str, name: str, metric: str) -> None:
    model = load(EXAMPLES / f"{name}.yaml", {"metric": metric})
    optimum = _expected(model, metric)
    below = solve(model, engine, Request(max_moves=optimum - 1))
    assert below.status is Status.NO_PLAN_WITHIN_CAP and below.plan is None
    assert below.lower_bound is not None and below.lower_bound >= optimum
    at = solve(model, engine, Request(max_moves=optimum))
    assert at.status is Status.OPTIMAL and at.plan is not None and at.plan.cost == optimum


@pytest.mark.parametrize("heuristic", ["blind", "hmax", "pdb"])
@pytest.mark.parametrize("engine", ["task-astar", "task-idastar"])
def test_every_heuristic_keeps_the_optimum(engine: str, heuristic: str) -> None:
    for name, metric in [("sokoban/snake", "pushes"), ("rush-hour/walls", "step"), ("tiles/small-2x3", "step")]:
        model = load(EXAMPLES / f"{name}.yaml", {"metric": metric})
        result = solve(model, engine, Request(options={"heuristic": heuristic}))
        assert result.status is Status.OPTIMAL and result.plan is not None
        assert result.plan.cost == _expected(model, metric), (name, heuristic)
        assert result.stats.extra["heuristic"] == heuristic


def test_unknown_heuristic_names_the_choices() -> None:
    model = load(EXAMPLES / "tiles/small-2x3.yaml")
    with pytest.raises(ValueError, match="blind, hmax, pdb"):
        solve(model, "task-astar", Request(options={"heuristic": "manhattan"}))


# -- costs decide, not lengths; 0-cost cycles end --------------------------------------------------
def _costed_task(goal_reachable: bool = True) -> TaskModel:
    """x in 0..3: `jump` 0->3 costs 3 (one move); a (0->1, free), b, c (cost 1 each) cost 2 in three
    moves; `back` 1->0 is free, so a/back is a 0-cost cycle."""
    x = Variable("x", ("0", "1", "2", "3"))
    actions = [action("a", {0: 0}, {0: 1}, 0), action("back", {0: 1}, {0: 0}, 0),
               action("b", {0: 1}, {0: 2}, 1), action("c", {0: 2}, {0: 3}, 1)]
    if goal_reachable:
        actions.append(action("jump", {0: 0}, {0: 3}, 3))
    else:
        actions = actions[:3]
    return TaskModel(Task("costed", (x,), (0,), ((0, 3),), tuple(actions)))


@pytest.mark.parametrize("heuristic", ["blind", "hmax", "pdb"])
@pytest.mark.parametrize("engine", ENGINES)
def test_the_cheapest_plan_is_longer_than_the_shortest(engine: str, heuristic: str) -> None:
    model = _costed_task()
    result = solve(model, engine, Request(options={"heuristic": heuristic}))
    assert result.status is Status.OPTIMAL and result.plan is not None
    assert list(result.plan.moves) == ["a", "b", "c"] and result.plan.cost == 2 and result.lower_bound == 2
    capped = solve(model, engine, Request(max_moves=1, options={"heuristic": heuristic}))
    assert capped.status is Status.NO_PLAN_WITHIN_CAP
    unsolvable = solve(_costed_task(goal_reachable=False), engine, Request(options={"heuristic": heuristic}))
    assert unsolvable.status is Status.UNSOLVABLE


# -- limits ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_a_tiny_time_limit_ends_with_limit_reached(engine: str) -> None:
    model = load(EXAMPLES / "tiles/eight-31.yaml")
    result = solve(model, engine, Request(options={"heuristic": "blind"}, limits=Limits(time_limit=0.05)))
    assert result.status is Status.LIMIT_REACHED and "time limit" in result.message
    assert result.stats.nodes > 0


def test_a_state_limit_ends_with_limit_reached() -> None:
    model = load(EXAMPLES / "tiles/eight-31.yaml")
    result = solve(model, "task-bfs", Request(limits=Limits(max_states=5000)))
    assert result.status is Status.LIMIT_REACHED and "state limit" in result.message


def test_cli_time_limit(capsys) -> None:
    code, out = run_json(capsys, "solve", EXAMPLES / "tiles/eight-31.yaml", "--engine", "task-idastar",
                         "--time-limit", "0.05")
    assert out["status"] == "limit_reached" and code == 3


def test_the_engines_are_registered_and_say_what_they_cannot_run() -> None:
    assert set(ENGINES) <= set(engines.names())
    model = load(EXAMPLES / "sokoban/three.yaml")
    assert all(engines.supports(name, model) is None for name in ENGINES)

    class Opaque:
        family = "opaque"
    reason = engines.supports("task-astar", Opaque())
    assert reason and "planning-task form" in reason


# -- packing and successors --------------------------------------------------------------------------
@given(st.lists(st.integers(1, 300), min_size=1, max_size=40).flatmap(
    lambda sizes: st.tuples(st.just(sizes), st.tuples(*(st.integers(0, n - 1) for n in sizes)))))
def test_packing_round_trips(case: tuple[list[int], tuple[int, ...]]) -> None:
    sizes, state = case
    packing = Packing(sizes)
    key = packing.pack(state)
    assert packing.unpack(key) == state
    assert key.bit_length() <= packing.width
    facts = [(v, x) for v, x in enumerate(state) if v % 2 == 0]
    mask, value = packing.partial(facts)
    assert key & mask == value
    other = [(v, (x + 1) % sizes[v]) for v, x in facts if sizes[v] > 1]
    if other:
        mask, value = packing.partial(other[:1])
        assert key & mask != value


SMALL = {name: compiled(load(EXAMPLES / f"{name}.yaml", {"metric": metric})).task
         for name, metric in [("tiles/small-2x3", "step"), ("rush-hour/seed-003-card", "slide"),
                              ("sokoban/three", "pushes")]}


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(SMALL)), seed=st.integers(0, 2**32 - 1))
def test_packed_successors_match_the_task(name: str, seed: int) -> None:
    task = SMALL[name]
    space = Space(task)
    rng = random.Random(seed)
    state = tuple(rng.randrange(n) for n in task.sizes)   # any assignment, reachable or not
    key = space.packing.pack(state)
    mine = sorted((task.actions[i].name, space.packing.unpack(child)) for i, child in space.successors(key))
    theirs = sorted((a.name, child) for a, child in task.successors(state))
    assert mine == theirs


# -- admissibility against true costs ---------------------------------------------------------------
def _true_costs(task: Task) -> dict[tuple[int, ...], int]:
    """Cheapest cost to a goal from every reachable state (independent: the task's own successors,
    a reverse graph and heapq), unreachable-goal states absent."""
    reached, todo, back = {task.init}, [task.init], {}
    while todo:
        state = todo.pop()
        for a, child in task.successors(state):
            back.setdefault(child, []).append((state, a.cost))
            if child not in reached:
                reached.add(child)
                todo.append(child)
    dist = {s: 0 for s in reached if task.is_goal(s)}
    queue = [(0, s) for s in dist]
    while queue:
        d, state = heapq.heappop(queue)
        if d > dist[state]:
            continue
        for parent, cost in back.get(state, ()):
            if d + cost < dist.get(parent, DEAD_END):
                dist[parent] = d + cost
                heapq.heappush(queue, (d + cost, parent))
    return dist


def _walk_states(task: Task) -> list[tuple[int, ...]]:
    states, todo = {task.init}, [task.init]
    while todo:
        for _, child in task.successors(todo.pop()):
            if child not in states:
                states.add(child)
                todo.append(child)
    return sorted(states)


ADMISSIBLE = {}
for _name, _task in SMALL.items():
    _space = Space(_task)
    ADMISSIBLE[_name] = (_space, _true_costs(_task), {h: make(h, _space, SearchContext()).h for h in ("hmax", "pdb")})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(SMALL)), seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 60))
def test_heuristics_never_overestimate(name: str, seed: int, steps: int) -> None:
    space, true, heuristics = ADMISSIBLE[name]
    rng = random.Random(seed)
    state = space.task.init
    for _ in range(steps):
        moves = list(space.task.successors(state))
        if not moves:
            break
        state = rng.choice(moves)[1]
    key = space.packing.pack(state)
    for h in heuristics.values():
        value = h(key)
        assert value <= true.get(state, DEAD_END)
        assert (value >= DEAD_END) <= (state not in true)   # a dead end by h is a dead end
        if space.task.is_goal(state):
            assert value == 0


def test_pattern_databases_are_informative_and_exact_on_sokoban_moves() -> None:
    """The chosen patterns hold the player and the goal cells: on these small levels h is the
    true distance from the start (a check that the databases are not trivially 0)."""
    for name in ("three", "pocket", "l-room"):
        model = load(EXAMPLES / f"sokoban/{name}.yaml")
        space = Space(compiled(model).task)
        h = make("pdb", space, SearchContext())
        assert h.name == "pdb" and h.info["patterns"]
        assert h.h(space.start) == model.expect["optimal_moves"]


def test_all_states_of_a_small_task_are_admissible() -> None:
    space, true, heuristics = ADMISSIBLE["sokoban/three"]
    for state in _walk_states(space.task):
        key = space.packing.pack(state)
        for h in heuristics.values():
            assert h(key) <= true.get(state, DEAD_END)
