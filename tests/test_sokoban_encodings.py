"""The Sokoban encodings (SAT sok-onehot, CP-SAT cp-sok), moves metric: on every small example
level, SAT at BFS's optimum with a plan the checker accepts and UNSAT one below (goal `by`, with
and without cuts); the unsolvable level is UNSAT; exact-T semantics, the incremental driver,
CP-SAT hints, the pushes metric refused, and `verify` agreeing on seed 004. The pushes encoding
(sok-push): the native optimum in pushes and UNSAT one below on the small levels, with and without
cuts; frozen patterns and both encodings checked against BFS on random small levels (hypothesis).
sok-walk (moves over push steps) and cp-sok-push (CP-SAT, pushes): the same optimum-and-one-below
checks, the layered form of sok-walk, verify rows, and random levels. sok-onehot's pattern tables
are admissible (checked against the full state space), its pair tables and cuts agree with the
push engine on three-box Microban levels, and its wall paths are shortest."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzleplan.encoders import base as enc_base
from puzzleplan.encoders.base import Answer, EncodingOptions
from puzzleplan.encoders.cpsat.base import solve as cp_solve
from puzzleplan.encoders.cpsat.sokoban import SokobanCp
from puzzleplan.encoders.sat.base import IncrementalSat, solve_fixed, solve_then_fewer
from puzzleplan.encoders.sat.sokoban import SokobanOneHot
from puzzleplan.encoders.sat.sokoban_deadlock import frozen_patterns, frozen_subset
from puzzleplan.encoders.sat.sokoban_push import SokobanPushes, plan_cost
from puzzleplan.encoders.sat.sokoban_walk import SokobanWalks
from puzzleplan.encoders.cpsat.sokoban_push import SokobanPushesCp
from puzzleplan.models.sokoban.model import Sokoban
from puzzleplan.models import load
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Request

SOK = Path(__file__).resolve().parent.parent / "examples" / "sokoban"
REGISTRY = {"sok-onehot": "puzzleplan.encoders.sat.sokoban:SokobanOneHot",
            "cp-sok": "puzzleplan.encoders.cpsat.sokoban:SokobanCp"}
CLASSES = (SokobanOneHot, SokobanCp)
NO_CUTS = EncodingOptions(no_reversal=False, idle_at_end=False, distance_cuts=False)


def _small() -> list[str]:
    names = []
    for path in sorted(SOK.glob("*.yaml")):
        optimum = load(path).expect.get("optimal_moves")
        if optimum is not None and optimum <= 15:
            names.append(path.name)
    return names


SMALL = _small()


@lru_cache(maxsize=None)
def optimum(name: str) -> int | None:
    result = solve(load(SOK / name), "bfs", Request())
    return None if result.plan is None else result.plan.length


def run(cls: type, model, horizon: int, options: EncodingOptions = EncodingOptions()):
    enc = cls(model, options)
    if cls is SokobanOneHot:
        return solve_fixed(enc, horizon)
    return cp_solve(enc, horizon, workers=1)


def assert_plan(model, result, horizon: int, exact: bool = False) -> None:
    assert result.answer is Answer.SAT
    assert len(result.moves) == horizon if exact else len(result.moves) <= horizon
    report = check_plan(model, list(result.moves))
    assert report.valid, (result.moves, report.error)


def test_small_levels_cover_both_goal_kinds():
    assert "seed-004.yaml" in SMALL and "seed-004-player-goal.yaml" in SMALL
    assert optimum("seed-004.yaml") == 9 and optimum("seed-004-player-goal.yaml") == 11


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("name", SMALL)
def test_optimum_and_one_below(cls, name):
    model = load(SOK / name)
    best = optimum(name)
    assert best is not None
    assert_plan(model, run(cls, model, best), best)
    if best > 0:
        assert run(cls, model, best - 1).answer is Answer.UNSAT


@pytest.mark.parametrize("name,pushes", [("seed-004.yaml", 4), ("l-room.yaml", 3), ("three.yaml", 5),
                                         ("seed-004-player-goal.yaml", None)])
def test_pushes_bound_on_the_plans_solver(name, pushes):
    """sok-push on one solver: the plan of the fewest pushes, then none with fewer."""
    model = load(SOK / name, {"metric": "pushes"})
    best = pushes if pushes is not None else solve(model, "push", Request()).plan.cost
    at, below = solve_then_fewer(SokobanPushes(model), best, "glucose42")
    assert at.answer is Answer.SAT and plan_cost(at.moves) == best and check_plan(model, list(at.moves)).valid
    assert below.answer is Answer.UNSAT


@pytest.mark.parametrize("name", SMALL)
def test_bound_on_the_plans_solver(name):
    """sok-onehot on one solver (verify's default): a plan at the optimum, then none shorter;
    one above, a plan, then a plan of the optimum (both goal kinds are among SMALL)."""
    model = load(SOK / name)
    best = optimum(name)
    if best == 0:
        return
    at, below = solve_then_fewer(SokobanOneHot(model), best, "glucose42")
    assert_plan(model, at, best)
    assert below.answer is Answer.UNSAT
    above, again = solve_then_fewer(SokobanOneHot(model), best + 1, "glucose42")
    assert_plan(model, above, best + 1)
    assert_plan(model, again, best)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("name", ["seed-004.yaml", "seed-004-player-goal.yaml", "turn.yaml", "three.yaml"])
def test_without_cuts(cls, name):
    model = load(SOK / name)
    best = optimum(name)
    assert_plan(model, run(cls, model, best + 2, NO_CUTS), best + 2)
    assert_plan(model, run(cls, model, best, NO_CUTS), best)
    assert run(cls, model, best - 1, NO_CUTS).answer is Answer.UNSAT


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_unsolvable_is_unsat(cls):
    model = load(SOK / "unsolvable.yaml")
    assert optimum("unsolvable.yaml") is None
    for horizon in (0, 4, 10):
        assert run(cls, model, horizon).answer is Answer.UNSAT
        assert run(cls, model, horizon, NO_CUTS).answer is Answer.UNSAT


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_exact_semantics(cls):
    model = load(SOK / "seed-004.yaml")
    best = optimum("seed-004.yaml")
    exact = EncodingOptions(goal="exact", no_reversal=False)
    assert_plan(model, run(cls, model, best, exact), best, exact=True)
    # exactly best + 2: an optimal plan padded by a walk there and back
    padded = run(cls, model, best + 2, exact)
    assert_plan(model, padded, best + 2, exact=True)
    assert run(cls, model, best - 1, exact).answer is Answer.UNSAT


def test_incremental_sat_finds_the_optimum():
    model = load(SOK / "seed-004-player-goal.yaml")
    best = optimum("seed-004-player-goal.yaml")
    inc = IncrementalSat(SokobanOneHot(model))
    try:
        answers = [inc.solve(t).answer for t in range(best + 1)]
        assert answers == [Answer.UNSAT] * best + [Answer.SAT]
    finally:
        inc.close()


def test_cp_hint_is_accepted():
    model = load(SOK / "seed-004.yaml")
    plan = solve(model, "bfs", Request()).plan
    moves = list(plan.moves)
    result = cp_solve(SokobanCp(model), len(moves) + 1, workers=1, hint=moves)
    assert_plan(model, result, len(moves) + 1)
    result = cp_solve(SokobanCp(model, EncodingOptions(goal="exact", no_reversal=False)), len(moves),
                      workers=1, hint=moves)
    assert_plan(model, result, len(moves), exact=True)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_pushes_metric_refused(cls):
    model = load(SOK / "seed-004.yaml").with_metric("pushes")
    assert cls.metrics == ("moves",)
    with pytest.raises(ValueError, match="moves metric only"):
        cls(model)


def test_verify_agrees(capsys):
    from puzzleplan.plans.cli import main
    assert set(REGISTRY) <= set(enc_base.encodings_for("sokoban"))   # declared by the family
    code = main(["verify", str(SOK / "seed-004.yaml"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["agree"] is True
    methods = " ".join(row["method"] for row in out["certificates"])
    assert "sok-onehot" in methods and "cp-sok" in methods


# -- the pushes metric: sok-push ------------------------------------------------------------------

@lru_cache(maxsize=None)
def push_optimum(name: str) -> int | None:
    result = solve(load(SOK / name).with_metric("pushes"), "bfs", Request())
    return None if result.plan is None else result.plan.cost


def assert_push_plan(model, result, pushes: int) -> None:
    assert result.answer is Answer.SAT
    assert plan_cost(result.moves) <= pushes
    report = check_plan(model, list(result.moves))
    assert report.valid, (result.moves, report.error)


@pytest.mark.parametrize("options", [EncodingOptions(), NO_CUTS], ids=["cuts", "no-cuts"])
@pytest.mark.parametrize("name", SMALL)
def test_push_optimum_and_one_below(name, options):
    model = load(SOK / name).with_metric("pushes")
    best = push_optimum(name)
    assert best is not None
    assert_push_plan(model, solve_fixed(SokobanPushes(model, options), best), best)
    if best > 0:
        assert solve_fixed(SokobanPushes(model, options), best - 1).answer is Answer.UNSAT


def test_push_unsolvable_incremental_and_declared():
    model = load(SOK / "unsolvable.yaml").with_metric("pushes")
    for horizon in (0, 3, 8):
        assert solve_fixed(SokobanPushes(model), horizon).answer is Answer.UNSAT
    model = load(SOK / "seed-004-player-goal.yaml").with_metric("pushes")
    best = push_optimum("seed-004-player-goal.yaml")
    inc = IncrementalSat(SokobanPushes(model))
    try:
        answers = [inc.solve(t).answer for t in range(best + 1)]
        assert answers == [Answer.UNSAT] * best + [Answer.SAT]
    finally:
        inc.close()
    assert enc_base.encodings_for(model, "sat")[0] == "sok-push"
    assert "sok-push" not in enc_base.encodings_for(model.with_metric("moves"))
    with pytest.raises(ValueError, match="pushes metric only"):
        SokobanPushes(model.with_metric("moves"))


def test_verify_pushes_with_sok_push(capsys):
    from puzzleplan.plans.cli import main
    code = main(["verify", str(SOK / "seed-004.yaml"), "--metric", "pushes", "--encodings", "sok-push", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "verified" and out["agree"] is True
    assert any("sok-push" in row["method"] for row in out["certificates"])


def test_frozen_patterns_on_a_corridor():
    # two boxes side by side against the top wall, off the goals: frozen; on goals: allowed
    model = Sokoban(["#######", "#. $$ #", "#    .#", "#  @  #", "#######"])
    patterns = frozen_patterns(model, [not d for d in model.dead])
    a, b = model.index[(1, 3)], model.index[(1, 4)]
    assert (a, b) in patterns
    goals = Sokoban(["#######", "#  ** #", "#  $$@#", "#   ..#", "#######"])
    assert not any({goals.index[(1, 3)], goals.index[(1, 4)]} >= set(p) for p in
                   frozen_patterns(goals, [not d for d in goals.dead]))
    assert frozen_subset(model.nbr, model.dead, {a, b}) == {a, b}


@st.composite
def small_levels(draw):
    """A random walled level of 3x4 inside cells: a few inner walls, one or two boxes."""
    rows, cols = 3, 4
    inner = [(r, c) for r in range(1, rows + 1) for c in range(1, cols + 1)]
    walls = set(draw(st.lists(st.sampled_from(inner), max_size=3)))
    floor = [cell for cell in inner if cell not in walls]
    boxes = draw(st.integers(1, 2))
    picked = draw(st.lists(st.sampled_from(floor), min_size=2 * boxes + 1, max_size=2 * boxes + 1, unique=True))
    player, box_cells, goal_cells = picked[0], set(picked[1:1 + boxes]), set(picked[1 + boxes:])
    grid = []
    for r in range(rows + 2):
        row = ""
        for c in range(cols + 2):
            cell = (r, c)
            if r in (0, rows + 1) or c in (0, cols + 1) or cell in walls:
                row += "#"
            elif cell == player:
                row += "+" if cell in goal_cells else "@"
            elif cell in box_cells:
                row += "*" if cell in goal_cells else "$"
            else:
                row += "." if cell in goal_cells else " "
        grid.append(row)
    return grid


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_levels())
def test_random_levels_agree_with_bfs(grid):
    """Both metrics: the encodings (with their deadlock clauses and distance bounds) find BFS's
    optimum and nothing below it; an unsolvable level stays UNSAT."""
    for metric, cls in (("pushes", SokobanPushes), ("moves", SokobanOneHot)):
        try:
            model = Sokoban(grid, metric=metric)
        except Exception:   # the player walled off from the level's edge: not a level
            return
        result = solve(model, "bfs", Request())
        if result.plan is None:
            assert solve_fixed(cls(model), 6).answer is Answer.UNSAT
            continue
        best = result.plan.cost
        found = solve_fixed(cls(model), best)
        assert found.answer is Answer.SAT and check_plan(model, list(found.moves)).valid
        if best > 0:
            assert solve_fixed(cls(model), best - 1).answer is Answer.UNSAT, grid
            # and on one solver, as verify asks
            assert [r.answer for r in solve_then_fewer(cls(model), best)] == [Answer.SAT, Answer.UNSAT], grid


# -- the moves metric over push steps: sok-walk ---------------------------------------------------

def walk_at(model, horizon: int, options: EncodingOptions = EncodingOptions()):
    """sok-walk's own driver (growing push horizons), as `verify` runs it."""
    return SokobanWalks(model, options).solve_at(horizon)


@pytest.mark.parametrize("options", [EncodingOptions(), NO_CUTS], ids=["cuts", "no-cuts"])
@pytest.mark.parametrize("name", SMALL)
def test_walk_optimum_and_one_below(name, options):
    model = load(SOK / name)
    best = optimum(name)
    assert_plan(model, walk_at(model, best, options), best)
    if best > 0:
        assert walk_at(model, best - 1, options).answer is Answer.UNSAT


@pytest.mark.parametrize("name", ["seed-004.yaml", "seed-004-player-goal.yaml"])
def test_walk_layered_form_and_incremental(name):
    """The plain layered form (T push steps) agrees: solve_fixed and the incremental driver."""
    model = load(SOK / name)
    best = optimum(name)
    assert_plan(model, solve_fixed(SokobanWalks(model), best), best)
    assert solve_fixed(SokobanWalks(model), best - 1).answer is Answer.UNSAT
    inc = IncrementalSat(SokobanWalks(model))
    try:
        answers = [inc.solve(t).answer for t in range(best + 1)]
        assert answers == [Answer.UNSAT] * best + [Answer.SAT]
    finally:
        inc.close()


def test_walk_refuses_exact_and_pushes():
    model = load(SOK / "seed-004.yaml")
    with pytest.raises(ValueError, match="goal 'by' only"):
        SokobanWalks(model, EncodingOptions(goal="exact", no_reversal=False))
    with pytest.raises(ValueError, match="moves metric only"):
        SokobanWalks(model.with_metric("pushes"))
    assert walk_at(load(SOK / "unsolvable.yaml"), 12).answer is Answer.UNSAT


def test_verify_moves_with_sok_walk(capsys):
    from puzzleplan.plans.cli import main
    code = main(["verify", str(SOK / "seed-004-player-goal.yaml"), "--encodings", "sok-walk", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "verified" and out["agree"] is True
    rows = [row for row in out["certificates"] if "sok-walk" in row["method"]]
    assert [row["answer"] for row in rows] == ["holds", "holds"] and rows[1]["kind"] == "bound"


# -- the pushes metric in CP-SAT: cp-sok-push ----------------------------------------------------

@pytest.mark.parametrize("options", [EncodingOptions(), NO_CUTS], ids=["cuts", "no-cuts"])
@pytest.mark.parametrize("name", SMALL)
def test_cp_push_optimum_and_one_below(name, options):
    model = load(SOK / name).with_metric("pushes")
    best = push_optimum(name)
    assert_push_plan(model, cp_solve(SokobanPushesCp(model, options), best, workers=1), best)
    if best > 0:
        assert cp_solve(SokobanPushesCp(model, options), best - 1, workers=1).answer is Answer.UNSAT


def test_cp_push_unsolvable_declared_and_verify(capsys):
    from puzzleplan.plans.cli import main
    model = load(SOK / "unsolvable.yaml").with_metric("pushes")
    for horizon in (0, 3, 8):
        assert cp_solve(SokobanPushesCp(model), horizon, workers=1).answer is Answer.UNSAT
    assert "cp-sok-push" in enc_base.encodings_for(model, "cpsat")
    assert "cp-sok-push" not in enc_base.encodings_for(model.with_metric("moves"))
    with pytest.raises(ValueError, match="pushes metric only"):
        SokobanPushesCp(model.with_metric("moves"))
    code = main(["verify", str(SOK / "seed-004.yaml"), "--metric", "pushes", "--encodings", "cp-sok-push", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "verified" and out["agree"] is True
    assert any("cp-sok-push" in method for method in out["proofs"])


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_levels())
def test_random_levels_new_encodings_agree_with_bfs(grid):
    """sok-walk (moves) and cp-sok-push (pushes) find BFS's optimum and nothing below it."""
    for metric in ("moves", "pushes"):
        try:
            model = Sokoban(grid, metric=metric)
        except Exception:   # the player walled off from the level's edge: not a level
            return
        result = solve(model, "bfs", Request())
        ask = ((lambda t: walk_at(model, t)) if metric == "moves" else
               (lambda t: cp_solve(SokobanPushesCp(model), t, workers=1)))
        if result.plan is None:
            assert ask(6).answer is Answer.UNSAT
            continue
        best = result.plan.cost
        found = ask(best)
        assert found.answer is Answer.SAT and check_plan(model, list(found.moves)).valid, grid
        assert (len(found.moves) if metric == "moves" else plan_cost(found.moves)) <= best
        if best > 0:
            assert ask(best - 1).answer is Answer.UNSAT, grid


@pytest.mark.parametrize("name", ["first-push.yaml", "seed-004.yaml", "turn.yaml", "three.yaml",
                                  "seed-004-player-goal.yaml"])
def test_onehot_cuts_keep_long_horizons_satisfiable(name):
    """Under goal `by` the shortest-plan cuts (walk order, detours, loops) never rule out an
    optimal plan padded with idle steps: SAT at every horizon from the optimum to optimum + 8."""
    model = load(SOK / name)
    best = optimum(name)
    for horizon in range(best, best + 9):
        assert_plan(model, solve_fixed(SokobanOneHot(model), horizon), horizon)


# -- sok-onehot's pattern bounds and shortcut cut ------------------------------------------------

MICROBAN = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "microban.xsb"


def state_space(model):
    """Every state reachable from the start (boxes, player) with its depth in moves, and the
    fewest moves from each to the goal (missing: never), by plain breadth-first search."""
    from collections import deque
    start = (frozenset(c for c in range(model.ncells) if model.start_boxes >> c & 1), model.start_player)
    depth, edges, queue = {start: 0}, {}, deque([start])
    while queue:
        boxes, p = state = queue.popleft()
        edges[state] = []
        for d in range(4):
            q = model.nbr[p][d]
            if q < 0:
                continue
            nxt = (boxes, q)
            if q in boxes:
                k = model.nbr[q][d]
                if k < 0 or k in boxes:
                    continue
                nxt = (boxes - {q} | {k}, q)
            edges[state].append(nxt)
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                queue.append(nxt)
    back: dict = {}
    for state, targets in edges.items():
        for nxt in targets:
            back.setdefault(nxt, []).append(state)
    goals = frozenset(model.goal_cells)
    to_go = {s: 0 for s in depth if s[0] == goals and model.pg in (None, s[1])}
    queue = deque(to_go)
    while queue:
        state = queue.popleft()
        for before in back.get(state, ()):
            if before not in to_go:
                to_go[before] = to_go[state] + 1
                queue.append(before)
    return depth, to_go


@pytest.mark.parametrize("level", ["seed-004.yaml", "seed-004-player-goal.yaml", "pocket.yaml", "ragged.yaml",
                                   "microban 2", "microban 4", "microban 17"])
def test_pattern_bounds_are_admissible(level):
    """Each table of one or two boxes (fewer than the level has) never exceeds the true moves
    from the start, nor the true moves to go, in any reachable state holding the pattern."""
    from itertools import combinations
    from puzzleplan.encoders.sat.sokoban_bound import PatternBounds
    from puzzleplan.models.sokoban.model import load_collection
    model = load_collection(MICROBAN, int(level.split()[1])) if level.startswith("microban") else load(SOK / level)
    boxable = [not d for d in model.dead]
    count = bin(model.start_boxes).count("1")
    bounds = PatternBounds(model, boxable, count)
    assert len(bounds.to_go) == len(bounds.from_start) == min(2, count - 1)
    depth, to_go = state_space(model)
    checked = 0
    for (boxes, p), moves in depth.items():
        if not all(boxable[b] for b in boxes):
            continue
        for size, (ahead, behind) in enumerate(zip(bounds.to_go, bounds.from_start), start=1):
            for pattern in combinations(sorted(boxes), size):
                assert behind.get((pattern, p), 1 << 30) <= moves, (pattern, p)
                if (boxes, p) in to_go:
                    assert ahead.get((pattern, p), 1 << 30) <= to_go[boxes, p], (pattern, p)
                    checked += 1
    assert checked > 0


@pytest.mark.parametrize("level", [2, 17, 30])
def test_onehot_on_three_box_microban(level):
    """Pair tables and all cuts on: the push engine's optimum and one below, then the optimum
    padded by up to 3 idle steps (the shortest-plan cuts keep a padded optimal plan)."""
    from puzzleplan.models.sokoban.model import load_collection
    model = load_collection(MICROBAN, level)
    best = solve(model, "push", Request()).plan.length
    assert len(SokobanOneHot(model).bounds.to_go) == 2
    for horizon in range(best, best + 4):
        assert_plan(model, solve_fixed(SokobanOneHot(model), horizon), horizon)
    assert solve_fixed(SokobanOneHot(model), best - 1).answer is Answer.UNSAT


def test_wall_paths_are_shortest():
    from puzzleplan.encoders.sat.sokoban_bound import wall_paths
    from puzzleplan.models.sokoban.analysis import walk_distances
    model = load(SOK / "pocket.yaml")
    paths = wall_paths(model.nbr)
    assert len(paths) == model.ncells * (model.ncells - 1)
    for c, e, path in paths:
        assert path[-1] == e and len(path) == walk_distances(model.nbr, c)[e]
        assert all(b in model.nbr[a] for a, b in zip([c] + path, path))


# -- cp-sok with sok-onehot's pattern bounds and the player's parity -----------------------------
CP_VARIANTS = {"all": EncodingOptions(), "no-parity": EncodingOptions(parity=False),
               "no-bounds": EncodingOptions(distance_cuts=False),
               "neither": EncodingOptions(parity=False, distance_cuts=False)}


@pytest.mark.parametrize("variant", CP_VARIANTS)
@pytest.mark.parametrize("name", ["seed-004.yaml", "seed-004-player-goal.yaml", "three.yaml", "pocket.yaml"])
def test_cp_bounds_and_parity_on_and_off(name, variant):
    """The bfs optimum and UNSAT one below, with the pattern bounds (under distance_cuts) and
    the parity rule each on and off, and padded horizons (parity's idle release)."""
    options = CP_VARIANTS[variant]
    model = load(SOK / name)
    best = optimum(name)
    enc = SokobanCp(model, options)
    assert (enc.bounds is not None) == options.distance_cuts
    if enc.bounds is not None:
        assert len(enc.bounds.to_go) == min(2, len(enc.start_boxes) - 1)
    for horizon in (best, best + 1):
        assert_plan(model, run(SokobanCp, model, horizon, options), horizon)
    assert run(SokobanCp, model, best - 1, options).answer is Answer.UNSAT


@pytest.mark.parametrize("variant", ["all", "no-parity"])
def test_cp_exact_parity(variant):
    """Under `exact` the parity rule narrows the player's domain: exactly best and best + 2 are
    plans, best + 1 is not (every move changes the player's colour, and the goal fixes it)."""
    model = load(SOK / "seed-004-player-goal.yaml")
    best = optimum("seed-004-player-goal.yaml")
    exact = CP_VARIANTS[variant].with_(goal="exact", no_reversal=False)
    assert_plan(model, run(SokobanCp, model, best, exact), best, exact=True)
    assert_plan(model, run(SokobanCp, model, best + 2, exact), best + 2, exact=True)
    assert run(SokobanCp, model, best + 1, exact).answer is Answer.UNSAT


@pytest.mark.parametrize("level", [2, 30])
def test_cp_on_three_box_microban(level):
    """Pair tables, parity and all cuts on: the native engine's optimum, padded by up to 2 idle
    steps, and UNSAT one below."""
    from puzzleplan.models.sokoban.model import load_collection
    model = load_collection(MICROBAN, level)
    best = solve(model, "astar", Request()).plan.length
    assert len(SokobanCp(model).bounds.to_go) == 2
    for horizon in range(best, best + 3):
        assert_plan(model, run(SokobanCp, model, horizon), horizon)
    assert run(SokobanCp, model, best - 1).answer is Answer.UNSAT


def test_sok_walk_decodes_a_prefix_only_once_it_is_at_the_goal(capsys, tmp_path: Path) -> None:
    """A prefix whose pushes end away from the goal was decoded with its walk to the player goal,
    which a box may block: an internal error in verify and compare."""
    from helpers import run_cli
    path = tmp_path / "pocketed.yaml"
    path.write_text("puzzle: sokoban\nlevel: |\n  ######\n  #    #\n  #    #\n  #.$###\n  #  @ #\n  ######\n"
                    "player_goal: [2, 2]\n")
    code, out, err = run_cli(capsys, "verify", path, "--encodings", "sok-walk")
    assert code == 0 and "verified: the minimal move count is 13" in out, err


def test_an_encoding_of_goal_by_only_is_left_out_of_exact_compares_and_refused_by_name(capsys, tmp_path: Path) -> None:
    from helpers import run_cli
    level = SOK / "two-boxes.yaml"
    code, out, err = run_cli(capsys, "compare", level, "--goal", "exact", "--horizon", "11")
    assert code == 0 and "sok-walk" not in out and "left out under --goal exact: sok-walk encodes goal 'by'" in err
    for command in (["compare", level, "--goal", "exact", "--encodings", "sok-walk"],
                    ["export", level, "--to", "dimacs", "--encoding", "sok-walk", "--goal", "exact", "--horizon", "11",
                     "-o", tmp_path / "y.cnf"],
                    ["solve", level, "--engine", "sat", "--encoding", "sok-walk", "--goal", "exact"]):
        code, _, err = run_cli(capsys, *command)
        assert code == 2 and err.strip() == "puzzleplan: error: --goal: sok-walk encodes goal 'by' only, not 'exact'"
