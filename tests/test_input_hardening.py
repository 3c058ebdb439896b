"""Hostile and malformed input: one line, exit 2, bounded time and memory, never a traceback (issue F).

Each class of input is tested through the CLI (`puzzleplan.plans.cli.main`): exit code 2, exactly
one stderr line naming the file, no 'Traceback', and a bound on the line's length. Property tests
(hypothesis) mutate the example files and build random YAML: `puzzleplan.models.load` raises
nothing but ModelError.
"""
from __future__ import annotations

import random
import tempfile
import textwrap
import time
import tracemalloc
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzleplan.models import ModelError, load, loads
from puzzleplan.models.base import MESSAGE_LIMIT, quote
from puzzleplan.models.document import MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES
from puzzleplan.models.user.model import UserHookError
from puzzleplan.plans.cli import main
from puzzleplan.plans.core.types import Limits, Request, Status
from puzzleplan.plans.solve import solve

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
MAX_LINE = 400          # every error line of these tests is at most this long

TILES = "puzzle: tiles\nstart: |\n  1 2\n  3 _\ngoal: |\n  1 2\n  _ 3\n"


def _write(tmp_path: Path, text: str, name: str = "p.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def one_line_error(capsys, path: Path, *args: str, command: str = "solve", limit: int = MAX_LINE) -> str:
    """Run the CLI on `path`; assert exit 2 and one bounded stderr line naming the file; return it."""
    code = main([command, str(path), *args])
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err[:500])
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:2000]
    assert path.name in lines[0], lines[0]
    assert len(lines[0]) <= limit, len(lines[0])
    return lines[0]


def file_error(capsys, tmp_path: Path, text: str, *args: str, name: str = "p.yaml", limit: int = MAX_LINE) -> str:
    return one_line_error(capsys, _write(tmp_path, text, name), *args, limit=limit)


# -- 1. duplicate keys and YAML 1.1 surprises -------------------------------------------------------
@pytest.mark.parametrize("text,line,key", [
    ("puzzle: tiles\npuzzle: rush-hour\n", 2, "puzzle"),
    (TILES + "max_moves: 3\nmax_moves: 4\n", 9, "max_moves"),
    (TILES + "expect:\n  optimal: 1\n  optimal: 2\n", 10, "optimal"),
    (TILES + "expect: {optimal: 1, optimal: 2}\n", 8, "optimal"),
    (TILES + "1: a\n'1': b\n", 9, "1"),
    ("puzzle: rush-hour\ntypes: {X: h2, X: v2}\ntyped: 'XX..'\nprimary: X\n", 2, "X"),
])
def test_duplicate_keys_are_refused(capsys, tmp_path: Path, text: str, line: int, key: str) -> None:
    message = file_error(capsys, tmp_path, text)
    assert f"p.yaml:{line}:" in message and f"duplicate key '{key}'" in message


@pytest.mark.parametrize("written", ["0x10", "0o17", "017", "1_000", "1:30", "yes", "on", "16.0", "1e3", "[16]",
                                     "'16'", "true"])
def test_whole_numbers_must_be_written_in_decimal(capsys, tmp_path: Path, written: str) -> None:
    message = file_error(capsys, tmp_path, TILES + f"max_moves: {written}\n")
    assert "field 'max_moves'" in message and "whole number" in message and "p.yaml:8:" in message


def test_decimal_whole_numbers_still_read(tmp_path: Path) -> None:
    assert load(_write(tmp_path, TILES + "max_moves: 16\n")).max_moves == 16
    assert load(_write(tmp_path, TILES + "max_moves: +16\n")).max_moves == 16


@pytest.mark.parametrize("written,expected", [("0x10", "0x10"), ("1.50", "1.50"), ("017", "017"), ("12", "12"),
                                              ("yes", "yes"), ("true", "true"), ("'quoted'", "quoted")])
def test_text_fields_take_plain_scalars_as_written(tmp_path: Path, written: str, expected: str) -> None:
    assert load(_write(tmp_path, TILES + f"name: {written}\n")).name == expected


