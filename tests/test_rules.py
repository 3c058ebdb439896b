"""Puzzles stated as rules (`puzzle: rules`): the examples, the restricted evaluator, the grounder,
and the one-line errors a bad file gets."""
from __future__ import annotations

import itertools
import json
import pickle
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from helpers import COSTED_RULES as COSTED, run_cli
from puzzleplan.models import ModelError, load, loads
from puzzleplan.models.family import family
from puzzleplan.models.rules import SAMPLE
from puzzleplan.models.rules.expressions import compile_expression
from puzzleplan.models.rules.frames import ExprError, Frame, Scope, World, no_state
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.core import engines
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Status

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "rules").glob("*.yaml")) + [ROOT / "examples" / "user" / "water-jugs.yaml"]


# -- the examples -------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_grounds_and_bfs_finds_its_optimum(path: Path) -> None:
    model = load(path)
    assert model.family == "rules" and model.unit_cost and model.metric == "step"
    result = solve(model, "bfs")
    assert result.plan is not None and result.plan.cost == model.expect["optimal"]
    assert check_plan(model, list(result.plan.moves)).valid
    assert check_plan(model, " ".join(result.plan.moves)).valid
    assert not check_plan(model, list(result.plan.moves[:-1])).valid
    assert model.render(model.initial())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_yaml_notation_reads_back_to_the_same_task(path: Path) -> None:
    model = load(path)
    again = loads(model.notation("yaml"), "<converted>")
    assert again.task == model.task and again.task.actions == model.task.actions
    assert again.expect == model.expect and again.name == model.name
    assert again.render(again.initial()) == model.render(model.initial())


def test_model_pickles_and_draws_after() -> None:
    model = load(ROOT / "examples" / "rules" / "lights-out.yaml")
    copy = pickle.loads(pickle.dumps(model))
    assert copy.task == model.task and copy.task.actions == model.task.actions
    assert copy.render(copy.initial()) == model.render(model.initial()) == "1 1 1\n1 1 1\n1 1 1"


def test_hanoi_grounds_to_the_expected_actions() -> None:
    model = load(ROOT / "examples" / "rules" / "hanoi.yaml")
    task = model.task
    assert [v.name for v in task.variables] == ["on[1]", "on[2]", "on[3]", "on[4]"]
    assert len(task.actions) == 4 * 3 * 2   # a disc, a target, the other peg the smaller discs are on
    assert sorted(a.name for a in task.applicable(task.init)) == ["a>b", "a>c"]
    assert model.render(model.initial()).splitlines()[0] == "a: 1 2 3 4"


def test_family_is_registered_and_its_sample_solves() -> None:
    desc = family("rules")
    assert desc is not None and desc.checker == "puzzleplan.plans.check.rules:replay"
    model = loads(SAMPLE, "<sample>")
    assert solve(model, "bfs").plan.cost == 7


def test_a_variable_whose_value_never_matters_is_left_out_of_pre() -> None:
    model = loads(textwrap.dedent("""\
        puzzle: rules
        variables: {x: 0..2, y: 0..1}
        init: {x: 0, y: 0}
        goal: {y: 1}
        actions:
          flip: {requires: x >= 0 and y == 0, effects: {y: 1}, name: f}
        """))
    (only,) = model.task.actions
    assert only.pre == ((1, 0),) and only.eff == ((1, 1),)




def test_costs_choose_the_cost_metric_and_step_ignores_them() -> None:
    model = loads(COSTED)
    assert model.metric == "cost" and not model.unit_cost
    assert sorted(a.cost for a in model.task.actions) == [2, 2, 2, 5]
    unit = loads(COSTED + "metric: step\n")
    assert unit.metric == "step" and unit.unit_cost
    assert solve(unit, "bfs").plan.moves == ("j",)
    if "task-astar" in engines.names():
        result = solve(model, "task-astar")
        assert result.plan.cost == 5 and result.plan.moves == ("j",)
    refused = solve(model, "bfs")   # a move-counting engine on costs: says what runs instead
    assert refused.status is Status.UNSUPPORTED and "task-astar" in refused.message
    assert "--metric step to count moves" in refused.message


