"""Run a spec's runs on an executor into a results table: resume, progress, Ctrl-C, cross-checks.

Rows are journaled as runs finish and the table is rewritten whole from time to time
(`CHECKPOINT_SECONDS`) and at the end, in run order. `resume` keeps the rows already in the
table (and in a journal a killed batch left) and runs only the others. Ctrl-C kills the running
processes, keeps every row that finished, writes the table, and reports `interrupted`.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzleplan.plans.batch.crosscheck import ANSWERED, ConfigSummary, disagreements, summarize
from puzzleplan.plans.batch.spec import Spec
from puzzleplan.plans.batch.table import Journal, existing_rows, normalized, table_format, write_rows
from puzzleplan.plans.core.progress import Progress

CHECKPOINT_SECONDS = 30.0


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

    @property
    def statuses(self) -> Counter:
        return Counter(r["status"] for r in self.rows)

    def as_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "output": self.output, "executor": self.executor, "runs": self.runs,
                "ran": self.ran, "resumed": self.resumed, "skipped": self.skipped, "interrupted": self.interrupted,
                "seconds": round(self.seconds, 3), "statuses": dict(self.statuses),
                "summary": [s.as_dict() for s in self.summary], "disagreements": self.disagreements}


def check_output(output: str | Path, resume: bool = False, overwrite: bool = False) -> None:
    """Raise OutputExists when `output` (or its journal) exists and neither `resume` nor
    `overwrite` says what to do with it; TableError for a name that is no table."""
    output = Path(output)
    table_format(output)
    if not resume and not overwrite and (output.exists() or Journal(output).path.exists()):
        raise OutputExists(f"{output} exists: --resume continues it, --overwrite starts it again")


def run_batch(spec: Spec, output: str | Path, executor: Any, resume: bool = False, overwrite: bool = False,
              progress: Progress | None = None) -> BatchReport:
    """Run `spec` on `executor` (entered by the caller) into the table `output`."""
    output = Path(output)
    check_output(output, resume, overwrite)
    journal = Journal(output)
    if overwrite:
        journal.close(remove=True)
    kept = existing_rows(output) if resume else []
    wanted = {run.run_id for run in spec.runs}
    done = {row["run_id"] for row in kept if row["run_id"] in wanted}
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
    finally:
        line.remove()
        if rows or output.exists():   # a batch that failed before its first row writes nothing
            write_rows(output, _ordered(rows.values()))
        journal.close(remove=True)
    mine = [row for row in _ordered(rows.values()) if row["run_id"] in wanted]
    return BatchReport(spec.source, str(output), executor.description, len(spec.runs), sum(counts.values()),
                       len(done), dict(spec.skipped), interrupted, time.monotonic() - start, mine,
                       summarize(mine), disagreements(mine))


def _ordered(rows: Any) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (r["index"] if r["index"] is not None else -1, r["run_id"]))


__all__ = ["BatchReport", "CHECKPOINT_SECONDS", "OutputExists", "check_output", "run_batch"]
