"""A family added from outside puzzleplan: one package in a temporary folder, then either one
`register(FAMILY)` call or one entry point (a dist-info on sys.path). Without editing any file
of puzzleplan it gets every generic engine, `explore`, `check`, the capability matrix and the
catalogue's assertions."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from catalogue import Case, feasible
from helpers import run_cli, run_json
from puzzleplan.models import load
from puzzleplan.models.family import family, register, unregister
from puzzleplan.plans.core import engines
from puzzleplan.plans.families import capabilities
from test_catalogue import run_engine_on_case

PACKAGE = {
    "__init__.py": '''
        """Tokens on a line; a move swaps two neighbours (named by the left one's position)."""
        from puzzleplan.models.family import Family

        SAMPLE = "puzzle: slide-1d\\nstart: b a c\\ngoal: a b c\\n"

        FAMILY = Family(name="slide-1d", model="slide1d.model:Line", summary="tokens on a line",
                        sample="slide1d:SAMPLE")
    ''',
    "model.py": '''
        from puzzleplan.models.base import ModelBase


        class Line(ModelBase):
            family = "slide-1d"
            metrics = ("step",)
            default_engine = "bfs"

            def __init__(self, start, goal, common):
                self.start, self.goal = tuple(start), tuple(goal)
                self.name, self.metric = common.name, common.metric
                self.max_moves, self.expect = common.max_moves, common.expect

            @classmethod
            def from_document(cls, doc):
                doc.check_keys(("puzzle", "name", "description", "start", "goal", "max_moves", "metric", "expect"))
                start, goal = doc.text("start").split(), doc.text("goal").split()
                if sorted(start) != sorted(goal) or len(start) > 9:
                    raise doc.error("goal", "expected the start's tokens (at most 9)")
                return cls(start, goal, doc.common(cls.metrics, ("optimal", "solvable", "reachable")))

            def initial(self):
                return self.start

            def is_goal(self, state):
                return state == self.goal

            def successors(self, state):
                for i in range(len(state) - 1):
                    cells = list(state)
                    cells[i], cells[i + 1] = cells[i + 1], cells[i]
                    yield str(i + 1), tuple(cells)

            def h(self, state):  # a swap puts at most two tokens in place
                return (sum(1 for a, b in zip(state, self.goal) if a != b) + 1) // 2

            def render(self, state):
                return " ".join(state)
    ''',
}
PUZZLE = "puzzle: slide-1d\nname: four reversed\nstart: d c b a\ngoal: a b c d\nexpect:\n  optimal: 6\n  reachable: 24\n"


@pytest.fixture(params=["register", "entry-point"])
def new_family(request, tmp_path, monkeypatch):
    for name, text in PACKAGE.items():
        (tmp_path / "slide1d").mkdir(exist_ok=True)
        (tmp_path / "slide1d" / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    if request.param == "register":
        import importlib
        register(importlib.import_module("slide1d").FAMILY)
    else:  # what `pip install` of a package declaring the entry point leaves on sys.path
        info = tmp_path / "slide1d-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: slide1d\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text("[puzzleplan.models]\nslide-1d = slide1d:FAMILY\n")
    puzzle = tmp_path / "line.yaml"
    puzzle.write_text(PUZZLE)
    yield puzzle
    unregister("slide-1d")
    for module in [m for m in sys.modules if m == "slide1d" or m.startswith("slide1d.")]:
        del sys.modules[module]


def test_the_family_is_found(new_family) -> None:
    assert family("slide-1d") is not None
    assert load(new_family).family == "slide-1d"


def test_every_generic_engine_passes_the_catalogue(new_family) -> None:
    case = Case(new_family, "slide-1d", "step", 6, True, None, True, {"optimal": 6, "reachable": 24})
    ran = []
    for engine in engines.names():
        if feasible(engine, case) is None:
            run_engine_on_case(engine, case)
            ran.append(engine)
    assert {"bfs", "astar", "idastar", "dfs", "greedy", "pbfs"} <= set(ran)
    assert "plan" not in ran and "sat" not in ran  # declared unsupported, with reasons
    assert engines.supports("sat", case.model())


def test_explore_check_and_matrix(new_family, capsys) -> None:
    code, data = run_json(capsys, "explore", new_family)
    assert code == 0 and data["reachable"] == 24 and data["goal_distance"] == 6
    code, data = run_json(capsys, "solve", new_family)
    assert code == 0 and data["length"] == 6
    plan = "".join(data["plan"])
    code, out, _ = run_cli(capsys, "check", new_family, plan)
    assert code == 0 and out.startswith("valid")
    code, out, _ = run_cli(capsys, "check", new_family, "12")
    assert code == 1
    row = capabilities(family("slide-1d"), "step")
    assert row.checker == "model" and "bfs" in row.engines and row.encodings == ()


def test_a_broken_outside_package_breaks_nothing_else(tmp_path, monkeypatch, capsys) -> None:
    info = tmp_path / "broken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[puzzleplan.models]\nbroken = no_such_module:FAMILY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for command in (["engines"], ["families"], ["encodings"]):
        code, _, err = run_cli(capsys, *command)
        assert code == 0, (command, err)
    code, _, err = run_cli(capsys, "solve", tmp_path / "x.yaml", "--engine", "nosuch")
    assert code == 2 and "Traceback" not in err


def test_a_family_without_sample_is_left_out_of_the_matrix(capsys) -> None:
    from puzzleplan.models.family import Family
    register(Family(name="nosample", model="slide1d.model:Line"))
    try:
        code, rows = run_json(capsys, "families")
        assert code == 0 and "nosample" not in {r["family"] for r in rows}
    finally:
        unregister("nosample")
