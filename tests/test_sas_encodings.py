"""The generic encodings over the planning task (sas-seq, sas-exists, cp-sas): optima on the
catalogue, soundness of UNSAT, agreement with search on random tiny tasks, action costs, and
their place beside the hand-tuned encodings in solve, verify, compare and export."""
from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue import EXAMPLES
from helpers import run_cli, run_json
from puzzleplan.encoders.base import Answer, EncodingOptions, encoding_class, encodings_for
from puzzleplan.encoders.cpsat.base import solve as cp_solve
from puzzleplan.encoders.engines import pick_encoding
from puzzleplan.encoders.sas_analysis import analysis, exists_order
from puzzleplan.encoders.sat.base import solve_fixed, solve_then_fewer
from puzzleplan.encoders.sat.cost import minimise_cost
from puzzleplan.models import load
from puzzleplan.models.task.ir import Task, Variable, action
from puzzleplan.models.task.model import TaskModel
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.check.task import replay
from puzzleplan.plans.core.types import Request, Status
from puzzleplan.plans.solve import solve

GENERIC = ("sas-seq", "sas-exists", "cp-sas")
BY = EncodingOptions(goal="by")

# (file, metric, optimum in the metric): tiles <= 3x3, Rush Hour optima <= 20, small Sokoban levels
UNIT_CASES = [
    ("tiles/small-2x3.yaml", None, 13),
    ("tiles/seed-002-small.yaml", None, 11),
    ("rush-hour/walls.yaml", "step", 10),
    ("rush-hour/walls.yaml", "slide", 4),
    ("rush-hour/seed-003-card.yaml", "step", 16),
    ("rush-hour/seed-003-card.yaml", "slide", 8),
    ("rush-hour/large-8x8.yaml", "slide", 13),
    ("sokoban/seed-004.yaml", "moves", 9),
    ("sokoban/seed-004-player-goal.yaml", "moves", 11),
    ("sokoban/two-boxes.yaml", "moves", 11),
    ("sokoban/turn.yaml", "moves", 5),
    ("sokoban/l-room.yaml", "moves", 11),
]
PUSH_CASES = [("sokoban/seed-004.yaml", 4), ("sokoban/l-room.yaml", 3), ("sokoban/around.yaml", 2),
              ("sokoban/three.yaml", 5)]


def _model(path: str, metric: str | None) -> object:
    return load(EXAMPLES / path, {"metric": metric} if metric else None)


def _ask(model: object, name: str, horizon: int, options: EncodingOptions = BY):
    cls = encoding_class(name)
    enc = cls(model, options)
    return solve_fixed(enc, horizon) if cls.backend == "sat" else cp_solve(enc, horizon)


def _case_id(case: tuple) -> str:
    return f"{case[0]}/{case[1]}"


def test_expectations_match_the_files() -> None:
    for path, metric, optimum in UNIT_CASES:
        expect = _model(path, metric).expect
        assert expect.get(f"optimal_{metric}", expect.get("optimal")) == optimum, path
    for path, pushes in PUSH_CASES:
        assert _model(path, "pushes").expect["optimal_pushes"] == pushes


@pytest.mark.parametrize("case", UNIT_CASES, ids=_case_id)
def test_optimum_and_unsat_below(case: tuple) -> None:
    """SAT at the stated optimum with a checked plan of that length; UNSAT one below. The
    parallel encoding is asked both ways: one action per step it is exact; in parallel a model
    one step below may exist, but it never decodes to a plan shorter than the optimum."""
    path, metric, optimum = case
    model = _model(path, metric)
    for name in GENERIC:
        options = BY.with_(parallel=False) if name == "sas-exists" else BY
        found = _ask(model, name, optimum, options)
        assert found.answer is Answer.SAT, name
        assert len(found.moves) == optimum and check_plan(model, found.moves, "printed").valid, name
        assert _ask(model, name, optimum - 1, options).answer is Answer.UNSAT, name
    parallel = _ask(model, "sas-exists", optimum - 1)
    if parallel.answer is Answer.SAT:
        assert len(parallel.moves) >= optimum and check_plan(model.with_changes(max_moves=None), parallel.moves).valid


