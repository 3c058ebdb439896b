"""Sokoban: facts of every example under both metrics, the independent replay, validation,
collections, notation round trips, and properties (random walks, pruning keeps the optimum)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from puzzleplan.models import ModelError, load, loads
from puzzleplan.models.sokoban.model import Sokoban, load_collection
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.search import bfs
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Request, Status

SOK = Path(__file__).resolve().parent.parent / "examples" / "sokoban"
EXAMPLES = sorted(SOK.glob("*.yaml"))
METRICS = ("moves", "pushes")
LURD = re.compile(r"^[lurdLURD]*$")


def search(model: Sokoban):
    """Breadth-first search without the static unsolvability test `solve` runs first."""
    return bfs.run(model, Request(), SearchContext())


def level(text: str, **keys: str) -> str:
    """A YAML puzzle file holding the XSB rows of `text` (one row per line)."""
    body = "".join(f"  {row}\n" for row in text.strip("\n").split("\n"))
    extra = "".join(f"{k}: {v}\n" for k, v in keys.items())
    return f"puzzle: sokoban\nlevel: |\n{body}{extra}"


# -- facts ---------------------------------------------------------------------------------------
CASES = [(path, metric) for path in EXAMPLES for metric in METRICS]


@pytest.mark.parametrize("path,metric", CASES, ids=lambda x: x.stem if isinstance(x, Path) else x)
def test_bfs_and_astar_agree_with_expect(path: Path, metric: str) -> None:
    model = load(path, {"metric": metric})
    expect = model.expect
    optimum = expect.get(f"optimal_{metric}")
    costs = set()
    for engine in ("bfs", "astar"):
        result = solve(model, engine, Request())
        if expect.get("solvable") is False:
            assert result.status is Status.UNSOLVABLE and result.message
            continue
        assert result.status is Status.OPTIMAL, result.message
        plan = result.plan
        text = plan.text()
        assert LURD.match(text), text
        assert len(plan.moves) == len(text)
        assert plan.cost == (sum(ch.isupper() for ch in text) if metric == "pushes" else len(text))
        report = check_plan(model, text)
        assert report.valid, report.error
        assert result.lower_bound == plan.cost
        costs.add(plan.cost)
    if optimum is not None:
        assert costs == {optimum}
        assert model.h(model.initial()) <= optimum


@pytest.mark.parametrize("path", [p for p in EXAMPLES if "valid_plans" in p.read_text()], ids=lambda p: p.stem)
def test_known_plans_are_valid(path: Path) -> None:
    for metric in METRICS:
        model = load(path, {"metric": metric})
        for plan in model.expect["valid_plans"]:
            assert check_plan(model, str(plan)).valid


def test_seed_004_facts() -> None:
    plain, worker = load(SOK / "seed-004.yaml"), load(SOK / "seed-004-player-goal.yaml")
    assert plain.rows == 5 and plain.cols == 6 and worker.player_goal == (3, 1)
    assert solve(plain, "bfs").plan.cost == 9
    result = solve(worker, "bfs")
    assert result.plan.cost == 11 and result.plan.text().endswith("ll")
    # the 9-move plan leaves the worker elsewhere: not a goal when the worker must end bottom-left
    assert check_plan(worker, "urRlDldRR").error.startswith("after all")


def test_pushes_plan_appends_the_walk_to_the_player_goal() -> None:
    model = load(SOK / "seed-004-player-goal.yaml", {"metric": "pushes"})
    result = solve(model, "astar")
    assert result.plan.cost == 4 and result.plan.text().endswith("ll")
    assert check_plan(model, result.plan.text()).valid


def test_pushes_states_forget_the_free_walk() -> None:
    model = loads(level("#####\n#@  #\n# $ #\n#  .#\n#####", metric="pushes"))
    other = loads(level("#####\n#   #\n# $@#\n#  .#\n#####", metric="pushes"))
    assert model.start_state() != other.start_state()
    assert model.initial() == other.initial()
    assert [a for a, _ in model.successors(model.initial())] == [a for a, _ in other.successors(other.initial())]


def test_caps_count_in_the_metric() -> None:
    model = load(SOK / "three.yaml", {"metric": "pushes", "max_moves": 5})
    result = solve(model, "astar", Request(max_moves=5))
    assert result.status is Status.OPTIMAL and result.plan.cost == 5 and len(result.plan.moves) > 5
    assert check_plan(model, result.plan.text()).valid
    assert solve(model, "bfs", Request(max_moves=4)).status is Status.NO_PLAN_WITHIN_CAP
    moves = load(SOK / "three.yaml", {"max_moves": 10})
    assert solve(moves, "astar", Request(max_moves=10)).status is Status.NO_PLAN_WITHIN_CAP


# -- the checker ---------------------------------------------------------------------------------
def test_checker_rejects_illegal_moves() -> None:
    model = load(SOK / "seed-004.yaml")
    report = check_plan(model, "urrl")
    assert report.index == 3 and "uppercase (R)" in report.error
    report = check_plan(model, "uR")
    assert report.index == 2 and "no box to push" in report.error
    assert "wall" in check_plan(model, "l").error
    assert "blocked by a wall" in check_plan(model, "urRR").error
    assert "not a move" in check_plan(model, ["u", "x"]).error
    assert "not a move" in check_plan(model, ["ur"]).error
    two = loads(level("#######\n#@$$ .#\n#    .#\n#######"))
    assert "blocked by another box" in check_plan(two, "R").error


def test_checker_counts_pushes_under_the_pushes_metric() -> None:
    model = load(SOK / "seed-004.yaml", {"metric": "pushes", "max_moves": 4})
    report = check_plan(model, "urRlDldRR")
    assert report.valid and (report.length, report.cost, report.unit) == (9, 4, "pushes")
    assert report.summary() == "valid: 9 moves (4 pushes) reach the goal (within the cap)"
    capped = load(SOK / "seed-004.yaml", {"metric": "pushes", "max_moves": 3})
    assert check_plan(capped, "urRlDldRR").error == "the plan makes 4 pushes, over the cap of 3"
    moves = load(SOK / "seed-004.yaml", {"max_moves": 8})
    assert "costs 9" in check_plan(moves, "urRlDldRR").error


# -- validation ----------------------------------------------------------------------------------
BAD = {
    "two_players": (level("######\n#@$.@#\n######"), 4, ["second player", "row 2, column 5"]),
    "no_player": (level("#####\n# $.#\n#####"), 2, ["no player"]),
    "boxes_goals": (level("######\n#@$$.#\n######"), 2, ["2 boxes but 1 goal;"]),
    "no_boxes": (level("#####\n#@ .#\n#####"), 2, ["no boxes"]),
    "open": (level("#####\n#@$.\n#####"), 4, ["the level is open", "row 2"]),
    "open_gap": (level("#####\n#@$.#\n## ##\n"), 5, ["the level is open", "row 3"]),
    "unknown_char": (level("#####\n#@$.#\n##x##\n#####"), 5, ["unknown character 'x'", "row 3, column 3"]),
    "not_text": ("puzzle: sokoban\nlevel: [1, 2]\n", 2, ["field 'level'"]),
    "player_goal_wall": (level("#####\n#@$.#\n#####", player_goal="[0, 0]"), 6, ["field 'player_goal'", "is a wall"]),
    "player_goal_shape": (level("#####\n#@$.#\n#####", player_goal="[1]"), 6, ["field 'player_goal'", "[row, col]"]),
    "player_goal_off": (level("#####\n#@$.#\n#####", player_goal="[9, 1]"), 6, ["off the 3x5 level"]),
    "bad_metric": (level("#####\n#@$.#\n#####", metric="steps"), 6, ["field 'metric'", "moves, pushes"]),
    "bad_expect": (level("#####\n#@$.#\n#####", expect="{optimal: 1}"), 6, ["unknown fact 'optimal'"]),
    "unknown_key": (level("#####\n#@$.#\n#####", board="x"), 6, ["field 'board'", "unknown key"]),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_levels_give_one_line_errors(name: str) -> None:
    text, line, fragments = BAD[name]
    with pytest.raises(ModelError) as info:
        loads(text, "bad.yaml")
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"bad.yaml:{line}:"), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_box_out_of_reach_off_goal_is_unsolvable_not_invalid() -> None:
    """A box the player can never reach, not on a goal: a legal level with no solution."""
    model = loads(level("#####\n#@$.#\n#####\n#.$ #\n#####"))
    reason = model.unsolvable_reason()
    assert reason is not None and "row 4" in reason


def test_ragged_rows_and_floor_characters() -> None:
    model = loads(level("######\n#@$-.#\n#_____#\n#######"))
    assert model.rows == 4 and model.cols == 7
    assert model.lines[0] == "###### " and model.lines[1] == "#@$ .# "
    assert solve(model, "bfs").plan.text() == "RR"


def test_blank_lines_around_the_level_keep_line_numbers() -> None:
    text = "puzzle: sokoban\nlevel: |\n\n  #####\n  #@$.#\n  #@###\n  ###\n"
    with pytest.raises(ModelError, match=r"^x.yaml:6: field 'level': a second player"):
        loads(text, "x.yaml")


def test_unsolvable_at_once() -> None:
    dead = loads(level("######\n#@ $ #\n#   .#\n######"))
    assert "can never be pushed onto a goal" in dead.unsolvable_reason()
    frozen = loads(level("#######\n#.$$ .#\n#@    #\n#######"))
    assert "frozen off a goal" in frozen.unsolvable_reason()
    for rows in ("#######\n#@   .#\n# *$  #\n# $*  #\n#    .#\n#######", "########\n#@$.*$.#\n########"):
        why = loads(level(rows)).unsolvable_reason()   # the box named is one off a goal, not the '*'
        r, c = map(int, re.search(r"row (\d+), column (\d+) is frozen", why).groups())
        assert rows.split("\n")[r - 1][c - 1] == "$", why
    unmatched = loads(level("#######\n#.    #\n### # #\n#@$ $ #\n#  ##.#\n#######"))
    assert "cannot be matched" in unmatched.unsolvable_reason()
    result = solve(unmatched, "bfs")
    assert result.status is Status.UNSOLVABLE and "matched" in result.message
    assert search(unmatched.with_options(prune=False)).status is Status.UNSOLVABLE
    assert load(SOK / "unsolvable.yaml").unsolvable_reason() is None  # search has to prove it


# -- collections ---------------------------------------------------------------------------------
def test_collection_by_number_and_title() -> None:
    path = SOK / "small.xsb"
    third = load_collection(path, "3")
    assert third.name == "around"
    assert third.start_state() == load(SOK / "around.yaml").start_state()
    assert load_collection(path, "Three").name == "three"
    pocket = load_collection(path, "pocket", {"metric": "pushes"})
    assert pocket.metric == "pushes" and solve(pocket, "astar").plan.cost == 8
    with pytest.raises(ModelError, match="holds 6 levels"):
        load_collection(path, None)
    with pytest.raises(ModelError, match="from 1 to 6"):
        load_collection(path, "7")
    with pytest.raises(ModelError, match="no level titled 'nine'"):
        load_collection(path, "nine")


def test_collection_sok_titles_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "c.sok"
    path.write_text("Some collection\n\n#####\n#@$.#\n#####\nTitle: Alpha\nAuthor: me\n\n"
                    "######\n#@$ .#\n######\nTitle: Beta\n\n######\n#@$$.#\n######\nTitle: Gamma\n")
    assert load_collection(path, "beta").name == "Beta"
    assert load_collection(path, 1).name == "Alpha"
    with pytest.raises(ModelError) as info:
        load_collection(path, "Gamma")
    assert str(info.value).startswith(f"{path}:14: level 3: 2 boxes but 1 goal;")
    single = tmp_path / "one.xsb"
    single.write_text("#####\n#@$.\n#####\n")
    with pytest.raises(ModelError, match=r"one.xsb:2: level 1: the level is open"):
        load_collection(single)
    empty = tmp_path / "none.xsb"
    empty.write_text("; nothing here\n")
    with pytest.raises(ModelError, match="no level found"):
        load_collection(empty)


ONE, TWO, THREE = "#####\n#@$.#\n#####\n", "######\n#@$ .#\n######\n", "#######\n#@$  .#\n#######\n"


def test_a_title_naming_two_levels_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "twice.xsb"
    path.write_text(f"; Alpha\n{ONE}\n; Alpha\n{TWO}")
    with pytest.raises(ModelError, match=r"twice.xsb: the title 'alpha' names levels 1, 2; choose one by number"):
        load_collection(path, "alpha")


@pytest.mark.parametrize("text, titles", [
    (f"; Alpha\n{ONE}\n; Beta\n{TWO}\n; (c) 2024 somebody\n", ["Alpha", "Beta"]),   # a trailing line shifts nothing
    (f"{ONE}\n; Beta\n{TWO}\n; Gamma\n{THREE}", ["", "Beta", "Gamma"]),               # an untitled first level
    (f"; Collection X by Foo\n; Level A\n{ONE}\n; Level B\n{TWO}", ["Level A", "Level B"]),   # a header above
    (f"Collection X\nAuthor: Foo\n\n{ONE}Level A\n\n{TWO}Level B\n", ["Level A", "Level B"]),    # titles below
    (f"Title: foo\n{ONE}", ["foo"]),
    (f"; 1\n\n{ONE}\n; 2\n\n{TWO}\n; 3\n\n{THREE}\n; end of file\n", ["1", "2", "3"]),   # Microban's layout
    (f"{ONE}; Alpha\n{TWO}; Beta\n", ["Alpha", "Beta"]),                  # each title right under its level
    (f"#### Microban ####\n\n; 1\n{ONE}\n; 2\n{TWO}", ["1", "2"]),           # a banner of walls is no level
    (f"#1\n{ONE}\n#2\n{TWO}", ["#1", "#2"]),                                # `#1` titles, not run lengths
    (f"; Easy\n\n{ONE}\n; Harder\n\n{TWO}\n; Hardest\n\n{THREE}\n; end\n", ["Easy", "Harder", "Hardest"]),
    (f"; Easy\n\n{ONE}\n; Harder\n\n{TWO}\n; Copyright 2020 me\n", ["Easy", "Harder"]),   # a footer
    (f"; My collection\n\n{ONE}\n; Level A\n\n{TWO}\n; Level B\n", ["Level A", "Level B"]),   # a header
    (f"Title: Alpha\n{ONE}\nTitle: Beta\n{TWO}", ["Alpha", "Beta"]),       # Title: lines above their levels
])
def test_collection_titles_name_the_level_they_belong_to(tmp_path: Path, text: str, titles: list) -> None:
    from puzzleplan.models.sokoban.notation import read_collection
    assert [e.title for e in read_collection(text)] == titles
    path = tmp_path / "c.xsb"
    path.write_text(text)
    for i, title in enumerate(titles):
        if title:
            assert load_collection(path, title).start_state() == load_collection(path, str(i + 1)).start_state()


@pytest.mark.parametrize("text, line, words", [
    ("#####\n#@$.#\n##x##\n", 3, "unknown character 'x' at row 3, column 3"),
    ("#######\n#@$ x.#\n#######\n", 2, "unknown character 'x' at row 2, column 5"),
    ("#####\n#@\t$.#\n#####\n", 2, "unknown character '\\t' at row 2, column 3"),
    ("#####\n#@$.#x\n#####\n", 2, "unknown character 'x' at row 2, column 6"),     # at a row's end
    ("#####\n#@$.#\n#####x\n", 3, "unknown character 'x' at row 3, column 6"),     # the last row's
])
def test_a_collection_row_with_a_mistake_is_named_not_taken_for_a_title(tmp_path: Path, text, line, words) -> None:
    path = tmp_path / "bad.xsb"
    path.write_text(text)
    with pytest.raises(ModelError) as info:
        load_collection(path)
    assert str(info.value).startswith(f"{path}:{line}: level 1: {words}")


@pytest.mark.parametrize("text", ["5#\n#@$.#\n5#\n", "; rle\n5#|#@$.#|5#\n", "6#|#-@$.#|6#\n", "6#|#-pb.#|6#\n"])
def test_run_length_levels_read(tmp_path: Path, text: str) -> None:
    path = tmp_path / "rle.xsb"
    path.write_text(text)
    model = load_collection(path)
    assert solve(model, "bfs").plan.cost == 1 and model.rows == 3


def test_xsb_text_on_standard_input_and_in_txt_files(tmp_path: Path) -> None:
    assert solve(loads(ONE), "bfs").plan.cost == 1
    quoted = loads('"puzzle": sokoban\nmax_moves: 3\nlevel: |\n  ######\n  #@$ .#\n  ######\n')
    assert quoted.max_moves == 3 and quoted.cols == 6      # YAML with a quoted key stays YAML (its cap kept)
    assert loads(f"; A\n{ONE}\n; B\n{TWO}", level="B").start_state() == loads(TWO).start_state()
    with pytest.raises(ModelError, match="holds 2 levels"):
        loads(f"; A\n{ONE}\n; B\n{TWO}")
    txt = tmp_path / "levels.txt"
    txt.write_text(f"; A\n{ONE}\n; B\n{TWO}")
    assert load(txt, level="B").family == "sokoban"
    numbered = tmp_path / "numbered.txt"      # a title starting with a number is no database line
    numbered.write_text(f"1000 Kilometres\n\n{ONE}\n12 Boxes\n\n{TWO}")
    assert load(numbered, level="12 Boxes").family == "sokoban"
    database = tmp_path / "rush.txt"
    database.write_text("# Fogleman's format\n49 CCCBDEFGGBDEFoAADEHHIooooJIoKKoJLLMM 24132\n")
    assert load(database, level="1").family == "rush-hour"


# -- notations -----------------------------------------------------------------------------------
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_yaml_and_xsb_round_trips(tmp_path: Path, path: Path) -> None:
    model = load(path, {"metric": "pushes", "max_moves": 50})
    assert model.lines == tuple(model.render(model.start_state()).split("\n"))  # parser and model agree
    again = loads(model.notation("yaml"))
    assert again.start_state() == model.start_state() and again.lines == model.lines
    assert (again.player_goal, again.metric, again.max_moves) == (model.player_goal, "pushes", 50)
    xsb = tmp_path / "level.xsb"
    xsb.write_text(model.notation("xsb"))
    back = load_collection(xsb)
    assert back.lines == model.lines and back.name == model.name


# -- properties ----------------------------------------------------------------------------------
@st.composite
def random_levels(draw, max_side: int = 6, max_boxes: int = 2):
    rows, cols = draw(st.integers(3, max_side)), draw(st.integers(3, max_side))
    inside = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
    walls = set(draw(st.lists(st.sampled_from(inside), max_size=len(inside) // 4)))
    free = [cell for cell in inside if cell not in walls]
    k = draw(st.integers(1, max_boxes))
    assume(len(free) >= 2 * k + 1)
    picks = draw(st.permutations(free))
    player, boxes, goals = picks[0], set(picks[1:1 + k]), set(draw(st.permutations(free))[:k])
    grid = [["#"] * (cols + 2) for _ in range(rows + 2)]
    for r, c in free:
        grid[r][c] = " "
    for r, c in goals:
        grid[r][c] = "."
    for r, c in boxes:
        grid[r][c] = "*" if (r, c) in goals else "$"
    r, c = player
    grid[r][c] = "+" if player in goals else "@"
    try:
        return Sokoban("\n".join("".join(row) for row in grid))
    except ModelError:
        assume(False)


@settings(max_examples=80, deadline=None)
@given(st.one_of(random_levels(), st.sampled_from(EXAMPLES).map(load)), st.sampled_from(METRICS),
       st.lists(st.integers(0, 50), max_size=40))
def test_random_walks_replay_in_the_checker(model: Sokoban, metric: str, picks: list[int]) -> None:
    model = model.with_options(metric=metric)
    state, actions = model.initial(), []
    for pick in picks:
        kids = list(model.successors(state))
        assert len({child for _, child in kids}) == len(kids)
        if not kids:
            break
        action, state = kids[pick % len(kids)]
        actions.append(action)
    moves = model.plan_moves(actions)
    assert all(len(m) == 1 and m in "lurdLURD" for m in moves)
    assert model.plan_cost(actions) == (sum(m.isupper() for m in moves) if metric == "pushes" else len(moves))
    report = check_plan(model, moves)
    assert report.error is None or "goal is not reached" in report.error, report.error
    assert report.valid == model.is_goal(state)
    if metric == "moves":
        assert model.states_along(moves)[-1] == state


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(random_levels(max_side=5), st.sampled_from(METRICS))
def test_pruning_and_heuristic_keep_the_optimum(model: Sokoban, metric: str) -> None:
    """Search with and without pruning agree; a static unsolvability verdict is never wrong."""
    pruned, plain = model.with_options(metric=metric), model.with_options(metric=metric, prune=False)
    a, b = search(pruned), search(plain)
    assert a.status is b.status
    if pruned.unsolvable_reason() is not None:
        assert b.status is Status.UNSOLVABLE
    if a.plan is not None:
        assert a.plan.cost == b.plan.cost
        assert plain.h(plain.initial()) <= b.plan.cost
        assert solve(pruned, "astar").plan.cost == a.plan.cost
        assert check_plan(pruned, a.plan.text()).valid


def _whole_space(text: str) -> tuple[int, int]:
    """(positions, positions up to the player's free walk) reachable in an XSB level, by a plain
    BFS over the grid: every legal step and push, nothing pruned."""
    grid = text.split("\n")
    cells = {(r, c): ch for r, row in enumerate(grid) for c, ch in enumerate(row)}
    floor = {p for p, ch in cells.items() if ch != "#"}
    boxes = frozenset(p for p, ch in cells.items() if ch in "$*")
    player = next(p for p, ch in cells.items() if ch in "@+")
    seen, todo = {(player, boxes)}, [(player, boxes)]
    while todo:
        (r, c), bx = todo.pop()
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            to, beyond = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if to not in floor:
                continue
            if to in bx:
                if beyond not in floor or beyond in bx:
                    continue
                nxt = (to, bx - {to} | {beyond})
            else:
                nxt = (to, bx)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)

    def region(start: tuple[int, int], bx: frozenset) -> frozenset:
        out, stack = {start}, [start]
        while stack:
            r, c = stack.pop()
            for q in ((r, c + 1), (r + 1, c), (r, c - 1), (r - 1, c)):
                if q in floor and q not in bx and q not in out:
                    out.add(q)
                    stack.append(q)
        return frozenset(out)
    return len(seen), len({(bx, region(p, bx)) for p, bx in seen})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(random_levels(max_side=5))
def test_explore_counts_the_whole_space_dead_positions_too(model: Sokoban) -> None:
    from puzzleplan.plans.explore import explore
    positions, up_to_walks = _whole_space("\n".join(model.lines))
    assert explore(model).reachable == positions
    assert explore(model.with_options(metric="pushes")).reachable == up_to_walks


def test_explore_counts_seed_004_as_the_seed_s_exhaustive_search_does() -> None:
    from puzzleplan.plans.explore import explore
    model = load(SOK / "seed-004.yaml")
    assert (explore(model).reachable, explore(model.with_options(metric="pushes")).reachable) == \
        _whole_space("\n".join(model.lines))
    assert explore(model).max_depth == 21


@pytest.mark.parametrize("path,metric", CASES, ids=lambda x: x.stem if isinstance(x, Path) else x)
def test_pruning_never_changes_the_examples(path: Path, metric: str) -> None:
    model = load(path, {"metric": metric})
    plain = model.with_options(prune=False)
    a, b = search(model), search(plain)
    assert a.status is b.status
    assert (a.plan and a.plan.cost) == (b.plan and b.plan.cost)
    assert b.stats.states >= a.stats.states


def test_heuristic_is_admissible_along_optimal_plans() -> None:
    """Under moves, every state of an optimal plan has h <= the moves still to go."""
    for path in EXAMPLES:
        model = load(path)
        result = solve(model, "bfs")
        if result.plan is None:
            continue
        states = [model.initial()]
        for move in result.plan.moves:
            states.append(next(c for a, c in model.successors(states[-1]) if a == move))
        assert model.is_goal(states[-1])
        for i, s in enumerate(states):
            assert model.h(s) <= len(states) - 1 - i


def test_the_push_engine_s_first_search_time_is_on_the_run_s_clock() -> None:
    """first_seconds (the fewest pushes proved) is part of stats.seconds, not counted from
    before the run's clock started."""
    result = solve(load(SOK / "seed-004.yaml", {"metric": "pushes"}), "push")
    assert 0 <= result.stats.extra["first_seconds"] <= result.stats.seconds


SEED_004_MAPS = """\
puzzle: sokoban
notation: seed-004
level: |
  # # # # # #
  # * * B S #
  # W B # * #
  # * * * S #
  # # # # # #
target: |
  # # # # # #
  # * * * B #
  # * * # * #
  # W * * B #
  # # # # # #
"""


def test_seed_004_s_own_maps_and_target_read_as_the_player_goal_level() -> None:
    """The seed's start and target maps as it prints them: 11 moves, as seed-004-player-goal."""
    model = loads(SEED_004_MAPS)
    worker = load(SOK / "seed-004-player-goal.yaml")
    assert (model.lines, model.player_goal) == (worker.lines, worker.player_goal)
    assert solve(model).plan.cost == 11
    no_target = loads(SEED_004_MAPS.split("target:")[0])
    assert no_target.player_goal is None and solve(no_target).plan.cost == 9
    with pytest.raises(ModelError, match=r":6: field 'level': unknown character 'X' at row 3"):
        loads(SEED_004_MAPS.replace("# W B # * #", "# W B # X #"))
    with pytest.raises(ModelError, match="field 'target': its boxes stand elsewhere"):
        loads(SEED_004_MAPS.replace("# * * * B #\n  # * * #", "# * * B * #\n  # * * #"))
    with pytest.raises(ModelError, match="field 'target': only used with notation: seed-004"):
        loads(level("#####\n#@$.#\n#####", target="x"))


def test_the_moves_metric_says_the_pushes_are_as_found(capsys) -> None:
    from helpers import run_cli
    code, out, _ = run_cli(capsys, "solve", SOK / "seed-004.yaml")
    assert code == 0 and "status:  optimal: 9 moves, 4 pushes (pushes not minimised), proved optimal" in out


def test_level_rows_indented_less_than_the_first_are_named_not_lost(tmp_path: Path) -> None:
    """YAML sets a block's indentation by its first row: rows indented less, starting with `#`,
    become comments, and the level lost them (`no player`)."""
    from puzzleplan.models import load
    path = tmp_path / "y.yaml"
    path.write_text("puzzle: sokoban\nlevel: |\n   ####\n  ##  #\n  #@$.#\n  #####\n")
    with pytest.raises(ModelError, match=r"y.yaml:4: field 'level': the rows on lines 4-6 are indented less than "
                                         r"the level's first row, so YAML read them as comments"):
        load(path)
    path.write_text("puzzle: sokoban\nlevel: |2\n   ####\n  ##  #\n  #@$.#\n  #####\n")
    assert load(path).start_boxes
