"""User-defined families: a Python class named in YAML (`python:` spec or an entry point).

The loader tests call `puzzleplan.models.user.model` directly. The CLI tests need the hook in
`puzzleplan.models.from_document`; until it is there they skip (detected at run time).
"""
from __future__ import annotations

import importlib.metadata
import pickle
import textwrap
from pathlib import Path

import pytest

from helpers import run_cli
from puzzleplan.models import ModelError, load
from puzzleplan.models.document import parse_document, read_document
from puzzleplan.models.user.model import UserModel, user_model_from_document
from puzzleplan.models.user.spec import ENTRY_POINT_GROUP, entry_point_names, is_user_puzzle, resolve_family
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.explore import explore
from puzzleplan.plans.solve import solve
from puzzleplan.plans.core.types import Limits, Request, Status

ROOT = Path(__file__).resolve().parent.parent
USER = ROOT / "examples" / "user"
HANOI_YAML = USER / "hanoi.yaml"
HANOI_PY = USER / "hanoi.py"
JUGS_YAML = USER / "water-jugs.yaml"


def _model(path: Path) -> UserModel:
    return user_model_from_document(read_document(path), path.parent)


def _from_text(tmp_path: Path, text: str, name: str = "p.yaml") -> UserModel:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return _model(path)


# -- loading ----------------------------------------------------------------------------------------
def test_hanoi_by_path_spec() -> None:
    model = _model(HANOI_YAML)
    assert model.family == "hanoi" and type(model).metrics == ("step",)
    assert model.name == "Tower of Hanoi, 4 discs" and model.metric == "step" and model.max_moves is None
    assert model.expect["optimal"] == 15 and model.expect["reachable"] == 81
    assert model.initial() == (0, 0, 0, 0)
    assert model.h(model.initial()) == 4
    assert model.plan_moves([(0, 2)]) == ["1>3"]
    assert "peg 1: 4 3 2 1" in model.render(model.initial())
    assert model.default_engine == "bfs" and model.unsolvable_reason() is None


def test_resolve_family_returns_the_class() -> None:
    cls = resolve_family("python:./hanoi.py:Hanoi", USER)
    assert cls.__name__ == "Hanoi"
    assert resolve_family(f"python:{HANOI_PY}:Hanoi", Path("/")) is cls  # absolute path, same module
    with pytest.raises(ModelError, match="no such file"):
        resolve_family("python:./missing.py:Hanoi", USER)


