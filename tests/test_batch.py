"""Batch runs: specs, the local pool and a Dask LocalCluster giving the same table, runs that
crash, blow their memory or hang becoming rows, resume, Ctrl-C, cross-checks, the API."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import puzzleplan
from puzzleplan.models import ModelError
from puzzleplan.plans.batch import batch, load_spec
from puzzleplan.plans.batch.crosscheck import disagreements, summarize
from puzzleplan.plans.batch.driver import run_batch
from puzzleplan.plans.batch.executors import DaskExecutor, LocalPool
from puzzleplan.plans.batch.spec import parse_levels
from puzzleplan.plans.batch.table import NAMES, TIME_COLUMNS, Journal, read_rows, write_rows
from puzzleplan.plans.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

# Catalogue examples x 3 engines x 2 encodings (the generic ones, which every family here compiles to).
SMALL = f"""
name: small catalogue
instances:
  - file: {EXAMPLES}/sokoban/pocket.yaml
  - file: {EXAMPLES}/tiles/seed-002-small.yaml
  - file: {EXAMPLES}/rush-hour/walls.yaml
  - file: {EXAMPLES}/user/water-jugs.yaml
engines:
  - bfs
  - astar
  - engine: sat
    encodings: [sas-seq, sas-exists]
limits: {{time_limit: 60, memory_limit: 2G}}
"""

# A user family whose rules misbehave on purpose, one way per `mode:`.
FAULTY = '''
import os, time

HOG = []

class Faulty:
    family = "faulty"

    def __init__(self, mode, pidfile=None):
        self.mode, self.pidfile = mode, pidfile
        self.goal_seen = False

    @classmethod
    def from_yaml(cls, data):
        return cls(data["mode"], data.get("pidfile"))

    def initial(self):
        return 0

    def is_goal(self, state):
        if state != 3 or self.mode == "hog":
            return False
        if self.mode == "checker":      # the goal only the first time: the checker's replay fails
            seen, self.goal_seen = self.goal_seen, True
            return not seen
        return True

    def successors(self, state):
        if self.mode == "crash":
            os.abort()
        if self.mode == "hog":          # 64 MiB more at every expansion, never released
            HOG.append(bytearray(os.urandom(1)) * (64 << 20))
        if self.mode == "hang":         # ignores every limit
            if self.pidfile:
                with open(self.pidfile, "w") as f:
                    f.write(str(os.getpid()))
            time.sleep(3600)
        if state < 3 or self.mode == "hog":
            yield "up", state + 1
'''


def faulty(tmp_path: Path, mode: str, **extra: str) -> Path:
    (tmp_path / "faulty.py").write_text(FAULTY)
    lines = "".join(f"{k}: {v}\n" for k, v in extra.items())
    path = tmp_path / f"{mode}.yaml"
    path.write_text(f"puzzle: python:./faulty.py:Faulty\nname: {mode}\nmode: {mode}\n{lines}")
    return path


def spec_file(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def comparable(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIME_COLUMNS} for r in rows]


# -- specs ------------------------------------------------------------------------------------------

def test_small_spec_is_the_cross_product(tmp_path: Path) -> None:
    spec = load_spec(spec_file(tmp_path, SMALL))
    assert len(spec.runs) == 4 * 4
    assert [r.config for r in spec.runs[:4]] == ["bfs", "astar", "sat/sas-seq", "sat/sas-exists"]
    assert {r.instance for r in spec.runs} == {str(EXAMPLES / f) for f in (
        "sokoban/pocket.yaml", "tiles/seed-002-small.yaml", "rush-hour/walls.yaml", "user/water-jugs.yaml")}
    assert len({r.run_id for r in spec.runs}) == len(spec.runs)
    assert all(r.time_limit == 60 and r.memory_mb == 2048 for r in spec.runs)


def test_collections_metrics_overrides_and_skips(tmp_path: Path) -> None:
    data = ROOT / "benchmarks" / "data" / "microban.xsb"
    spec = load_spec(spec_file(tmp_path, f"""
        instances:
          - collection: {data}
            levels: [1, "3-4"]
          - file: {EXAMPLES}/tiles/malok-safe.yaml
            metrics: [step]
            limits: {{time_limit: 5}}
          - collection: {EXAMPLES}/rush-hour/rush-sample.txt     # Fogleman's rush.txt lines
            levels: 2-3
            metrics: [slide]
        metrics: [pushes, moves]
        engines:
          - astar
          - engine: sat
            encodings: [sok-onehot]
            solvers: [cadical195, glucose4]
            limits: {{time_limit: 7}}
        repeats: 2
        max_moves: 90
    """))
    levels = sorted({r.level for r in spec.runs if r.family == "sokoban"})
    assert levels == ["1", "3", "4"]
    sokoban = [r for r in spec.runs if r.family == "sokoban"]
    # sok-onehot is for the moves metric: under pushes only astar runs
    assert len(sokoban) == 3 * 2 * (1 + 3)      # levels x repeats x (pushes: astar; moves: astar + 2 sat)
    assert {r.config for r in sokoban if r.metric == "moves"} == {"astar", "sat/sok-onehot/cadical195",
                                                                  "sat/sok-onehot/glucose4"}
    tiles = [r for r in spec.runs if r.family == "tiles"]
    assert {(r.config, r.time_limit) for r in tiles} == {("astar", 5.0)}
    rush = [r for r in spec.runs if r.family == "rush-hour"]
    assert {(r.instance.rsplit("/", 1)[1], r.config) for r in rush} == {
        ("rush-sample.txt#2", "astar"), ("rush-sample.txt#3", "astar")}
    assert all(r.max_moves == 90 for r in spec.runs)
    assert {r.repeat for r in spec.runs} == {1, 2}
    assert sum(spec.skipped.values()) > 0


@pytest.mark.parametrize("body, where, expected", [
    ("engines: [bfs]\n", ":1:", "missing required field 'instances'"),
    ("instances: [nothing-*.yaml]\nengines: [bfs]\n", ":1:", "matches no file"),
    ("instances: [{file: x.yaml, files: y}]\nengines: [bfs]\n", ":1:", "one of file:, files: or collection:"),
    ("instances: [{collection: m.xsb, levels: 0-3}]\nengines: [bfs]\n", ":1:", "outside the"),
    ("instances: [{collection: m.xsb, levels: 'two'}]\nengines: [bfs]\n", ":1:", "expected 'all'"),
    ("instances: [a.yaml]\nengines: [warp]\n", ":2:", "no engine 'warp'"),
    ("instances: [a.yaml]\nengines: [{engine: bfs, encodings: [sas-seq]}]\n", ":2:", "go with the sat and cpsat"),
    ("instances: [a.yaml]\nengines: [{engine: sat, encodings: [nope]}]\n", ":2:", "no encoding 'nope'"),
    ("instances: [a.yaml]\nengines: [{engine: sat, solvers: [minisat99]}]\n", ":2:", "no python-sat solver"),
    ("instances: [a.yaml]\nengines: [bfs]\nlimits: {time_limit: -1}\n", ":3:", "positive number of seconds"),
    ("instances: [a.yaml]\nengines: [bfs]\nlimits: {memory_limit: lots}\n", ":3:", "a size such as 4G"),
    ("instances: [a.yaml]\nengines: [bfs]\noptions: {speed: 11}\n", ":3:", "unknown key"),
    ("instances: [a.yaml]\nengines: [bfs]\nmetrics: [furlongs]\n", ":3:", "metric 'furlongs' belongs to no"),
    ("instances: [a.yaml]\nengines: [bfs]\nrepeats: 0\n", ":3:", "whole number from 1"),
    ("instances: [a.yaml]\nengines: [bfs]\noutput: out.xlsx\n", ":3:", ".parquet or .csv"),
    ("instances: [a.yaml]\nengines: [bfs]\ncolour: red\n", ":3:", "unknown key"),
    ("- just a list\n", ":1:", "expected a YAML mapping"),
    ("instances:\n  - a.yaml\n  - broken.yaml\nengines: [bfs]\n", ":3:", "broken.yaml:2: field 'start'"),
])
def test_bad_specs_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, where: str,
                                       expected: str) -> None:
    (tmp_path / "a.yaml").write_text((EXAMPLES / "sokoban" / "pocket.yaml").read_text())
    (tmp_path / "m.xsb").write_text("#####\n#@$.#\n#####\n")
    (tmp_path / "broken.yaml").write_text("puzzle: tiles\nstart: |\n  1 2\n  3 x\n")   # no blank: the spec's line 3
    path = spec_file(tmp_path, body, "bad.yaml")
    with pytest.raises(ModelError) as info:
        load_spec(path)
    message = str(info.value)
    assert f"bad.yaml{where}" in message and expected in message and "\n" not in message
    assert main(["batch", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err


@given(st.lists(st.tuples(st.integers(1, 40), st.integers(0, 5)), min_size=1, max_size=6))
@settings(max_examples=60, deadline=None)
def test_level_ranges(parts: list[tuple[int, int]]) -> None:
    count = 42
    text = ", ".join(f"{a}-{a + n}" if n else str(a) for a, n in parts)
    expected = list(dict.fromkeys(i for a, n in parts for i in range(a, a + n + 1)))
    if max(expected) > count:
        with pytest.raises(ValueError, match="outside"):
            parse_levels(text, count)
    else:
        assert parse_levels(text, count) == expected
    assert parse_levels("all", 3) == [1, 2, 3]


@pytest.mark.parametrize("text, says", [("5-3", "5-3 runs backwards; write the smaller level first (3-5)"),
                                        ("", "got nothing"), ("  ", "got nothing"), ("0", "outside the 42 levels")])
def test_bad_level_ranges_say_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        parse_levels(text, 42)


# -- executors --------------------------------------------------------------------------------------

def test_local_pool_and_dask_local_cluster_give_the_same_table(tmp_path: Path) -> None:
    spec = load_spec(spec_file(tmp_path, SMALL))
    with LocalPool(2) as pool:
        local = run_batch(spec, tmp_path / "local.parquet", pool)
    with DaskExecutor(local_workers=2) as cluster:
        dask = run_batch(spec, tmp_path / "dask.csv", cluster)
        # Ctrl-C reaches the whole process group; the local workers leave it to the batch (they
        # printed ~65 lines of tracebacks a Ctrl-C)
        ignored = cluster.client.run(lambda: signal.getsignal(signal.SIGINT) == signal.SIG_IGN)
        assert list(ignored.values()) == [True, True]
    assert len(local.rows) == len(dask.rows) == 16
    assert comparable(read_rows(tmp_path / "local.parquet")) == comparable(read_rows(tmp_path / "dask.csv"))
    rows = local.rows
    assert all(r["status"] == "optimal" and r["plan_checked"] is True for r in rows), \
        [(r["instance"], r["config"], r["status"], r["error"]) for r in rows if r["status"] != "optimal"]
    for row in rows:   # every plan in the table replays with the independent checker
        model = puzzleplan.load(row["instance"], {"metric": row["metric"]})
        assert puzzleplan.check(model, row["plan"]).valid
    optima = {}
    for row in rows:
        optima.setdefault(row["instance"], set()).add(row["cost"])
    assert all(len(costs) == 1 for costs in optima.values())
    assert {r["variables"] is not None for r in rows if r["engine"] == "sat"} == {True}
    # the engine's default solver, which the spec leaves out, is named in the table as solve --json names it
    assert {r["solver"] for r in rows if r["engine"] == "sat"} == {"cadical195"}
    assert {(r["encoding"], r["solver"]) for r in rows if r["engine"] != "sat"} == {(None, None)}
    assert local.disagreements == [] and dask.disagreements == []


def test_crash_memory_blow_up_and_hang_become_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import puzzleplan.plans.batch.supervise as supervise
    monkeypatch.setattr(supervise, "GRACE_SECONDS", 1.0)
    for mode in ("crash", "hog", "hang"):
        faulty(tmp_path, mode)
    path = spec_file(tmp_path, f"""
        instances: [crash.yaml, hog.yaml, hang.yaml, {EXAMPLES}/sokoban/pocket.yaml]
        engines: [bfs]
        limits: {{time_limit: 2, memory_limit: 300M}}
    """)
    with LocalPool(2) as pool:
        report = run_batch(load_spec(path), tmp_path / "out.csv", pool)
    by = {Path(r["instance"]).stem: r for r in report.rows}
    assert by["crash"]["status"] == "error" and "SIGABRT" in by["crash"]["error"]
    assert by["hog"]["status"] == "limit_reached" and "memory" in by["hog"]["error"]
    assert by["hang"]["status"] == "limit_reached" and "killed by the batch" in by["hang"]["error"]
    assert by["pocket"]["status"] == "optimal"     # the batch went on
    assert len(read_rows(tmp_path / "out.csv")) == 4


def test_engines_that_compile_a_user_class_run_it_in_the_run_s_process(tmp_path: Path) -> None:
    """sat, cpsat and the task engines compile a user class by running it over its space: the
    spec is read without doing so (a class that aborts took the batch down while its spec was
    checked, even under --dry-run), and each run's row says what became of it."""
    faulty(tmp_path, "crash")
    path = spec_file(tmp_path, f"""
        instances: [crash.yaml, {EXAMPLES}/user/water-jugs.yaml]
        engines: [{{engine: sat, encodings: all}}, cpsat, task-bfs]
        limits: {{time_limit: 20, memory_limit: 1G}}
    """)
    spec = load_spec(path)        # the abort would end this process
    crash = [r for r in spec.runs if Path(r.instance).stem == "crash"]
    assert {r.config for r in crash} >= {"sat/sas-seq", "sat/sas-exists", "cpsat", "task-bfs"}
    with LocalPool(2) as pool:
        report = run_batch(spec, tmp_path / "out.csv", pool)
    for row in report.rows:
        if Path(row["instance"]).stem == "crash":   # the abort kills the run's process, or a solver process of it
            assert row["status"] == "error" and ("SIGABRT" in row["error"] or "died" in row["error"]), row
        else:
            assert row["status"] == "optimal", row


