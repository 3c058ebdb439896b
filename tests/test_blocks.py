"""The sliding-block family: reading and validation, convert round trip, canonical states, the
independent checker against the model and the engines, and the classic Klotski optimum."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzleplan.models import load
from puzzleplan.models.base import ModelError
from puzzleplan.models.blocks.model import Blocks
from puzzleplan.models.document import parse_document
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Limits, Request, Status
from tests.helpers import run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "blocks"
SMALL = sorted(EXAMPLES.glob("*.yaml"))


def model_of(text: str, metric: str | None = None) -> Blocks:
    doc = parse_document(text, "t.yaml")
    if metric:
        doc.override({"metric": metric})
    return Blocks.from_document(doc)


# -- reading -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, line, words", [
    ("puzzle: blocks\nboard: |\n  AB.\n  A..\n  ..\ngoal: {A: [1, 1]}\n", 5, "ragged"),
    ("puzzle: blocks\nboard: |\n  A.A\n  ...\ngoal: {A: [1, 1]}\n", 3, "do not touch"),
    ("puzzle: blocks\nboard: |\n  A.*\n  ...\ngoal: {A: [1, 1]}\n", 3, "unknown character"),
    ("puzzle: blocks\nboard: |\n  AB.\n  A .\ngoal: {A: [1, 1]}\n", 4, "unknown character ' '"),   # not a row break
    ("puzzle: blocks\nboard: |\n  曹曹.\n  ...\ngoal: {A: [1, 1]}\n", 3, "unknown character '曹'; expected an ASCII letter"),
    ("puzzle: blocks\nboard: |\n  AA.\n  ...\ngoal: {A: [2, 3]}\n", 5, "cannot fit"),
    ("puzzle: blocks\nboard: |\n  A#.\n  ...\ngoal: {A: [1, 2]}\n", 5, "cannot fit"),
    ("puzzle: blocks\nboard: |\n  A..\n  ...\ngoal: {Z: [1, 2]}\n", 5, "unknown piece"),
    ("puzzle: blocks\nboard: |\n  A..\n  ...\ngoal: {A: [1, 2]}\ndistinct: [Q]\n", 6, "letters of pieces"),
    ("puzzle: blocks\nboard: |\n  AA.\n  B..\nlayout: |\n  A..\n  A.B\n", 6, "another shape"),
    ("puzzle: blocks\nboard: |\n  AB.\n  ...\nlayout: |\n  A..\n  ...\n", 5, "pieces of board"),
    ("puzzle: blocks\nboard: |\n  A.\n", 1, "exactly one of goal:, layout: and leave:"),
    ("puzzle: blocks\nboard: |\n  AB..\n  ....\ngoal: {A: [2, 2], B: [2, 2]}\n", 5,
     "pieces A and B would overlap at their goal places"),
    ("puzzle: blocks\nboard: |\n  " + "A" + "." * 16 + "\ngoal: {A: [1, 1]}\n", 2, "at most 16x16"),
    ("puzzle: blocks\nboard: |\n  AA.\n  ...\nleave: A\n", 5, "expected an exit"),
    ("puzzle: blocks\nboard: |\n  AA.\n  ...\nexit: {side: top, at: [1]}\nleave: A\n", 6, "cannot pass an opening of 1"),
    ("puzzle: blocks\nboard: |\n  AA.\n  ...\nexit: {side: top, at: [1, 3]}\nleave: A\n", 5, "consecutive numbers from 1 to 3, got [1, 3]"),
    ("puzzle: blocks\nboard: |\n  AA.\n  ...\nexit: {side: up, at: [1]}\nleave: A\n", 5, "side: top|bottom"),
    ("puzzle: blocks\nboard: |\n  AA.\n  ...\nexit: {side: top, at: [1]}\ngoal: {A: [1, 2]}\n", 5, "leave:"),
    ("puzzle: blocks\nboard: |\n  AA.\n  ...\nexit: {side: top, at: [1, 2]}\nleave: Q\n", 6, "a piece on the board"),
    ("puzzle: blocks\nboard: |\n  oo.\n  o..\nlegend: {o: 1x2}\ngoal: {o1: [2, 2]}\n", 4, "cannot be cut"),
    ("puzzle: blocks\nboard: |\n  oo.\n  ...\nlegend: {o: 1x1}\ngoal: {o1: [2, 2]}\n", 6, "legend"),
    ("puzzle: blocks\nboard: |\n  oo.\n  ...\nlegend: {o: 3y}\ngoal: {o1: [2, 2]}\n", 5, "such as 1x2"),
    ("puzzle: blocks\nboard: |\n  oo.\n  ...\nlegend: {o: X.X}\nlayout: |\n  .oo\n  ...\n", 5, "one connected"),
])
def test_bad_files_give_one_line_with_file_and_line(text: str, line: int, words: str) -> None:
    with pytest.raises(ModelError) as err:
        model_of(text)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"t.yaml:{line}:"), message
    assert words in message


@pytest.mark.parametrize("path", SMALL, ids=lambda p: p.stem)
def test_convert_round_trip_is_exact(path: Path, capsys, tmp_path: Path) -> None:
    code, once, _ = run_cli(capsys, "convert", path, "--to", "yaml")
    assert code == 0
    again_path = tmp_path / "again.yaml"
    again_path.write_text(once)
    code, twice, _ = run_cli(capsys, "convert", again_path, "--to", "yaml")
    assert code == 0 and twice == once
    original, back = load(path), load(again_path)
    assert back.initial() == original.initial() and back.goal == original.goal and back.expect == original.expect
    code, grid, _ = run_cli(capsys, "convert", path, "--to", "grid")
    assert grid.split() == list(original.spec.grid)


# -- states and moves --------------------------------------------------------------------------------
def test_swapping_look_alikes_gives_the_same_state() -> None:
    goal = "goal: {A: [3, 3]}\n"
    one = model_of("puzzle: blocks\nboard: |\n  AB.\n  .C.\n  ...\n" + goal)
    two = model_of("puzzle: blocks\nboard: |\n  AC.\n  .B.\n  ...\n" + goal)
    assert one.initial() == two.initial()
    # letters go by rank (reading order of the starting corners): the piece at row 1, column 2
    # is B in the first file and C in the second; moving it gives one state either way
    after_one = next(c for act, c in one.successors(one.initial()) if one.plan_moves([act]) == ["B:R"])
    after_two = next(c for act, c in two.successors(two.initial()) if two.plan_moves([act]) == ["C:R"])
    assert after_one == after_two and one.render(after_one) == "A.B\n.C.\n..."


def test_distinct_pieces_stay_apart() -> None:
    text = "puzzle: blocks\nboard: |\n  AB.\n  .C.\ngoal: {A: [2, 3]}\n"
    lumped, apart = model_of(text), model_of(text + "distinct: [B]\n")
    assert [len(g) for g in lumped.board.classes] == [1, 2]      # A (named in the goal), then B and C
    assert [len(g) for g in apart.board.classes] == [1, 1, 1]


def test_metrics_count_moves_differently() -> None:
    text = "puzzle: blocks\nboard: |\n  A..\n  ...\n  ...\ngoal: {A: [3, 3]}\n"
    counts = {m: len(list(model_of(text, m).successors(model_of(text, m).initial()))) for m in ("step", "slide", "piece")}
    assert counts == {"step": 2, "slide": 4, "piece": 8}


# -- the checker ---------------------------------------------------------------------------------------
THREE = EXAMPLES / "three.yaml"


@pytest.mark.parametrize("metric, plan, error", [
    ("step", "B:RR", "one cell per move"),
    ("slide", "B:RD", "one straight line"),
    ("step", "A:R", "blocked by piece B"),
    ("step", "A:U", "leave the board"),
    ("piece", "A:DR", "cannot reach"),
    ("step", "Q:R", "no piece"),
    ("step", "B-1", "not a move"),
])
def test_checker_rejects_illegal_moves(metric: str, plan: str, error: str) -> None:
    report = check_plan(load(THREE, {"metric": metric}), plan)
    assert not report.valid and error in report.error


@pytest.mark.parametrize("metric", ["step", "slide", "piece"])
@pytest.mark.parametrize("engine", ["bfs", "astar", "task-astar", "cpsat"])
def test_checker_accepts_the_engines_plans(metric: str, engine: str) -> None:
    model = load(THREE, {"metric": metric})
    result = solve(model, engine, Request(limits=Limits(time_limit=30)))
    assert result.status is Status.OPTIMAL
    assert check_plan(model, list(result.plan.moves)).valid
    assert result.plan.cost == model.expect[f"optimal_{metric}"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(SMALL), metric=st.sampled_from(["step", "slide", "piece"]),
       picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=15))
def test_random_walks_replay_in_the_checker(path: Path, metric: str, picks: list[int]) -> None:
    model = load(path, {"metric": metric})
    state, actions = model.initial(), []
    for pick in picks:
        moves = sorted(model.successors(state), key=repr)
        if not moves:
            break
        action, state = moves[pick % len(moves)]
        actions.append(action)
        assert model.h(state) >= 0
    report = check_plan(model, model.plan_moves(actions))
    assert report.valid or report.error.startswith("after all"), report.error
    assert report.goal_reached == model.is_goal(state)


def test_h_is_admissible_on_a_small_space() -> None:
    from puzzleplan.plans.explore import explore
    for metric in ("step", "slide", "piece"):
        model = load(THREE, {"metric": metric})
        result = solve(model, "bfs", Request())
        assert model.h(model.initial()) <= result.plan.cost
        assert explore(model).reachable == model.expect["reachable"]


def test_unsolvable_layouts_are_reported() -> None:
    model = load(EXAMPLES / "stuck.yaml")
    assert solve(model, "bfs", Request()).status is Status.UNSOLVABLE
    walled = model_of("puzzle: blocks\nboard: |\n  A#.\n  .#.\ngoal: {A: [1, 3]}\n")
    assert "walls" in (walled.unsolvable_reason() or "")


# -- exits and legends --------------------------------------------------------------------------------
KLOTSKI_BY_LEGEND = """puzzle: blocks
board: |
  vBBv
  vBBv
  vhhv
  voov
  o..o