@pytest.mark.parametrize("text,field", [
    (TILES + "name: [a, b]\n", "name"),
    (TILES + "name: {a: b}\n", "name"),
    (TILES + "name:\n", "name"),
    (TILES + "description: [long, text]\n", "description"),
    (TILES + "metric: [step]\n", "metric"),
    (TILES + "notation: [grid]\n", "notation"),
    ("puzzle: sokoban\nlevel: ['#####', '#@$.#', '#####']\n", "level"),
    ("puzzle: rush-hour\nboard: [AA...., ......]\n", "board"),
    ("puzzle: rush-hour\nvehicles: [A 2 1 1 h]\nwalls: '4 4'\n", "walls"),
    ("puzzle: rush-hour\nvehicles: [A 2 1 1 h]\nwalls: 5\n", "walls"),
    ("puzzle: rush-hour\nvehicles: 'A 2 1 1 h'\n", "vehicles"),
    (TILES + "expect: [optimal]\n", "expect"),
    (TILES + "expect: {solvable: yes}\n", "expect"),
    (TILES + "expect: {optimal: lots}\n", "expect"),
    (TILES + "expect: {valid_plans: UD}\n", "expect"),
    ("puzzle: [tiles]\n", "puzzle"),
])
def test_values_of_the_wrong_kind_are_refused(capsys, tmp_path: Path, text: str, field: str) -> None:
    message = file_error(capsys, tmp_path, text)
    assert f"field '{field}'" in message


# -- 2. aliases, anchors, tags; messages never echo whole values ------------------------------------
BILLION_LAUGHS = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
    "puzzle: *i\n"
)


@pytest.mark.parametrize("text", [
    BILLION_LAUGHS,
    "puzzle: tiles\nname: *a\n",                    # an alias to no anchor
    "puzzle: &p tiles\nname: x\n",                  # an anchor on a scalar
    TILES + "expect: &e {optimal: 1}\n",
    "base: &b {x: 1}\npuzzle: tiles\n<<: *b\n",     # a merge key
])
def test_anchors_and_aliases_are_refused_in_bounded_time_and_memory(capsys, tmp_path: Path, text: str) -> None:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        message = file_error(capsys, tmp_path, text, limit=200)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.perf_counter() - started < 5
    assert peak < 50_000_000
    assert "anchor" in message or "alias" in message


def test_alias_bomb_message_is_short(tmp_path: Path) -> None:
    path = _write(tmp_path, BILLION_LAUGHS)
    with pytest.raises(ModelError) as info:
        load(path)
    assert len(str(info.value)) < 200 and "lol" not in str(info.value)


@pytest.mark.parametrize("tag", ["!!python/object/apply:os.system ['true']", "!!binary aGVsbG8=", "!!set {a, b}",
                                 "!!int '0x10'", "!custom x"])
def test_explicit_tags_are_refused(capsys, tmp_path: Path, tag: str) -> None:
    assert "tag" in file_error(capsys, tmp_path, TILES + f"name: {tag}\n")


def test_str_tag_is_allowed(tmp_path: Path) -> None:
    assert load(_write(tmp_path, TILES + "name: !!str 16\n")).name == "16"


LONG = "x" * 200_000


@pytest.mark.parametrize("text", [
    f"puzzle: {LONG}\n",
    f"puzzle: tiles\n{LONG[:1000]}: 1\n",
    f"puzzle: tiles\nname: [{LONG}]\n",
    TILES + f"max_moves: {LONG}\n",
    TILES + f"metric: {LONG}\n",
    TILES + f"expect: {{{LONG[:900]}: 1}}\n",
    f"puzzle: tiles\nstart: |\n  {LONG} 2\n  3 _\ngoal: |\n  1 2\n  3 _\n",
    f"puzzle: tiles\nnotation: hex\nstart: '12 3{LONG}'\ngoal: '12 30'\n",
    f"puzzle: tiles\nstart: [[{LONG}, 2], [3, 4.5]]\ngoal: |\n  1 2\n  3 _\n",
    f"puzzle: rush-hour\nvehicles:\n  - {LONG} 2 1 1 h\n  - {LONG} 2 1 1 h\n",
    f"puzzle: rush-hour\nvehicles:\n  - {LONG} 2 1 1 z\n",
    f"puzzle: rush-hour\nboard: |\n  AA..{LONG}\n",
    f"puzzle: rush-hour\nboard: |\n  AA....\n  ......\nprimary: {LONG}\n",
    f"puzzle: sokoban\nlevel: |\n  #####\n  #@$.#\n  #####\nplayer_goal: [{LONG}]\n",
    f"puzzle: sokoban\nlevel: |\n  {LONG}\n",
    f"puzzle: python:./{LONG[:3000]}.py:C\n",
    "puzzle: tiles\nname: '" + "\\n" * 5000 + "'\nstart: 7\n",
])
def test_messages_quote_at_most_a_few_dozen_characters(capsys, tmp_path: Path, text: str) -> None:
    message = file_error(capsys, tmp_path, text)
    assert "x" * 81 not in message   # values are quoted to 40 characters, file paths and specs to 60-80