@pytest.mark.parametrize("case", UNIT_CASES, ids=_case_id)
def test_bound_on_the_plans_solver(case: tuple) -> None:
    """sas-seq on one solver (verify's default): the plan at the optimum, then no plan one
    shorter under assumptions; one above the optimum, the second answer is a plan of it."""
    path, metric, optimum = case
    model = _model(path, metric)
    at, below = solve_then_fewer(encoding_class("sas-seq")(model, BY), optimum)
    assert at.answer is Answer.SAT and check_plan(model, at.moves, "printed").valid
    assert below.answer is Answer.UNSAT and below.horizon == optimum - 1
    above, again = solve_then_fewer(encoding_class("sas-seq")(model, BY), optimum + 1)
    assert above.answer is again.answer is Answer.SAT and len(again.moves) == optimum
    assert check_plan(model, again.moves, "printed").valid


@pytest.mark.parametrize("path,pushes", PUSH_CASES)
def test_cheapest_pushes_within_a_horizon(path: str, pushes: int) -> None:
    """Under `pushes` (walks cost 0) the cheapest plan within twice the move optimum costs the
    stated optimum, by the SAT cost bounds and by the CP-SAT objective."""
    model = _model(path, "pushes")
    horizon = 2 * model.expect["optimal_moves"]
    for name in ("sas-seq", "sas-exists"):
        cost, moves = _cheapest(list(minimise_cost(encoding_class(name)(model, BY), horizon, "cadical195", None)))
        assert cost == pushes and check_plan(model, moves, "printed").valid, name
    enc = encoding_class("cp-sas")(model, BY)
    enc.objective = True
    found = cp_solve(enc, horizon)
    assert found.extra["cp_status"] == "OPTIMAL" and check_plan(model, found.moves, "printed").valid
    assert replay(TaskModel(enc.task), found.moves)[1] == pushes


@pytest.mark.parametrize("engine,encoding", [("sat", "sas-seq"), ("sat", "sas-exists"), ("cpsat", "cp-sas")])
def test_engines_on_both_metrics(engine: str, encoding: str) -> None:
    request = Request(options={"encoding": encoding})
    walls = solve(_model("rush-hour/walls.yaml", "step"), engine, request)
    assert walls.status is Status.OPTIMAL and walls.plan.length == 10 and walls.lower_bound == 10
    pushes = solve(_model("sokoban/two-boxes.yaml", "pushes"), engine, request)
    assert pushes.status.has_plan and pushes.plan.cost == 4
    assert "cost_proof" in pushes.stats.extra and pushes.stats.extra["cost_horizon"] >= 11
    if pushes.status is Status.OPTIMAL:   # only with a proof for every plan (here: the admissible bound)
        assert pushes.stats.extra["cost_proof"] == "no plan costs less than 4"
    # the first plan costs more than the admissible bound h = 5; the cost phase's plan of cost 5
    # meets it, which proves it cheapest for every plan
    goal = solve(_model("sokoban/player-on-goal.yaml", "pushes"), engine, request)
    assert goal.status is Status.OPTIMAL and goal.plan.cost == 5 == goal.lower_bound
    assert goal.stats.extra["cost_proof"] == "no plan costs less than 5"


# -- random tiny tasks against search ---------------------------------------------------------

@st.composite
def tiny_tasks(draw, costs: bool = False, actions: int = 6) -> Task:
    sizes = draw(st.lists(st.integers(2, 3), min_size=1, max_size=3))
    variables = tuple(Variable(f"v{k}", tuple(str(x) for x in range(n))) for k, n in enumerate(sizes))
    facts = st.sampled_from([(v, x) for v, n in enumerate(sizes) for x in range(n)])
    grounded = []
    for k in range(draw(st.integers(1, actions))):
        pre = dict(draw(st.lists(facts, max_size=2)))
        eff = dict(draw(st.lists(facts, min_size=1, max_size=2)))
        grounded.append(action(f"a{k}", pre, eff, draw(st.integers(0, 3)) if costs else 1))
    init = tuple(draw(st.integers(0, n - 1)) for n in sizes)
    goal = tuple(sorted(dict(draw(st.lists(facts, min_size=1, max_size=3))).items()))
    return Task("tiny", variables, init, goal, tuple(grounded))


