"""Sokoban's push engine (models/sokoban/native.py): optima equal to the generic engines', each
pruning rule keeps the optimum (pruned against unpruned), pushes then fewest moves, limits,
caps and unsolvable levels, and the output line."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from puzzleplan.models import load, loads
from puzzleplan.models.sokoban.model import Sokoban, load_collection
from puzzleplan.models.sokoban.tables import INF, build
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core.types import Limits, Request, Status
from puzzleplan.plans.solve import solve

ROOT = Path(__file__).resolve().parent.parent
MICROBAN = ROOT / "benchmarks" / "data" / "microban.xsb"
SOK = ROOT / "examples" / "sokoban"
METRICS = ("pushes", "moves")
UNPRUNED = {"prune": False, "corrals": False}


def push(model: Sokoban, **options: object) -> object:
    return solve(model, "push", Request(options=dict(options)))


def microban(level: int, metric: str) -> Sokoban:
    return load_collection(MICROBAN, str(level), {"metric": metric})


@pytest.mark.parametrize("level", range(1, 21))
def test_microban_optima_agree_with_astar_and_without_pruning(level: int) -> None:
    for metric in METRICS:
        model = microban(level, metric)
        mine, theirs = push(model), solve(model, "astar")
        assert mine.status is Status.OPTIMAL and theirs.status is Status.OPTIMAL
        assert mine.plan.cost == theirs.plan.cost == mine.lower_bound
        assert check_plan(model, mine.plan.text()).valid
        plain = push(model, **UNPRUNED)
        assert plain.plan.cost == mine.plan.cost
        if metric == "pushes":   # fewest moves among push-optimal plans: pruning must not change it
            assert plain.plan.length == mine.plan.length <= theirs.plan.length
            no_corrals = push(model, corrals=False)
            assert no_corrals.plan.length == mine.plan.length


OFF_BY_DEFAULT = ("pair_bound",)


@pytest.mark.parametrize("rule", ["corrals", "pairs", "triples", "rooms", "walk", "pair_bound", "symmetry", "to_go",
                                  "layer_first", "dead_ends"])
def test_each_rule_alone_keeps_the_optimum(rule: str) -> None:
    """Turning one pruning rule or bound off (those off by default: on) changes neither optimum
    nor the fewest moves under pushes. The levels include symmetric ones (7, 31, 40)."""
    for level in range(1, 41, 3):
        for metric in METRICS:
            model = microban(level, metric)
            on, off = push(model), push(model, **{rule: rule in OFF_BY_DEFAULT})
            assert on.plan.cost == off.plan.cost and on.plan.length == off.plan.length, (level, metric)
            assert check_plan(model, off.plan.text()).valid


def test_pair_table() -> None:
    from puzzleplan.models.sokoban.pairs import UNSOLVED
    from puzzleplan.models.sokoban.pairs import build as pairs
    model = load(SOK / "two-boxes.yaml", {"metric": "pushes"})
    tables = build(model)
    table = pairs(tables.nbr, tables.goal_cells)
    a, b = sorted(model.index[c] for c in model.level.boxes)
    optimum = push(model).plan.cost
    assert table[a, b, model.start_player] == table[b, a, model.start_player] == optimum
    stuck = loads("puzzle: sokoban\nlevel: |\n  ########\n  #. $$ .#\n  #      #\n  #@     #\n  ########\n")
    t2 = build(stuck)
    a, b = (stuck.index[(1, 3)], stuck.index[(1, 4)])
    assert (t2.pairs[a, b] == UNSOLVED).all()    # neither box can move along the wall: from anywhere
    assert (t2.pairs[stuck.index[(1, 1)], stuck.index[(1, 6)]] == 0).any()


def _two_box_pushes(nbr: list[list[int]], goals: set[int], a: int, b: int, p: int) -> int | None:
    """Fewest pushes bringing boxes on a and b (no others) onto two goals: a forward 0-1 BFS
    (walks free, pushes 1), the reference for pairs.py's backward table."""
    from collections import deque
    best: dict[tuple[int, int, int], int] = {}
    queue = deque([(0, a, b, p)])
    while queue:
        cost, a, b, p = queue.popleft()
        if (a, b, p) in best:
            continue            # popped before at no higher cost (0-1 BFS)
        best[(a, b, p)] = cost
        if a in goals and b in goals:
            return cost
        for d in range(4):
            x = nbr[p][d]
            if x < 0:
                continue
            if x not in (a, b):
                queue.appendleft((cost, a, b, x))
                continue
            y = nbr[x][d]
            other = b if x == a else a
            if y >= 0 and y != other:
                queue.append((cost + 1, y, other, x))
    return None


