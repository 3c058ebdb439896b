"""Run a spec's runs on an executor into a results table: resume, progress, Ctrl-C, cross-checks.

Rows are journaled as runs finish and the table is rewritten whole from time to time
(`CHECKPOINT_SECONDS`) and at the end, in run order. `resume` keeps the rows already in the
table (and in a journal a killed batch left) that are runs of the spec, runs only the others,
and drops the rows of runs the spec no longer makes (another engine, option, limit or instance:
an earlier spec's), saying so, so the table holds the spec's runs alone. Ctrl-C kills the
running processes, keeps every row that finished, writes the table, and reports `interrupted`.
"""
from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzleplan.plans.batch.crosscheck import ANSWERED, ConfigSummary, disagreements, summarize
from puzzleplan.plans.batch.executors import ExecutorLost
from puzzleplan.plans.batch.run import Run
from puzzleplan.plans.batch.spec import Spec
from puzzleplan.plans.batch.table import Journal, existing_rows, normalized, table_format, write_rows
from puzzleplan.plans.core.progress import Progress

CHECKPOINT_SECONDS = 30.0
log = logging.getLogger(__name__)   # unconfigured, a warning is its message alone on stderr


class OutputExists(Exception):
    """The results file exists and neither resume nor overwrite was asked for."""


@dataclass
class BatchReport:
    """What a batch did: its rows (every run of the spec that has one), the summary, the disagreements."""

    spec: str
    output: str
    executor: str
    runs: int                     # runs in the spec
    ran: int                      # runs executed this time
    resumed: int                  # runs whose rows were already in the table
    skipped: dict[str, int]       # pairs the spec left out, by reason
    interrupted: bool
    seconds: float
    rows: list[dict[str, Any]] = field(default_factory=list)
    summary: list[ConfigSummary] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    dropped: int = 0              # rows of runs the spec no longer makes, dropped from the table on resume

    @property
    def statuses(self) -> Counter:
        return Counter(r["status"] for r in self.rows)

    def as_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "output": self.output, "executor": self.executor, "runs": self.runs,
                "ran": self.ran, "resumed": self.resumed, "dropped": self.dropped, "skipped": self.skipped,
                "interrupted": self.interrupted,
                "seconds": round(self.seconds, 3), "statuses": dict(self.statuses),
                "summary": [s.as_dict() for s in self.summary], "disagreements": self.disagreements}


def check_output(output: str | Path, resume: bool = False, overwrite: bool = False) -> None:
    """Raise OutputExists when `output` (or its journal) exists and neither `resume` nor
    `overwrite` says what to do with it; TableError for a name that is no table."""
    output = Path(output)
    table_format(output)
    if not resume and not overwrite and (output.exists() or Journal(output).path.exists()):
        raise OutputExists(f"{output} exists: --resume continues it, --overwrite starts it again")
    _check_folder(output)


def _check_folder(output: Path) -> None:
    """OutputExists (the table cannot be made, said before any run) when the nearest existing
    folder above `output` is a file, or no file can be created in it. Missing folders below it
    are made when the table is first written."""
    from puzzleplan.plans.core.files import probe_folder
    if output.is_dir():
        raise OutputExists(f"{output}: cannot write the table: it is a folder")
    above = output.resolve().parent
    while not above.exists():
        above = above.parent
    if not above.is_dir():
        raise OutputExists(f"{output}: cannot write the table: {above} is a file, not a folder")
    try:
        probe_folder(above)
    except OSError as exc:
        raise OutputExists(f"{output}: cannot write the table in {above}: {exc.strerror or exc}") from None