def _shortest(task: Task) -> int | None:
    seen = {task.init: 0}
    queue = deque([task.init])
    while queue:
        state = queue.popleft()
        if task.is_goal(state):
            return seen[state]
        for _, child in task.successors(state):
            if child not in seen:
                seen[child] = seen[state] + 1
                queue.append(child)
    return None


def _cheapest_within(task: Task, steps: int | None) -> int | None:
    """The least cost of a plan of at most `steps` moves (None: any length), by layered relaxation."""
    best = {task.init: 0}
    found = 0 if task.is_goal(task.init) else None
    for _ in range(steps if steps is not None else 4 * 3 ** len(task.variables)):
        nxt = dict(best)
        for state, cost in best.items():
            for a, child in task.successors(state):
                if cost + a.cost < nxt.get(child, 1 << 30):
                    nxt[child] = cost + a.cost
        best = nxt
        goals = [c for s, c in best.items() if task.is_goal(s)]
        if goals:
            found = min(goals) if found is None else min(found, min(goals))
    return found


def _cheapest(results: list) -> tuple[int, list[str]]:
    """The proved minimum of a minimise_cost run: its last plan, proved by a final UNSAT (or cost 0)."""
    plans = [r for r in results if r.answer is Answer.SAT]
    assert plans and (results[-1].answer is Answer.UNSAT or plans[-1].extra["cost"] == 0)
    return plans[-1].extra["cost"], plans[-1].moves


def _first_sat(model: TaskModel, name: str, options: EncodingOptions, up_to: int):
    for t in range(up_to + 1):
        result = _ask(model, name, t, options)
        if result.answer is Answer.SAT:
            return t, result.moves
    return None, None


@settings(max_examples=40, deadline=None)
@given(tiny_tasks())
def test_shortest_plan_matches_bfs(task: Task) -> None:
    model = TaskModel(task)
    length = _shortest(task)
    up_to = 3 * 3 ** len(task.variables)
    for name, options in (("sas-seq", BY), ("cp-sas", BY), ("sas-exists", BY.with_(parallel=False))):
        t, moves = _first_sat(model, name, options, length if length is not None else min(up_to, 8))
        assert t == length, name
        if moves is not None:
            assert len(moves) == length and replay(model, moves)[0], name
    t, moves = _first_sat(model, "sas-exists", BY, length if length is not None else 8)
    assert (t is None) == (length is None)
    if moves is not None:   # fewer parallel steps, never fewer moves, and a valid replay
        assert t <= length <= len(moves) and replay(model, moves)[0]
    if length:   # verify's shared solver: the plan, then none shorter, on one sas-seq solver
        at, below = solve_then_fewer(encoding_class("sas-seq")(model, BY), length)
        assert at.answer is Answer.SAT and below.answer is Answer.UNSAT


@settings(max_examples=60, deadline=None)
@given(tiny_tasks(actions=8))
def test_every_parallel_model_replays(task: Task) -> None:
    """Whatever the horizon, an exists-step model decodes (in the step order) to a valid plan:
    the chain clauses forbid a step whose order would break a later action's precondition."""
    model = TaskModel(task)
    for t in (1, 2, 3):
        found = _ask(model, "sas-exists", t)
        if found.answer is Answer.SAT:
            assert replay(model, found.moves)[0], (t, found.moves)


@settings(max_examples=30, deadline=None)
@given(tiny_tasks(costs=True))
def test_cheapest_plan_within_a_horizon_matches_search(task: Task) -> None:
    model = TaskModel(task)
    length = _shortest(task)
    if length is None:
        return
    horizon = length + 2
    within = _cheapest_within(task, horizon)
    cost, moves = _cheapest(list(minimise_cost(encoding_class("sas-seq")(model, BY), horizon, "cadical195", None)))
    assert cost == within and replay(model, moves) == (True, within)
    enc = encoding_class("cp-sas")(model, BY)
    enc.objective = True
    found = cp_solve(enc, horizon)
    assert found.extra["cp_status"] == "OPTIMAL" and replay(model, found.moves) == (True, within)
    # parallel steps hold more moves: never cheaper than the global optimum, never dearer than `within`
    cost, moves = _cheapest(list(minimise_cost(encoding_class("sas-exists")(model, BY), horizon, "cadical195", None)))
    assert _cheapest_within(task, None) <= cost <= within and replay(model, moves) == (True, cost)