def test_importable_module_spec(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "user_hanoi_mod.py").write_text(HANOI_PY.read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    model = _from_text(tmp_path, "puzzle: python:user_hanoi_mod:Hanoi\ndiscs: 3\n")
    assert solve(model, "bfs").plan.length == 7


def test_entry_point(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "user_hanoi_ep.py").write_text(HANOI_PY.read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    real = importlib.metadata.entry_points

    def fake(**kw):
        if kw.get("group") == ENTRY_POINT_GROUP:
            return [importlib.metadata.EntryPoint("towers", "user_hanoi_ep:Hanoi", ENTRY_POINT_GROUP)]
        return real(**kw)

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)
    assert entry_point_names() == ["towers"] and is_user_puzzle("towers") and not is_user_puzzle("chess")
    model = _from_text(tmp_path, "puzzle: towers\ndiscs: 3\n")
    assert model.family == "towers"  # the entry point's name is the family
    result = solve(model, "astar")
    assert result.status is Status.OPTIMAL and result.plan.length == 7
    assert check_plan(model, list(result.plan.moves)).valid
    assert load(tmp_path / "p.yaml").family == "towers"


JUGS_PY = textwrap.dedent('''
    """Two jugs and a tap, written against puzzleplan's ModelBase with a plain constructor."""
    from math import gcd
    from puzzleplan.models import ModelBase

    class Jugs(ModelBase):
        family = "jugs"

        def __init__(self, capacities, target):
            self.capacities = tuple(capacities)
            self.target = target

        def initial(self):
            return (0,) * len(self.capacities)

        def is_goal(self, state):
            return self.target in state

        def successors(self, state):
            caps = self.capacities
            for i, (amount, cap) in enumerate(zip(state, caps)):
                if amount < cap:
                    yield f"F{i + 1}", state[:i] + (cap,) + state[i + 1:]
                if amount > 0:
                    yield f"E{i + 1}", state[:i] + (0,) + state[i + 1:]
                for j, other in enumerate(state):
                    if i != j and amount > 0 and other < caps[j]:
                        poured = min(amount, caps[j] - other)
                        nxt = list(state)
                        nxt[i] -= poured
                        nxt[j] += poured
                        yield f"P{i + 1}>{j + 1}", tuple(nxt)

        def unsolvable_reason(self):
            g = 0
            for value in self.capacities:
                g = gcd(g, value)
            return None if self.target % g == 0 else f"every amount reachable is a multiple of {g}"
''')


def test_plain_constructor_and_modelbase_subclass(tmp_path: Path) -> None:
    (tmp_path / "jugs.py").write_text(JUGS_PY)
    model = _from_text(tmp_path, "puzzle: python:./jugs.py:Jugs\nname: Die Hard jugs\ncapacities: [3, 5]\ntarget: 4\n")
    assert model.family == "jugs" and model.name == "Die Hard jugs"
    out = explore(model)
    assert out.reachable == 16 and out.goal_distance == 6 and out.max_depth == 7


def test_from_document_route(tmp_path: Path) -> None:
    (tmp_path / "counter.py").write_text(textwrap.dedent('''
        class Counter:
            """Count from 0 to `to` by +1 / +2 steps (from_document gets line-aware errors)."""
            def __init__(self, to):
                self.to = to
            @classmethod
            def from_document(cls, doc):
                doc.check_keys(["to", "name", "expect"])
                return cls(doc.integer("to", low=1))
            def initial(self):
                return 0
            def is_goal(self, s):
                return s == self.to
            def successors(self, s):
                for step in (1, 2):
                    if s + step <= self.to:
                        yield f"+{step}", s + step
    '''))
    model = _from_text(tmp_path, "puzzle: python:./counter.py:Counter\nto: 7\n")
    assert model.family == "Counter" and solve(model, "bfs").plan.length == 4
    with pytest.raises(ModelError) as info:
        _from_text(tmp_path, "puzzle: python:./counter.py:Counter\nname: x\nto: 0\n", "q.yaml")
    message = str(info.value)
    assert message.startswith(f"{tmp_path / 'q.yaml'}:3: field 'to'") and "\n" not in message


def test_standard_fields_are_validated(tmp_path: Path) -> None:
    (tmp_path / "hanoi.py").write_text(HANOI_PY.read_text())
    model = _from_text(tmp_path, "puzzle: python:./hanoi.py:Hanoi\ndiscs: 3\nmax_moves: 9\nname: h3\n")
    assert model.max_moves == 9 and model.name == "h3"
    with pytest.raises(ModelError, match="field 'max_moves'"):
        _from_text(tmp_path, "puzzle: python:./hanoi.py:Hanoi\ndiscs: 3\nmax_moves: -1\n")
    with pytest.raises(ModelError, match="field 'metric'"):
        _from_text(tmp_path, "puzzle: python:./hanoi.py:Hanoi\ndiscs: 3\nmetric: slide\n")


# -- engines on a user family -----------------------------------------------------------------------
def _engines_for(path: Path) -> list[str]:
    """The engines that declare they run this user family (all the generic ones but SAT/CP-SAT)."""
    from puzzleplan.plans.core import engines
    model = _model(path)
    return [name for name in engines.names() if engines.supports(name, model) is None]


@pytest.mark.parametrize("engine", _engines_for(HANOI_YAML))
def test_engines_on_hanoi(engine: str) -> None:
    model = _model(HANOI_YAML)
    result = solve(model, engine, Request(limits=Limits(time_limit=60)))
    assert result.status.has_plan, result.message
    assert check_plan(model, list(result.plan.moves)).valid
    if engine in ("bfs", "astar", "idastar"):
        assert result.status is Status.OPTIMAL and result.plan.length == 15


def test_capped_dfs_and_cap_below_optimum() -> None:
    model = _model(HANOI_YAML)
    result = solve(model, "dfs", Request(max_moves=15))
    assert result.status is Status.SOLVED and result.plan.length <= 15
    result = solve(model, "bfs", Request(max_moves=14))
    assert result.status is Status.NO_PLAN_WITHIN_CAP


def test_explore_hanoi() -> None:
    out = explore(_model(HANOI_YAML))
    assert out.complete and out.reachable == 81 == 3 ** 4
    assert out.goal_distance == 15 and out.max_depth == 15 and out.goals == 1


def test_checker_fallback_replays_through_the_class() -> None:
    model = _model(HANOI_YAML)
    plan = solve(model, "bfs").plan.moves
    assert check_plan(model, list(plan)).valid
    bad = check_plan(model, ["1>3", "1>3"])
    assert not bad.valid and bad.index == 2
    assert not check_plan(model, list(plan[:-1])).valid


def test_unsolvable_reason_of_the_class(tmp_path: Path) -> None:
    (tmp_path / "jugs.py").write_text(JUGS_PY)
    model = _from_text(tmp_path, "puzzle: python:./jugs.py:Jugs\ncapacities: [4, 6]\ntarget: 3\n")
    result = solve(model, "bfs")
    assert result.status is Status.UNSOLVABLE and "multiple of 2" in result.message


def test_pickles_for_worker_processes(tmp_path: Path) -> None:
    model = _model(HANOI_YAML)
    model = model.with_changes(max_moves=20)
    copy = pickle.loads(pickle.dumps(model))
    assert type(copy).__name__ == type(model).__name__ and copy.family == "hanoi"
    assert copy.max_moves == 20 and copy.initial() == model.initial()
    assert list(copy.successors(copy.initial())) == list(model.successors(model.initial()))
    # an instance that does not pickle is rebuilt from the YAML data instead
    (tmp_path / "lam.py").write_text(textwrap.dedent('''
        class Lam:
            def __init__(self, n):
                self.n = n
                self.step = lambda s: s + 1
            def initial(self):
                return 0
            def is_goal(self, s):
                return s == self.n
            def successors(self, s):
                yield "inc", self.step(s)
    '''))
    lam = _from_text(tmp_path, "puzzle: python:./lam.py:Lam\nn: 3\n")
    again = pickle.loads(pickle.dumps(lam))
    assert solve(again, "bfs").plan.length == 3


# -- bad specs ----------------------------------------------------------------------------------------
GOOD = '''
class Good:
    def __init__(self, **kw):
        self.kw = kw
    def initial(self):
        return 0
    def is_goal(self, s):
        return s == 1
    def successors(self, s):
        yield "go", 1

def helper():
    return 1

class NoMoves:
    def initial(self):
        return 0

class Explodes(Good):
    @classmethod
    def from_yaml(cls, data):
        raise ValueError("discs must be\\npositive")

class Unhashable(Good):
    def initial(self):
        return [0]

class FakeTiles(Good):
    family = "tiles"

class Quits(Good):
    @classmethod
    def from_yaml(cls, data):
        raise SystemExit(0)
'''

BAD_SPECS = {
    "missing_module": ("python:no_such_module_pp:Cls", ["no module named 'no_such_module_pp'"]),
    "missing_file": ("python:./nope.py:Cls", ["no such file", "nope.py"]),
    "missing_class": ("python:./good.py:Nope", ["has no attribute 'Nope'"]),
    "not_a_class": ("python:./good.py:helper", ["expected a class"]),
    "no_class_part": ("python:./good.py", ["expected python:MODULE:CLASS"]),
    "lacks_methods": ("python:./good.py:NoMoves", ["lacks is_goal, successors"]),
    "constructor_raises": ("python:./good.py:Explodes", ["Explodes.from_yaml(...) raised ValueError",
                                                         "discs must be positive"]),
    "import_raises": ("python:./broken.py:Cls", ["importing broken.py raised ZeroDivisionError"]),
    "import_exits": ("python:./exits.py:Cls", ["importing exits.py raised SystemExit: 3"]),
    "constructor_exits": ("python:./good.py:Quits", ["Quits.from_yaml(...) raised SystemExit: 0"]),
    "unhashable_state": ("python:./good.py:Unhashable", ["hashable"]),
    "builtin_family_name": ("python:./good.py:FakeTiles", ["built-in family"]),
}


def _bad_file(tmp_path: Path, spec: str) -> Path:
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "broken.py").write_text("x = 1 / 0\n")
    (tmp_path / "exits.py").write_text("raise SystemExit(3)\n")
    path = tmp_path / "bad.yaml"
    path.write_text(f"name: bad\npuzzle: {spec!r}\nsize: 3\n")
    return path


