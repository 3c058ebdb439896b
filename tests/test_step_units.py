"""Encodings whose horizon counts pushes, not moves (sok-push, cp-sok-push): every horizon
strategy, the any-plan cap, the time-limit fallback, `compare`, `verify` and the printed counts
read their plans in pushes. The levels have far more moves than pushes (around: 2 pushes, 12 moves), so
a plan sized in moves would overshoot the caps used here."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from puzzleplan.encoders import engines
from puzzleplan.encoders.base import Answer, HorizonResult, counts_own_steps, encoding_class, steps_of
from puzzleplan.encoders.runner import Deadline
from puzzleplan.models import load
from puzzleplan.plans.cli import main
from puzzleplan.plans.core.types import Request, Status
from puzzleplan.plans.core.words import bound_words
from puzzleplan.plans.solve import solve

SOK = Path(__file__).resolve().parent.parent / "examples" / "sokoban"
LEVELS = ("around.yaml", "l-room.yaml")
ENGINES = (("sat", "sok-push"), ("cpsat", "cp-sok-push"))


def pushes_model(name: str):
    return load(SOK / name).with_metric("pushes")


def native_pushes(name: str) -> int:
    result = solve(pushes_model(name), "bfs", Request())
    assert result.status is Status.OPTIMAL and result.plan is not None
    assert result.plan.length > result.plan.cost   # the level separates the two units
    return result.plan.cost


def test_the_push_encodings_count_their_own_steps():
    for _, name in ENGINES:
        cls = encoding_class(name)
        assert counts_own_steps(cls)
        assert steps_of(cls, list("rrUldD")) == 2
    assert not counts_own_steps(encoding_class("sok-onehot"))
    assert steps_of(encoding_class("sok-onehot"), list("rrUldD")) == 6


@pytest.mark.parametrize("engine,encoding", ENGINES)
@pytest.mark.parametrize("strategy", ["increasing", "binary"])
@pytest.mark.parametrize("name", LEVELS)
def test_optimal_plan_is_sized_in_pushes(name, strategy, engine, encoding):
    pushes = native_pushes(name)
    request = Request(max_moves=pushes + 3 if strategy == "binary" else None,
                      options={"encoding": encoding, "strategy": strategy})
    result = solve(pushes_model(name), engine, request)
    assert result.status is Status.OPTIMAL, result.message
    assert result.plan is not None and result.plan.cost == pushes
    assert result.lower_bound == pushes
    assert sum(m.isupper() for m in result.plan.moves) == pushes


@pytest.mark.parametrize("engine,encoding", ENGINES)
@pytest.mark.parametrize("name", LEVELS)
def test_any_plan_within_a_push_cap(name, engine, encoding):
    """The fixed horizon at the cap: a plan of `pushes` pushes is within a cap of `pushes`
    (it was dropped when sized by its moves), and one below the cap is proved empty."""
    pushes = native_pushes(name)
    model = pushes_model(name)
    found = solve(model, engine, Request(max_moves=pushes, any_plan=True, options={"encoding": encoding}))
    assert found.status in (Status.SOLVED, Status.OPTIMAL), found.message
    assert found.plan is not None and found.plan.cost <= pushes
    none = solve(model, engine, Request(max_moves=pushes - 1, any_plan=True, options={"encoding": encoding}))
    assert none.status is Status.NO_PLAN_WITHIN_CAP
    assert f"no plan within {pushes - 1} push" in (none.message or "")


def test_time_limit_keeps_the_plan_sized_in_pushes(monkeypatch):
    """The time limit strikes after the first SAT answer: the plan seen is returned, SOLVED, its
    cost its pushes (it was its move count)."""
    def first_plan_then_deadline(fn, args, seconds, memory_mb=None):
        for item in fn(*args):      # the real solver calls, in this process
            yield item
            if isinstance(item, HorizonResult) and item.answer is Answer.SAT:
                raise Deadline()
    monkeypatch.setattr(engines, "stream", first_plan_then_deadline)
    cap = native_pushes("around.yaml") + 1
    result = solve(pushes_model("around.yaml"), "sat",
                   Request(max_moves=cap, options={"encoding": "sok-push", "strategy": "binary"}))
    assert result.status is Status.SOLVED, result.message
    assert result.plan is not None and result.plan.length > cap
    assert result.plan.cost == sum(m.isupper() for m in result.plan.moves) <= cap


def test_limit_message_counts_pushes(monkeypatch):
    def deadline_at_once(fn, args, seconds, memory_mb=None):
        raise Deadline()
        yield  # a generator, as stream is
    monkeypatch.setattr(engines, "stream", deadline_at_once)
    model = pushes_model("around.yaml")
    result = solve(model, "sat", Request(options={"encoding": "sok-push"}))
    assert result.status is Status.LIMIT_REACHED and result.message == "time limit reached"
    assert "push" in bound_words(model, result.lower_bound)   # the bound line counts pushes


def test_verify_rows_say_pushes(capsys):
    code = main(["verify", str(SOK / "l-room.yaml"), "--metric", "pushes", "--encodings", "sok-push"])
    out = capsys.readouterr().out
    pushes = native_pushes("l-room.yaml")
    assert code == 0
    assert f"plan of {pushes} pushes" in out and f"no plan <= {pushes - 1} push" in out
    assert f"the minimal push count is {pushes}" in out


def test_cli_says_the_moves_are_not_minimised(capsys):
    code = main(["solve", str(SOK / "around.yaml"), "--metric", "pushes", "--engine", "sat"])
    out = capsys.readouterr().out
    assert code == 0
    assert "2 pushes" in out and "(moves not minimised)" in out


def test_compare_asks_push_encodings_at_the_push_optimum(capsys):
    pushes = native_pushes("l-room.yaml")
    code = main(["compare", str(SOK / "l-room.yaml"), "--metric", "pushes", "--encodings", "sok-push", "sas-seq",
                 "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert code == 0
    by_name = {row["encoding"]: row for row in rows}
    assert by_name["sok-push"]["horizon"] == pushes and by_name["sok-push"]["result"] == "sat"
    # the generic one at the native plan's moves (on l-room the push-optimal plan's 11 moves are
    # also the move optimum; on other levels they need not be)
    assert by_name["sas-seq"]["horizon"] == load(SOK / "l-room.yaml").expect["optimal_moves"]
    assert by_name["sas-seq"]["result"] == "sat"


@pytest.mark.parametrize("engine", ["bfs", "astar", "idastar", "dfs", "push"])
def test_a_push_cap_is_said_in_pushes_by_every_engine(engine):
    """Under pushes the cap bounds pushes: the generic engines said `no plan within 7 moves`,
    and idastar gave its bound as moves."""
    pushes = native_pushes("around.yaml")
    result = solve(pushes_model("around.yaml"), engine, Request(max_moves=pushes - 1))
    assert result.status is Status.NO_PLAN_WITHIN_CAP
    assert (result.message or "").startswith(f"no plan within {pushes - 1} push"), result.message
    assert "move" not in (result.message or "")
