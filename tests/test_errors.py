"""Bad input: one line naming the file and field/line and what was expected, exit 2, no traceback."""
from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli

GOOD_GOAL = "goal: |\n  1 2\n  3 _\n"


def _write(tmp_path: Path, text: str, name: str = "p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


CASES = {
    "yaml_syntax": ("puzzle: tiles\nstart: [1, 2\n", ["YAML syntax error", ":3:"]),
    "yaml_tab": ("puzzle: tiles\nstart: |\n\t1 2\n", ["YAML syntax error", ":3:", "(a tab: YAML indents with spaces)"]),
    "yaml_brackets_in_a_flow_list": ("puzzle: tiles\nstart: [a[1] == 2, b]\n",
                                     ["YAML syntax error", ":2:", "quote an item holding brackets"]),
    "yaml_brackets_in_a_flow_mapping": ("puzzle: rules\ninit: {x[*]: 0}\n",
                                        ["YAML syntax error", ":2:", "quote an item holding brackets"]),
    "yaml_brackets_ending_a_flow_list": ("puzzle: rules\nrequires: [i != 1, water[i] > 0]\n",
                                         ["YAML syntax error", ":2:", "quote an item holding brackets"]),
    "unknown_key": ("puzzle: tiles\nstart: |\n  1 2\n  3 _\n" + GOOD_GOAL + "colour: red\n",
                    ["field 'colour'", "unknown key", ":8:"]),
    "unknown_puzzle": ("puzzle: chess\n", ["field 'puzzle'", "unknown puzzle 'chess'", "tiles"]),
    "missing_puzzle": ("name: x\n", ["missing required field 'puzzle'"]),
    "ragged": ("puzzle: tiles\nstart: |\n  1 2\n  3 _ 4\n" + GOOD_GOAL, ["field 'start'", "row 2 has 3", ":4:"]),
    "no_blank": ("puzzle: tiles\nstart: |\n  1 2\n  3 4\n" + GOOD_GOAL, ["exactly one blank", "found 0"]),
    "two_blanks": ("puzzle: tiles\nstart: |\n  1 _\n  3 _\n" + GOOD_GOAL, ["exactly one blank", "found 2"]),
    "faces_differ": ("puzzle: tiles\nstart: |\n  1 2\n  2 _\n" + GOOD_GOAL, ["same faces", "'3' 0 in start vs 1"]),
    "negative_cap": ("puzzle: tiles\nstart: |\n  1 2\n  3 _\n" + GOOD_GOAL + "max_moves: -3\n",
                     ["field 'max_moves'", ">= 0", ":8:"]),
    "absurd_cap": ("puzzle: tiles\nstart: |\n  1 2\n  3 _\n" + GOOD_GOAL + "max_moves: 10000000\n",
                   ["field 'max_moves'", "<= 100000"]),
    "text_cap": ("puzzle: tiles\nstart: |\n  1 2\n  3 _\n" + GOOD_GOAL + "max_moves: lots\n",
                 ["field 'max_moves'", "whole number"]),
    "size_mismatch": ("puzzle: tiles\nstart: |\n  1 2 4\n  3 _ 5\n" + GOOD_GOAL, ["field 'goal'", "2x3"]),
    "one_row": ("puzzle: tiles\nstart: |\n  1 _ 2\ngoal: |\n  1 2 _\n", ["2x2", "1x3"]),
    "bad_hex": ("puzzle: tiles\nnotation: hex\nstart: '12 3G'\ngoal: '12 30'\n", ["hex digits", "'3G'"]),
    "bad_korf": ("puzzle: tiles\nnotation: korf\nstart: '1 2 3'\n", ["not a square board"]),
    "bad_notation": ("puzzle: tiles\nnotation: braille\nstart: x\ngoal: x\n", ["field 'notation'", "grid, hex, korf"]),
    "bad_expect": ("puzzle: tiles\nstart: |\n  1 2\n  3 _\n" + GOOD_GOAL + "expect: {fastest: 3}\n",
                   ["field 'expect'", "unknown fact"]),
    "not_mapping": ("- 1\n- 2\n", ["expected a YAML mapping"]),
    "empty": ("", ["empty file"]),
    "two_documents": ("puzzle: tiles\n---\npuzzle: tiles\n", ["one YAML document"]),
    "rush_hour_comment_in_grid": ("puzzle: rush-hour\nboard: |\n  CCCBDE   # a note\n  FGGBDE\n  F.AADE\n",
                                  ["field 'board'", ":3:", "a space at column 7", "comments outside the block"]),
    "rush_hour_space_in_a_row": ("puzzle: rush-hour\nboard: |\n  AA....\n  ..... .\n",
                                 ["field 'board'", ":4:", "a space at column 6"]),   # no row break
    "rush_hour_space_in_typed": ("puzzle: rush-hour\ntyped: |\n  22.\n  . .\ntypes: {'2': h2}\nprimary: '2'\n",
                                 ["field 'typed'", ":4:", "a space at column 2"]),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("command", ["solve", "explore"])
def test_bad_file_is_one_line_exit_2(capsys, tmp_path: Path, name: str, command: str) -> None:
    text, fragments = CASES[name]
    path = _write(tmp_path, text)
    code, out, err = run_cli(capsys, command, path)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0] and "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_unreadable_file(capsys, tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "solve", tmp_path / "missing.yaml")
    assert code == 2 and "missing.yaml: no such file" in err
    code, _, err = run_cli(capsys, "solve", tmp_path)
    assert code == 2 and "is a directory" in err
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00puzzle")
    code, _, err = run_cli(capsys, "solve", binary)
    assert code == 2 and "not UTF-8" in err


@pytest.mark.parametrize("args,fragment", [
    (["--max-moves", "-1"], "--max-moves"),
    (["--max-moves", "many"], "whole number"),
    (["--time-limit", "0"], "above 0 and below 1e9"),
    (["--engine", "magic"], "no engine 'magic'; expected one of bfs"),
    (["--metric", "slide"], "--metric"),
    (["--show", "--json"], "--show prints the boards as text and --json one JSON object"),   # not one ignored
    (["--all-optimal", "--any"], "--any takes the first plan found"),
    (["--all-optimal", "--count-only", "--limit", "3"], "--count-only lists none"),
    (["--all-optimal", "--show"], "--show prints one plan's boards"),
])
def test_bad_options_exit_2(capsys, args: list[str], fragment: str) -> None:
    from catalogue import EXAMPLES
    code, _, err = run_cli_safe(capsys, "solve", EXAMPLES / "tiles" / "seed-002-small.yaml", *args)
    assert code == 2 and fragment in err and "Traceback" not in err


def run_cli_safe(capsys, *args):
    try:
        return run_cli(capsys, *args)
    except SystemExit as exc:  # argparse exits on usage errors
        out, err = capsys.readouterr()
        return exc.code, out, err


def test_unreadable_plan_file(capsys) -> None:
    from catalogue import EXAMPLES
    code, _, err = run_cli(capsys, "check", EXAMPLES / "tiles" / "seed-002-small.yaml", "@/nonexistent/plan")
    assert code == 2 and "cannot read the plan" in err
