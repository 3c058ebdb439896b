"""Rush Hour: notations, conversion round trips, validation, move generator properties, facts."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue import EXAMPLES
from helpers import run_cli, run_json
from puzzleplan.models import ModelError, load, loads
from puzzleplan.models.rush_hour.notation import to_grid_yaml
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.explore import explore
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Request, Status

RH = EXAMPLES / "rush-hour"
SEED0 = RH / "seed-000-hardest.yaml"


@pytest.mark.parametrize("metric,optimum", [("step", 93), ("slide", 49)])
def test_seed_000_facts(capsys, metric: str, optimum: int) -> None:
    for path in (SEED0, RH / "seed-000-typed.yaml"):
        code, data = run_json(capsys, "solve", path, "--metric", metric)
        assert code == 0 and data["status"] == "optimal" and data["length"] == optimum
        assert check_plan(load(path, {"metric": metric}), data["plan"]).valid


def test_seed_000_reachable(capsys) -> None:
    code, data = run_json(capsys, "explore", SEED0)
    assert code == 0 and data["reachable"] == 24132 and data["goal_distance"] == 93


def test_typed_grid_is_the_same_board() -> None:
    typed, grid = load(RH / "seed-000-typed.yaml"), load(SEED0)
    shape = lambda m: sorted((v.length, v.horizontal, *v.cells()[0]) for v in m.vehicles)
    assert shape(typed) == shape(grid)
    assert typed.vehicles[typed.primary].cells() == grid.vehicles[grid.primary].cells()


def test_unsolvable_reports_reachable(capsys) -> None:
    code, data = run_json(capsys, "solve", RH / "unsolvable.yaml")
    assert code == 1 and data["status"] == "unsolvable" and data["stats"]["states"] == 513
    assert "513" in data["message"]


@pytest.mark.parametrize("path", sorted(RH.glob("*.yaml")), ids=lambda p: p.stem)
def test_grid_vehicles_grid_round_trip(capsys, tmp_path: Path, path: Path) -> None:
    code, grid1, _ = run_cli(capsys, "convert", path, "--to", "grid")
    assert code == 0
    vehicles = tmp_path / "v.yaml"
    assert run_cli(capsys, "convert", path, "--to", "vehicles", "-o", vehicles)[0] == 0
    code, grid2, _ = run_cli(capsys, "convert", vehicles, "--to", "grid")
    assert code == 0 and grid2 == grid1
    yaml_file = tmp_path / "g.yaml"
    assert run_cli(capsys, "convert", vehicles, "--to", "yaml", "-o", yaml_file)[0] == 0
    assert load(yaml_file).initial() == load(path).initial() or load(path).vehicles[0].name != "A"
    assert explore(load(yaml_file)).reachable == explore(load(path)).reachable


def test_grid_string_and_rows_agree() -> None:
    one = loads("puzzle: rush-hour\nboard: CCCBDEFGGBDEF.AADEHHI....JI.KK.JLLMM\n")
    rows = load(SEED0)
    assert one.initial() == rows.initial() and one.grid() == rows.grid()


def test_exit_left_and_vertical_primary() -> None:
    left = loads("puzzle: rush-hour\nexit: left\nboard: |\n  ....\n  .AA.\n  ....\n  ....\n")
    assert solve(left, "bfs", Request()).plan.moves == ("A-1",)
    down = loads("puzzle: rush-hour\nboard: |\n  .A..\n  .A..\n  .BB.\n  ....\n")
    result = solve(down, "bfs", Request())
    assert result.status is Status.OPTIMAL and check_plan(down, list(result.plan.moves)).valid


def test_wall_in_the_way_is_unsolvable_at_once() -> None:
    model = loads("puzzle: rush-hour\nboard: |\n  ....\n  AA.x\n  ....\n  ....\n")
    result = solve(model, "bfs", Request())
    assert result.status is Status.UNSOLVABLE and "wall" in result.message


def test_checker_rejects_illegal_moves() -> None:
    model = load(RH / "seed-003-card.yaml")
    report = check_plan(model, ["orange+1", "red+1"])
    assert not report.valid and report.index == 2 and "blocked by vehicle green" in report.error
    assert "no vehicle" in check_plan(model, ["pink+1"]).error
    assert "one cell" in check_plan(model, ["orange+2"]).error
    slide = model.with_metric("slide")
    assert check_plan(slide, ["orange+2"]).error.startswith("after all")


SEED_003 = "((cervene 2 3 2 h)(oranzove 2 1 1 h)(zlte 3 2 1 v)(fialove 2 5 1 v)(zelene 3 2 4 v)\n" \
           "(svetlomodre 3 6 3 h)(sive 2 5 5 h)(tmavomodre 3 1 6 v))"


@pytest.mark.parametrize("vehicles", [
    f"vehicles: |\n  {SEED_003.replace(chr(10), chr(10) + '  ')}\n",                        # the seed's state as written
    "vehicles:\n" + "".join(f"  - ({g})\n" for g in SEED_003.replace("\n", "")[2:-2].split(")(")),   # one a line
    "vehicles:\n" + "".join(f"  - {g.split(' ', 1)[1]}\n" for g in SEED_003.replace("\n", "")[2:-2].split(")(")),
])
def test_seed_003_s_own_notation_reads(vehicles: str) -> None:
    """The assignment's state, its entries in parentheses, and without colours (then A, B, ...)."""
    model = loads("puzzle: rush-hour\n" + vehicles)
    card = load(RH / "seed-003-card.yaml")
    assert model.render(model.initial()) == card.render(card.initial())
    assert solve(model, "bfs").plan.length == 16
    if "cervene" not in vehicles:
        assert [v.name for v in model.vehicles][:3] == ["A", "B", "C"]