# -- action costs through the engines ---------------------------------------------------------

def _ladder(jump_cost: int, step_cost: int) -> TaskModel:
    """pos 0..3, goal 3: one jump 0 -> 3, or three steps i -> i+1."""
    pos = Variable("pos", ("0", "1", "2", "3"))
    actions = [action("jump", {0: 0}, {0: 3}, jump_cost)]
    actions += [action(f"step{i}", {0: i}, {0: i + 1}, step_cost) for i in range(3)]
    return TaskModel(Task("ladder", (pos,), (0,), ((0, 3),), tuple(actions)))


@pytest.mark.parametrize("engine,encoding", [("sat", "sas-seq"), ("sat", "sas-exists"), ("cpsat", "cp-sas")])
def test_cheapest_plan_is_longer_than_the_shortest(engine: str, encoding: str) -> None:
    model = _ladder(10, 1)
    result = solve(model, engine, Request(options={"encoding": encoding}))
    assert result.status is Status.OPTIMAL and list(result.plan.moves) == ["step0", "step1", "step2"]
    assert result.plan.cost == 3 and result.stats.extra["cost_proof"] == "no plan costs less than 3"
    capped = solve(model, engine, Request(max_moves=2, options={"encoding": encoding}))
    assert capped.status is Status.NO_PLAN_WITHIN_CAP          # every plan of cost <= 2 has <= 2 steps
    free = solve(_ladder(10, 0), engine, Request(options={"encoding": encoding, "max_horizon": 3}))
    assert free.plan.cost == 0 and free.status in (Status.OPTIMAL, Status.SOLVED)
    # free steps: the cost bounds no horizon, but 4 states do (a cheapest plan takes <= 3 steps)
    whole = solve(_ladder(10, 0), engine, Request(options={"encoding": encoding}))
    assert whole.status is Status.OPTIMAL and whole.plan.cost == 0
    # a max_horizon below that proves nothing beyond it, and the answer says exactly that
    near = solve(_ladder(10, 0), engine, Request(options={"encoding": encoding, "max_horizon": 2}))
    assert near.status is Status.SOLVED and near.plan.cost == 10
    assert near.stats.extra["cost_proof"] == "no plan of at most 2 steps costs less than 10 (longer ones not ruled out)"


@pytest.mark.parametrize("path", ["pddl/ferry.yaml", "rules/water-jugs.yaml"])
def test_task_families_without_encodings_of_their_own(path: str) -> None:
    """Rules and PDDL files get the generic encodings by default; ferry's actions cost 1 or 2."""
    if not (EXAMPLES / path).exists():
        pytest.skip(f"{path} is not in this checkout")
    model = load(EXAMPLES / path)
    assert pick_encoding(model, "sat", None) == "sas-seq" and pick_encoding(model, "cpsat", None) == "cp-sas"
    for engine in ("sat", "cpsat"):
        result = solve(model, engine, Request())
        assert result.status is Status.OPTIMAL and result.plan.cost == model.expect["optimal"], engine


def test_a_solver_without_assumptions_minimises_cost_on_fresh_instances() -> None:
    """python-sat's Kissat ignores assumptions and solves once: the cost bound goes in as a unit
    clause on a fresh solver each round, so it finds ferry's optimum and proves the bound (it
    answered the unbounded question, and verify called its dearer plan a disagreement)."""
    import puzzleplan
    model = load(EXAMPLES / "pddl" / "ferry.yaml")
    result = solve(model, "sat", Request(options={"solver": "kissat"}))
    assert result.status is Status.OPTIMAL and result.plan.cost == model.expect["optimal"] == 12
    found = puzzleplan.verify(model, encodings=["sas-seq"], solver="kissat", progress=False)
    assert found.optimal == 12 and all(c.result == "holds" for c in found.certificates), found.summary()