legend: {v: 2x1, o: 1x1}
goal: {B: [4, 2]}
"""


def test_a_legend_states_the_same_puzzle_as_letters() -> None:
    from puzzleplan.plans.explore import explore
    lettered = load(EXAMPLES / "klotski.yaml", {"metric": "piece"})
    legend = model_of(KLOTSKI_BY_LEGEND, "piece")
    assert sorted(legend.board.slot_letter) == ["B", "h", "o1", "o2", "o3", "o4", "v1", "v2", "v3", "v4"]
    assert legend.grid() == KLOTSKI_BY_LEGEND.split("|")[1].split("legend")[0].split()
    assert explore(legend).reachable == explore(lettered).reachable
    small = load(EXAMPLES / "pawns.yaml", {"metric": "piece"})
    result = solve(small, "bfs", Request())
    assert any(move.startswith("o") and move[1].isdigit() for move in result.plan.moves)
    assert check_plan(small, list(result.plan.moves)).valid


def test_only_the_leaving_piece_passes_the_exit() -> None:
    text = "puzzle: blocks\nboard: |\n  BA\n  ..\nexit: {side: left, at: [1]}\nleave: A\n"
    model = model_of(text, "step")
    assert sorted(model.plan_moves([a])[0] for a, _ in model.successors(model.initial())) == ["A:D", "B:D"]
    report = check_plan(model, "B:L")
    assert not report.valid and "leave the board" in report.error
    assert check_plan(model, "B:D A:L A:L").goal_reached
    assert not check_plan(model, "B:D A:L").goal_reached              # in the opening is not out
    side = load(EXAMPLES / "side-exit.yaml", {"metric": "step"})
    assert not check_plan(side, "A:L A:L A:L").goal_reached              # half way out is not out
    assert check_plan(side, "A:L D:R B:D A:L A:L A:L").goal_reached


@pytest.mark.parametrize("metric", ["step", "slide", "piece"])
def test_leaving_through_the_exit_agrees_across_engines(metric: str) -> None:
    model = load(EXAMPLES / "side-exit.yaml", {"metric": metric})
    lengths = set()
    for engine in ("bfs", "astar", "task-bfs", "sat", "cpsat"):
        result = solve(model, engine, Request(limits=Limits(time_limit=60)))
        assert result.status is Status.OPTIMAL, (engine, result.message)
        assert check_plan(model, list(result.plan.moves)).goal_reached
        lengths.add(result.plan.cost)
    assert lengths == {model.expect[f"optimal_{metric}"]}


# -- Klotski ---------------------------------------------------------------------------------------------
def test_klotski_takes_81_piece_moves() -> None:
    model = load(EXAMPLES / "klotski.yaml", {"metric": "piece"})
    began = time.perf_counter()
    result = solve(model, "bfs", Request(limits=Limits(time_limit=60)))
    if time.perf_counter() - began > 20:
        pytest.skip("breadth-first search of Klotski took over 20 s on this machine")
    assert result.status is Status.OPTIMAL and result.plan.cost == model.expect["optimal_piece"]
    assert check_plan(model, list(result.plan.moves)).valid


def test_too_many_look_alike_placements_are_refused_before_they_fill_memory(tmp_path: Path, capsys) -> None:
    """Nine 1x1 look-alikes on a 6x6 board have about 94 million placements: the planning task is
    refused at once (one line, exit 2) instead of grounding them; a small class still compiles."""
    from puzzleplan.models.task.compile import compiled
    from puzzleplan.models.task.ir import NotCompilable
    big = tmp_path / "k10.yaml"
    big.write_text("puzzle: blocks\nboard: |\n  ABCDEF\n  GHIJ..\n" + "  ......\n" * 4 + "goal: {A: [6, 6]}\n")
    with pytest.raises(NotCompilable, match="more than 200,000 placements of 9 look-alike pieces"):
        compiled(load(big))
    code, out, err = run_cli(capsys, "compile", big)
    assert code == 2 and err.count("\n") == 1 and "look-alike" in err
    small = tmp_path / "k3.yaml"
    small.write_text("puzzle: blocks\nboard: |\n  ABC.\n  ....\ngoal: {A: [2, 4]}\n")
    assert len(compiled(load(small)).task.actions) > 0