@pytest.mark.parametrize("level", [3, 9, 27, 44])
def test_pair_distances_are_two_box_optima(level: int) -> None:
    """dist[a, b, p] (pairs.py, backward by pulls) equals a forward search of the two boxes
    alone, for the pairs of the start position."""
    from puzzleplan.models.sokoban.pairs import UNSOLVED
    model = microban(level, "pushes")
    tables = build(model)
    nbr = [[int(x) for x in row] for row in tables.nbr]
    goals = {int(g) for g in tables.goal_cells}
    boxes = sorted(model.index[c] for c in model.level.boxes)
    for a, b in [(x, y) for k, x in enumerate(boxes) for y in boxes[k + 1:]][:8]:
        reference = _two_box_pushes(nbr, goals, a, b, model.start_player)
        assert tables.pairs[a, b, model.start_player] == (UNSOLVED if reference is None else reference), (a, b)


def _three_boxes_solvable(nbr: list[list[int]], goals: set[int], boxes: tuple[int, ...], p: int) -> bool:
    """Can boxes on `boxes` (no others), the player on p, be pushed onto goals? A forward
    search over pushes and steps, the reference for triples.py's backward table."""
    seen = {(boxes, p)}
    stack = [(boxes, p)]
    while stack:
        boxes, p = stack.pop()
        if all(b in goals for b in boxes):
            return True
        for d in range(4):
            x = nbr[p][d]
            if x < 0:
                continue
            if x in boxes:
                y = nbr[x][d]
                if y < 0 or y in boxes:
                    continue
                state = (tuple(sorted(y if b == x else b for b in boxes)), x)
            else:
                state = (boxes, x)
            if state not in seen:
                seen.add(state)
                stack.append(state)
    return False