@pytest.mark.parametrize("engine", ["sat", "cpsat"])
def test_zero_cost_moves_prove_within_the_horizon_or_the_states(engine: str) -> None:
    """Free steps but a costly goal move: the cheapest plan within T steps is a global proof only
    when T reaches the states less one (no cheapest plan visits a state twice)."""
    pos = Variable("pos", ("0", "1", "2", "3"))
    actions = (action("walk", {0: 0}, {0: 1}, 0), action("back", {0: 1}, {0: 0}, 0),
               action("finish", {0: 1}, {0: 3}, 2), action("far", {0: 1}, {0: 2}, 0),
               action("cheap", {0: 2}, {0: 3}, 1))
    model = TaskModel(Task("free", (pos,), (0,), ((0, 3),), actions))
    short = solve(model, engine, Request(options={"max_horizon": 2}))
    assert short.plan.cost == 2 and short.status is Status.SOLVED
    assert short.stats.extra["cost_proof"].startswith("no plan of at most 2 steps costs less than 2")
    whole = solve(model, engine, Request())
    assert whole.plan.moves == ("walk", "far", "cheap") and whole.status is Status.OPTIMAL
    assert whole.stats.extra["cost_proof"] == "no plan costs less than 1"


@pytest.mark.parametrize("engine", ["sat", "cpsat"])
def test_no_plan_within_the_states_less_one_is_no_plan_at_all(engine: str) -> None:
    """y = 1 needs x = 1, and then x is stuck: the goal (x = 0, y = 1) is out of reach, though
    not by the delete relaxation; UNSAT up to 3 steps (4 states) proves it, free moves or not."""
    bits = (Variable("x", ("0", "1")), Variable("y", ("0", "1")))
    actions = (action("flip0", {0: 0, 1: 0}, {0: 1}, 0), action("flip1", {0: 1, 1: 0}, {0: 0}, 0),
               action("set", {0: 1}, {1: 1}, 2))
    model = TaskModel(Task("stuck", bits, (0, 0), ((0, 0), (1, 1)), actions))
    assert model.unsolvable_reason() is None
    result = solve(model, engine, Request())
    assert result.status is Status.UNSOLVABLE and "none has <= 3 steps" in result.message


# -- exists-step --------------------------------------------------------------------------------

def test_exists_step_runs_independent_actions_together() -> None:
    """Two independent switches: one parallel step, two moves; the engine makes it move-optimal."""
    bits = (Variable("x", ("0", "1")), Variable("y", ("0", "1")))
    task = Task("two", bits, (0, 0), ((0, 1), (1, 1)),
                (action("X", {0: 0}, {0: 1}), action("Y", {1: 0}, {1: 1}), action("XY", {}, {0: 1, 1: 0})))
    model = TaskModel(task)
    one = _ask(model, "sas-exists", 1)
    assert one.answer is Answer.SAT and sorted(one.moves) == ["X", "Y"]
    assert _ask(model, "sas-seq", 1).answer is Answer.UNSAT
    result = solve(model, "sat", Request(options={"encoding": "sas-exists"}))
    assert result.status is Status.OPTIMAL and result.plan.length == 2


def test_exists_order_puts_the_disabled_action_first() -> None:
    """a falsifies b's precondition: b must come first in the order, and both fit in one step."""
    bits = tuple(Variable(n, ("0", "1")) for n in "xyz")
    a = action("a", {0: 0}, {1: 1})
    b = action("b", {1: 0}, {2: 1})
    task = Task("order", bits, (0, 0, 0), ((1, 1), (2, 1)), (a, b))
    assert exists_order(task) == [1, 0]
    found = _ask(TaskModel(task), "sas-exists", 1)
    assert found.answer is Answer.SAT and found.moves == ["b", "a"]
    cycle = Task("cycle", bits, (0, 0, 0), ((0, 1), (1, 1)),
                 (action("a", {0: 0}, {1: 1}), action("b", {1: 0}, {0: 1})))
    assert _ask(TaskModel(cycle), "sas-exists", 1).answer is Answer.UNSAT   # each disables the other