def test_costs_are_not_counted_by_moves_and_any_plan_keeps_a_cost_aware_engine(capsys, tmp_path: Path) -> None:
    """--all-optimal counts moves, so on costs it says it cannot count them; --any without a cap
    runs task-astar, as greedy counts moves."""
    path = tmp_path / "costed.yaml"
    path.write_text(COSTED)
    code, out, _ = run_cli(capsys, "solve", path, "--all-optimal")
    assert code == 2 and "unsupported: --all-optimal counts plans by moves" in out and "--metric step" in out
    code, out, _ = run_cli(capsys, "solve", path, "--any")
    assert code == 0 and "engine:  task-astar" in out and "(5 cost)" in out
    code, out, _ = run_cli(capsys, "solve", path, "--all-optimal", "--metric", "step")
    assert code == 0 and "1 optimal plan of 1 move" in out


# -- the restricted evaluator agrees with Python --------------------------------------------------
SET = (1, 2, 3)
WORLD = World(sets={"S": SET})
SCOPE = Scope({"a": None, "b": None, "c": None})


def _expressions(leaf_numbers: st.SearchStrategy[int]) -> st.SearchStrategy[str]:
    """Numbers and conditions over a, b, c and the set S = (1, 2, 3), every construct allowed."""
    numbers = st.recursive(
        st.one_of(leaf_numbers.map(str), st.sampled_from(["a", "b", "c", "True", "False"])),
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner).map(
                lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
            inner.map(lambda e: f"abs({e})"),
            inner.map(lambda e: f"(-{e})"),
            inner.map(lambda e: f"sum(x * {e} for x in S if x != a)"),
        ),
        max_leaves=5)
    comparisons = st.tuples(numbers, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), numbers,
                            st.sampled_from(["", " < 2", " >= b"])).map(lambda t: f"({t[0]} {t[1]} {t[2]}{t[3]})")
    conditions = st.recursive(
        st.one_of(comparisons, numbers.map(lambda e: f"({e} in S)"),
                  numbers.map(lambda e: f"all(x != {e} for x in S)"),
                  numbers.map(lambda e: f"any(x == {e} for x in S)")),
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda e: f"(not {e})"),
        ),
        max_leaves=4)
    return st.one_of(
        numbers, conditions,
        st.tuples(conditions, numbers, numbers).map(lambda t: f"({t[1]} if {t[0]} else {t[2]})"),
        st.tuples(numbers, st.sampled_from(["and", "or"]), numbers).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(numbers, conditions).map(lambda t: f"({t[0]} + len(x for x in S if {t[1]}))"),
    )


def _python(text: str, names: dict[str, int]) -> tuple[str, object]:
    functions = {"min": min, "max": max, "abs": abs, "sum": sum, "all": all, "any": any,
                 "len": lambda items: sum(1 for _ in items)}
    try:
        return "value", eval(text, {"__builtins__": functions, "S": SET, **names})  # the reference semantics
    except ZeroDivisionError:
        return "error", None


def _ours(text: str, names: dict[str, int]) -> tuple[str, object]:
    try:
        expression = compile_expression(text, WORLD, SCOPE)
    except ExprError as exc:  # a loop name reused inside its own loop: refused on purpose, Python allows it
        assume("already in use" not in str(exc))
        raise
    try:
        return "value", expression(Frame(dict(names), no_state))
    except ExprError:
        return "error", None


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@settings(max_examples=300, deadline=None)
@given(_expressions(st.integers(-2, 2)), st.integers(-2, 2), st.integers(-2, 2), st.integers(-2, 2))
def test_evaluator_agrees_with_python(text: str, a: int, b: int, c: int) -> None:
    names = {"a": a, "b": b, "c": c}
    expected, ours = _python(text, names), _ours(text, names)
    assert ours == expected, text
    if expected[0] == "value":
        assert isinstance(ours[1], bool) == isinstance(expected[1], bool), text