def test_a_plan_the_checker_rejects_is_a_disagreement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    faulty(tmp_path, "checker")
    path = spec_file(tmp_path, "instances: [checker.yaml]\nengines: [bfs]\nlimits: {time_limit: 20}\n")
    assert main(["batch", str(path), "--workers", "1", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "disagreements: 1" in out and "the checker rejects the plan of bfs" in out
    row, = read_rows(tmp_path / "spec.parquet")
    assert row["status"] == "error" and row["plan_checked"] is False


def test_a_table_that_cannot_be_written_is_refused_before_any_run(tmp_path: Path, capsys) -> None:
    """The nearest existing folder above the table is checked first: a file there was reported
    as 'File exists' after the header, at the first write."""
    path = spec_file(tmp_path, f"instances: [{EXAMPLES}/tiles/small-2x3.yaml]\nengines: [bfs]\n")
    code = main(["batch", str(path), "-o", str(path / "x.csv"), "--workers", "1"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and f"{path} is a file, not a folder" in err and err.count("\n") == 1
    code = main(["batch", str(path), "-o", str(tmp_path), "--workers", "1"])
    assert code == 2   # a folder: no table name
    code = main(["batch", str(path), "-o", str(tmp_path / "new" / "deeper" / "x.csv"), "--workers", "1", "--quiet"])
    assert code == 0 and len(read_rows(tmp_path / "new" / "deeper" / "x.csv")) == 1   # missing folders are made


def test_resume_runs_nothing_twice(tmp_path: Path) -> None:
    path = spec_file(tmp_path, f"""
        instances:
          - collection: {ROOT}/benchmarks/data/microban.xsb
            levels: 1-3
        metrics: [pushes, moves]
        engines: [bfs, astar]
        limits: {{time_limit: 30}}
    """)
    out = tmp_path / "r.csv"
    first = batch(path, output=out, workers=2)
    assert first.ran == 12 and first.resumed == 0
    with pytest.raises(puzzleplan.plans.batch.OutputExists, match="--resume"):
        batch(path, output=out, workers=2)
    again = batch(path, output=out, workers=2, resume=True)
    assert again.ran == 0 and again.resumed == 12
    rows = read_rows(out)
    write_rows(out, rows[:5])                  # as if stopped after five runs ...
    journal = Journal(out)
    journal.append(rows[7])                    # ... and killed after the eighth, before the table was written
    journal.close(remove=False)
    resumed = batch(path, output=out, workers=2, resume=True)
    assert resumed.resumed == 6 and resumed.ran == 6
    final = read_rows(out)
    assert [r["run_id"] for r in final] == [r["run_id"] for r in rows]
    assert not journal.path.exists()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_keeps_what_finished(tmp_path: Path, stop: int) -> None:
    """Ctrl-C, and SIGTERM as a job scheduler sends it: the running run killed, the rest kept."""
    pidfile = tmp_path / "hang.pid"
    faulty(tmp_path, "hang", pidfile=str(pidfile))
    path = spec_file(tmp_path, f"""
        instances: [{EXAMPLES}/sokoban/pocket.yaml, hang.yaml, {EXAMPLES}/sokoban/turn.yaml]
        engines: [bfs]
        limits: {{time_limit: 600}}
    """)
    out = tmp_path / "c.csv"
    proc = subprocess.Popen([sys.executable, "-m", "puzzleplan.plans.cli", "batch", str(path), "-o", str(out),
                             "--workers", "2", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (pidfile.exists() and len(list(Journal(out).rows())) >= 2):
        time.sleep(0.1)
    proc.send_signal(stop)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 3, stderr
    assert "interrupted" in stdout and "--resume" in stdout
    rows = read_rows(out)
    assert sorted(Path(r["instance"]).stem for r in rows) == ["pocket", "turn"]
    hung = int(pidfile.read_text())
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):   # the running run was killed, not left behind
        os.kill(hung, 0)


# -- cross-checks, reports, API ---------------------------------------------------------------------

def row(**fields: object) -> dict:
    base = {name: None for name in NAMES}
    base.update({"run_id": str(fields.get("config")), "instance": "i", "metric": "m", "config": "c",
                 "status": "optimal", "total_seconds": 1.0})
    base.update(fields)
    return base


def test_disagreements() -> None:
    agree = [row(config="a", cost=5, lower_bound=5, plan_checked=True),
             row(config="b", status="solved", cost=7, plan_checked=True),
             row(config="c", status="limit_reached", lower_bound=4)]
    assert disagreements(agree) == []
    differ = [row(config="a", cost=5, lower_bound=5, plan_checked=True),
              row(config="b", cost=6, lower_bound=6, plan_checked=True)]
    found = disagreements(differ)
    assert any("proved optima differ" in d for d in found) and any("proved none costs less than 6" in d for d in found)
    none = [row(config="a", status="unsolvable"), row(config="b", status="solved", cost=9, plan_checked=True)]
    assert any("proved it unsolvable" in d for d in disagreements(none))
    rejected = [row(config="a", status="error", plan_checked=False, error="bad move 3")]
    assert disagreements(rejected) == ["i (m): the checker rejects the plan of a: bad move 3"]
    other_instance = [row(config="a", cost=5, lower_bound=5), row(config="b", instance="j", cost=6, lower_bound=6)]
    assert disagreements(other_instance) == []


def test_summary_counts() -> None:
    rows = [row(config="a", total_seconds=1.0), row(config="a", status="limit_reached", total_seconds=10.0),
            row(config="a", status="unsolvable", total_seconds=3.0), row(config="b", status="error")]
    a, b = summarize(rows)
    assert (a.runs, a.answered, a.optimal, a.proved_none, a.limit, a.median_seconds, a.total_seconds) == \
        (3, 2, 1, 1, 1, 2.0, 14.0)
    assert (b.runs, b.errors, b.answered) == (1, 1, 0)


def test_cli_json_report_dry_run_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = spec_file(tmp_path, f"instances: [{EXAMPLES}/sokoban/pocket.yaml, {EXAMPLES}/sokoban/turn.yaml]\n"
                               "engines: [bfs, astar]\nlimits: {time_limit: 30}\noutput: res/out.csv\n")
    assert main(["batch", str(path), "--dry-run"]) == 0
    listing = capsys.readouterr().out
    assert "runs:    4" in listing and listing.count("pocket.yaml") == 2
    assert main(["batch", str(path), "--json", "--workers", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["runs"] == report["ran"] == 4 and report["statuses"] == {"optimal": 4}
    assert report["output"].endswith("res/out.csv") and report["disagreements"] == []
    assert {s["config"] for s in report["summary"]} == {"bfs", "astar"}
    assert main(["plot", str(tmp_path / "res" / "out.csv"), "--kind", "cactus", "-o", str(tmp_path / "c.svg")]) == 0
    assert (tmp_path / "c.svg").read_text().lstrip().startswith("<?xml")
    assert main(["plot", str(tmp_path / "nothing.csv"), "-o", str(tmp_path / "x.png")]) == 2


def test_overwrite_starts_afresh_and_resumes_keep_every_earlier_table(tmp_path: Path) -> None:
    """--overwrite removes the old table at once (a batch killed before its first write must not
    resume old rows); each resume that drops rows keeps its own copy of the table."""
    pocket = f"instances: [{EXAMPLES}/sokoban/pocket.yaml]\n"
    out = tmp_path / "t.csv"
    batch(spec_file(tmp_path, pocket + "engines: [bfs]\n"), output=out, workers=1)
    for engines in ("[astar]", "[greedy]"):      # the spec changes twice: each resume drops the row
        report = batch(spec_file(tmp_path, pocket + f"engines: {engines}\n"), output=out, workers=1, resume=True)
        assert report.dropped == 1
    copies = sorted(p.name for p in tmp_path.glob("t.before-resume*.csv"))
    assert copies == ["t.before-resume-2.csv", "t.before-resume.csv"]
    assert [r["engine"] for r in read_rows(tmp_path / "t.before-resume.csv")] == ["bfs"]

    class Killed:                                # stops before any run answers
        description = "none"
        def run(self, runs, on_row):
            raise KeyboardInterrupt
    spec = load_spec(spec_file(tmp_path, pocket + "engines: [bfs]\n"))
    report = run_batch(spec, out, Killed(), overwrite=True)
    assert report.interrupted and not out.exists()


def test_kernels_are_compiled_before_the_runs_not_in_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A batch on a machine without the compiled kernels compiles its families' first, outside
    every run's time limit (a run killed while compiling would leave the cache as empty)."""
    from puzzleplan.plans import warmup
    warmed: list[list[str]] = []
    monkeypatch.setattr(warmup, "kernels_cached", lambda modules=None: False)
    monkeypatch.setattr(warmup, "warm_up", lambda names=None: warmed.append(sorted(names)) or {})
    path = spec_file(tmp_path, f"instances: [{EXAMPLES}/sokoban/pocket.yaml, {EXAMPLES}/rules/hanoi.yaml]\n"
                               "engines: [bfs]\n")
    report = batch(path, output=tmp_path / "k.csv", workers=1)
    assert report.statuses == {"optimal": 2} and warmed == [["sokoban"]]   # rules has no kernels
    assert "compiling the numba kernels of sokoban before the runs" in capsys.readouterr().err


def test_api_batch_with_progress(tmp_path: Path) -> None:
    import io
    from puzzleplan.plans.core.progress import Progress
    path = spec_file(tmp_path, f"instances: [{EXAMPLES}/sokoban/pocket.yaml]\nengines: [bfs, astar]\n")
    screen = io.StringIO()
    with Progress(screen, width=80) as progress:
        report = puzzleplan.batch(path, output=tmp_path / "a.parquet", workers=1, progress=progress)
    assert report.statuses == {"optimal": 2} and not report.interrupted
    assert "batch" in screen.getvalue()
    assert report.rows[0]["memory_mb"] is not None      # the default memory limit applies to every run
    again = puzzleplan.batch(path, output=tmp_path / "b.parquet", workers=1, progress=True)   # as solve() takes it
    assert again.statuses == {"optimal": 2}
