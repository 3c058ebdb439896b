"""Korf's lines (models/tiles/korf_lines.py): files and piped text of instances one a line,
the layouts around the cells, errors naming the line, and `convert --to korf` reading back."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli
from hypothesis import given, settings, strategies as st

import puzzleplan
from catalogue import EXAMPLES
from puzzleplan.models import level_count
from puzzleplan.models.base import ModelError
from puzzleplan.models.tiles.korf_text import instances

KORF100 = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "korf100.txt"


def test_the_benchmark_file_reads_as_the_examples_state_its_instances() -> None:
    assert level_count(KORF100) == 100
    for number in (12, 55, 79):
        picked = puzzleplan.load(KORF100, level=str(number))
        example = puzzleplan.load(EXAMPLES / "tiles" / f"korf-{number:03d}.yaml")
        assert picked.name == f"korf100 #{number}"
        assert (picked.start_grid, picked.goal_grid) == (example.start_grid, example.goal_grid)
        assert picked.expect["optimal"] == example.expect["optimal"]


def test_each_layout_around_the_cells_is_read(tmp_path: Path) -> None:
    path = tmp_path / "mixed.korf"
    path.write_text("# Korf's table, then bare cells, an 8-puzzle, and a line above its cells\n"
                    "12 14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15 45 546344\n"
                    "\n14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15\n"
                    "; an 8-puzzle\n1 2 0 3 4 5 6 7 8\n"
                    "7 21 1000\n8 7 6 5 4 3 2 1 0\n")
    assert level_count(path) == 4
    first, second, third, fourth = (puzzleplan.load(path, level=str(n)) for n in range(1, 5))
    assert first.name == "mixed #12" and first.expect == {"optimal": 45}
    assert (second.start_grid, second.name, second.expect) == (first.start_grid, "mixed #2", {})
    assert third.start_grid == (("1", "2", "_"), ("3", "4", "5"), ("6", "7", "8"))
    assert fourth.name == "mixed #7" and fourth.expect == {"optimal": 21}
    assert third.goal_grid == (("_", "1", "2"), ("3", "4", "5"), ("6", "7", "8"))
    assert puzzleplan.solve(third).plan.length == 2


def test_a_txt_of_korf_lines_and_piped_lines_are_tiles(tmp_path: Path, capsys, monkeypatch) -> None:
    import io
    path = tmp_path / "one.txt"
    path.write_text("1 2 0 3 4 5 6 7 8\n")
    assert puzzleplan.load(path).family == "tiles"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"1 2 0 3 4 5 6 7 8\n")))
    code, out, _ = run_cli(capsys, "solve", "-")
    assert code == 0 and "optimal: 2 moves" in out and "korf #1" in out


@pytest.mark.parametrize("text, level, message", [
    ("1 2 0 3 4 5 6 7 8\n1 2 3 x\n", "1", r"x\.korf:2: expected Korf's lines: the cells of a square board"),
    ("1 2 0 3 4 5 6 7 8\n1 2 3 4 5 6 7 8 8\n", "1", r"x\.korf:2: expected Korf's lines"),
    ("1 2 0 3 4 5 6 7 8\n7 21 1000\n", "1", r"x\.korf:2: 'ID OPTIMAL NODES' with no cells on the next line"),
    ("7 21 1000\n3 1 2 0 3 4 5 6 7 8\n", "1", r"x\.korf:1: a line 'ID OPTIMAL NODES' stands above cells that carry"),
    ("1 2 0 3 4 5 6 7 8\n1 2 0 3 4 5 6 7 8\n", None, r"x\.korf: holds 2 instances \(one a line\); choose one"),
    ("1 2 0 3 4 5 6 7 8\n", "2", r"x\.korf: level '2': expected a number from 1 to 1$"),
    ("# nothing\n", "1", r"x\.korf:1: no instance found"),
    ("1 0 2 3 4 5 6 7 8 1 3\n", "1", r"x\.korf:1: the line reads both as cells with figures after them and as an "
                                     r"instance's number"),
    ("0 1 1 3 4 5 6 7 8\n", "1", r"9 numbers, and no run of 4, 9, 16, \.\.\. of them holds each of 0 to n-1 once\)$"),
])
def test_a_bad_file_is_one_line_naming_the_line(tmp_path: Path, text: str, level: str | None, message: str) -> None:
    path = tmp_path / "x.korf"
    path.write_text(text)
    with pytest.raises(ModelError, match=message):
        puzzleplan.load(path, level=level)


def test_a_txt_is_korf_with_a_byte_order_mark_and_with_a_bad_line_but_sokoban_with_a_number_title(
        tmp_path: Path) -> None:
    marked = tmp_path / "marked.txt"
    marked.write_bytes(b"\xef\xbb\xbf1 0 2 3 4 5 6 7 8\n")
    assert puzzleplan.load(marked).start_grid[0] == ("1", "_", "2")
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1 1 3 4 5 6 7 8\n")
    with pytest.raises(ModelError, match=r"bad\.txt:1: expected Korf's lines"):
        puzzleplan.load(bad)
    titled = tmp_path / "titled.txt"
    titled.write_text("3 1 2 0\n#####\n#@$.#\n#####\n")
    assert puzzleplan.load(titled).family == "sokoban"


def test_text_read_from_a_named_pipe_keeps_its_name() -> None:
    from puzzleplan.models import loads
    assert loads("1 0 2 3 4 5 6 7 8\n", "some/where/fk.korf").name == "fk #1"
    assert loads("1 0 2 3 4 5 6 7 8\n", "<stdin>").name == "korf #1"


def test_overrides_are_the_cap_alone(tmp_path: Path) -> None:
    path = tmp_path / "x.korf"
    path.write_text("1 2 0 3 4 5 6 7 8\n")
    assert puzzleplan.load(path, {"max_moves": 5}).max_moves == 5
    with pytest.raises(ModelError, match="cannot set start for an instance of Korf's lines"):
        puzzleplan.load(path, {"start": "1 2 3"})


def test_convert_to_korf_reads_back_and_refuses_what_it_cannot_state(tmp_path: Path, capsys) -> None:
    out = tmp_path / "k55.korf"
    code, _, _ = run_cli(capsys, "convert", EXAMPLES / "tiles" / "korf-055.yaml", "--to", "korf", "-o", out)
    example = puzzleplan.load(EXAMPLES / "tiles" / "korf-055.yaml")
    back = puzzleplan.load(out)
    assert code == 0 and (back.start_grid, back.goal_grid) == (example.start_grid, example.goal_grid)
    assert out.read_text().split()[::17] == ["55", "41"]        # the instance's number and optimum kept
    assert back.name == "k55 #55" and back.expect == {"optimal": 41}
    for name, why in (("small-2x3.yaml", "korf lines hold square boards"), ("eight-31.yaml", "korf lines state Korf's goal")):
        code, _, err = run_cli(capsys, "convert", EXAMPLES / "tiles" / name, "--to", "korf")
        assert code == 2 and f"--to korf: {why}" in err and "write yaml" in err


@settings(max_examples=60, deadline=None)
@given(side=st.integers(2, 5), data=st.data(), label=st.booleans(), facts=st.integers(0, 2))
def test_any_square_permutation_reads_back_in_any_layout(side: int, data: st.DataObject, label: bool,
                                                         facts: int) -> None:
    cells = data.draw(st.permutations(range(side * side)))
    numbers = ([99] if label else []) + list(cells) + [31, 1000][:facts]
    found = list(instances(" ".join(map(str, numbers)) + "\n", "<t>"))
    assert len(found) == 1 and found[0].cells == tuple(cells)
    assert found[0].label == (99 if label else None) and found[0].optimal == (31 if facts else None)


@settings(max_examples=80, deadline=None)
@given(side=st.integers(2, 4), data=st.data(), number=st.none() | st.integers(0, 120),
       optimal=st.none() | st.integers(0, 80))
def test_a_written_line_reads_back_its_cells_and_what_it_keeps_of_number_and_optimum(
        side: int, data: st.DataObject, number: int | None, optimal: int | None) -> None:
    from puzzleplan.models.tiles.notation import _korf_goal, korf_line
    cells = data.draw(st.permutations(range(side * side)))
    start = [tuple("_" if c == 0 else str(c) for c in cells[r * side:(r + 1) * side]) for r in range(side)]
    found = list(instances(korf_line(start, _korf_goal(side, side), number, optimal), "<t>"))
    assert len(found) == 1 and found[0].cells == tuple(cells)
    assert found[0].label in (number, None) and found[0].optimal in (optimal, None)   # dropped only when ambiguous