_ARITHMETIC = st.recursive(
    st.one_of(st.integers(-9, 9).map(str), st.sampled_from(["a", "b", "c"])),
    lambda inner: st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_ARITHMETIC, st.integers(-5, 5), st.integers(-5, 5), st.integers(-5, 5))
def test_arithmetic_agrees_with_python(text: str, a: int, b: int, c: int) -> None:
    names = {"a": a, "b": b, "c": c}
    assert _ours(text, names) == _python(text, names), text


@pytest.mark.parametrize("text, why", [
    ("__import__('os')", "may be called"), ("a.real", "attribute access"), ("a / b", "use //"),
    ("a ** 2", "**"), ("lambda: 1", "lambda"), ("[x for x in S][0]", "can be indexed"), ("d + 1", "unknown name 'd'"),
    ("'x' < 1", None), ("a if", "not a valid expression"), ("{1: 2}", "mapping"), ("b is None", "is"),
    ("(99999999999 * 99999999999) > 0", "beyond +-1e+18"),     # repeated squaring would have no end
])
def test_evaluator_refuses(text: str, why: str | None) -> None:
    with pytest.raises(ExprError) as info:
        compile_expression(text, WORLD, SCOPE)(Frame({"a": 1, "b": 2, "c": 3}, no_state))
    assert why is None or why in str(info.value)


# -- the grounder agrees with a direct reading of the rules -----------------------------------------
def _state_terms(with_p: bool) -> st.SearchStrategy[str]:
    """Terms over the state (x, y, f[1], f[2]) and, in an action, its parameter p (1 or 2)."""
    leaves = ["x", "y", "f[1]", "f[2]", "0", "1", "2"] + (["f[p]", "p"] if with_p else [])
    leaf = st.one_of(st.sampled_from(leaves), st.sampled_from(leaves).map(lambda e: f"any(f[k] == {e} for k in K)"))
    return st.recursive(leaf, lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(inner, st.sampled_from(["==", "!=", "<", ">="]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda e: f"(not {e})"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
    ), max_leaves=6)


_STATE_TERMS = _state_terms(True)
# A schema: its requirement and its effects (some of x, y, f[p], each set to a term mod 3).
_SCHEMA = st.tuples(_STATE_TERMS.map(lambda e: f"({e}) != 0"),   # a condition is True or False, never a number
                    st.dictionaries(st.sampled_from(["x", "y", "f[p]"]), _STATE_TERMS, min_size=1))
_SLOT = {"x": 0, "y": 1}


def _env(state: tuple[int, ...], p: int | None = None) -> dict:
    env = {"x": state[0], "y": state[1], "f": {1: state[2], 2: state[3]}, "K": (1, 2), "__builtins__": {"any": any}}
    if p is not None:
        env["p"] = p
    return env


def _direct(schemas: list, invariant: str, state: tuple[int, ...]) -> set:
    """The successors of a state, by reading the rules with Python itself."""
    out = set()
    for i, (requires, effects) in enumerate(schemas):
        for p in (1, 2):
            env = _env(state, p)
            if not eval(requires, env):
                continue
            new = list(state)
            for target, value in effects.items():
                new[_SLOT.get(target, 1 + p)] = eval(f"({value}) % 3", env)
            if eval(invariant, _env(tuple(new))) and tuple(new) != state:
                out.add((f"s{i}p{p}", tuple(new)))
    return out


def _rules_text(schemas: list, invariant: str, init: tuple[int, ...]) -> str:
    lines = ["puzzle: rules", "sets: {K: [1, 2]}", "variables:", "  x: 0..2", "  y: 0..2", "  f[K]: 0..2",
             "init:", f"  x: {init[0]}", f"  y: {init[1]}", f"  f[1]: {init[2]}", f"  f[2]: {init[3]}",
             "goal: {x: 0}", f"invariant: {json.dumps(invariant)}", "actions:"]
    for i, (requires, effects) in enumerate(schemas):
        lines += [f"  s{i}:", "    params: {p: K}", f"    requires: {json.dumps(requires)}", "    effects:"]
        lines += [f"      {target}: {json.dumps(f'({value}) % 3')}" for target, value in effects.items()]
        lines.append(f'    name: "s{i}p{{p}}"')
    return "\n".join(lines) + "\n"


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_SCHEMA, min_size=1, max_size=2), _state_terms(False),
       st.tuples(*[st.integers(0, 2)] * 4))
