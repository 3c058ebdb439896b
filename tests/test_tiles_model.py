"""Property tests for the tiles model: parsing, moves, solvability, heuristic, kernel vs generic."""
from __future__ import annotations

import random

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzleplan.models import ModelError, loads
from puzzleplan.models.tiles.model import TilesPuzzle
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.explore import explore
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Request, Status

FACES = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]


@st.composite
def boards(draw, max_cells: int = 9, repeats: bool | None = None):
    rows = draw(st.integers(2, 3))
    cols = draw(st.integers(2, max(2, max_cells // rows)))
    n = rows * cols
    pool = FACES[: n - 1] if repeats is False else FACES[: draw(st.integers(1, n - 1))]
    faces = [pool[i % len(pool)] for i in range(n - 1)] if repeats is not False else list(pool)
    if repeats is None:
        faces = [draw(st.sampled_from(pool)) for _ in range(n - 1)]
    start = faces + ["_"]
    goal = list(start)
    random.Random(draw(st.integers(0, 2**31))).shuffle(start)
    random.Random(draw(st.integers(0, 2**31))).shuffle(goal)
    grid = lambda cells: tuple(tuple(cells[r * cols:(r + 1) * cols]) for r in range(rows))
    return TilesPuzzle.from_grids(grid(start), grid(goal))


def _bfs_distance(model: TilesPuzzle) -> int | None:
    result = solve(model, "bfs", Request())
    return result.plan.length if result.plan is not None else None


@settings(max_examples=60, deadline=None)
@given(boards(max_cells=6))
def test_solvability_decision_matches_search(model: TilesPuzzle) -> None:
    decided_unsolvable = model.unsolvable_reason() is not None
    reached = explore(model).goals > 0
    assert decided_unsolvable == (not reached)


@settings(max_examples=40, deadline=None)
@given(boards(max_cells=9))
def test_heuristic_is_admissible_and_zero_at_goal(model: TilesPuzzle) -> None:
    assert model.h(model.goal) == 0
    if model.unsolvable_reason() is None and model.n <= 8:
        distance = _bfs_distance(model)
        assert model.h(model.start) <= distance


@settings(max_examples=40, deadline=None)
@given(boards(max_cells=9))
def test_successors_swap_blank_with_a_neighbour(model: TilesPuzzle) -> None:
    state = model.start
    blank = state.index(0)
    kids = list(model.successors(state))
    assert len(kids) == sum(1 for c in model.neighbours[blank] if c >= 0)
    for action, child in kids:
        diff = [i for i in range(model.n) if state[i] != child[i]]
        assert child.index(0) == model.neighbours[blank][action]
        assert sorted(child) == sorted(state) and len(diff) in (0, 2)
        assert abs(model.h(child) - model.h(state)) <= 3  # one tile moved one cell


@settings(max_examples=30, deadline=None)
@given(boards(max_cells=8))
def test_native_kernel_agrees_with_generic_search(model: TilesPuzzle) -> None:
    if model.unsolvable_reason() is not None:
        return
    native = solve(model, "idastar", Request(options={"native": True}))
    generic = solve(model, "idastar", Request(options={"native": False}))
    assert native.status is generic.status is Status.OPTIMAL
    assert native.plan.length == generic.plan.length == _bfs_distance(model)
    assert native.plan.length % 2 == model.plan_parity()
    assert check_plan(model, list(native.plan.moves)).valid


@settings(max_examples=40, deadline=None)
@given(boards(max_cells=12), st.lists(st.integers(0, 3), max_size=30))
def test_checker_accepts_any_legal_walk(model: TilesPuzzle, walk: list[int]) -> None:
    state, moves = model.start, []
    for d in walk:
        for action, child in model.successors(state):
            if action == d:
                state = child
                moves.append("URDL"[d])
    target = TilesPuzzle.from_grids(model.start_grid, model.grid_of(state))
    assert check_plan(target, moves).valid


@settings(max_examples=40, deadline=None)
@given(boards(max_cells=16))
def test_yaml_round_trip(model: TilesPuzzle) -> None:
    text = yaml.safe_dump({
        "puzzle": "tiles",
        "start": "\n".join(" ".join(row) for row in model.start_grid),
        "goal": "\n".join(" ".join(row) for row in model.goal_grid),
    })
    again = loads(text)
    assert again.start_grid == model.start_grid and again.goal_grid == model.goal_grid
    assert again.start == model.start and again.goal == model.goal


def test_korf_notation_default_goal() -> None:
    model = loads("puzzle: tiles\nnotation: korf\nstart: '1 0 2 3'\n")
    assert model.goal_grid == (("_", "1"), ("2", "3"))
    assert solve(model, "bfs", Request()).plan.length == 1


def test_hex_notation() -> None:
    model = loads("puzzle: tiles\nnotation: hex\nstart: '12 30'\ngoal: '10 32'\n")
    assert model.start_grid == (("1", "2"), ("3", "_"))
    assert check_plan(model, "U").valid


@pytest.mark.parametrize("start", ["0x763258F4E1DCBA90", "763258f4e1dcba90", "7632 58F4 E1DC BA90"])
def test_hex_boards_as_seed_002_writes_them(start: str) -> None:
    model = loads(f"puzzle: tiles\nnotation: hex\nstart: '{start}'\ngoal: '0x65437892F1ADEBC0'\n")
    assert model.start_grid[0] == ("7", "6", "3", "2") and model.start_grid[3] == ("B", "A", "9", "_")
    assert model.goal_grid[3] == ("E", "B", "C", "_")
    with pytest.raises(ModelError, match="expected rows of hex digits"):
        loads("puzzle: tiles\nnotation: hex\nstart: '0x12345G'\n")


def test_small_boards_default_to_the_breadth_first_sweep_and_heuristic_options_to_ida() -> None:
    """A board of at most a million arrangements that packs is swept by bfs (as optimal, and
    quicker than loading IDA*'s tables); the 15-puzzle stays with IDA*; asking for a heuristic
    or a partition without an engine asks for IDA*."""
    from puzzleplan.models.tiles.board import arrangements
    from puzzleplan.plans.solve import default_engine
    eight = loads("puzzle: tiles\nstart: [[1, 2, 3], [4, 5, 6], [7, _, 8]]\n"
                  "goal: [[1, 2, 3], [4, 5, 6], [7, 8, _]]\n")
    fifteen = loads("puzzle: tiles\nstart: [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, _, 15]]\n"
                    "goal: [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, _]]\n")
    assert arrangements(eight.start) == 362_880 and arrangements(bytes([0, 1, 1, 2])) == 12
    assert eight.default_engine == "bfs" and fifteen.default_engine == "idastar"
    assert default_engine(eight, Request(options={"partition": [["1", "2"]]})) == "idastar"
    assert default_engine(eight, Request(options={"heuristic": "manhattan"})) == "idastar"
    found = solve(eight)
    assert found.engine == "bfs" and found.status is Status.OPTIMAL and found.plan.length == 1


@pytest.mark.parametrize("text, words", [
    ("notation: korf\nstart: '0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 14'\n",
     ":3: field 'start': expected each of 0 .. 15 once (the default goal is Korf's 0 1 2 ...): 14 more than once; "
     "15 missing"),
    ("notation: korf\nstart: '0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 16'\n", "16 beyond 15; 15 missing"),
    ("notation: hex\nstart: '1234 5678 9ABC DE00'\n", "field 'start': expected exactly one blank '0', found 2"),
    ("start: [[a, 'b c'], [1, _]]\n", "field 'start': a face must be a word without spaces, got 'b c'"),
    ("start: [[a, ''], [1, _]]\n", "a face must be a word without spaces, got ''"),
    ("start: |\n  1 2 3\n  4 5 6\n  7 8 _\ngoal: |\n  1 2 3\n  4 5 6\n", "field 'goal': expected a 3x3 board like start, got 2x3"),
])
def test_bad_tiles_files_say_what_is_wrong_where(text: str, words: str) -> None:
    with pytest.raises(ModelError) as info:
        loads("puzzle: tiles\n" + text, "<t>")
    assert words in str(info.value), str(info.value)


def test_korf_reads_00_as_the_blank() -> None:
    model = loads("puzzle: tiles\nnotation: korf\nstart: '1 00 2 3'\n")
    assert model.start_grid == (("1", "_"), ("2", "3"))


def test_the_standard_goal_orders_numbers_by_value_negative_and_decimal_ones_too() -> None:
    model = loads("puzzle: tiles\nstart: |\n  b 10 B\n  2 _ a\n  -1 1.5 Z\n")
    assert model.goal_grid == (("-1", "1.5", "2"), ("10", "B", "Z"), ("a", "b", "_"))
