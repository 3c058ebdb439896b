"""Batch specs checked as `solve` checks its options, names that stand for one configuration,
and `--resume` keeping the rows of the spec's runs alone (an earlier spec's are dropped)."""
from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from helpers import COSTED_RULES
from puzzleplan.models import ModelError
from puzzleplan.plans.batch import batch, load_spec
from puzzleplan.plans.batch.driver import run_batch
from puzzleplan.plans.batch.executors import LocalPool
from puzzleplan.plans.batch.table import read_rows
from puzzleplan.plans.cli import main

ROOT = Path(__file__).resolve().parents[1]
POCKET = ROOT / "examples" / "sokoban" / "pocket.yaml"
TILES = ROOT / "examples" / "tiles" / "seed-002-small.yaml"


def spec_file(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, where: str, expected: str) -> None:
    """`text` as a spec is one ModelError naming the spec and line, and `batch --dry-run` exits 2
    with that one line."""
    path = spec_file(tmp_path, text, "bad.yaml")
    with pytest.raises(ModelError) as info:
        load_spec(path)
    message = str(info.value)
    assert f"bad.yaml{where}" in message and expected in message and "\n" not in message, message
    assert main(["batch", str(path), "--dry-run"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and expected in captured.err


# -- options --------------------------------------------------------------------------------------

@pytest.mark.parametrize("options, field, expected", [
    ("{workers: x}", "options.workers", "expected a whole number from 1 to 64, got 'x'"),
    ("{workers: 0}", "options.workers", "expected a whole number from 1 to 64, got '0'"),
    ("{workers: 2.5}", "options.workers", "expected a whole number"),
    ("{max_horizon: -1}", "options.max_horizon", "expected a whole number"),
    ("{native: maybe}", "options.native", "expected true or false"),
    ("{no_reversal: 1}", "options.no_reversal", "expected true or false"),
    ("{strategy: sideways}", "options.strategy", "expected one of increasing, binary, fixed"),
    ("{goal: later}", "options.goal", "expected one of by, exact"),
    ("{card: abacus}", "options.card", "expected one of pairwise"),
])
def test_option_values_of_a_known_type_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str], options: str,
                                                   field: str, expected: str) -> None:
    refused(tmp_path, capsys, f"instances: [{POCKET}]\nengines: [bfs]\noptions: {options}\n", ":3:",
            f"field '{field}': {expected}")
    refused(tmp_path, capsys, f"instances: [{POCKET}]\nengines:\n  - engine: sat\n    options: {options}\n", ":4:",
            f"field '{field}': {expected}")


def test_typed_options_keep_their_type(tmp_path: Path) -> None:
    spec = load_spec(spec_file(tmp_path, f"""
        instances: [{TILES}]
        engines:
          - engine: cpsat
            options: {{workers: 2, max_horizon: 40, goal: exact, no_reversal: false}}
          - engine: pbfs
            options: {{workers: 2}}
    """))
    sat, pbfs = spec.runs
    assert sat.options == {"workers": 2, "max_horizon": 40, "goal": "exact", "no_reversal": False}
    assert pbfs.options == {"workers": 2}
    with pytest.raises(ModelError, match="options.workers"):   # as `solve --workers 65` is refused
        load_spec(spec_file(tmp_path, f"instances: [{TILES}]\nengines: [pbfs]\noptions: {{workers: 65}}\n"))


def test_a_heuristic_goes_with_engines_that_read_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(tmp_path, capsys, f"instances: [{TILES}]\nengines: [bfs]\noptions: {{heuristic: pdb}}\n", ":3:",
            "field 'options.heuristic': engine bfs takes none (idastar and the task engines do)")
    refused(tmp_path, capsys, f"instances: [{TILES}]\nengines: [idastar, astar]\noptions: {{heuristic: pdb}}\n",
            ":3:", "engine astar takes none")
    refused(tmp_path, capsys, f"instances: [{TILES}]\nengines:\n  - idastar\n  - engine: bfs\n"
                              "    options: {heuristic: manhattan}\n", ":5:", "engine bfs takes none")
    spec = load_spec(spec_file(tmp_path, f"""
        instances: [{TILES}]
        engines:
          - engine: idastar
            options: {{heuristic: pdb}}
          - bfs
    """))
    assert [r.config for r in spec.runs] == ["idastar[heuristic=pdb]", "bfs"]