def test_grounded_successors_equal_the_rules_read_directly(schemas: list, invariant: str, init: tuple) -> None:
    invariant = f"(({invariant}) != 0) or (x == {init[0]} and y == {init[1]} and f[1] == {init[2]} and f[2] == {init[3]})"
    model = loads(_rules_text(schemas, invariant, init))
    task = model.task
    for state in itertools.product(range(3), repeat=4):
        grounded = {(a.name, nxt) for a, nxt in task.successors(state)}
        assert grounded == _direct(schemas, invariant, state), state
        names = [a.name for a in task.applicable(state)]
        assert len(names) == len(set(names))


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_SCHEMA, min_size=1, max_size=2), _state_terms(False), st.tuples(*[st.integers(0, 2)] * 4),
       st.lists(st.integers(0, 50), max_size=6), st.sampled_from(["s0p1", "s0p2", "s1p1", "s1p2"]))
def test_the_rules_checker_replays_as_the_rules_read_directly(schemas: list, invariant: str, init: tuple,
                                                              picks: list, last: str) -> None:
    """The checker (plans/check/rules.py, no grounder) against Python reading the same rules."""
    from puzzleplan.plans.check import rules as rules_checker
    from puzzleplan.plans.check.common import IllegalMove
    invariant = f"(({invariant}) != 0) or (x == {init[0]} and y == {init[1]} and f[1] == {init[2]} and f[2] == {init[3]})"
    model = loads(_rules_text(schemas, invariant, init))
    state, tokens = init, []
    for pick in picks:
        moves = sorted(_direct(schemas, invariant, state))
        if not moves:
            break
        name, state = moves[pick % len(moves)]
        tokens.append(name)
    legal = dict(_direct(schemas, invariant, state))
    tokens.append(last)      # a last move the rules may or may not allow here
    if last in legal:
        assert rules_checker.replay(model, tokens) == (legal[last][0] == 0, len(tokens))
    else:
        with pytest.raises(IllegalMove) as info:
            rules_checker.replay(model, tokens)
        assert info.value.args[0] == len(tokens)


def test_the_rules_checker_names_the_requirement_or_invariant_in_the_file_s_words() -> None:
    hanoi = load(ROOT / "examples" / "rules" / "hanoi.yaml")
    report = check_plan(hanoi, "a>b a>b")
    assert report.index == 2
    assert "move (d=2, to=b): the requirement `all(on[e] != on[d] and on[e] != to for e in disc if e < d)` does not " \
           "hold" in report.error
    missionaries = load(ROOT / "examples" / "rules" / "missionaries.yaml")
    first = solve(missionaries, "bfs").plan.moves[0]
    report = check_plan(missionaries, ["1m0c>"])
    assert first != "1m0c>" and report.index == 1
    assert "breaks the invariant `missionaries == 0 or missionaries >= cannibals`" in report.error
    assert check_plan(hanoi, "a>b a>c").error == ("after all 2 moves the goal is not reached: needs on[1] = c (it is "
                                                  "b), on[3] = c (it is a), on[4] = c (it is a)")