@pytest.mark.parametrize("name", list(BAD_SPECS))
def test_bad_spec_is_one_line_model_error(tmp_path: Path, name: str) -> None:
    spec, fragments = BAD_SPECS[name]
    path = _bad_file(tmp_path, spec)
    with pytest.raises(ModelError) as info:
        _model(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}:2: field 'puzzle':"), message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_unknown_entry_point_name() -> None:
    doc = parse_document("puzzle: no-such-family-pp\n", "x.yaml")
    with pytest.raises(ModelError, match="field 'puzzle'.*no entry point 'no-such-family-pp'"):
        user_model_from_document(doc, Path.cwd())


# -- through the command line (after the loader is hooked in) -----------------------------------------
@pytest.mark.parametrize("name", list(BAD_SPECS))
@pytest.mark.parametrize("command", ["solve", "explore"])
def test_cli_bad_spec_exit_2(capsys, tmp_path: Path, name: str, command: str) -> None:
    spec, fragments = BAD_SPECS[name]
    path = _bad_file(tmp_path, spec)
    code, out, err = run_cli(capsys, command, path)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert str(path) in lines[0] and "field 'puzzle'" in lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def test_cli_unknown_family_still_lists_builtins(capsys, tmp_path: Path) -> None:
    path = tmp_path / "chess.yaml"
    path.write_text("puzzle: chess\n")
    code, _, err = run_cli(capsys, "solve", path)
    assert code == 2 and "unknown puzzle 'chess'" in err and "tiles" in err