def test_a_heuristic_the_family_does_not_name_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(tmp_path, capsys, f"instances: [{TILES}]\nengines:\n  - engine: idastar\n    options: {{heuristic: zz}}\n",
            ":3:", "field 'options.heuristic': expected one of manhattan, pdb for tiles, got 'zz'")


def test_encoder_options_go_with_the_engines_that_read_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(tmp_path, capsys, f"instances: [{TILES}]\nengines:\n  - engine: bfs\n    options: {{strategy: binary}}\n",
            ":4:", "field 'options.strategy': goes with engine sat or cpsat, not bfs")
    refused(tmp_path, capsys, f"instances: [{TILES}]\nengines: [sat, cpsat]\noptions: {{card: ladder}}\n",
            ":3:", "goes with engine sat, not cpsat")


# -- names of configurations ----------------------------------------------------------------------

def test_a_label_given_twice_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(tmp_path, capsys, f"""
        instances: [{POCKET}]
        engines:
          - engine: bfs
            label: fast
          - engine: astar
            label: fast
    """, ":6:", "field 'label': 'fast' already labels the engine on line 4")


def test_a_name_shared_by_two_configurations_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(tmp_path, capsys, f"""
        instances: [{POCKET}]
        engines:
          - astar
          - engine: bfs
            label: astar
    """, ":5:", "would be named 'astar' (the engines on lines 4 and 5)")
    refused(tmp_path, capsys, f"""
        instances: [{TILES}]
        engines:
          - engine: sat
            encodings: [sas-seq, sas-exists]
            label: SAT
    """, ":4:", "would be named 'SAT' (the encodings or solvers of the engine on line 4)")
    refused(tmp_path, capsys, f"""
        instances: [{POCKET}]
        engines:
          - bfs
          - engine: bfs
            limits: {{time_limit: 5}}
    """, ":5:", "would be named 'bfs'")


def test_a_configuration_listed_twice_runs_once(tmp_path: Path) -> None:
    spec = load_spec(spec_file(tmp_path, f"""
        instances: [{TILES}]
        engines:
          - bfs
          - bfs
          - engine: sat
            encodings: [all, sas-seq]
    """))
    configs = [r.config for r in spec.runs]
    assert configs.count("bfs") == 1 and configs.count("sat/sas-seq") == 1
    assert len({r.run_id for r in spec.runs}) == len(spec.runs)
    assert spec.skipped["configurations listed twice"] == 2
    # one instance, several metrics: the same name under each metric is no clash
    assert len(load_spec(spec_file(tmp_path, f"instances: [{POCKET}]\nmetrics: [moves, pushes]\n"
                                             "engines: [{engine: bfs, label: B}]\n")).runs) == 2