# -- bad input: one line naming FILE:LINE and the field ---------------------------------------------
HANOI = (ROOT / "examples" / "rules" / "hanoi.yaml").read_text()
JUGS = (ROOT / "examples" / "user" / "water-jugs.yaml").read_text()


def _error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ModelError) as info:
        load(path)
    message = str(info.value)
    assert "\n" not in message
    return message


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


BAD = [
    # (name, text to replace, replacement, the line to name (a snippet of it), field, words of the message)
    ("unknown name", "- on[d] != to", "- on[d] != too", "on[d] != too", "actions.move.requires[1]",
     "unknown name 'too'"),
    ("unknown value", "- on[d] != to", "- on[d] != d4", "on[d] != d4", "actions.move.requires[1]",
     "the domains' words: a, b, c"),
    ("type error", "      - on[d] != to\n", "      - on[d] != to\n      - on[d] + 1 > 0\n", "on[d] + 1 > 0",
     "actions.move.requires[2]", "action move (d=1, to=a) when on[1]=b: + needs whole numbers"),
    ("a number where true or false is due", "      - on[d] != to\n", "      - on[d] != to\n      - d + 1\n", "d + 1",
     "actions.move.requires[2]", "must be true or false, got the number 2 (write the comparison"),
    ("set as a value of the wrong domain", "on[d]: to", "on[d]: d", "on[d]: d", "actions.move.effects.on[d]",
     "never one of them"),
    ("set compared with the wrong domain", "- on[d] != to", "- on[d] != d", "on[d] != d",
     "actions.move.requires[1]", "never d"),
    ("a let that uses one below it", "    requires:\n", "    let:\n      first: second\n      second: to\n"
     "    requires:\n", "first: second", "actions.move.let.first",
     "'second' is a let below this one; a let uses only the lets above it"),
    ("a value compared with a whole set", "- on[d] != to", "- on[d] != peg", "on[d] != peg",   # was silently true
     "actions.move.requires[1]", "!= compares a value with a value, got the text 'a' and a tuple"),
    ("init value outside its domain", "on[*]: a", "on[*]: d", "on[*]: d", "init.on[*]", "outside the domain"),
    ("goal value outside its domain", "on[*]: c", "on[*]: 4", "on[*]: 4", "goal.on[*]", "outside the domain"),
    ("name template with an unknown field", 'name: "{on[d]}>{to}"', 'name: "{on[d]}>{peg2}"', 'name: "{',
     "actions.move.name", "unknown name 'peg2'"),
    ("unbalanced template", 'name: "{on[d]}>{to}"', 'name: "{on[d]}>{to"', 'name: "{', "actions.move.name",
     "a '{' without its '}'"),
    ("empty set", "peg: [a, b, c]", "peg: []", "peg: []", "sets.peg", "empty"),
    ("empty goal", "goal:\n  on[*]: c\n", "goal: {}\n", "goal: {}", "goal", "got an empty mapping"),
    ("unknown variable", "  on[*]: c", "  of[*]: c", "of[*]", "goal.of[*]", "'of' is no family of variables"),
    ("unknown set", "on[disc]: peg", "on[discs]: peg", "on[discs]", "variables.on[discs]", "is no set"),
    ("unknown domain", "on[disc]: peg", "on[disc]: pegs", "on[disc]", "variables.on[disc]", "pegs"),
    ("unknown action field", "    requires:", "    requirs:", "requirs:", "actions.move.requirs", "unknown field"),
    ("syntax", "- on[d] != to", "- on[d] !=", "on[d] !=", "actions.move.requires[1]", "not a valid expression"),
    ("refused construct", "- on[d] != to", "- on[d].upper() != to", "upper", "actions.move.requires[1]",
     "may be called"),
    ("one name for different moves", 'name: "{on[d]}>{to}"', 'name: "{to}"', 'name: "{', "actions.move.name",
     "different moves"),
    ("a name that is not one word", 'name: "{on[d]}>{to}"', 'name: "{on[d]} {to}"', 'name: "{', "actions.move.name",
     "one word"),
    ("a family assigned without indices", "on[*]: a", "on: a", "on: a", "init.on", "family of variables"),
    ("a variable without a start value", "  on[*]: a\n", "  on[1]: a\n", "init:", "init", "no start value for on[2]"),
    ("a parameter shadowing a set", "params: {d: disc, to: peg}", "params: {disc: disc, to: peg}", "params:",
     "actions.move.params.disc", "already a set"),
]


