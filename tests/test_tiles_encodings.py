"""The tiles encodings that carry the search's pruning: `tiles-h` (per-step Manhattan sums as
clauses, the reversal cut kept sound by idle pairs) and `tiles-pdb` (the lower bound added by an
external propagator on CaDiCaL). Soundness: no formula is UNSAT where a plan exists."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue import EXAMPLES
from puzzleplan.encoders.base import Answer, EncodingOptions
from puzzleplan.encoders.sat.base import IncrementalSat, solve_fixed
from puzzleplan.encoders.sat.tiles_h import TilesHeuristic, reversal_padding
from puzzleplan.encoders.sat.tiles_pdb import TilesPatternBound
from puzzleplan.encoders.sat.tiles_propagator import LowerBound, ManhattanBound
from puzzleplan.models import load
from puzzleplan.models.tiles.model import TilesPuzzle
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.types import Request, Status
from puzzleplan.plans.solve import solve

PROOF = EncodingOptions(goal="exact", no_reversal=False, idle_at_end=False)   # what verify proves with
FIND = EncodingOptions(goal="exact", no_reversal=True)                         # what verify finds plans with
BY = EncodingOptions(goal="by")
ENCODINGS = [TilesHeuristic, TilesPatternBound]


def grid(cells: list[str], cols: int) -> list[list[str]]:
    return [cells[r:r + cols] for r in range(0, len(cells), cols)]


@st.composite
def small_tiles(draw: st.DrawFn) -> TilesPuzzle:
    rows, cols = draw(st.sampled_from([(2, 2), (2, 3), (3, 2)]))
    faces = [draw(st.sampled_from("abcde")) for _ in range(rows * cols - 1)] + ["_"]
    start, goal = list(faces), list(faces)
    random.Random(draw(st.integers(0, 10**6))).shuffle(start)
    random.Random(draw(st.integers(0, 10**6))).shuffle(goal)
    return TilesPuzzle.from_grids(grid(start, cols), grid(goal, cols))


def answer(cls: type, model: TilesPuzzle, options: EncodingOptions, horizon: int, solver: str = "cadical195"):
    return solve_fixed(cls(model, options), horizon, solver)


@settings(max_examples=25, deadline=None)
@given(small_tiles())
def test_sound_and_complete_around_the_optimum(model: TilesPuzzle) -> None:
    """SAT at the optimum L and at L + 2 (exactly that many moves under `exact`), UNSAT below."""
    bfs = solve(model, "bfs", Request())
    if bfs.status is not Status.OPTIMAL:
        return
    best = bfs.plan.length
    for cls in ENCODINGS:
        for options, horizon in ((PROOF, best), (PROOF, best + 2), (FIND, best), (BY, best), (BY, best + 1)):
            found = answer(cls, model, options, horizon)
            assert found.answer is Answer.SAT, (cls.name, options, horizon)
            assert check_plan(model, found.moves).valid
            if options.goal == "exact":
                assert len(found.moves) == horizon
        if best >= 2:
            assert answer(cls, model, PROOF, best - 2).answer is Answer.UNSAT, cls.name
        if best >= 1:
            assert answer(cls, model, BY, best - 1).answer is Answer.UNSAT, cls.name


def test_reversal_pairs_pad_a_plan_to_the_horizon() -> None:
    model = load(EXAMPLES / "tiles" / "seed-002-small.yaml")
    plan = list(solve(model, "bfs", Request()).plan.moves)
    padded = reversal_padding(plan, len(plan) + 4, ("U",))
    assert padded[:len(plan)] == plan and len(padded) == len(plan) + 4 and check_plan(model, padded).valid
    solved = TilesPuzzle.from_grids([["a", "b"], ["c", "_"]], [["a", "b"], ["c", "_"]])
    assert check_plan(solved, reversal_padding([], 4, ("U", "L"))).valid


@pytest.mark.parametrize("cls", ENCODINGS)
def test_one_solver_across_horizons(cls: type) -> None:
    """Under incremental horizons each lazy bound clause is guarded by its horizon: a state cut
    at T is not cut at T + 2."""
    model = load(EXAMPLES / "tiles" / "seed-002-small.yaml")
    best = solve(model, "bfs", Request()).plan.length
    for options, below in ((PROOF, best - 2), (BY, best - 1)):
        run = IncrementalSat(cls(model, options))
        assert run.solve(below).answer is Answer.UNSAT
        found = run.solve(best)
        assert found.answer is Answer.SAT and check_plan(model, found.moves).valid
        run.close()


def test_engine_sweeps_to_the_optimum_with_the_propagator() -> None:
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")
    result = solve(model, "sat", Request(options={"encoding": "tiles-pdb"}))
    assert result.status is Status.OPTIMAL and result.plan.length == model.expect["optimal"]


def test_a_solver_without_a_propagator_gets_the_formula_alone() -> None:
    model = load(EXAMPLES / "tiles" / "seed-002-small.yaml")
    best = solve(model, "bfs", Request()).plan.length
    assert answer(TilesPatternBound, model, PROOF, best, "glucose4").answer is Answer.SAT
    unsat = answer(TilesPatternBound, model, PROOF, best - 2, "glucose4")
    assert unsat.answer is Answer.UNSAT and unsat.extra["bound"].startswith("none")


def test_the_bound_propagator_cuts_and_an_encoding_can_be_solved_again() -> None:
    """On the 8-puzzle's proof the propagator adds bound clauses (the proof leans on it, not on
    the formula alone), the result names the bound, and one encoding object serves two solves
    (each fresh solver gets a propagator of its own)."""
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")
    encoding = TilesPatternBound(model, PROOF)
    best = model.expect["optimal"]
    proof = solve_fixed(encoding, best - 2)
    assert proof.answer is Answer.UNSAT and encoding.propagator.clauses > 0
    assert proof.extra["bound"].startswith("additive pattern tables")
    again = solve_fixed(encoding, best)
    assert again.answer is Answer.SAT and check_plan(model, again.moves).valid
    off = solve_fixed(TilesPatternBound(model, EncodingOptions(goal="exact", distance_cuts=False)), 3)
    assert off.answer is Answer.UNSAT and off.extra["bound"] == "none (distance cuts off)"


@settings(max_examples=40, deadline=None)
@given(st.permutations(list(range(9))), st.integers(0, 30))
def test_manhattan_witness_alone_exceeds_the_bound(cells: list[int], bound: int) -> None:
    model = load(EXAMPLES / "tiles" / "eight-31.yaml")
    board = bytes(cells)
    md = ManhattanBound(model)
    tiles = md.witness(board, bound)
    if md.value(board) <= bound:
        assert tiles is None
        return
    assert tiles is not None and all(board[c] == f and f != 0 for f, c in tiles)
    cut = bytearray(len(board))    # only the witness tiles kept: their distances alone exceed the bound
    for f, c in tiles:
        cut[c] = f
    assert md.value(bytes(cut)) > bound


def test_pattern_witness_is_a_lower_bound_of_its_tiles() -> None:
    """A witness names tiles whose pattern values alone exceed the bound, and the 15-puzzle
    proof at Korf #12's optimum minus 2 is UNSAT, the plan at the optimum SAT."""
    model = load(EXAMPLES / "tiles" / "korf-012.yaml")
    lower = LowerBound(model)
    board = bytearray(model.start)
    h = lower.value(board)
    tiles = lower.witness(board, h - 1)
    assert tiles is not None and lower.witness(board, h) is None
    assert {f for f, _ in tiles} <= set(range(1, 16)) and all(board[c] == f for f, c in tiles)
    rng = random.Random(12)
    kept = {c for _, c in tiles}
    free = [c for c in range(16) if c not in kept]
    for _ in range(20):       # the other tiles anywhere: the witness's tiles alone still exceed h - 1
        others = [board[c] for c in free]
        rng.shuffle(others)
        completion = bytearray(board)
        for c, f in zip(free, others):
            completion[c] = f
        assert lower.value(completion) > h - 1
    best = model.expect["optimal"]
    assert answer(TilesPatternBound, model, PROOF, best - 2).answer is Answer.UNSAT
    found = answer(TilesPatternBound, model, FIND, best)
    assert found.answer is Answer.SAT and check_plan(model, found.moves).valid