def test_quote_helper_bounds_and_one_line() -> None:
    assert quote("abc") == "'abc'"
    assert len(quote("x" * 10**6)) == 40 and quote("x" * 10**6).endswith("...")
    assert "\n" not in quote("a\nb") and "\n" not in quote(["a\nb"] * 3)
    nested: list = []
    for _ in range(100):
        nested = [nested, "y" * 1000]
    assert len(quote(nested)) <= 40
    assert len(quote({i: "z" * 1000 for i in range(1000)}, 60)) <= 60


def test_model_error_is_one_bounded_line() -> None:
    error = ModelError("a\nb\r\nc " + "d" * 10**6)
    assert "\n" not in str(error) and len(str(error)) <= MESSAGE_LIMIT


# -- 3. deep nesting and oversized documents --------------------------------------------------------
@pytest.mark.parametrize("text", [
    "puzzle: " + "[" * 1000 + "]" * 1000 + "\n",
    "puzzle: " + "{a: " * 1000 + "1" + "}" * 1000 + "\n",
    "puzzle: tiles\nx:\n" + "".join("  " * i + "- \n" for i in range(1, 200)),
    "puzzle: tiles\nx:\n" + "".join("  " * i + "a:\n" for i in range(1, 200)),
])
def test_deep_nesting_is_refused_in_one_line(capsys, tmp_path: Path, text: str) -> None:
    started = time.perf_counter()
    message = file_error(capsys, tmp_path, text)
    assert time.perf_counter() - started < 5
    assert f"nested more than {MAX_DEPTH} deep" in message


def test_nesting_within_the_cap_reads() -> None:
    doc = "puzzle: tiles\nx: " + "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2) + "\n"
    with pytest.raises(ModelError, match="unknown key"):
        loads(doc)


@pytest.mark.parametrize("keys", [200_000, 60_000])
def test_many_keys_are_refused_quickly(capsys, tmp_path: Path, keys: int) -> None:
    text = "puzzle: tiles\n" + "".join(f"k{i}: {i}\n" for i in range(keys))
    started = time.perf_counter()
    message = file_error(capsys, tmp_path, text)
    assert time.perf_counter() - started < 5
    assert "larger than 1,000,000 bytes" in message or "values" in message or "unknown key" in message


def test_too_many_values_within_the_size_cap(capsys, tmp_path: Path) -> None:
    text = "puzzle: tiles\nx: [" + ",".join("1" for _ in range(MAX_NODES + 10)) + "]\n"
    assert len(text) < MAX_FILE_BYTES
    started = time.perf_counter()
    message = file_error(capsys, tmp_path, text)
    assert time.perf_counter() - started < 5 and f"more than {MAX_NODES:,} values" in message


def test_oversized_file_is_refused_before_parsing(capsys, tmp_path: Path) -> None:
    path = _write(tmp_path, TILES + "description: '" + "y" * MAX_FILE_BYTES + "'\n")
    started = time.perf_counter()
    message = one_line_error(capsys, path)
    assert time.perf_counter() - started < 2 and "larger than" in message


def test_oversized_text_is_refused_by_loads() -> None:
    with pytest.raises(ModelError, match="at most"):
        loads("puzzle: tiles\n#" + " " * MAX_FILE_BYTES)


# -- 4. tracebacks found by fuzzing ------------------------------------------------------------------
@pytest.mark.parametrize("text", ["", "~\n", "null\n", "---\n", "--- ~\n", "# only a comment\n", "\n\n"])
def test_null_or_empty_documents(capsys, tmp_path: Path, text: str) -> None:
    message = file_error(capsys, tmp_path, text)
    assert "mapping" in message


def _lines_variants(path: Path) -> list[str]:
    """The file with each line deleted, and with each pair of neighbouring lines swapped."""
    lines = path.read_text().split("\n")
    out = ["\n".join(lines[:i] + lines[i + 1:]) for i in range(len(lines))]
    for i in range(len(lines) - 1):
        swapped = list(lines)
        swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
        out.append("\n".join(swapped))
    return out


@pytest.mark.parametrize("example", ["rush-hour/walls.yaml", "tiles/small-2x3.yaml", "sokoban/pocket.yaml",
                                     "rush-hour/seed-003-card.yaml", "rush-hour/seed-000-typed.yaml",
                                     "tiles/korf-012.yaml", "tiles/words-3x4.yaml"])