def test_cli_solve_explore_check_hanoi(capsys) -> None:
    code, out, _ = run_cli(capsys, "solve", HANOI_YAML)
    assert code == 0 and "15 moves" in out and "proved optimal" in out
    plan = next(line for line in out.splitlines() if line.startswith("plan:"))[len("plan:"):].strip()
    code, out, _ = run_cli(capsys, "check", HANOI_YAML, plan)
    assert code == 0 and out.startswith("valid")
    code, out, _ = run_cli(capsys, "explore", HANOI_YAML)
    assert code == 0 and "81 states" in out
    code, out, _ = run_cli(capsys, "solve", JUGS_YAML, "--engine", "astar")
    assert code == 0 and "6 moves" in out


WALK_PY = '''
class Walk:
    """An endless grid: no sweep of its space could end."""
    def __init__(self, names="R U"):
        self.names = names.split(" ")
    def initial(self):
        return (0, 0)
    def is_goal(self, state):
        return state == (3, 0)
    def successors(self, state):
        x, y = state
        return [("R", (x + 1, y)), ("U", (x, y + 1))]
    def plan_moves(self, actions):
        if len(self.names) == 1:    # a broken hook: fewer names than actions
            return self.names[:1]
        return [self.names[0] if a == "R" else self.names[1] for a in actions]
'''


def test_a_plan_of_a_class_is_checked_by_replay_without_sweeping_its_space(tmp_path: Path, monkeypatch) -> None:
    import puzzleplan.models.user.task as task

    def no_sweep(model):
        raise AssertionError("the checker swept the class's space")
    monkeypatch.setattr(task, "enumerate_task", no_sweep)
    (tmp_path / "walk.py").write_text(WALK_PY)
    model = _from_text(tmp_path, "puzzle: python:./walk.py:Walk\n")
    result = solve(model, "bfs")
    assert result.status is Status.OPTIMAL and list(result.plan.moves) == ["R", "R", "R"]
    assert check_plan(model, "R R R").valid and not check_plan(model, "R U R").valid


@pytest.mark.parametrize("names, says", [("m m", "gives two legal moves of one state the name 'm'"),
                                          ("R u,p", "returned the move name 'u,p'; a move name is one token"),
                                          ("R x;b", "returned the move name 'x;b'; a move name is one token"),
                                          ("R", "returned 1 names for 2 actions")])
def test_move_names_plans_cannot_be_read_back_by_are_the_class_s_error(tmp_path: Path, capsys, names: str,
                                                                      says: str) -> None:
    (tmp_path / "walk.py").write_text(WALK_PY)
    (tmp_path / "p.yaml").write_text(f"puzzle: python:./walk.py:Walk\nnames: {names}\n")
    code, out, err = run_cli(capsys, "solve", str(tmp_path / "p.yaml"))
    assert code == 2 and says in err and err.count("\n") == 1 and "internal" not in err


TUPLE_ACTIONS_PY = '''
class Counters:
    """Two counters; the action (i, "plus one") adds one to counter i (no plan_moves)."""
    def initial(self):
        return (0, 0)
    def is_goal(self, state):
        return state == (2, 1)
    def successors(self, state):
        for i in range(2):
            if state[i] < 3:
                child = list(state)
                child[i] += 1
                yield (i, "plus one"), tuple(child)
'''


def test_default_move_names_are_one_token_so_plans_read_back(tmp_path: Path, capsys) -> None:
    """Without plan_moves a move is named str(action): a tuple's spaces and commas split plan
    text, so each run of them becomes one "_" and the printed plan checks and renders."""
    (tmp_path / "counters.py").write_text(TUPLE_ACTIONS_PY)
    (tmp_path / "c.yaml").write_text("puzzle: python:./counters.py:Counters\n")
    plan_file = tmp_path / "c.plan"
    code, out, _ = run_cli(capsys, "solve", str(tmp_path / "c.yaml"), "--plan-file", str(plan_file))
    assert code == 0 and "(0_'plus_one')" in out
    assert plan_file.read_text().split() == ["(0_'plus_one')", "(0_'plus_one')", "(1_'plus_one')"]
    code, out, _ = run_cli(capsys, "check", str(tmp_path / "c.yaml"), f"@{plan_file}")
    assert code == 0 and out.startswith("valid")