@st.composite
def three_box_rooms(draw: st.DrawFn) -> tuple[Sokoban, tuple[int, ...], int]:
    """A small walled room with three goals, and three box cells and a player cell in it."""
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(3, 5))
    inside = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
    walls = set(draw(st.lists(st.sampled_from(inside), max_size=len(inside) // 4)))
    free = [cell for cell in inside if cell not in walls]
    if len(free) < 4:
        free, walls = inside, set()
    picks = draw(st.permutations(free))
    goals = set(draw(st.permutations(free))[:3])
    fallback = "#######\n#@$$$ #\n#  ...#\n#######"
    model = room_level(rows, cols, free, picks, goals, 3, fallback)
    if model.ncells < 4 or len(model.goal_cells) != 3:
        model = Sokoban(fallback)
    cells = range(model.ncells)
    boxes = tuple(sorted(draw(st.permutations(list(cells)))[:3]))
    player = draw(st.sampled_from([c for c in cells if c not in boxes]))
    return model, boxes, player


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(three_box_rooms())
def test_triple_table_is_exact_for_three_boxes(room: tuple[Sokoban, tuple[int, ...], int]) -> None:
    """solvable[a, b, c, p] (triples.py, backward by pulls) is 1 exactly when a forward search of
    the three boxes alone reaches three goals."""
    model, boxes, player = room
    tables = build(model)
    assume(tables.triples.shape[0] == model.ncells)
    nbr = [[int(x) for x in row] for row in tables.nbr]
    goals = {int(g) for g in tables.goal_cells}
    expected = _three_boxes_solvable(nbr, goals, boxes, player)
    from puzzleplan.models.sokoban.triples import solvable
    assert bool(solvable(tables.triples, *boxes, player)) == expected


def test_triple_deadlock_pruned_where_pairs_see_none() -> None:
    """A room where one push leaves three boxes that no two-box test finds stuck but that cannot
    all reach goals: the triple table prunes it, and the optimum is the same without the table."""
    level = "\n".join(["######",
                        "#    #",
                        "# *@*#",
                        "# $ .#",
                        "######"])
    model = Sokoban(level, metric="pushes")
    on, off = push(model), push(model, triples=False)
    assert on.plan.cost == off.plan.cost == 2
    assert check_plan(model, on.plan.text()).valid
    assert on.stats.extra["triple_deadlocks"] > 0 and off.stats.extra["triple_deadlocks"] == 0


@st.composite
def four_box_rooms(draw: st.DrawFn) -> tuple[Sokoban, list[tuple[tuple[int, ...], int]]]:
    """A small walled room with four or five goals and boxes, and positions of its boxes (off
    dead cells) and player to look up in its goal-room table."""
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(4, 5))
    inside = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
    walls = set(draw(st.lists(st.sampled_from(inside), max_size=len(inside) // 5)))
    free = [cell for cell in inside if cell not in walls]
    k = draw(st.integers(4, 5))
    fallback = "########\n#@$$$$ #\n#  ....#\n########"
    if len(free) < k + 2:
        free, walls = inside, set()
    picks = draw(st.permutations(free))
    goals = set(draw(st.permutations(free))[:k])
    model = room_level(rows, cols, free, picks, goals, k, fallback)
    if len(model.goal_cells) < 4:
        model = Sokoban(fallback)
    tables = build(model)
    alive = [c for c in range(model.ncells) if not tables.dead[c]]
    positions = []
    for _ in range(12):
        boxes = tuple(sorted(draw(st.permutations(alive))[:len(model.goal_cells)]))
        if len(boxes) == len(model.goal_cells):
            player = draw(st.sampled_from([c for c in range(model.ncells) if c not in boxes] or [0]))
            positions.append((boxes, player))
    return model, positions


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(four_box_rooms())
def test_the_goal_room_table_calls_no_solvable_position_dead(room: tuple[Sokoban, list]) -> None:
    """A position whose boxes in the goal room (rooms.py) the table says can never be completed
    is unsolvable by a forward search of the whole position; the table is built for each room."""
    model, positions = room
    tables = build(model)
    assert tables.room_ok.shape[0] > 1
    nbr = [[int(x) for x in row] for row in tables.nbr]
    goals = {int(g) for g in tables.goal_cells}
    for boxes, player in positions:
        if player in boxes:
            continue
        pattern = int(sum(int(tables.room_bit[b]) for b in boxes))
        if tables.room_ok[pattern, tables.room_place[player]] == 0:
            assert not _three_boxes_solvable(nbr, goals, boxes, player), (boxes, player)


def test_the_goal_room_table_prunes_microban_153_and_keeps_the_optimum_of_a_small_room() -> None:
    """On Microban 153 (ten goals: a one-wide dead end and a 2 x 2 block before it) the table
    flags arrangements the other rules let through; on a level small enough for the unpruned
    search, both optima are the same with and without it."""
    level = "\n".join(["#########",
                        "#.#  @  #",
                        "#.# $ $ #",
                        "#.#     #",
                        "#.  $ $ #",
                        "#       #",
                        "#########"])
    for metric in METRICS:
        model = Sokoban(level, metric=metric)
        on, off = push(model), push(model, rooms=False)
        assert on.plan.cost == off.plan.cost and on.plan.length == off.plan.length
        assert check_plan(model, on.plan.text()).valid and off.stats.extra["room_deadlocks"] == 0
        assert on.stats.extra["room_deadlocks"] > 0
        assert on.plan.cost == push(model, **UNPRUNED).plan.cost


@pytest.mark.parametrize("path", sorted(SOK.glob("*.yaml")), ids=lambda p: p.stem)
def test_examples_facts(path: Path) -> None:
    for metric in METRICS:
        model = load(path, {"metric": metric})
        result = push(model)
        if model.expect.get("solvable") is False:
            assert result.status is Status.UNSOLVABLE and result.message
            assert push(model, **UNPRUNED).status is Status.UNSOLVABLE
            continue
        assert result.status is Status.OPTIMAL, result.message
        assert result.plan.cost == model.expect.get(f"optimal_{metric}", result.plan.cost)
        assert result.plan.cost == solve(model, "bfs").plan.cost
        assert check_plan(model, result.plan.text()).valid
        assert result.stats.extra["pushes"] == sum(m.isupper() for m in result.plan.moves)
        assert result.stats.extra["moves"] == len(result.plan.moves)


def test_threads_keep_both_optima() -> None:
    """Batches expanded on two threads (`workers=2`) find the same optimum, and under pushes the
    same fewest moves, as on one; levels 7, 31 and 40 fold symmetries. Every mode stores one
    batch while the next is expanded where its bound is consistent: under moves, and in the
    fewest-moves search under pushes when it reads no pushes-to-go table (to_go off)."""
    for level in range(1, 41, 3):
        for metric in METRICS:
            model = microban(level, metric)
            one, two = push(model), push(model, workers=2)
            assert two.status is Status.OPTIMAL and two.stats.extra["threads"] == 2
            assert one.plan.cost == two.plan.cost and one.plan.length == two.plan.length, (level, metric)
            assert check_plan(model, two.plan.text()).valid
            if metric == "pushes":
                lexical = push(model, workers=2, to_go=False)
                assert (lexical.plan.cost, lexical.plan.length) == (one.plan.cost, one.plan.length), level
                assert check_plan(model, lexical.plan.text()).valid


def test_workers_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    from helpers import run_json
    _, one = run_json(capsys, "solve", MICROBAN, "--level", "7", "--metric", "pushes")
    code, two = run_json(capsys, "solve", MICROBAN, "--level", "7", "--metric", "pushes", "--workers", "2")
    assert code == 0 and two["status"] == "optimal" and two["stats"]["threads"] == 2
    assert (two["stats"]["pushes"], two["stats"]["moves"]) == (one["stats"]["pushes"], one["stats"]["moves"])
    assert "threads" not in one["stats"]


def test_pushes_then_fewest_moves() -> None:
    """Microban 6: generic A* over pushes returns a push-optimal plan with more moves than needed;
    the push engine returns one with as few moves as any push-optimal plan (never more than the
    first search's), and the moves optimum is a lower bound on it."""
    model = microban(6, "pushes")
    generic = solve(model, "astar")
    mine = push(model)
    first_only = push(model, fewest_moves=False)
    assert mine.plan.cost == generic.plan.cost == first_only.plan.cost
    assert mine.plan.length < generic.plan.length
    assert mine.plan.length <= first_only.plan.length
    assert mine.stats.extra["fewest_moves"] is True and first_only.stats.extra.get("fewest_moves") is not True
    moves_optimum = push(microban(6, "moves")).plan.cost
    assert moves_optimum <= mine.plan.length
    assert check_plan(model, mine.plan.text()).valid


def test_player_goal_under_both_metrics() -> None:
    for metric, engine in ((m, e) for m in METRICS for e in ("bfs", "astar")):
        model = load(SOK / "seed-004-player-goal.yaml", {"metric": metric})
        mine, theirs = push(model), solve(model, engine)
        assert mine.plan.cost == theirs.plan.cost and mine.plan.text().endswith("ll")


def test_cap_and_limits() -> None:
    model = load(SOK / "three.yaml", {"metric": "pushes"})
    assert solve(model, "push", Request(max_moves=5)).status is Status.OPTIMAL
    capped = solve(model, "push", Request(max_moves=4))
    assert capped.status is Status.NO_PLAN_WITHIN_CAP and capped.lower_bound == 5
    moves = load(SOK / "three.yaml")
    assert solve(moves, "push", Request(max_moves=10)).status is Status.NO_PLAN_WITHIN_CAP
    hard = microban(93, "pushes")
    limited = solve(hard, "push", Request(limits=Limits(time_limit=0.5)))
    assert limited.status is Status.LIMIT_REACHED and "time limit" in limited.message
    assert limited.stats.nodes > 0 and limited.lower_bound is not None
    assert "pair_deadlocks" in limited.stats.extra     # the pruning counters say how far it got
    stopped = solve(microban(144, "moves"), "push", Request(limits=Limits(max_states=20000)))
    assert stopped.status is Status.LIMIT_REACHED and stopped.stats.extra["triple_deadlocks"] > 0


def test_player_aware_distances_see_dead_corridors() -> None:
    """A box in a dead-end corridor the player stands behind is dead from that side only."""
    model = loads("puzzle: sokoban\nlevel: |\n  #######\n  #.$ @ #\n  #######\n")
    tables = build(model)
    box = model.index[(1, 2)]
    player_side = tables.side[box, model.index[(1, 4)]]
    assert tables.pdist[0, box, player_side] == 1
    goal = model.index[(1, 1)]
    assert tables.pdist[0, goal, tables.side[goal, box]] == 0
    far = model.index[(1, 5)]          # a box at the right end can never move left
    assert tables.dead[far] and tables.pdist[0, far].min() >= INF


def test_dead_end_table() -> None:
    """dead_end marks the cells of a corridor walled on both sides across it, towards its wall."""
    model = loads("puzzle: sokoban\nlevel: |\n  #####\n  #.###\n  #.###\n  #  @#\n  # $$#\n  #####\n")
    tables = build(model)
    up = 0                                  # level.py's directions: up, down, left, right
    top, middle, room = (model.index[cell] for cell in ((1, 1), (2, 1), (3, 1)))
    assert tables.dead_end[middle, up] and not tables.dead_end[top, up]     # nothing beyond the top
    assert not tables.dead_end[room, up]    # the room's cell has no walls across
    assert tables.dead_end.sum() == 1


@pytest.mark.parametrize("level", [37, 60, 78, 97, 149])
def test_forced_dead_end_pushes_keep_both_optima(level: int) -> None:
    """On Microban levels with a dead-end goal corridor the forced push fires, proves the
    fewest pushes in no more nodes, and the pushes and their fewest moves are those found
    without it and without any pruning."""
    model = microban(level, "pushes")
    on, off, plain = push(model), push(model, dead_ends=False), push(model, **UNPRUNED)
    assert on.stats.extra["dead_end_pushes"] > 0 and off.stats.extra["dead_end_pushes"] == 0
    assert on.plan.cost == off.plan.cost == plain.plan.cost
    assert on.plan.length == off.plan.length == plain.plan.length
    assert on.stats.extra["first_nodes"] <= off.stats.extra["first_nodes"]
    assert check_plan(model, on.plan.text()).valid
    moves = push(microban(level, "moves"))      # the rule is for pushes only
    assert moves.stats.extra["dead_end_pushes"] == 0


def test_forced_push_stops_short_of_a_dead_end_that_is_no_goal() -> None:
    """Goals in a corridor short of its dead end: the first box must stop on the deeper goal,
    not be forced on into the dead end (BFS's optimum)."""
    rows = ["#######", "### ###", "###.###", "###.###", "#     #", "#  $  #", "#  $  #", "#  @  #", "#######"]
    assert_agrees_with_bfs(Sokoban("\n".join(rows)).with_options(metric="pushes"), {"dead_ends": False})


@st.composite
def corridor_levels(draw: st.DrawFn) -> Sokoban:
    """A small room with a one-wide dead-end corridor off its top row, one or two goals in the
    corridor (not always at its end), the boxes and any other goal in the room."""
    cols, rows, depth = draw(st.integers(3, 5)), draw(st.integers(2, 3)), draw(st.integers(1, 3))
    door = draw(st.integers(1, cols))
    height = rows + depth + 2
    grid = [["#"] * (cols + 2) for _ in range(height)]
    corridor = [(r, door) for r in range(1, depth + 1)]
    room = [(r, c) for r in range(depth + 1, depth + 1 + rows) for c in range(1, cols + 1)]
    for r, c in corridor + room:
        grid[r][c] = " "
    goals_in = draw(st.integers(1, min(depth, 2)))
    goals = draw(st.permutations(corridor))[:goals_in]
    k = draw(st.integers(goals_in, min(goals_in + 1, 2)))
    picks = draw(st.permutations(room))
    goals += picks[:k - goals_in]
    boxes = draw(st.permutations(room))[:k]
    player = next(cell for cell in picks[k - goals_in:] if cell not in boxes)
    for r, c in goals:
        grid[r][c] = "."
    for r, c in boxes:
        grid[r][c] = "*" if (r, c) in goals else "$"
    grid[player[0]][player[1]] = "+" if player in goals else "@"
    return Sokoban("\n".join("".join(row) for row in grid))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corridor_levels())
def test_corridor_levels_forced_unforced_and_bfs_agree(model: Sokoban) -> None:
    assert_agrees_with_bfs(model.with_options(metric="pushes"), {"dead_ends": False})


@st.composite
def sealed_levels(draw: st.DrawFn) -> Sokoban:
    """A small room holding a 2 x 2 block of boxes on goals (frozen for good) and one or two
    loose boxes and goals; in a room two rows high the block cuts it in two."""
    rows, cols = draw(st.integers(2, 5)), draw(st.integers(4, 5))
    top, left = draw(st.integers(1, rows - 1)), draw(st.integers(1, cols - 1))
    block = {(top + dr, left + dc) for dr in (0, 1) for dc in (0, 1)}
    free = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1) if (r, c) not in block]
    k = draw(st.integers(1, 2))
    picks = draw(st.permutations(free))
    goals = set(draw(st.permutations(free))[:k])
    # the block may cut the player off from a box or goal: then a fixed level
    return room_level(rows, cols, free, picks, goals, k, "######\n#@$.**#\n#   **#\n######", block)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sealed_levels(), st.sampled_from(METRICS))
def test_sealed_levels_agree_with_bfs(model: Sokoban, metric: str) -> None:
    assert_agrees_with_bfs(model.with_options(metric=metric), {"sealed": False})


def test_sealed_boxes_become_walls() -> None:
    """The 2 x 2 block on goals is sealed (4 boxes fewer in the search); both optima are those
    of the level searched as given, and the plan is checked on the level as given."""
    from puzzleplan.models.sokoban.sealed import sealed_cells, without_sealed
    model = Sokoban("#######\n#  **.#\n#  ** #\n#@$   #\n#     #\n#######")
    assert len(sealed_cells(model)) == 4
    inner, outer = without_sealed(model)
    assert len(inner.goal_cells) == 1 and [model.cells[int(c)] for c in outer] == list(inner.cells)
    for metric in METRICS:
        sealed = push(model.with_options(metric=metric))
        assert sealed.stats.extra["sealed_boxes"] == 4
        assert check_plan(model.with_options(metric=metric), sealed.plan.text()).valid
        assert_agrees_with_bfs(model.with_options(metric=metric), {"sealed": False})
    assert without_sealed(microban(3, "pushes"))[1] is None
    # the block cuts the player off from a box off a goal, or from its own goal: no plan
    for rows, goal in ((["##########", "#@$.** $.#", "#   **   #", "##########"], None),
                       (["##########", "#@$.**   #", "#   **   #", "##########"], (1, 8))):
        cut = Sokoban("\n".join(rows), player_goal=goal)
        assert without_sealed(cut)[1] is None and len(sealed_cells(cut)) == 4
        for metric in METRICS:
            assert_agrees_with_bfs(cut.with_options(metric=metric), {"sealed": False})


def test_output_line_says_pushes_then_moves(capsys: pytest.CaptureFixture[str]) -> None:
    from helpers import run_cli, run_json
    code, out, _ = run_cli(capsys, "solve", SOK / "three.yaml", "--metric", "pushes", "--engine", "push")
    assert "5 pushes, " in out and "the fewest moves of any plan with that many pushes" in out
    _, payload = run_json(capsys, "solve", SOK / "three.yaml", "--metric", "pushes", "--engine", "push")
    assert payload["stats"]["pushes"] == 5 and payload["stats"]["moves"] == len(payload["plan"])


@st.composite
def small_levels(draw: st.DrawFn) -> Sokoban:
    rows, cols = draw(st.integers(3, 5)), draw(st.integers(3, 5))
    inside = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
    walls = set(draw(st.lists(st.sampled_from(inside), max_size=len(inside) // 4)))
    free = [cell for cell in inside if cell not in walls]
    k = draw(st.integers(1, 3))
    if len(free) < 2 * k + 1:
        free = inside
        walls = set()
    picks = draw(st.permutations(free))
    goals = set(draw(st.permutations(free))[:k])
    return room_level(rows, cols, free, picks, goals, k, "#####\n#@$.#\n#####")


def room_level(rows: int, cols: int, free: list, picks: list, goals: set, k: int, fallback: str,
               sealed: set | frozenset = frozenset()) -> Sokoban:
    """A walled rows x cols room: `free` floor (goals marked), the player on picks[0], k boxes on
    picks[1:k + 1], boxes on goals on `sealed`; `fallback` when that is no valid level."""
    grid = [["#"] * (cols + 2) for _ in range(rows + 2)]
    for r, c in free:
        grid[r][c] = "." if (r, c) in goals else " "
    for r, c in sealed:
        grid[r][c] = "*"
    for r, c in picks[1:1 + k]:
        grid[r][c] = "*" if (r, c) in goals else "$"
    r, c = picks[0]
    grid[r][c] = "+" if (r, c) in goals else "@"
    from puzzleplan.models import ModelError
    try:
        return Sokoban("\n".join("".join(row) for row in grid))
    except ModelError:
        return Sokoban(fallback)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_levels(), st.sampled_from(METRICS))
def test_random_levels_pruned_unpruned_and_bfs_agree(model: Sokoban, metric: str) -> None:
    assert_agrees_with_bfs(model.with_options(metric=metric), UNPRUNED)


def assert_agrees_with_bfs(model: Sokoban, plain_options: dict) -> None:
    """The push engine with its defaults, with `plain_options` and on two threads finds unpruned
    BFS's optimum (under pushes, all the same fewest moves), its plans checked."""
    from puzzleplan.plans.core.context import SearchContext
    from puzzleplan.plans.search import bfs
    reference = bfs.run(model.with_options(prune=False), Request(), SearchContext())
    default = push(model)
    plain = push(model, **plain_options)
    threaded = push(model, workers=2)
    if reference.plan is None:
        assert default.plan is None and plain.plan is None and threaded.plan is None
        return
    assert default.plan.cost == plain.plan.cost == threaded.plan.cost == reference.plan.cost
    assert check_plan(model, default.plan.text()).valid and check_plan(model, threaded.plan.text()).valid
    if model.metric == "pushes":
        assert default.plan.length == plain.plan.length == threaded.plan.length


def test_symmetries_found() -> None:
    """Microban 93 and 146 are symmetric under all eight turns and mirrors, 145 under one mirror
    (its player stands on the axis); a level whose start breaks the mirror has none."""
    from puzzleplan.models.sokoban.symmetry import find
    for level, count in ((93, 7), (146, 7), (145, 1)):
        model = microban(level, "moves")
        assert find(model, exact=True).count == count
    lopsided = loads("puzzle: sokoban\nlevel: |\n  #######\n  #.$@$.#\n  #  $  #\n  #  .  #\n  #######\n")
    assert find(lopsided, exact=True).count == 1
    assert find(loads("puzzle: sokoban\nlevel: |\n  #######\n  #.$ $.#\n  #@ $  #\n  #  .  #\n  #######\n"),
                exact=True).count == 0


@pytest.mark.parametrize("level", [105, 142])
def test_symmetric_levels_fold_without_losing_optima(level: int) -> None:
    """On Microban 105 and 142 (three symmetries each) the pushes optimum, its fewest moves and
    the moves optimum are the same with and without folding, with fewer states folded."""
    for metric in METRICS:
        model = microban(level, metric)
        folded, plain = push(model), push(model, symmetry=False)
        assert folded.plan.cost == plain.plan.cost and folded.plan.length == plain.plan.length
        assert folded.stats.states < plain.stats.states
        assert check_plan(model, folded.plan.text()).valid


@st.composite
def mirrored_levels(draw: st.DrawFn) -> Sokoban:
    """A random small level and its mirror image side by side, around a middle column holding
    the player: symmetric, start included."""
    rows, half = draw(st.integers(2, 4)), draw(st.integers(1, 3))
    cells = [(r, c) for r in range(rows) for c in range(half)]
    walls = set(draw(st.lists(st.sampled_from(cells), max_size=len(cells) // 3)))
    free = [cell for cell in cells if cell not in walls]
    k = draw(st.integers(1, min(2, max(1, len(free) // 2))))
    order = draw(st.permutations(free)) if free else []
    boxes, goals = set(order[:k]), set(draw(st.permutations(free))[:k]) if free else set()
    middle = draw(st.integers(0, rows - 1))
    lines = ["#" * (2 * half + 3)]
    for r in range(rows):
        left = "".join("#" if (r, c) in walls else "*" if (r, c) in boxes and (r, c) in goals else
                       "$" if (r, c) in boxes else "." if (r, c) in goals else " " for c in range(half))
        lines.append("#" + left + ("@" if r == middle else " ") + left[::-1] + "#")
    lines.append("#" * (2 * half + 3))
    from puzzleplan.models import ModelError
    try:
        return Sokoban("\n".join(lines))
    except ModelError:
        return Sokoban("#######\n#.$@$.#\n#######")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mirrored_levels(), st.sampled_from(METRICS))
def test_mirrored_levels_folded_unfolded_and_bfs_agree(model: Sokoban, metric: str) -> None:
    assert_agrees_with_bfs(model.with_options(metric=metric), {"symmetry": False, "to_go": False})


def test_table_tells_states_with_one_hash_apart() -> None:
    """The table's slots carry the player and part of the hash (kernel_search.entry); a state
    that shares another's whole hash is still told apart by its boxes, and by its player."""
    from puzzleplan.models.sokoban import kernel_search as ks
    table = np.full(8, -1, np.int64)
    boxes = np.array([[1, 5], [2, 6]], np.int16)
    key = np.uint64(0xDEADBEEF12345678)
    slot = ks.find(table, boxes, key, boxes[0], 3)
    assert slot < 0
    table[-slot - 1] = ks.entry(key, 3, 0)
    assert ks.find(table, boxes, key, boxes[0], 3) == 0
    assert ks.find(table, boxes, key, boxes[1], 3) < 0           # same hash, other boxes
    assert ks.find(table, boxes, key, boxes[0], 4) < 0           # same hash and boxes, other player
    free = ks.find(table, boxes, key, boxes[1], 3)
    table[-free - 1] = ks.entry(key, 3, 1)
    assert ks.find(table, boxes, key, boxes[1], 3) == 1
    assert ks.find(table, boxes, key, boxes[0], 3) == 0


def test_prefetch_changes_nothing() -> None:
    from numba import njit

    from puzzleplan.models.sokoban.prefetch import prefetch

    @njit
    def hinted_sum(values, order):
        total = 0
        for k in range(order.shape[0]):
            if k + 4 < order.shape[0]:
                prefetch(values, order[k + 4])
            total += values[order[k]]
        return total

    values = np.arange(1000, dtype=np.int64) * 7
    order = np.random.default_rng(1).integers(0, 1000, 500)
    assert hinted_sum(values, order) == int(values[order].sum())


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), ties=st.booleans())
def test_every_image_folds_to_one_representative(seed: int, ties: bool) -> None:
    """kernel_rules.canonical gives all images of a state (Microban 146's eight turns and
    mirrors) the same boxes and player, both for exact players and for normalised ones (the
    player's area mapped with the boxes); `ties` draws box sets that are themselves symmetric."""
    from puzzleplan.models.sokoban.kernel_rules import canonical, image_hashes
    from puzzleplan.models.sokoban.symmetry import find
    model = microban(146, "moves")
    cells = find(model, exact=True).cells
    zbox = build(model, pairs=False).zbox
    rng = np.random.default_rng(seed)
    n = cells.shape[1]
    nb = len(model.goal_cells)
    if ties:                                # a box set closed under one symmetry: its images tie
        k = int(rng.integers(len(cells)))
        chosen: set[int] = set()
        for c in rng.permutation(n):
            orbit = _orbit(cells[k], int(c))
            if not orbit & chosen and len(chosen) + len(orbit) <= nb - 1:
                chosen |= orbit
        assume(len(chosen) >= 2)
        boxes = np.array(sorted(chosen), np.int16)
        nb = len(boxes)
    else:
        boxes = np.sort(rng.choice(n, nb, replace=False)).astype(np.int16)
    free = [c for c in range(n) if c not in set(boxes.tolist())]
    player = int(rng.choice(free))
    area = np.array(rng.choice(free, 3, replace=False).tolist() + [player], np.int64)
    results = set()
    for k in range(-1, len(cells)):
        image = boxes.copy() if k < 0 else np.sort(cells[k][boxes]).astype(np.int16)
        p = player if k < 0 else int(cells[k, player])
        moved_area = area if k < 0 else cells[k][area].astype(np.int64)
        hashes = np.zeros(len(cells) + 1, np.uint64)
        image_hashes(image, cells, zbox, hashes)
        for count in (0, len(area)):
            best, trial = np.zeros(nb, np.int16), np.zeros(nb, np.int16)
            start = p if count == 0 else int(moved_area.min())
            _, q = canonical(image, start, cells, moved_area, count, best, trial, hashes)
            results.add((count, tuple(best.tolist()), int(q)))
    assert len(results) == 2                # one representative per player kind


def _orbit(image: np.ndarray, cell: int) -> set[int]:
    """The cells a symmetry's powers take `cell` to."""
    orbit = {cell}
    x = int(image[cell])
    while x not in orbit:
        orbit.add(x)
        x = int(image[x])
    return orbit