def test_deleted_and_swapped_lines_never_raise_anything_but_model_error(example: str) -> None:
    path = EXAMPLES / example
    for text in _lines_variants(path):
        try:
            loads(text, str(path))
        except ModelError as exc:
            assert "\n" not in str(exc) and len(str(exc)) <= MAX_LINE


@pytest.mark.parametrize("text,field", [
    ("puzzle: tiles\nstart: |\n\ngoal: |\n  1 2\n  3 _\n", "start"),
    ("puzzle: tiles\nstart: ''\ngoal: |\n  1 2\n  3 _\n", "start"),
    ("puzzle: tiles\nstart: []\ngoal: |\n  1 2\n  3 _\n", "start"),
    ("puzzle: tiles\nstart: |\n  1 2\n  3 _\ngoal:\n", "goal"),
    ("puzzle: tiles\nnotation: hex\nstart: ' '\ngoal: '12 30'\n", "start"),
    ("puzzle: tiles\nnotation: korf\nstart: ''\n", "start"),
    ("puzzle: tiles\nnotation: korf\nstart: '1 2 3 ²'\n", "start"),
    ("puzzle: rush-hour\nboard: |\n\n", "board"),
    ("puzzle: rush-hour\nboard: ''\n", "board"),
    ("puzzle: rush-hour\nboard:\n", "board"),
    ("puzzle: rush-hour\ntyped: ''\ntypes: {X: h2}\nprimary: X\n", "typed"),
    ("puzzle: rush-hour\nvehicles: []\n", "vehicles"),
    ("puzzle: sokoban\nlevel: |\n\n", "level"),
    ("puzzle: sokoban\nlevel:\n", "level"),
])
def test_empty_values(capsys, tmp_path: Path, text: str, field: str) -> None:
    assert f"field '{field}'" in file_error(capsys, tmp_path, text)


@pytest.mark.parametrize("entry", ["A 100000000000000000000 3 1 h", "A 999999999 3 1 h", "A 2 3 999999999 h",
                                   "A 2 0 1 h", "A 2 3 6 h", "A 7 1 1 v", "A ٣ 3 1 h", "A ² 3 1 h"])
def test_vehicle_bounds_are_checked_before_its_cells(capsys, tmp_path: Path, entry: str) -> None:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        message = file_error(capsys, tmp_path, f"puzzle: rush-hour\nvehicles:\n  - {entry}\n  - B 2 1 1 v\n")
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.perf_counter() - started < 2 and peak < 20_000_000
    assert "field 'vehicles'" in message and "p.yaml:3:" in message


@pytest.mark.parametrize("spec", ["h99999999999", "{orientation: h, length: 100000000000000000000}",
                                  "{orientation: h, length: true}", "{orientation: h, length: 1}"])
def test_typed_vehicle_lengths_are_bounded(capsys, tmp_path: Path, spec: str) -> None:
    text = f"puzzle: rush-hour\ntyped: |\n  ..XX..\n  ......\ntypes: {{X: {spec}}}\nprimary: X\n"
    assert "field 'types'" in file_error(capsys, tmp_path, text)


def test_collection_level_choice_is_bounded(capsys, tmp_path: Path) -> None:
    path = _write(tmp_path, "; one\n#####\n#@$.#\n#####\n\n; two\n#####\n#.$@#\n#####\n", "c.xsb")
    assert "expected a number from 1 to 2" in one_line_error(capsys, path, "--level", "9" * 5000)
    assert "no level titled" in one_line_error(capsys, path, "--level", "z" * 5000)


# -- 5. Sokoban: boxes on goals sealed out of the player's reach -------------------------------------
SEALED = "puzzle: sokoban\nlevel: |\n  #######\n  #*#   #\n  ###   #\n  #@$ . #\n  #######\n"
STRAY_BOX = "puzzle: sokoban\nlevel: |\n  #######\n  #$#   #\n  ###   #\n  #@$ ..#\n  #######\n"
STRAY_GOAL = "puzzle: sokoban\nlevel: |\n  #######\n  #.#   #\n  ###   #\n  #@$$. #\n  #######\n"


def test_dungeon_loads_with_its_sealed_boxes() -> None:
    model = load(EXAMPLES / "sokoban" / "dungeon.yaml")
    assert len(model.level.sealed) == 10 and not model.level.stray
    assert len(model.level.boxes) == len(model.level.goals) == 1
    assert model.unsolvable_reason() is None
    assert model.render(model.start_state()).count("*") == 10  # kept in the picture and in `lines`
    assert sum(row.count("*") for row in model.lines) == 10


