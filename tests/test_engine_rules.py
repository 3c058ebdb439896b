"""An engine's switchable rules (plans/core/engine_rules.py): `--rule`, the API's rules= and a batch
file's options.rules reach the engine, and a wrong rule is one clear error before any search."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli, run_json
from hypothesis import given
from hypothesis import strategies as st

import puzzleplan
from puzzleplan.models import ModelError
from puzzleplan.models.sokoban.model import load_collection
from puzzleplan.plans.batch.spec import parse_spec
from puzzleplan.plans.core import engine_rules as rules

ROOT = Path(__file__).resolve().parent.parent
MICROBAN = ROOT / "benchmarks" / "data" / "microban.xsb"
NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True)


@given(st.dictionaries(NAMES, st.booleans(), max_size=5), st.sampled_from(["=", " = "]), st.sampled_from([",", ", "]))
def test_parse_reads_what_is_written(wanted: dict[str, bool], eq: str, sep: str) -> None:
    text = sep.join(f"{name}{eq}{'on' if value else 'off'}" for name, value in wanted.items())
    assert rules.parse(text) == wanted


@pytest.mark.parametrize("text", ["corrals", "corrals=maybe", "=on", "a b=on", "9x=on"])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="expected NAME=on or NAME=off"):
        rules.parse(text)


def test_the_push_engine_declares_its_rules() -> None:
    known = rules.declared("push")
    assert {"corrals", "pairs", "symmetry", "dead_ends", "sealed", "layer_first"} <= set(known)
    assert known["pair_bound"][0] is False and known["corrals"][0] is True
    assert rules.declared("astar") == {}
    assert rules.checked("push", "corrals=off, pair_bound=on") == {"corrals": False, "pair_bound": True}
    with pytest.raises(ValueError, match="no rule 'corals'; its rules: prune \\(on\\), corrals \\(on\\)"):
        rules.checked("push", "corals=off")
    with pytest.raises(ValueError, match="engine astar has no rules to switch"):
        rules.checked("astar", {"corrals": False})


def test_cli_rules_reach_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    """Microban 78 under pushes: the forced corridor pushes fire by default, not with
    dead_ends=off; pair_bound=on lifts some bounds; the optimum stays."""
    args = ("solve", MICROBAN, "--level", "78", "--metric", "pushes")
    _, default = run_json(capsys, *args)
    _, switched = run_json(capsys, *args, "--rule", "dead_ends=off", "--rule", "pair_bound=on,corrals=off")
    assert default["cost"] == switched["cost"] == 33 and len(default["plan"]) == len(switched["plan"])
    assert default["stats"]["dead_end_pushes"] > 0 and switched["stats"]["dead_end_pushes"] == 0
    assert default["stats"]["pair_bound_wins"] == 0 < switched["stats"]["pair_bound_wins"]


@pytest.mark.parametrize("rule, message", [
    ("corals=off", "--rule: engine push has no rule 'corals'; its rules: "),
    ("corrals", "--rule: expected NAME=on or NAME=off, got 'corrals'"),
])
def test_cli_wrong_rule_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], rule: str, message: str) -> None:
    code, out, err = run_cli(capsys, "solve", MICROBAN, "--level", "78", "--rule", rule)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "solve", MICROBAN, "--level", "1", "--engine", "astar", "--rule", "corrals=off")
    assert code == 2 and "engine astar has no rules to switch" in err


def test_api_rules() -> None:
    model = load_collection(MICROBAN, "78", {"metric": "pushes"})
    plain = puzzleplan.solve(model, rules={"dead_ends": False})
    assert plain.stats.extra["dead_end_pushes"] == 0 and plain.plan.cost == 33
    assert puzzleplan.solve(model, rules="dead_ends=on").stats.extra["dead_end_pushes"] > 0
    with pytest.raises(ValueError, match="no rule 'deadends'"):
        puzzleplan.solve(model, rules={"deadends": False})


SPEC = """instances:
  - collection: {path}
    levels: 1-2
metrics: [pushes]
engines:
  - engine: push
    options: {{rules: "{rules}"}}
"""


def test_batch_rules(tmp_path: Path) -> None:
    spec = parse_spec(SPEC.format(path=MICROBAN, rules="corrals=off, symmetry=off"), "rules.yaml", tmp_path)
    assert {run.options["rules"] for run in spec.runs} == {"corrals=off, symmetry=off"}
    with pytest.raises(ModelError, match=r"rules.yaml:7: field 'options.rules': engine push has no rule 'corals'"):
        parse_spec(SPEC.format(path=MICROBAN, rules="corals=off"), "rules.yaml", tmp_path)
    # the Python API's form, a mapping, reads as the same text
    mapping = SPEC.format(path=MICROBAN, rules="").replace('{rules: ""}', "{rules: {corrals: false, symmetry: off}}")
    spec = parse_spec(mapping, "rules.yaml", tmp_path)
    assert {run.options["rules"] for run in spec.runs} == {"corrals=off, symmetry=off"}
    with pytest.raises(ModelError, match=r"rules.yaml:7: field 'options.rules': engine push has no rule 'corals'"):
        parse_spec(mapping.replace("corrals", "corals"), "rules.yaml", tmp_path)
    with pytest.raises(ModelError, match=r"options.rules.corrals'?: expected true or false \(or on, off\)"):
        parse_spec(mapping.replace("false", "maybe"), "rules.yaml", tmp_path)


def test_engines_lists_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "engines")
    lines = out.splitlines()
    push = next(i for i, line in enumerate(lines) if line.startswith("push "))
    listed = [" ".join(line.split()[1:5]) for line in lines[push + 1:] if line.lstrip().startswith("--rule")]
    assert code == 0 and listed == [f"{n}=on|off ({'on' if d else 'off'} by default):"
                                    for n, (d, _) in rules.declared("push").items()]
    bfs = next(i for i, line in enumerate(lines) if line.startswith("bfs "))
    assert not lines[bfs + 1].lstrip().startswith("--rule")