@pytest.mark.parametrize("case", BAD, ids=lambda c: c[0])
def test_bad_rules_name_file_line_and_field(tmp_path: Path, case: tuple) -> None:
    _, old, new, where, field, words = case
    assert old in HANOI
    text = HANOI.replace(old, new, 1)
    message = _error(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'bad.yaml'}:{_line(text, where)}: field '{field}'"), message
    assert words in message, message


def test_a_cost_over_the_cap_names_the_file_line_and_field(tmp_path: Path) -> None:
    text = ("puzzle: rules\nvariables: {a: 0..3}\ninit: {a: 0}\ngoal: {a: 3}\nactions:\n  up:\n"
            "    requires: [a < 3]\n    effects: {a: a + 1}\n    cost: 100000000000000000000\n")
    message = _error(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'bad.yaml'}:9: field 'actions.up.cost'"), message
    assert "the cost must be a whole number from 0 to 1,000,000" in message


def test_effect_leaving_its_domain_names_the_action_and_parameters(tmp_path: Path) -> None:
    text = JUGS.replace("    requires: water[j] < capacity[j]\n", "", 1).replace("water[j]: capacity[j]",
                                                                                     "water[j]: water[j] + 1")
    message = _error(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'bad.yaml'}:{_line(text, 'water[j] + 1')}: field "
                              "'actions.fill.effects.water[j]'"), message
    assert "action fill (j=1) when water[1]=5: sets water[1] to 6, outside its domain" in message


def test_duplicate_move_names_across_actions(tmp_path: Path) -> None:
    text = JUGS.replace('name: "E{j}"', 'name: "F{j}"')
    message = _error(tmp_path, text)
    second = [i for i, line in enumerate(text.splitlines(), 1) if 'name: "F{j}"' in line][1]
    assert message.startswith(f"{tmp_path / 'bad.yaml'}:{second}: field 'actions.empty.name'"), message
    assert "'F1' is also a move of action fill" in message


def test_init_breaking_the_invariant(tmp_path: Path) -> None:
    text = (ROOT / "examples" / "rules" / "missionaries.yaml").read_text()
    text = text.replace("missionaries: 3, cannibals: 3, boat", "missionaries: 1, cannibals: 2, boat")
    message = _error(tmp_path, text)
    assert f":{_line(text, '- missionaries == 0 or')}: field 'invariant[1]'" in message and "breaks" in message


def test_grounding_blow_up_is_refused(tmp_path: Path) -> None:
    text = HANOI.replace("disc: 1..4", "disc: 1..4\n  big: 1..1000").replace("params: {d: disc, to: peg}",
                                                                         "params: {d: disc, to: peg, u: big, w: big}")
    message = _error(tmp_path, text)
    assert "field 'actions.move.params'" in message and "parameter assignments" in message


def test_deep_expressions_and_long_loops_are_refused(tmp_path: Path, monkeypatch) -> None:
    deep = HANOI.replace("- on[d] != to", "- on[d] != to and " + " + ".join(["1"] * 200) + " > 0")
    assert "nested more than" in _error(tmp_path, deep)
    import puzzleplan.models.rules.ground as ground
    monkeypatch.setattr(ground, "LOOP_STEPS", 1_000)
    loops = HANOI.replace("disc: 1..4", "disc: 1..4\n  big: 1..100").replace(
        "- on[d] != to", "- on[d] != to and sum(1 for x in big for y in big) > 0")
    message = _error(tmp_path, loops)
    assert "field 'actions.move'" in message and "loop steps" in message