def test_an_instance_listed_again_with_other_settings_runs_both_or_says_why_not(tmp_path: Path) -> None:
    """Listed again under other metrics: both listings' runs; listed again alike: its runs once;
    listed again under the same metric with another limit: an error (the runs would share a name)."""
    spec = load_spec(spec_file(tmp_path, f"""
        instances:
          - {{file: {POCKET}, metrics: [moves], limits: {{time_limit: 2}}}}
          - {{file: {POCKET}, metrics: [pushes], limits: {{time_limit: 5}}}}
          - {{file: {POCKET}, metrics: [pushes], limits: {{time_limit: 5}}}}
        engines: [bfs]
    """))
    assert [(r.metric, r.time_limit) for r in spec.runs] == [("moves", 2), ("pushes", 5)]
    assert spec.skipped["instances listed twice"] == 1
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text(POCKET.read_text())
    twice = load_spec(spec_file(tmp_path, "instances: [a.yaml, sub/../a.yaml]\nengines: [bfs]\n"))
    assert len(twice.runs) == 1 and twice.skipped["instances listed twice"] == 1   # one file, two spellings
    with pytest.raises(ModelError, match=r"spec.yaml:4: .*pocket.yaml is listed again \(first on line 3\) with "
                                         "another cap or limit under moves"):
        load_spec(spec_file(tmp_path, f"""
            instances:
              - {{file: {POCKET}, metrics: [moves], limits: {{time_limit: 2}}}}
              - {{file: {POCKET}, metrics: [moves], max_moves: 30}}
            engines: [bfs]
        """))


def test_a_rules_file_with_costs_runs_under_the_cost_metric(tmp_path: Path) -> None:
    """A rules file whose actions state costs is solved under `cost` (its default metric):
    the spec neither refuses that metric nor drops the instance."""
    puzzle = tmp_path / "costed.yaml"
    puzzle.write_text(COSTED_RULES)
    for metrics in ("", "metrics: [cost]\n"):
        spec = load_spec(spec_file(tmp_path, f"instances: [{puzzle}]\n{metrics}engines: [task-bfs]\n"))
        assert [(r.metric, r.engine) for r in spec.runs] == [("cost", "task-bfs")]
    report = batch(spec, tmp_path / "out.csv", workers=1)
    (row,) = read_rows(tmp_path / "out.csv")
    assert row["status"] == "optimal" and row["cost"] == 5 and report.disagreements == []


# -- resume ---------------------------------------------------------------------------------------

def test_resume_drops_the_rows_of_an_earlier_spec(tmp_path: Path) -> None:
    path = spec_file(tmp_path, f"instances: [{POCKET}]\nengines: [bfs, astar]\nlimits: {{time_limit: 25}}\n")
    out = tmp_path / "out.csv"
    first = batch(path, output=out, workers=1)
    assert first.ran == 2 and len(read_rows(out)) == 2
    path.write_text(f"instances: [{POCKET}]\nengines: [astar]\nlimits: {{time_limit: 30}}\n")
    proc = subprocess.run([sys.executable, "-m", "puzzleplan.plans.cli", "batch", str(path), "-o", str(out),
                           "--resume", "--json", "--workers", "1"], capture_output=True, text=True, timeout=150)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["runs"], report["ran"], report["resumed"], report["dropped"]) == (1, 1, 0, 2)
    assert f"{out}: 2 rows from an earlier spec dropped" in proc.stderr and proc.stderr.count("\n") == 1
    rows = read_rows(out)
    assert [(r["config"], r["time_limit"], r["index"]) for r in rows] == [("astar", 30.0, 0)]
    backup = tmp_path / "out.before-resume.csv"    # the table as it was, in case the spec changed by mistake
    assert f"kept in {backup}" in proc.stderr and len(read_rows(backup)) == 2
    again = batch(path, output=out, workers=1, resume=True)      # nothing left to drop or run
    assert (again.ran, again.resumed, again.dropped) == (0, 1, 0)


