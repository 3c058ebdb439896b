"""The generic IDA*'s tables (per-pass depths, learned bounds, states ever expanded): sound (the
optimum of breadth-first search on random graphs, with the tables and past a tiny budget), complete
on finite spaces with no goal (proved unsolvable instead of running to the time limit), and a
graph search on spaces full of transpositions (Rush Hour seed 000)."""
from __future__ import annotations

from collections import deque
from typing import Iterator

import pytest
from hypothesis import given, settings, strategies as st

from catalogue import EXAMPLES
from puzzleplan.models import load
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Limits, Request, Status
from puzzleplan.plans.search import depth_first, idastar
from puzzleplan.plans.solve import solve


class Graph:
    """A bare model: states 0..n-1, directed edges, goals; h = 0 or a random admissible bound."""

    def __init__(self, edges: list[list[int]], goals: set[int], h: list[int] | None = None) -> None:
        self.edges, self.goals, self.bound = edges, goals, h

    def __repr__(self) -> str:
        return f"Graph(edges={self.edges}, goals={self.goals}, h={self.bound})"

    def initial(self) -> int:
        return 0

    def is_goal(self, state: int) -> bool:
        return state in self.goals

    def successors(self, state: int) -> Iterator[tuple[str, int]]:
        for child in self.edges[state]:
            yield f"{state}>{child}", child

    def h(self, state: int) -> int:
        return 0 if self.bound is None else self.bound[state]

    def plan_moves(self, actions: list[str]) -> list[str]:
        return list(actions)


def distances_to_goal(graph: Graph) -> list[int | None]:
    """Exact goal distances by breadth-first search backwards (None: no goal reachable)."""
    n = len(graph.edges)
    parents: list[list[int]] = [[] for _ in range(n)]
    for state, children in enumerate(graph.edges):
        for child in children:
            parents[child].append(state)
    dist: list[int | None] = [None] * n
    queue = deque(sorted(graph.goals))
    for goal in graph.goals:
        dist[goal] = 0
    while queue:
        state = queue.popleft()
        for parent in parents[state]:
            if dist[parent] is None:
                dist[parent] = dist[state] + 1   # type: ignore[operator]
                queue.append(parent)
    return dist


@st.composite
def graphs(draw: st.DrawFn) -> Graph:
    n = draw(st.integers(1, 12))
    edges = [draw(st.lists(st.integers(0, n - 1), max_size=3, unique=True)) for _ in range(n)]
    goals = draw(st.sets(st.integers(0, n - 1), max_size=2))
    graph = Graph(edges, goals)
    if draw(st.booleans()):   # an admissible h: a random fraction of the true distance
        exact = distances_to_goal(graph)
        graph.bound = [draw(st.integers(0, d)) if d is not None else 0 for d in exact]
    return graph


def reachable(graph: Graph) -> set[int]:
    seen, todo = {0}, [0]
    while todo:
        for child in graph.edges[todo.pop()]:
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def assert_optimal(graph: Graph) -> None:
    # a pass that lost completeness would loop on a cyclic space: the limit turns that into a failure
    result = idastar.run(graph, Request(), SearchContext(Limits(time_limit=2)))
    status, moves = result.status, list(result.plan.moves) if result.plan is not None else None
    best = distances_to_goal(graph)[0]
    if best is None:
        assert status is Status.UNSOLVABLE
        if depth_first.TABLE_BUDGET >= len(graph.edges):   # the table held the whole space, once
            assert result.stats.states == len(reachable(graph))
        return
    assert status is Status.OPTIMAL and moves is not None and len(moves) == best
    state = 0
    for move in moves:   # the plan is a walk along the graph's edges to a goal
        source, target = map(int, move.split(">"))
        assert source == state and target in graph.edges[state]
        state = target
    assert state in graph.goals


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_idastar_with_its_table_is_optimal_and_complete(graph: Graph) -> None:
    assert_optimal(graph)


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_idastar_past_the_table_budget_stays_optimal(graph: Graph) -> None:
    """A table dropped mid-pass leaves only sound cuts behind; the pass goes on as a tree search
    with the bounds learned so far frozen, so a finite space with no goal still ends when a pass
    cuts nothing (a self-loop whose bound rose every pass kept it going forever)."""
    budget = depth_first.TABLE_BUDGET
    depth_first.TABLE_BUDGET = 2
    try:
        assert_optimal(graph)   # a space with no goal ends too: learned bounds freeze with the tables
    finally:
        depth_first.TABLE_BUDGET = budget


@pytest.mark.parametrize("metric", ["step", "slide"])
def test_an_unsolvable_rush_hour_board_is_proved_so(metric: str) -> None:
    """513 reachable states, no goal: before the table IDA* walked their simple paths until the limit."""
    model = load(EXAMPLES / "rush-hour" / "unsolvable.yaml", {"metric": metric})
    result = solve(model, "idastar", Request(limits=Limits(time_limit=60)))
    assert result.status is Status.UNSOLVABLE
    assert result.stats.states == 513


def test_an_unsolvable_sliding_block_board_is_proved_so() -> None:
    model = load(EXAMPLES / "blocks" / "jammed.yaml")
    result = solve(model, "idastar", Request(limits=Limits(time_limit=60)))
    assert result.status is Status.UNSOLVABLE and result.stats.states == 1575


def test_seed_000_is_searched_as_a_graph() -> None:
    """24,132 configurations, optimum 49 slides: without the tables IDA* walked paths, not states,
    and did not finish in 60 s; now every pass reuses what the earlier ones learned."""
    model = load(EXAMPLES / "rush-hour" / "seed-000-hardest.yaml", {"metric": "slide"})
    result = solve(model, "idastar", Request(limits=Limits(time_limit=60)))
    assert result.status is Status.OPTIMAL and result.plan.cost == 49
    assert result.stats.states <= 24_132 and result.stats.nodes < 40 * 24_132


def test_a_self_loop_past_the_budget_ends(monkeypatch) -> None:
    """The review's case: no goal, a state whose only way on is itself; past the budget its
    learned bound rose every pass and IDA* never ended (494,593 passes in 3 s)."""
    monkeypatch.setattr(depth_first, "TABLE_BUDGET", 2)
    result = idastar.run(Graph([[1, 2, 3], [1], [], []], set()), Request(), SearchContext(Limits(time_limit=5)))
    assert result.status is Status.UNSOLVABLE


class _Wide:
    """Every state has 3,000 children and no goal: few nodes, much work."""

    metric, max_moves, unit_cost = "step", None, True

    def initial(self) -> int:
        return 0

    def is_goal(self, state: int) -> bool:
        return False

    def h(self, state: int) -> int:
        return 0

    def successors(self, state: int) -> Iterator[tuple[str, int]]:
        return ((f"m{k}", state * 3000 + k + 1) for k in range(3000))


@pytest.mark.parametrize("capped", [False, True])
def test_the_limits_are_checked_by_work_as_well_as_by_nodes(capped: bool) -> None:
    """A node with thousands of children: the limits are looked at long before POLL_EVERY nodes."""
    from puzzleplan.plans.core.context import LimitReached
    ctx = SearchContext(Limits())
    calls = []

    def poll() -> None:
        calls.append(ctx.stats.nodes)
        raise LimitReached("stop", "test")
    ctx.poll = poll
    search = depth_first.GenericDepthFirst(_Wide())
    with pytest.raises(LimitReached):
        search.within_cap(3, ctx) if capped else search.bounded(5, ctx)
    assert calls and calls[0] < 10 < depth_first.POLL_EVERY