@pytest.mark.parametrize("metric", ["moves", "pushes"])
def test_level_with_a_sealed_pocket_is_solved_and_checked(capsys, tmp_path: Path, metric: str) -> None:
    path = _write(tmp_path, SEALED)
    code = main(["solve", str(path), "--metric", metric])
    out, err = capsys.readouterr()
    assert code == 0 and err == "" and "optimal" in out and "RR" in out
    assert main(["check", str(path), "RR"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("text,what", [(STRAY_BOX, "the box at row 2, column 2"),
                                       (STRAY_GOAL, "the goal at row 2, column 2")])
@pytest.mark.parametrize("metric", ["moves", "pushes"])
def test_unreachable_box_or_goal_is_unsolvable(capsys, tmp_path: Path, text: str, what: str, metric: str) -> None:
    path = _write(tmp_path, text)
    code = main(["solve", str(path), "--metric", metric])
    out, err = capsys.readouterr()
    assert code == 1 and err == "" and "unsolvable" in out and what in out
    model = load(path)
    assert what in model.unsolvable_reason()
    assert not model.is_goal(model.initial())


def test_every_box_sealed_is_refused(capsys, tmp_path: Path) -> None:
    text = "puzzle: sokoban\nlevel: |\n  #######\n  #*#   #\n  ###   #\n  #@    #\n  #######\n"
    assert "at least one box" in file_error(capsys, tmp_path, text)


# -- 6. user classes: bad attributes at load, failing hooks during the search ------------------------
USER_CLASS = '''
import time

class Counter:
    """Count from 0 to 5 by +1 moves; `mode` breaks one hook."""
    def __init__(self, mode="ok"):
        self.mode = mode
    def initial(self):
        if self.mode == "initial":
            raise RuntimeError("no start " + "x" * 100000)
        return 0
    def is_goal(self, state):
        if self.mode == "is_goal" and state == 2:
            raise KeyError(state)
        if self.mode == "goal_text":
            return "no"
        if self.mode == "goal_numpy":   # numpy's bool, as a comparison of numpy numbers gives
            import numpy
            return numpy.int64(state) == 5
        return state == 5
    def successors(self, state):
        if self.mode == "successors" and state == 3:
            return 1 / 0
        if self.mode == "exits" and state == 3:
            raise SystemExit(0)
        if self.mode == "slow":     # an endless space, slowly: enumerating it never ends
            time.sleep(0.001)
            return [("+1", state + 1), ("+2", state + 2)]
        if self.mode == "unpicklable":
            n = state if isinstance(state, int) else state[0]
            return [("+1", (n + 1, lambda: n))]
        if self.mode == "pairs":
            return [state + 1]
        if self.mode == "unhashable":
            return [("+1", [state + 1])]
        if self.mode == "none":
            return None
        return [("+1", state + 1)]
    def h(self, state):
        if self.mode == "h":
            raise ValueError("bad h")
        if self.mode == "h_text":
            return "far"
        return 0
    def render(self, state):
        if self.mode == "render":
            raise ValueError("cannot draw")
        return str(state)
    def unsolvable_reason(self):
        if self.mode == "unsolvable_reason":
            raise TypeError("oops")
        if self.mode == "reason_list":
            return ["not", "text"]
        return None

class BadEngine(Counter):
    default_engine = "magic"

class EngineNotText(Counter):
    default_engine = 7

class MetricsNumber(Counter):
    metrics = 5

class MetricsText(Counter):
    metrics = "step"

class MetricsEmpty(Counter):
    metrics = ()

class MetricsTwice(Counter):
    metrics = ("step", "step")
'''


def _user(tmp_path: Path, cls: str = "Counter", mode: str | None = None) -> Path:
    (tmp_path / "counter.py").write_text(textwrap.dedent(USER_CLASS))
    text = f"puzzle: python:./counter.py:{cls}\n" + (f"mode: {mode}\n" if mode else "")
    return _write(tmp_path, text, f"{cls.lower()}-{mode or 'ok'}.yaml")


def test_user_class_that_works(capsys, tmp_path: Path) -> None:
    assert main(["solve", str(_user(tmp_path))]) == 0
    assert main(["solve", str(_user(tmp_path, mode="goal_numpy"))]) == 0   # is_goal giving numpy's bool
    capsys.readouterr()


@pytest.mark.parametrize("cls,fragment", [
    ("BadEngine", "BadEngine.default_engine"), ("EngineNotText", "EngineNotText.default_engine"),
    ("MetricsNumber", "MetricsNumber.metrics"), ("MetricsText", "MetricsText.metrics"),
    ("MetricsEmpty", "MetricsEmpty.metrics"), ("MetricsTwice", "MetricsTwice.metrics"),
])
def test_bad_class_attributes_are_refused_at_load(capsys, tmp_path: Path, cls: str, fragment: str) -> None:
    message = one_line_error(capsys, _user(tmp_path, cls))
    assert fragment in message and "field 'puzzle'" in message


@pytest.mark.parametrize("mode,engine,fragment", [
    ("initial", "bfs", "Counter.initial() raised RuntimeError"),
    ("is_goal", "bfs", "Counter.is_goal() raised KeyError"),
    ("goal_text", "bfs", "Counter.is_goal() returned 'no'; expected True or False"),
    ("successors", "bfs", "Counter.successors() raised ZeroDivisionError"),
    ("successors", "astar", "Counter.successors() raised ZeroDivisionError"),
    ("successors", "dfs", "Counter.successors() raised ZeroDivisionError"),
    ("successors", "idastar", "Counter.successors() raised ZeroDivisionError"),
    ("successors", "greedy", "Counter.successors() raised ZeroDivisionError"),
    ("exits", "bfs", "Counter.successors() raised SystemExit: 0"),    # not exit 0 with no output
    ("exits", "astar", "Counter.successors() raised SystemExit: 0"),
    ("pairs", "bfs", "Counter.successors() yielded 1"),
    ("unhashable", "bfs", "Counter.successors() yielded an unhashable"),
    ("none", "bfs", "Counter.successors() raised TypeError"),
    ("h", "astar", "Counter.h() raised ValueError: bad h"),
    ("h_text", "astar", "Counter.h() returned 'far'"),
    ("unsolvable_reason", "bfs", "Counter.unsolvable_reason() raised TypeError"),
    ("reason_list", "bfs", "Counter.unsolvable_reason() returned"),
])
def test_failing_hooks_are_one_line_naming_class_and_hook(capsys, tmp_path: Path, mode: str, engine: str,
                                                          fragment: str) -> None:
    message = one_line_error(capsys, _user(tmp_path, mode=mode), "--engine", engine)
    assert fragment in message


def test_failing_hooks_in_explore_and_show(capsys, tmp_path: Path) -> None:
    assert "Counter.successors() raised" in one_line_error(capsys, _user(tmp_path, mode="successors"),
                                                           command="explore")
    path = _user(tmp_path, mode="render")
    code = main(["solve", str(path), "--show"])
    _, err = capsys.readouterr()
    assert code == 2 and "Counter.render() raised ValueError" in err and "Traceback" not in err


@pytest.mark.parametrize("args", [
    ["solve", "--engine", "sat"], ["solve", "--engine", "task-bfs"], ["solve", "--engine", "sat", "--encoding", "sas-seq"],
    ["compare", "--horizon", "3"], ["export", "--to", "pddl", "-o", "OUT"], ["verify"],
])
def test_compiling_a_task_stops_at_the_time_limit(capsys, tmp_path: Path, args: list[str]) -> None:
    """A user class is compiled by enumerating its states; one whose space has no end stopped
    only at the enumeration's state cap, long past --time-limit (114 s for a limit of 3 s)."""
    path = _user(tmp_path, mode="slow")
    out_dir = tmp_path / "out"
    argv = [args[0], str(path), *[str(out_dir) if a == "OUT" else a for a in args[1:]], "--time-limit", "0.5"]
    argv += [] if args[0] == "export" else ["--json"]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 3, (code, out, err)
    assert "time limit of 0.5 s reached" in out + err and ("compiling the planning task" in out + err
                                                          or "nothing was written" in err)
    assert not out_dir.exists()


def test_compiling_a_task_stops_at_the_time_limit_in_the_api(tmp_path: Path) -> None:
    result = solve(load(_user(tmp_path, mode="slow")), "task-bfs", Request(limits=Limits(time_limit=0.5)))
    assert result.status is Status.LIMIT_REACHED and "while compiling the planning task" in result.message


def test_states_that_do_not_pickle_are_one_line_under_workers(capsys, tmp_path: Path) -> None:
    """Worker processes pass states pickled: a state holding a lambda is the puzzle's fault (exit
    2, one line saying to run with one worker), not an internal error with a worker's traceback."""
    message = one_line_error(capsys, _user(tmp_path, mode="unpicklable"), "--workers", "2", command="explore")
    assert "does not pickle" in message and "run with one worker" in message


def test_hook_error_is_a_model_error_and_pickles(tmp_path: Path) -> None:
    import pickle
    model = load(_user(tmp_path, mode="successors"))
    with pytest.raises(UserHookError) as info:
        model.successors(3)
    assert isinstance(info.value, ModelError)
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is UserHookError and str(again) == str(info.value)


# -- 7. properties ------------------------------------------------------------------------------------
MUTABLE = sorted(p for p in EXAMPLES.glob("*/*.yaml") if p.parent.name != "user")  # user files import code
_ALPHABET = list("#@$.*+ _-\n:|[]{},'\"&!~%?>0123456789abcxhvABoX\t") + ["  ", "\n  ", "0x10", "yes", "- ", ": "]


@st.composite
def mutants(draw: st.DrawFn) -> tuple[Path, str]:
    path = draw(st.sampled_from(MUTABLE))
    lines = path.read_text().split("\n")
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        kind = draw(st.integers(0, 5))
        line = lines[i] if lines else ""
        at = draw(st.integers(0, len(line)))
        if kind == 0 and len(lines) > 1:
            del lines[i]
        elif kind == 1 and lines:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 2:
            lines.insert(i, draw(st.sampled_from(lines or [""])))
        elif kind == 3:
            lines[i] = line[:at] + draw(st.sampled_from(_ALPHABET)) + line[at + 1:]
        elif kind == 4:
            lines[i] = line[:at] + draw(st.sampled_from(_ALPHABET)) + line[at:]
        elif lines:
            lines[i] = line[:at]
    return path, "\n".join(lines)


def _only_model_errors(path: Path, text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / path.name
        target.write_text(text, encoding="utf-8")
        try:
            model = load(target)
        except ModelError as exc:
            message = str(exc)
            assert "\n" not in message and len(message) <= MESSAGE_LIMIT
            return
    # a mutant that still loads must still play by the rules
    start = model.initial()
    model.is_goal(start)
    model.unsolvable_reason()
    model.render(start)
    for _, child in model.successors(start):
        hash(child)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_mutated_examples_raise_only_model_error(mutant: tuple[Path, str]) -> None:
    _only_model_errors(*mutant)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_ALPHABET + ["puzzle: tiles\n", "puzzle: sokoban\n", "puzzle: rush-hour\n",
                                             "level: |\n", "board: |\n", "start: |\n", "goal: |\n"]),
                max_size=60).map("".join))