def test_text_without_a_file_names_the_field_s_own_line(capsys, monkeypatch) -> None:
    """`loads` and standard input name the nested field's line, as a file does (they used to
    fall back to the line of the top-level key, `actions:`)."""
    text = HANOI.replace("- on[d] != to", "- on[d] != too")
    own = _line(text, "- on[d] != too")
    assert own != _line(text, "actions:")
    with pytest.raises(ModelError) as info:
        loads(text, "<text>")
    assert str(info.value).startswith(f"<text>:{own}: field 'actions.move.requires[1]'")
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    code, _, err = run_cli(capsys, "solve", "-")
    assert code == 2 and err.startswith(f"puzzleplan: error: <stdin>:{own}: field 'actions.move.requires[1]'")


def test_cli_exits_2_with_one_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(HANOI.replace("- on[d] != to", "- on[d] != too"))
    code, out, err = run_cli(capsys, "solve", path)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and f"{path}:{_line(HANOI, 'on[d] != to')}:" in err


def test_an_error_in_the_show_picture_names_its_file_and_line(capsys, tmp_path: Path) -> None:
    """Met only when a state is drawn (--show, --render): it said 'show: // by zero' alone."""
    path = tmp_path / "show.yaml"
    path.write_text("puzzle: rules\nvariables:\n  x: 0..3\ninit: {x: 0}\ngoal: {x: 3}\nactions:\n  inc:\n"
                    "    requires: x < 3\n    effects: {x: x + 1}\n    name: i\nshow: \"y={10 // (3 - x)}\"\n")
    code, _, err = run_cli(capsys, "solve", path, "--show")
    assert code == 2 and err.strip() == f"puzzleplan: error: {path}:11: field 'show': // by zero"
    model = pickle.loads(pickle.dumps(__import__("puzzleplan").load(path)))   # the worker's copy says it too
    state = model.initial()
    for _ in range(3):
        state = next(iter(model.successors(state)))[1]
    with pytest.raises(Exception, match=r"show.yaml:11: field 'show': // by zero"):
        model.render(state)


ROADS = """
puzzle: rules
sets:
  town: [a, b, c, d]
constants:
  road:
    a: {d: 10, c: 1}
    c: {b: 1}
    b: {d: 1}
variables:
  at: town
init: {at: a}
goal: {at: d}
actions:
  drive:
    params: {to: town}
    requires:
      - (at, to) in road
    effects: {at: to}
    cost: road[at, to]
    name: "{to}"
"""


def test_a_table_of_two_keys_is_read_from_nested_mappings(tmp_path: Path) -> None:
    """A designer's distance table: road[a, b] (one key a table was all it took before)."""
    import puzzleplan
    path = tmp_path / "roads.yaml"
    path.write_text(ROADS)
    model = puzzleplan.load(path)
    cheapest = puzzleplan.solve(model)
    assert cheapest.status is Status.OPTIMAL and (cheapest.plan.cost, list(cheapest.plan.moves)) == (3, ["c", "b", "d"])
    fewest = puzzleplan.solve(puzzleplan.load(path, {"metric": "step"}), "bfs")
    assert list(fewest.plan.moves) == ["d"]
    for table, says in (("    a: {d: 10, c: 1}\n", "    a: {d: 10, c: {x: 1}}\n"),):
        (tmp_path / "bad.yaml").write_text(ROADS.replace(table, says))
        with pytest.raises(ModelError, match="nest to different depths"):
            puzzleplan.load(tmp_path / "bad.yaml")
    (tmp_path / "one.yaml").write_text(ROADS.replace("road[at, to]", "road[to]"))
    with pytest.raises(ModelError, match="the table road takes 2 keys, got 1"):
        puzzleplan.load(tmp_path / "one.yaml")