@pytest.mark.parametrize("path, metric", [("blocks/side-exit.yaml", "piece"), ("rush-hour/seed-003-card.yaml", "slide"),
                                          ("sokoban/pocket.yaml", "moves"), ("rules/hanoi.yaml", "step")])
def test_exists_order_respects_every_disabling_edge(path: str, metric: str) -> None:
    """The order, computed through one node per fact, against the disabling edges listed one by
    one: where a disables b and a comes first, b also reaches a (one component, any order)."""
    from puzzleplan.encoders.sas_analysis import _strong_components, interference
    from puzzleplan.models.task.compile import compiled
    task = compiled(load(EXAMPLES / path, {"metric": metric})).task
    edges: list[set[int]] = [set() for _ in task.actions]
    for falsifying, needing in interference(task).values():
        for a in falsifying:
            edges[a].update(b for b in needing if b != a)
    component = {i: k for k, members in enumerate(_strong_components([sorted(e) for e in edges])) for i in members}
    order = exists_order(task)
    assert sorted(order) == list(range(len(task.actions)))
    position = {i: n for n, i in enumerate(order)}
    late = [(a, b) for a, out in enumerate(edges) for b in out if position[a] < position[b] and component[a] != component[b]]
    assert not late, late[:5]


def test_relaxed_levels_and_distances() -> None:
    info = analysis(_ladder(10, 1).task)
    assert info.fact_level[0] == [0, 1, 2, 1] and info.goal_distance[0] == [1, 2, 1, 0]
    assert info.lower_steps() == 1


# -- registry, CLI ------------------------------------------------------------------------------

def test_generic_encodings_follow_the_hand_tuned_ones() -> None:
    tiles = load(EXAMPLES / "tiles" / "small-2x3.yaml")
    names = encodings_for(tiles)
    assert names.index("tiles-moves") < names.index("sas-seq") and set(GENERIC) <= set(names)
    assert pick_encoding(tiles, "sat", None) == "tiles-moves"
    assert pick_encoding(tiles, "cpsat", None) == "cp-tiles-table"
    pushes = _model("sokoban/seed-004.yaml", "pushes")
    assert encodings_for(pushes) == ["sok-push", "cp-sok-push", *GENERIC]   # the family's pushes encodings first
    hanoi = load(EXAMPLES / "user" / "hanoi.yaml")
    assert pick_encoding(hanoi, "sat", None) == "sas-seq" and pick_encoding(hanoi, "cpsat", None) == "cp-sas"
    assert encodings_for("sokoban", "sat", "pushes") == ["sok-push", "sas-seq", "sas-exists"]


def test_verify_under_pushes_states_what_each_row_proves(capsys) -> None:
    code, data = run_json(capsys, "verify", EXAMPLES / "sokoban" / "seed-004.yaml", "--metric", "pushes")
    assert code == 0 and data["status"] == "verified" and data["optimal"] == 4 and data["unit"] == "pushes"
    rows = data["certificates"]
    generic = [r for r in rows if "sas" in r["method"]]
    assert {r["method"].split()[1] for r in generic} == {"sas-seq", "cp-sas"}
    assert {r["kind"] for r in generic} == {"plan", "bound-within"}
    assert all("within" in r["claim"] for r in generic)
    assert all(not any(n in p for n in ("sas-seq", "cp-sas")) for p in data["proofs"])   # partial: not proofs
    assert _model("sokoban/seed-004.yaml", "pushes").default_engine in data["proofs"]   # the native optimum
    assert "sat sok-push glucose42" in data["proofs"]     # one push a step (its preferred solver): a proof
    code, out, _ = run_cli(capsys, "verify", EXAMPLES / "sokoban" / "seed-004.yaml", "--metric", "pushes")
    assert "bound it only within a step horizon" in out