def test_random_text_raises_only_model_error(text: str) -> None:
    try:
        loads(text, "r.yaml")
    except ModelError as exc:
        assert "\n" not in str(exc) and len(str(exc)) <= MESSAGE_LIMIT


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=False),
                     st.text(max_size=30), st.sampled_from(["tiles", "sokoban", "rush-hour", "h2", "_", "A", "#@$.#"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                         st.dictionaries(st.text(max_size=8), inner, max_size=5)),
                       max_leaves=20)
_KEYS = st.sampled_from(["name", "description", "notation", "start", "goal", "rows", "cols", "max_moves", "metric",
                         "expect", "board", "vehicles", "typed", "types", "primary", "walls", "exit", "level",
                         "player_goal"])


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["tiles", "sokoban", "rush-hour"]), st.dictionaries(_KEYS, _VALUES, max_size=6))
def test_random_documents_raise_only_model_error(family: str, fields: dict) -> None:
    text = yaml.safe_dump({"puzzle": family, **fields}, allow_unicode=True)
    try:
        model = loads(text, "d.yaml")
    except ModelError as exc:
        assert "\n" not in str(exc) and len(str(exc)) <= MESSAGE_LIMIT
        return
    model.initial()


def test_example_files_still_load() -> None:
    for path in sorted(EXAMPLES.glob("*/*.yaml")):
        load(path)