def test_seed_003_s_notation_refuses_stray_text() -> None:
    with pytest.raises(Exception, match="seed 003's"):
        loads("puzzle: rush-hour\nvehicles: '((cervene 2 3 2 h) junk (sive 2 5 5 h))'\n")


BIRD_G1 = "[(17, 18), (1, 15), (2, 9), (3, 10), (4, 11), (5, 6), (12, 19), (13, 27), (24, 26), (31, 38), (33, 34), " \
          "(36, 37), (40, 41)]"


def test_bird_s_cell_numbering_reads_as_seed_001_writes_g1() -> None:
    """Seed 001's g1 in its own notation (rows of 7 cell numbers, the primary first) is the board
    examples/rush-hour/bird-g1.yaml holds, converted by hand."""
    g1 = load(RH / "bird-g1.yaml")
    for cells in (f'"{BIRD_G1}"', "[[17, 18], [1, 15], [2, 9], [3, 10], [4, 11], [5, 6], [12, 19], [13, 27], [24, 26], "
                                  "[31, 38], [33, 34], [36, 37], [40, 41]]"):
        model = loads(f"puzzle: rush-hour\ncells: {cells}\n")
        assert model.grid() == g1.grid() and model.vehicles[model.primary].name == "A"
    for bad, words in [("[(17, 18), (1, 16)]", "share neither a row nor a column"),
                       ("[(17, 18), (18, 19)]", "overlaps vehicle A"), ("[(6, 7)]", "both on the board"),
                       ("[(1, 15), (17, 18)]", "must be horizontal"), ("[(17, 18)] junk", "Bird's state"),
                       ("[(17, 18), (6, 8)]", "share neither"), ("[(17, 18), (13, 15)]", "share neither"),  # rows' ends
                       ("[(17, 18), (1, 2)", "Bird's state"), ("[(17, 18), (1, 2),]", "Bird's state")]:
        with pytest.raises(Exception, match=words):
            loads(f'puzzle: rush-hour\ncells: "{bad}"\n')


def test_a_board_full_of_cars_has_a_grid_letter_for_each() -> None:
    """121 cars on 16x16 (more than the Latin letters): drawn, written and read back as a grid."""
    entries = ["A 2 1 1 h"] + [f"V{r}_{c} 2 {r} {c} h" for r in range(2, 17) for c in range(1, 16, 2)]
    model = loads("puzzle: rush-hour\nrows: 16\ncols: 16\nvehicles:\n" + "".join(f"  - {e}\n" for e in entries))
    letters = model.letters()
    assert len(set(letters)) == len(entries) == 121 and letters[0] == "A"
    again = loads(to_grid_yaml(model))
    assert again.grid() == model.grid() and len(again.vehicles) == 121
    assert solve(again, "astar").plan.length == 14


