"""The planning-task IR: validation, every catalogue example's compilation against its model,
the generic task checker against the family checkers, and the `compile` command."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzleplan.models.task.compile import compiled
from puzzleplan.models.task.ir import Action, Task, TaskError, Variable, action
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.check import task as task_checker
from puzzleplan.plans.check.common import IllegalMove
from tests.catalogue import CASES, heavy_blocks_task
from tests.helpers import run_cli

SMALL = Variable("x", ("a", "b", "c"))


# -- the IR itself ---------------------------------------------------------------------------------
@pytest.mark.parametrize("build, words", [
    (lambda: Task("t", (SMALL,), (3,), (), ()), "outside its domain"),
    (lambda: Task("t", (SMALL,), (0, 0), (), ()), "2 values for 1 variables"),
    (lambda: Task("t", (SMALL,), (0,), ((0, 5),), ()), "outside the domain"),
    (lambda: Task("t", (SMALL,), (0,), (), (Action("m", ((0, 0),), ()),)), "has no effect"),
    (lambda: Task("t", (SMALL,), (0,), (), (Action("m", (), ((0, 1),), -1),)), "from 0 to"),
    (lambda: Task("t", (SMALL, SMALL), (0, 0), ((1, 0), (0, 0)), ()), "sorted"),
    (lambda: Task("t", (Variable("e", ()),), (), (), ()), "at least one value"),
])
def test_malformed_tasks_are_refused(build, words) -> None:
    with pytest.raises(TaskError, match=words):
        build()


def test_parts_are_immutable_and_hashable() -> None:
    task = Task("t", (SMALL,), (0,), ((0, 2),), (action("up", {0: 0}, {0: 1}), action("up", {0: 1}, {0: 2})))
    assert hash(task) == hash(Task("t", (SMALL,), (0,), ((0, 2),), task.actions))
    with pytest.raises(AttributeError):
        task.name = "u"  # type: ignore[misc]
    assert [a.name for a, _ in task.successors((0,))] == ["up"]
    assert task.plan_cost(task.actions) == 2 and task.unit_cost


# -- compiled examples against their models ----------------------------------------------------------
def _plain(model):
    """The model without pruning (a task states the rules; pruning is the model's search aid)."""
    return model.with_options(prune=False) if hasattr(model, "with_options") else model


def _zero_closure(task, state):
    seen, stack = {state}, [state]
    while stack:
        for a, child in task.successors(stack.pop()):
            if a.cost == 0 and child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _task_moves(comp, state):
    """{(name, next model state)} of the task from a model state; with free actions (Sokoban
    pushes), every costly action after any run of free ones, named by its last move."""
    task = comp.task
    start = comp.encode_state(state)
    if all(a.cost > 0 for a in task.actions):
        return {(a.name, comp.decode_state(child)) for a, child in task.successors(start)}
    return {(a.name, comp.decode_state(child)) for s in _zero_closure(task, start)
            for a, child in task.successors(s) if a.cost > 0}


def _model_moves(model, state, free_actions: bool):
    if free_actions:   # Sokoban pushes: a push action, named by its push letter (walks are free)
        return {(_push_letter(model, a), child) for a, child in model.successors(state)}
    return {(model.plan_moves([a])[0], child) for a, child in model.successors(state)}


def _push_letter(model, push):
    from puzzleplan.models.sokoban.level import PUSH
    return PUSH[push[1]]


# The deep and unsolvable blocks examples (Klotski, mini-Klotski, jammed) take seconds to minutes
# to ground per walk; the small blocks examples cover the family here.
IR_CASES = [c for c in CASES if not heavy_blocks_task(c)]


@pytest.mark.parametrize("case", IR_CASES, ids=lambda c: c.id)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(choices=st.lists(st.integers(0, 10_000), max_size=12))
def test_task_successors_equal_the_models(case, choices) -> None:
    model = _plain(case.model())
    comp = compiled(model)
    free = not all(a.cost > 0 for a in comp.task.actions)
    state = model.initial()
    for pick in [None, *choices]:
        if pick is not None:
            moves = sorted(model.successors(state), key=repr)
            if not moves:
                break
            state = moves[pick % len(moves)][1]
        assert _task_moves(comp, state) == _model_moves(model, state, free)
        start = comp.encode_state(state)
        near = _zero_closure(comp.task, start) if free else {start}   # free walks reach the goal cell
        assert any(comp.task.is_goal(s) for s in near) == model.is_goal(state)


# -- the generic checker beside the family checkers ------------------------------------------------
@pytest.mark.parametrize("case", [c for c in CASES if c.family in ("tiles", "rush-hour", "sokoban", "rules", "pddl")], ids=lambda c: c.id)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(choices=st.lists(st.integers(0, 10_000), min_size=1, max_size=10), corrupt=st.booleans())
def test_task_checker_agrees_with_the_family_checker(case, choices, corrupt) -> None:
    model = case.model()
    state, actions = model.initial(), []
    for pick in choices:
        moves = sorted(model.successors(state), key=repr)
        if not moves:
            break
        action, state = moves[pick % len(moves)]
        actions.append(action)
    tokens = model.plan_moves(actions)
    if corrupt and tokens:
        tokens = tokens[:-1] + tokens[:1] + tokens[-1:]  # usually illegal somewhere
    family = check_plan(model, tokens)
    try:
        reached, _ = task_checker.replay(model, tokens)
        generic_legal = True
    except IllegalMove:
        reached, generic_legal = False, False
    legal = family.valid or family.goal_reached or (family.error or "").startswith("after all")
    assert generic_legal == legal, (tokens, family)
    if generic_legal:
        assert reached == family.goal_reached


def test_checker_names_the_unmet_precondition() -> None:
    from puzzleplan.models import load
    model = load("examples/rush-hour/seed-003-card.yaml")
    with pytest.raises(IllegalMove) as info:
        task_checker.replay(model, ["nothing+1"])
    assert "no action" in info.value.args[2]


# -- the compile command ----------------------------------------------------------------------------
def test_compile_prints_the_size(capsys) -> None:
    code, out, _ = run_cli(capsys, "compile", "examples/sokoban/seed-004.yaml", "--metric", "pushes")
    assert code == 0 and "variables:" in out and "action costs 0:" in out


def test_compile_json_and_dump(capsys) -> None:
    code, out, _ = run_cli(capsys, "compile", "examples/tiles/small-2x3.yaml", "--json", "--dump")
    data = json.loads(out)
    assert code == 0 and data["summary"]["variables"] == 6
    assert len(data["actions"]) == data["summary"]["actions"] and data["actions"][0]["name"] in "URDL"
    code, out, _ = run_cli(capsys, "compile", "examples/rush-hour/seed-003-card.yaml", "--dump")
    assert code == 0 and "actions:" in out and "goal:" in out


def test_user_classes_compile_by_enumeration(capsys) -> None:
    code, out, _ = run_cli(capsys, "compile", "examples/user/hanoi.yaml", "--json")
    assert code == 0 and json.loads(out)["domain_sizes"] == {"2": 1, "81": 1}


@pytest.mark.parametrize("path, metric", [("examples/rush-hour/seed-003-card.yaml", "slide"),
                                          ("examples/sokoban/two-boxes.yaml", "pushes")])
def test_check_reads_fast_downward_plans_of_exported_puzzles(capsys, tmp_path, path, metric) -> None:
    """A plan in Fast Downward's format for `export --to pddl`'s actions reads back through `check`."""
    import puzzleplan
    from puzzleplan.encoders.pddl import action_names
    model = puzzleplan.load(path, {"metric": metric})
    plan = puzzleplan.solve(model, "task-astar").plan
    task = compiled(model).task
    names, state, lines = action_names(task), task.init, []
    for move in plan.moves:
        index = next(i for i, a in enumerate(task.actions) if a.name == move and a.applies(state))
        state = task.actions[index].apply(state)
        lines.append(f"({names[index]})")
    (tmp_path / "plan").write_text("\n".join(lines) + f"\n; cost = {plan.cost} (general cost)\n")
    code, out, _ = run_cli(capsys, "check", path, "--metric", metric, f"@{tmp_path / 'plan'}")
    assert code == 0 and out.startswith("valid"), out
    (tmp_path / "bad").write_text("(nothing_0)\n")
    code, _, err = run_cli(capsys, "check", path, "--metric", metric, f"@{tmp_path / 'bad'}")
    assert code == 2 and "no action" in err


RULES_UP = """\
puzzle: rules
name: counter
variables:
  x: 0..3
init:
  x: 0
goal:
  x: 3
actions:
  up:
    requires: [x < 3]
    effects: {x: x + 1}
    cost: COST
    name: NAME
"""


def test_action_costs_are_bounded(capsys, tmp_path) -> None:
    """Huge costs would overflow the engines' tables: refused in one line; costs too large to
    count in unary leave the generic encodings out, and say why."""
    path = tmp_path / "huge.yaml"
    path.write_text(RULES_UP.replace("COST", str(10 ** 14)).replace("NAME", "up"))
    code, _, err = run_cli(capsys, "solve", path)
    assert code == 2 and "from 0 to 1,000,000" in err and len(err.strip().splitlines()) == 1
    path.write_text(RULES_UP.replace("COST", "5000").replace("NAME", "up"))
    code, _, err = run_cli(capsys, "solve", path, "--engine", "sat")
    assert code == 2 and "unary" in err
    code, out, _ = run_cli(capsys, "solve", path)
    assert code == 0 and "15000" in out


def test_case_folds_only_for_pddl_tasks() -> None:
    """A rules file's `(A)` and `(a)` are two moves; the checker must not merge them."""
    from puzzleplan.models import loads
    text = RULES_UP.replace("COST", "1").replace("NAME", '"(A)"') + """\
  down:
    requires: [x > 0]
    effects: {x: x - 1}
    name: "(a)"
"""
    model = loads(text, "<case>")
    with pytest.raises(IllegalMove):
        task_checker.replay(model, ["(a)"])
    assert task_checker.replay(model, ["(A)", "(A)", "(a)"]) == (False, 3)