DAG = '''
class Dag:
    """A one-way graph whose plans are all even: a-b-g (2 moves) or a-c1-c2-c3-g (4)."""
    EDGES = {"a": ["b", "c1"], "b": ["g"], "c1": ["c2"], "c2": ["c3"], "c3": ["g"], "g": []}
    def initial(self):
        return "a"
    def is_goal(self, s):
        return s == "g"
    def successors(self, s):
        return [(t, t) for t in self.EDGES[s]]
    def plan_parity(self):
        return 0
'''


@pytest.mark.parametrize("args", [["--engine", "sat", "--strategy", "fixed", "--max-moves", "6"],
                                  ["--engine", "sat", "--strategy", "binary"], ["--engine", "cpsat"]],
                         ids=["sat-fixed-cap", "sat-binary", "cpsat"])
def test_a_declared_parity_is_no_promise_that_plans_pad(capsys, tmp_path: Path, args: list[str]) -> None:
    """plan_parity promises the parity of every plan, not that a plan of 2 has a twin of 4: the
    SAT engines' exact-horizon proofs must not read "no plan of exactly 6" as "none of 2 or 4"."""
    (tmp_path / "dag.py").write_text(DAG)
    (tmp_path / "dag.yaml").write_text("puzzle: python:./dag.py:Dag\n")
    code, out, _ = run_cli(capsys, "solve", tmp_path / "dag.yaml", *args)
    assert code == 0 and "2 moves" in out, out


def test_keyword_construction_is_told_the_metric_chosen(tmp_path: Path) -> None:
    """A class built from keywords whose rules depend on the metric got its own default, so the
    file's `metric: fast` was solved as step (6 moves for 3)."""
    (tmp_path / "meta.py").write_text(textwrap.dedent('''
        class Meta:
            metrics = ("step", "fast")
            def __init__(self, metric="step", goal=6):
                self.fast, self.goal = metric == "fast", goal
            def initial(self):
                return 0
            def is_goal(self, s):
                return s == self.goal
            def successors(self, s):
                if s < 8:
                    yield "inc", s + 1
                    if self.fast:
                        yield "dbl", 2 * s + 1 if s else 2
    '''))
    fast = _from_text(tmp_path, "puzzle: python:./meta.py:Meta\nmetric: fast\n")
    plain = _from_text(tmp_path, "puzzle: python:./meta.py:Meta\ngoal: 6\n", "q.yaml")
    assert (fast.metric, solve(fast, "bfs").plan.length) == ("fast", 3)
    assert (plain.metric, solve(plain, "bfs").plan.length) == ("step", 6)


def test_a_class_file_imports_the_modules_beside_it(tmp_path: Path) -> None:
    """As when the file runs as a script: `from steps_beside_it import STEP` failed unless the
    folder was on PYTHONPATH."""
    (tmp_path / "steps_beside_it.py").write_text("STEP = 2\n")
    (tmp_path / "stepper.py").write_text(textwrap.dedent('''
        from steps_beside_it import STEP
        class Stepper:
            def initial(self):
                return 0
            def is_goal(self, s):
                return s == 6
            def successors(self, s):
                if s < 10:
                    yield "add", s + STEP
    '''))
    model = _from_text(tmp_path, "puzzle: python:./stepper.py:Stepper\n")
    assert solve(model, "bfs").plan.length == 3


def test_two_actions_of_one_default_name_are_the_successors_fault(tmp_path: Path, capsys) -> None:
    """Without plan_moves, actions 'go up' and 'go  up' both read 'go_up': the message names
    successors (it blamed a plan_moves() the class does not define)."""
    (tmp_path / "dup.py").write_text(textwrap.dedent('''
        class Dup:
            def initial(self):
                return 0
            def is_goal(self, s):
                return s == 2
            def successors(self, s):
                if s < 3:
                    yield "go up", s + 1
                    yield "go  up", s + 2
    '''))
    (tmp_path / "p.yaml").write_text("puzzle: python:./dup.py:Dup\n")
    code, _, err = run_cli(capsys, "solve", str(tmp_path / "p.yaml"))
    assert code == 2 and "Dup.successors() yields the actions" in err and "both named 'go_up'" in err
    assert "plan_moves()" not in err and "define plan_moves" in err