def test_random_mutations_fixed_seed() -> None:
    """A few thousand deterministic mutants, cheaper than hypothesis per example."""
    rng = random.Random(20240601)
    texts = {p: p.read_text() for p in MUTABLE}
    for _ in range(3000):
        path = rng.choice(MUTABLE)
        lines = texts[path].split("\n")
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(lines))
            choice = rng.randrange(4)
            if choice == 0 and len(lines) > 1:
                del lines[i]
            elif choice == 1:
                j = rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
            elif choice == 2:
                at = rng.randint(0, len(lines[i]))
                lines[i] = lines[i][:at] + rng.choice(_ALPHABET) + lines[i][at:]
            else:
                lines[i] = lines[i][:rng.randint(0, len(lines[i]))]
        try:
            loads("\n".join(lines), str(path))
        except ModelError as exc:
            assert "\n" not in str(exc) and len(str(exc)) <= MESSAGE_LIMIT


# -- a leading byte-order mark (Windows editors write one) is dropped in every text format ---------

def _with_bom(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    return path


def test_a_byte_order_mark_is_accepted_in_every_text_format(capsys, tmp_path: Path) -> None:
    xsb = _with_bom(tmp_path, "; first-push\n#####\n#@$.#\n#####\n", "bom.xsb")
    assert main(["solve", str(xsb), "--level", "first-push"]) == 0          # the title still matches
    txt = _with_bom(tmp_path, "1 " + "o" * 12 + "AAoooo" + "o" * 18 + " 5\n", "bom.txt")
    assert main(["solve", str(txt), "--level", "1"]) == 0
    domain = _with_bom(tmp_path, (EXAMPLES / "pddl" / "ferry-domain.pddl").read_text(), "d.pddl")
    problem = _with_bom(tmp_path, (EXAMPLES / "pddl" / "ferry-3.pddl").read_text(), "p.pddl")
    assert main(["solve", str(_write(tmp_path, f"puzzle: pddl\ndomain: {domain}\nproblem: {problem}\n", "f.yaml"))]) == 0
    plan = _with_bom(tmp_path, "R\n", "move.plan")
    assert main(["check", str(xsb), "--level", "first-push", f"@{plan}"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("field, escaped, code", [("name", "\\e[2J", "U+001B"), ("description", "ring\\a", "U+0007")])
def test_control_characters_made_by_yaml_escapes_are_refused(capsys, tmp_path: Path, field: str, escaped: str,
                                                             code: str) -> None:
    """A name printed in the terminal must not clear the screen or ring the bell."""
    message = file_error(capsys, tmp_path, TILES + f'{field}: "{escaped}"\n')
    assert f"field '{field}': expected printable text, got the control character {code}" in message


def test_tabs_and_line_breaks_stay_allowed_in_text(capsys, tmp_path: Path) -> None:
    assert main(["solve", str(_write(tmp_path, TILES + 'description: "two\\tcolumns\\nand lines"\n'))]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("command", [
    ["check", "{puzzle}", "@/dev/zero"],
    ["render", "{puzzle}", "--plan", "@/dev/zero", "-o", "{out}"],
    ["decode", "{puzzle}", "@/dev/zero", "--map", "{map}"],
    ["decode", "{puzzle}", "v 1 0", "--map", "/dev/zero"],
], ids=["check", "render", "decode-solution", "decode-map"])
def test_endless_inputs_are_read_up_to_a_cap(capsys, tmp_path: Path, command: list[str]) -> None:
    """/dev/zero is no regular file: a size check on the file alone let it fill the memory."""
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    (tmp_path / "m.json").write_text("{}")
    args = [a.format(puzzle=ROOT / "examples" / "tiles" / "eight-31.yaml", out=tmp_path / "x.svg",
                     map=tmp_path / "m.json") for a in command]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "/dev/zero" in err and "bytes" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, said", [
    (["solve", "{p}"], None), (["solve", "{p}", "--json"], None), (["families"], None),
    (["solve", "missing.yaml", "--json"], "puzzleplan: error: missing.yaml: no such file"),   # an error's JSON
], ids=["solve", "solve-json", "families", "error-json"])
def test_a_full_standard_output_is_one_line_and_exit_2(args: list[str], said: str | None) -> None:
    """`> /dev/full`: the write fails; one line on stderr, no traceback (at exit either)."""
    import subprocess
    import sys
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    argv = [a.format(p=ROOT / "examples" / "tiles" / "malok-safe.yaml") for a in args]
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "puzzleplan.plans.cli", *argv], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (said or "puzzleplan: error: cannot write the output: No space left on device")


def test_ctrl_c_before_a_command_runs_is_one_line_and_exit_3(capsys, monkeypatch) -> None:
    """The console script's entry: Ctrl-C while the command line loads (its imports, its parser)."""
    import puzzleplan.plans.cli as cli
    from puzzleplan.plans import launch

    def interrupted() -> int:
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "main", interrupted)
    assert launch.main() == 3
    assert capsys.readouterr().err == "puzzleplan: interrupted\n"