@pytest.mark.parametrize("rows, cols, faces", [(3, 3, "12345678"), (3, 3, "aabbccdd"), (2, 4, "abcabca"),
                                               (4, 2, "1234567")])
def test_small_pattern_tables_keep_the_proof_on_larger_small_boards(rows: int, cols: int, faces: str) -> None:
    """Boards of up to 9 cells use the small numpy pattern tables: SAT at the BFS optimum L,
    UNSAT at L - 2, on random starts (the 2x2-3x2 boards are covered above)."""
    rng = random.Random(rows * 10 + cols + len(set(faces)))
    checked = 0
    while checked < 3:
        start, goal = list(faces) + ["_"], list(faces) + ["_"]
        rng.shuffle(start)
        rng.shuffle(goal)
        model = TilesPuzzle.from_grids(grid(start, cols), grid(goal, cols))
        bfs = solve(model, "bfs", Request())
        if bfs.status is not Status.OPTIMAL:
            continue
        best = bfs.plan.length
        found = answer(TilesPatternBound, model, FIND, best)
        assert found.answer is Answer.SAT and check_plan(model, found.moves).valid
        if best >= 2:
            assert answer(TilesPatternBound, model, PROOF, best - 2).answer is Answer.UNSAT
        checked += 1


def test_a_compare_row_says_its_goal_and_a_bound_its_solver_could_not_take(capsys) -> None:
    from helpers import run_cli, run_json
    small = EXAMPLES / "tiles" / "small-2x3.yaml"
    code, rows = run_json(capsys, "compare", small, "--encodings", "tiles-pdb", "--solvers", "cadical195", "glucose4")
    assert code == 0 and [r["extra"]["goal"] for r in rows] == ["exact", "exact"]
    assert not rows[0]["extra"]["bound"].startswith("none") and rows[1]["extra"]["bound"].startswith("none")
    code, out, _ = run_cli(capsys, "compare", small, "--encodings", "tiles-pdb", "--solvers", "glucose4")
    assert "(bound: none (this solver takes no external propagator" in out