def test_resume_keeps_the_rows_of_the_spec_in_its_order(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = spec_file(tmp_path, f"instances: [{POCKET}]\nengines: [bfs, astar, greedy]\nlimits: {{time_limit: 30}}\n")
    out = tmp_path / "out.parquet"
    batch(path, output=out, workers=1)
    path.write_text(f"instances: [{POCKET}]\nengines: [astar, bfs]\nlimits: {{time_limit: 30}}\n")
    with caplog.at_level(logging.WARNING):
        report = batch(path, output=out, workers=1, resume=True)
    assert (report.ran, report.resumed, report.dropped) == (0, 2, 1)
    assert "1 row from an earlier spec dropped" in caplog.text
    assert [(r["config"], r["index"]) for r in read_rows(out)] == [("astar", 0), ("bfs", 1)]
    assert [r["config"] for r in report.rows] == ["astar", "bfs"]


def test_resume_reruns_runs_under_another_stated_memory_limit(tmp_path: Path) -> None:
    path = spec_file(tmp_path, f"instances: [{POCKET}]\nengines: [astar]\nlimits: {{time_limit: 30}}\n")
    out = tmp_path / "out.csv"
    with LocalPool(1) as pool:   # a limit left to the machine: another default keeps the row
        run_batch(load_spec(path).with_memory_default(1500), out, pool)
        kept = run_batch(load_spec(path).with_memory_default(1700), out, pool, resume=True)
    assert (kept.ran, kept.resumed, kept.dropped) == (0, 1, 0)
    path.write_text(f"instances: [{POCKET}]\nengines: [astar]\nlimits: {{time_limit: 30, memory_limit: 1G}}\n")
    rerun = batch(path, output=out, workers=1, resume=True)
    assert (rerun.ran, rerun.resumed, rerun.dropped) == (1, 0, 1)
    assert [r["memory_mb"] for r in read_rows(out)] == [1024]
    path.write_text(f"instances: [{POCKET}]\nengines: [astar]\nlimits: {{time_limit: 30, memory_limit: 2G}}\n")
    assert batch(path, output=out, workers=1, resume=True).ran == 1
    assert batch(path, output=out, workers=1, resume=True).ran == 0
    assert [r["memory_mb"] for r in read_rows(out)] == [2048]


def test_a_glob_matching_too_many_files_stops_at_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`files: /**/*.yaml` would walk a whole disk and load every file: the walk stops past the cap."""
    import puzzleplan.plans.batch.spec as spec_module
    monkeypatch.setattr(spec_module, "MAX_GLOB_FILES", 2)
    for name in "abc":
        (tmp_path / f"{name}.yaml").write_text(POCKET.read_text())
    with pytest.raises(ModelError, match=r"'\*\*/\*.yaml' matches more than 2 files; narrow it"):
        load_spec(spec_file(tmp_path, "instances: [{files: '**/*.yaml'}]\nengines: [bfs]\n", "spec.yml"))


def test_a_glob_beside_the_spec_leaves_the_spec_out(tmp_path: Path) -> None:
    (tmp_path / "pocket.yaml").write_text(POCKET.read_text())
    spec = load_spec(spec_file(tmp_path, "instances: [{files: '*.yaml'}]\nengines: [bfs]\n"))
    assert [r.instance for r in spec.runs] == ["pocket.yaml"]
    (tmp_path / "pocket.yaml").unlink()
    with pytest.raises(ModelError, match=r"'\*.yaml' matches no file besides the spec itself"):
        load_spec(tmp_path / "spec.yaml")


def test_a_collection_listed_as_one_file_is_told_to_be_a_collection(tmp_path: Path) -> None:
    (tmp_path / "two.xsb").write_text("; A\n#####\n#@$.#\n#####\n\n; B\n######\n#@$ .#\n######\n")
    with pytest.raises(ModelError, match=r"spec.yaml:2: field 'instances': .*two.xsb: holds 2 levels.*"
                                         r"listed as `collection: FILE` with `levels:`"):
        load_spec(spec_file(tmp_path, "instances:\n  - {file: two.xsb}\nengines: [bfs]\n"))
    (tmp_path / "two.korf").write_text("1 0 2 3 4 5 6 7 8\n1 2 0 3 4 5 6 7 8\n")   # another family's words
    with pytest.raises(ModelError, match=r"two.korf: holds 2 instances.*listed as `collection: FILE` with `levels:`"):
        load_spec(spec_file(tmp_path, "instances:\n  - {file: two.korf}\nengines: [bfs]\n"))