def run_batch(spec: Spec, output: str | Path, executor: Any, resume: bool = False, overwrite: bool = False,
              progress: Progress | None = None) -> BatchReport:
    """Run `spec` on `executor` (entered by the caller) into the table `output`."""
    output = Path(output)
    check_output(output, resume, overwrite)
    journal = Journal(output)
    if overwrite:   # gone now, not at the first write: a batch killed before it must not resume the old rows
        journal.close(remove=True)
        output.unlink(missing_ok=True)
    kept, dropped = _resumed_rows(output, spec) if resume else ([], 0)
    if dropped:
        backup = _keep_copy(output)
        log.warning("puzzleplan: note: %s: %d row%s from an earlier spec dropped (runs this spec no longer makes: "
                    "other engines, options, limits or instances)%s", output, dropped, "" if dropped == 1 else "s",
                    f"; the table as it was is kept in {backup}" if backup else "")
    done = {row["run_id"] for row in kept}
    todo = [run for run in spec.runs if run.run_id not in done]
    rows: dict[str, dict[str, Any]] = {row["run_id"]: row for row in kept}
    start = time.monotonic()
    interrupted = False
    line = (progress or Progress.silent()).counted("batch", total=len(spec.runs), done=len(done))
    counts: Counter = Counter()
    last_write = [time.monotonic()]

    def finished(row: dict[str, Any]) -> None:
        row = normalized(row)
        rows[row["run_id"]] = row
        journal.append(row)
        counts["answered" if row["status"] in ANSWERED else row["status"]] += 1
        line.update(done=len(done) + sum(counts.values()),
                    label="batch: " + " · ".join(f"{n} {what.replace('_', ' ')}" for what, n in counts.most_common()))
        if time.monotonic() - last_write[0] > CHECKPOINT_SECONDS:
            write_rows(output, _ordered(rows.values()))
            last_write[0] = time.monotonic()

    try:
        if todo:
            executor.run(todo, finished)
    except KeyboardInterrupt:
        interrupted = True
    except ExecutorLost as exc:
        interrupted = True
        log.warning("puzzleplan: note: %s; the runs not answered are left for --resume", exc)
    finally:
        line.remove()
        if rows or output.exists():   # a batch that failed before its first row writes nothing
            write_rows(output, _ordered(rows.values()))
        journal.close(remove=True)
    mine = _ordered(rows.values())
    return BatchReport(spec.source, str(output), executor.description, len(spec.runs), sum(counts.values()),
                       len(done), dict(spec.skipped), interrupted, time.monotonic() - start, mine,
                       summarize(mine), disagreements(mine), dropped)


def _keep_copy(output: Path) -> Path | None:
    """Copy the table about to lose rows (a resume under a changed spec, perhaps a mistyped
    limit) to `NAME.before-resume.EXT` beside it (`-2`, `-3`, ... after the first); None when
    there is no table file to copy."""
    import shutil
    if not output.is_file():
        return None
    backup = output.with_name(f"{output.stem}.before-resume{output.suffix}")
    number = 1
    while backup.exists():   # an earlier resume's copy is never overwritten
        number += 1
        backup = output.with_name(f"{output.stem}.before-resume-{number}{output.suffix}")
    shutil.copy2(output, backup)
    return backup


def _resumed_rows(output: Path, spec: Spec) -> tuple[list[dict[str, Any]], int]:
    """The rows of `output` (and its journal) that are runs of `spec`, renumbered in its order,
    and how many others there were."""
    runs = {run.run_id: run for run in spec.runs}
    earlier = existing_rows(output)
    kept = [{**row, "index": runs[row["run_id"]].index} for row in earlier if _answers(row, runs.get(row["run_id"]))]
    return kept, len(earlier) - len(kept)


def _answers(row: dict[str, Any], run: Run | None) -> bool:
    """Whether `row` is `run`'s: the same run id and, unless the run's memory limit is the
    machine's default, the same memory limit (the id leaves it out)."""
    return run is not None and (run.memory_default or row["memory_mb"] == run.memory_mb)


def _ordered(rows: Any) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (r["index"] if r["index"] is not None else -1, r["run_id"]))


__all__ = ["BatchReport", "CHECKPOINT_SECONDS", "OutputExists", "check_output", "run_batch"]