BAD = {
    "overlap": ("vehicles:\n  - A 2 3 1 h\n  - B 3 1 2 v\n", ["overlaps 'A'"]),
    "off_board": ("vehicles:\n  - A 2 3 1 h\n  - B 3 5 2 v\n", ["runs off the 6x6 board"]),
    "bad_entry": ("vehicles:\n  - A 2 3 h\n", ["entry 1", "name size row col h|v"]),
    "unknown_char": ("board: |\n  AA..\n  ..#.\n  ....\n  ....\n", ["unknown character '#'", "row 2"]),
    "bent_vehicle": ("board: |\n  AA..\n  BB..\n  B...\n  ....\n", ["'B'", "not a straight line"]),
    "letter_twice": ("board: |\n  AA..\n  ....\n  BB..\n  AA..\n", ["letter 'A' stands for 2 separate vehicles"]),
    "single_cell": ("board: |\n  AA..\n  ..B.\n  ....\n  ....\n", ["'B'", "not a straight line"]),
    "no_primary": ("board: |\n  BB..\n  ....\n  ....\n  ....\n", ["no primary vehicle 'A'"]),
    "exit_facing": ("exit: down\nboard: |\n  AA..\n  ....\n  ....\n  ....\n", ["field 'exit'", "cannot face"]),
    "two_notations": ("board: AAAA\nvehicles: []\n", ["exactly one of"]),
    "typed_unknown": ("typed: |\n  XX.Q\n  ....\n  ....\n  ....\ntypes: {X: h2}\nprimary: X\n", ["unknown character 'Q'"]),
    "typed_split": ("typed: |\n  XX..\n  222.\n  ....\n  ....\ntypes: {X: h2, '2': h2}\nprimary: X\n",
                    ["run of 3 '2'", "length 2"]),
    "bad_metric": ("metric: teleport\nboard: AA..............\n", ["field 'metric'", "step, slide"]),
    "rows_disagree": ("rows: 5\ncols: 4\nboard: |\n  ....\n  AA..\n  ....\n  ....\n",   # was silently ignored
                      ["field 'rows'", "5, but the board has 4 rows"]),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_rush_hour_input(capsys, tmp_path: Path, name: str) -> None:
    text, fragments = BAD[name]
    path = tmp_path / "rh.yaml"
    path.write_text("puzzle: rush-hour\n" + text)
    code, out, err = run_cli(capsys, "solve", path)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    for fragment in fragments:
        assert fragment in err, (fragment, err)


@pytest.mark.parametrize("text, line", [
    ("board: \"..BCCCD.BE..DAAE.FGHHI.FG..I..JZ.KKx\"\n", 2),    # one line: J's row 6 is still line 2
    ("board: |\n  ..BCCC\n  D.BE..\n  DAAE.F\n  GHHI.F\n  G..I..\n  JZ.KKx\n", 8),   # row 6 of a block
])
def test_a_board_error_names_the_line_the_row_is_on(capsys, tmp_path: Path, text: str, line: int) -> None:
    path = tmp_path / "rh.yaml"
    path.write_text("puzzle: rush-hour\n" + text)
    code, _, err = run_cli(capsys, "solve", path)
    assert code == 2 and f"rh.yaml:{line}: field 'board': vehicle 'J' (first at row 6" in err, err


@st.composite
def boards(draw):
    rows, cols = draw(st.integers(4, 6)), draw(st.integers(4, 6))
    grid = [["."] * cols for _ in range(rows)]
    r0 = draw(st.integers(0, rows - 1))
    grid[r0][0] = grid[r0][1] = "A"
    for name in "BCDEFG":
        length, horizontal = draw(st.integers(2, 3)), draw(st.booleans())
        r, c = draw(st.integers(0, rows - 1)), draw(st.integers(0, cols - 1))
        cells = [(r, c + i) if horizontal else (r + i, c) for i in range(length)]
        if all(0 <= a < rows and 0 <= b < cols and grid[a][b] == "." for a, b in cells):
            for a, b in cells:
                grid[a][b] = name
    metric = draw(st.sampled_from(["step", "slide"]))
    return loads(f"puzzle: rush-hour\nmetric: {metric}\nboard: |\n" + "".join(f"  {''.join(r)}\n" for r in grid))


@settings(max_examples=60, deadline=None)
@given(boards(), st.lists(st.integers(0, 50), max_size=25))
def test_random_walks_are_legal_and_checked(model, picks) -> None:
    state, moves = model.initial(), []
    for pick in picks:
        kids = list(model.successors(state))
        assert len({child for _, child in kids}) == len(kids)
        for action, child in kids:
            occupied = [cell for v, o in zip(model.vehicles, child) for cell in v.cells(o)]
            assert len(occupied) == len(set(occupied))
            assert all(0 <= r < model.rows and 0 <= c < model.cols for r, c in occupied)
            if model.metric == "step":
                assert abs(action[1]) == 1
        if not kids:
            break
        action, state = kids[pick % len(kids)]
        moves += model.plan_moves([action])
    report = check_plan(model, moves)
    assert report.error is None or "goal is not reached" in report.error
    assert report.valid == model.is_goal(state) or not moves


@settings(max_examples=40, deadline=None)
@given(boards())
def test_heuristic_admissible(model) -> None:
    result = solve(model, "bfs", Request())
    if result.plan is not None:
        assert model.h(model.initial()) <= result.plan.length
        astar = solve(model, "astar", Request())
        assert astar.plan.length == result.plan.length


def test_show_gives_a_legend_when_the_boards_draw_other_names_than_the_plan_s(capsys) -> None:
    code, out, _ = run_cli(capsys, "solve", RH / "seed-003-card.yaml", "--show")
    assert code == 0 and "legend:  A red, B orange, C yellow" in out
    code, out, _ = run_cli(capsys, "solve", RH / "walls.yaml", "--show")
    assert code == 0 and "legend:" not in out      # its vehicles are named by their letters


# -- the seeds' plan notations ------------------------------------------------------------------

def test_plans_read_and_write_in_the_seeds_notations(capsys, tmp_path: Path) -> None:
    """Seed 003's operators and Bird's (vehicle, cell) moves: written by --plan-format, read back
    by check; a wrong direction or a cell not next to the vehicle is named."""
    from puzzleplan.plans.planfile import write_plan
    g1 = load(RH / "bird-g1.yaml")
    plan = solve(g1, "bfs").plan
    cells = write_plan(g1, plan, "cells")
    assert cells.startswith("[(") and cells.count("(") == plan.length
    assert check_plan(g1, cells).valid and check_plan(g1, "Just " + cells).valid
    operators = write_plan(g1, plan, "seed-003")
    assert operators.splitlines()[0].split()[0] in ("(VPRAVO", "(VLAVO", "(DOLE", "(HORE")
    assert check_plan(g1, operators).valid
    card = load(RH / "seed-003-card.yaml", {"metric": "slide"})
    slides = solve(card, "bfs").plan
    assert check_plan(card, write_plan(card, slides, "seed-003")).valid   # slides keep their lengths
    with pytest.raises(ValueError, match="a slide plan would read back longer"):
        write_plan(card, slides, "cells")                                  # Bird's moves are single cells
    first = plan.moves[0]
    name = first[:-2]
    vertical = not next(v for v in g1.vehicles if v.name == name).horizontal
    wrong = f"({'VPRAVO' if vertical else 'DOLE'} {name} 1)"
    report = check_plan(g1, wrong)
    assert not report.valid and "moves a" in report.error
    lines = operators.splitlines()
    noted = "; by hand\n" + "\n".join(lines[:2] + ["# halfway"] + lines[2:]) + "\n"
    assert check_plan(g1, noted).valid                       # comment lines are notes here too
    typo = check_plan(g1, "\n".join(lines[:2] + ["(HOR x 1)"] + lines[2:]))
    assert not typo.valid and typo.error.startswith("move 3 of") and "(HOR x 1)" in typo.error   # named in place
    done = loads("puzzle: rush-hour\nboard: |\n  ....AA\n  ......\n")
    assert write_plan(done, [], "cells") == "[]\n" and check_plan(done, "[]").valid and check_plan(done, "Just []").valid
    report = check_plan(g1, "[(0,22)]")       # the primary (cells 17-18) moves onto 19, not 22
    assert not report.valid and "cell 22 is not next to either end of vehicle 0" in report.error
    assert run_cli(capsys, "solve", RH / "bird-g1.yaml", "--plan-file", tmp_path / "p.txt",
                   "--plan-format", "cells")[0] == 0
    assert run_cli(capsys, "check", RH / "bird-g1.yaml", f"@{tmp_path / 'p.txt'}")[:2] == (0, f"valid: {plan.length} moves reach the goal\n")
    code, _, err = run_cli(capsys, "solve", RH.parent / "tiles" / "small-2x3.yaml", "--plan-file", tmp_path / "q.txt",
                           "--plan-format", "cells")
    assert code == 2 and "Rush Hour seed's notation" in err


@pytest.mark.parametrize("path", sorted(RH.glob("*.yaml")), ids=lambda p: p.stem)
def test_convert_writes_the_seeds_states_and_they_read_back(path: Path) -> None:
    """--to seed-003 (one line, the primary first) and --to cells (Bird's list) read back through
    `vehicles:` and `cells:` as the same board; both hold 6x6 boards without walls, exit right."""
    def board(m) -> tuple:   # the cars' cells and the primary's, whatever their names
        return (sorted(tuple(v.cells()) for v in m.vehicles), m.vehicles[m.primary].cells(), sorted(m.walls))
    model = load(path)
    bird = model.vehicles[model.primary]
    if (model.rows, model.cols) == (6, 6) and not model.walls and model.exit == "right" and bird.horizontal:
        line = model.notation("seed-003").strip()
        assert board(loads(f'puzzle: rush-hour\nvehicles: "{line}"\n')) == board(model)
        cells = model.notation("cells").strip()
        assert board(loads(f'puzzle: rush-hour\ncells: "{cells}"\n')) == board(model)
    else:
        for kind, words in (("seed-003", "seed 003's state"), ("cells", r"Bird's cells \(seed 001\)")):
            with pytest.raises(ModelError, match=f"{words} holds a 6x6 board"):
                model.notation(kind)