def test_verify_and_compare_show_generic_beside_hand_tuned(capsys, tmp_path: Path) -> None:
    level = EXAMPLES / "sokoban" / "seed-004.yaml"
    code, data = run_json(capsys, "verify", level)
    assert code == 0 and data["status"] == "verified"
    assert [r["method"].split()[1] for r in data["certificates"][1:]][::2] == ["sok-onehot", "cp-sok", "sas-seq",
                                                                                 "cp-sas"]   # hand-tuned first
    code, data = run_json(capsys, "compare", level, "--solvers", "cadical195")
    assert code == 0 and [r["encoding"] for r in data] == ["sok-onehot", "cp-sok", "sok-walk", *GENERIC]
    assert all(r["result"] == "sat" and r["valid"] for r in data)
    code, data = run_json(capsys, "verify", EXAMPLES / "rush-hour" / "walls.yaml", "--encodings", "sas-exists")
    assert code == 0 and data["status"] == "verified"


def test_export_and_decode_generic(capsys, tmp_path: Path) -> None:
    from pysat.formula import CNF
    from pysat.solvers import Solver
    level = EXAMPLES / "sokoban" / "seed-004.yaml"
    cnf = tmp_path / "s.cnf"
    assert run_cli(capsys, "export", level, "--to", "dimacs", "--encoding", "sas-seq", "--horizon", "9",
                   "-o", cnf)[0] == 0
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf)).clauses) as s:
        assert s.solve()
        (tmp_path / "s.sol").write_text("v " + " ".join(map(str, s.get_model())) + " 0\n")
    code, data = run_json(capsys, "decode", level, "--map", f"{cnf}.map.json", tmp_path / "s.sol")
    assert code == 0 and data["valid"] and data["length"] <= 9
    assert run_cli(capsys, "export", level, "--metric", "pushes", "--to", "cpsat", "--encoding", "cp-sas",
                   "--horizon", "9", "-o", tmp_path / "s.pb")[0] == 0
    assert (tmp_path / "s.pb").stat().st_size > 0


def test_a_plan_kept_at_a_limit_says_the_proof_is_missing() -> None:
    """A limit after a plan was found: SOLVED with the plan, and the message says what is missing."""
    from puzzleplan.encoders.engines import _gave_up
    from puzzleplan.plans.core.context import SearchContext
    from puzzleplan.plans.core.types import Limits
    model = _model("sokoban/seed-004.yaml", "pushes")
    ctx = SearchContext(Limits(time_limit=5))
    result = _gave_up(ctx, "sat", model, (4, ["L", "U"]), True)
    assert result.status is Status.SOLVED and result.plan.cost == 4
    assert result.message == "time limit of 5 s reached before a proof that no plan is shorter or cheaper"
    assert result.stats.extra["cost_proof"] == "none (time limit)"


PATH_OF_THREE = """\
puzzle: rules
variables: {x: 0..2}
init: {x: 0}
goal: {x: 1}
actions:
  step:
    params: {d: [-1, 1]}
    requires: [0 <= x + d, x + d <= 2]
    effects: {x: x + d}
    name: "{'R' if d == 1 else 'L'}"
"""


def test_compare_goal_exact_finds_plans_that_undo_a_move(capsys, tmp_path: Path) -> None:
    """Every plan of exactly 3 moves from 0 to 1 on a path 0-1-2 undoes a move (R R L, R L R):
    under --goal exact the reversal cut, which holds for shortest plans only, is off."""
    path = tmp_path / "path.yaml"
    path.write_text(PATH_OF_THREE)
    code, rows = run_json(capsys, "compare", path, "--goal", "exact", "--horizon", "3",
                          "--encodings", "sas-seq", "sas-exists", "cp-sas", "--solvers", "cadical195")
    assert code == 0 and {row["result"] for row in rows} == {"sat"}
    assert all(row["length"] == 3 for row in rows)


def test_compare_says_a_parallel_sat_below_the_optimum_is_no_plan_of_that_length(capsys) -> None:
    code, out, _ = run_cli(capsys, "compare", EXAMPLES / "rush-hour" / "walls.yaml", "--horizon", "6", "--goal", "by",
                           "--encodings", "sas-exists", "sas-seq", "--solvers", "cadical195")
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("sas-")}
    assert code == 0 and " sat " in rows["sas-exists"] and " unsat" in rows["sas-seq"]
    assert "parallel steps: sat says nothing of plans of 6 moves)" in rows["sas-exists"]
    assert "parallel" not in rows["sas-seq"]
