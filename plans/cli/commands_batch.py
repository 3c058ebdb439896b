"""The experiment commands: batch (a spec's runs into a results table) and plot (its pictures).

`batch` exits 0 when every run has a row and no two runs contradict each other, 1 when there
is a disagreement (or a plan the checker rejects), 2 for a bad spec or options, 3 when Ctrl-C,
SIGTERM or SIGHUP stopped it, or the Dask scheduler was lost (the rows that finished are kept:
`--resume` continues).
"""
from __future__ import annotations

import argparse
import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator

from puzzleplan.plans.cli.common import EXIT_LIMIT, EXIT_NEGATIVE, EXIT_OK, InputError, progress_for
from puzzleplan.plans.cli.output import print_json
from puzzleplan.plans.core.words import count


def cmd_batch(args: argparse.Namespace) -> int:
    from puzzleplan.plans.batch import default_output, load_spec, make_executor, run_batch
    from puzzleplan.plans.batch.driver import OutputExists, check_output
    from puzzleplan.plans.batch.executors import ExecutorError
    from puzzleplan.plans.batch.table import TableError, table_format
    spec = load_spec(args.spec)
    output = args.output or str(default_output(spec))
    try:
        table_format(output)
    except TableError as exc:
        raise InputError(f"--output: {exc}") from None
    if args.dry_run:
        return _dry_run(args, spec, output)
    try:
        check_output(output, args.resume, args.overwrite)   # before the header: an error is the only line
        with make_executor(args.workers, args.scheduler, args.cluster) as executor:
            ready = spec.with_memory_default(executor.default_memory_mb())
            if not args.quiet and not args.json:
                _header(ready, output, executor.description)
            with progress_for(args) as progress, _stop_signals_interrupt():
                report = run_batch(ready, output, executor, resume=args.resume, overwrite=args.overwrite,
                                   progress=progress)
    except (OutputExists, ExecutorError, TableError) as exc:
        raise InputError(str(exc)) from None
    if args.json:
        print_json(report.as_dict())
    else:
        _report(report)
    if report.interrupted:
        return EXIT_LIMIT
    return EXIT_NEGATIVE if report.disagreements else EXIT_OK


@contextmanager
def _stop_signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP (`kill`, a job scheduler's stop, a closed terminal) end the batch as
    Ctrl-C does: its runs' processes killed, the finished rows written, exit 3."""
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt
    wanted = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    if threading.current_thread() is not threading.main_thread():   # signals reach the main thread alone
        yield
        return
    saved = {sig: signal.signal(sig, interrupt) for sig in wanted}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def _header(spec: Any, output: str, executor: str) -> None:
    print(f"batch:   {spec.name} ({spec.source})")
    print(f"runs:    {len(spec.runs):,}{_skipped(spec.skipped)}")
    print(f"on:      {executor}")
    print(f"table:   {output}", flush=True)


def _skipped(skipped: dict[str, int]) -> str:
    if not skipped:
        return ""
    reasons = sorted(skipped.items(), key=lambda kv: -kv[1])
    parts = "; ".join(f"{why}: {n}" for why, n in reasons[:3])
    more = f"; {len(reasons) - 3} more reasons (--dry-run --json lists them)" if len(reasons) > 3 else ""
    return f" (left out {sum(skipped.values()):,}: {parts}{more})"


def _dry_run(args: argparse.Namespace, spec: Any, output: str) -> int:
    if args.json:
        print_json({"spec": spec.source, "output": output, "runs": [dict(r.fixed_columns(), path=r.path, level=r.level)
                                                                    for r in spec.runs], "skipped": dict(spec.skipped)})
        return EXIT_OK
    print(f"batch:   {spec.name} ({spec.source})")
    print(f"runs:    {len(spec.runs):,}{_skipped(spec.skipped)}")
    print(f"table:   {output}")
    for run in spec.runs:
        limit = "" if run.time_limit is None else f"  {run.time_limit:g} s"
        print(f"  {run.index + 1:>5}  {run.instance}  {run.metric}  {run.config}"
              f"{f'  repeat {run.repeat}' if run.repeat > 1 else ''}{limit}")
    return EXIT_OK


def _report(report: Any) -> None:
    from puzzleplan.plans.batch.crosscheck import summary_text
    statuses = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in report.statuses.most_common())
    resumed = f", {report.resumed:,} already in the table" if report.resumed else ""
    dropped = f", {report.dropped:,} rows of an earlier spec dropped" if report.dropped else ""
    print(f"ran:     {count(report.ran, 'run')} in {report.seconds:.1f} s{resumed}{dropped}")
    print(f"rows:    {len(report.rows):,} ({statuses or 'none'})")
    if report.interrupted:
        print(f"status:  interrupted: {report.runs - len(report.rows):,} runs not done; "
              "`--resume` continues where it stopped")
    print()
    print(summary_text(report.summary))
    print()
    if report.disagreements:
        print(f"disagreements: {len(report.disagreements)}")
        for line in report.disagreements:
            print(f"  {line}")
    else:
        print("disagreements: none")


def cmd_plot(args: argparse.Namespace) -> int:
    from puzzleplan.plans.batch.plot import plot_results
    from puzzleplan.plans.batch.table import TableError
    if args.kind != "scatter" and (args.x is not None or args.y is not None):
        raise InputError(f"--x and --y choose a scatter plot's axes; not with --kind {args.kind}")
    if args.kind == "table" and args.solved != "answered":
        raise InputError("--solved chooses what a cactus or scatter plot counts; the table shows both")
    try:
        info = plot_results(args.results, args.kind, args.output, x=args.x, y=args.y, metric=args.metric,
                            solved=args.solved, title=args.title)
    except TableError as exc:
        raise InputError(str(exc)) from None
    if args.json:
        print_json(info)
    else:
        print(f"wrote:   {info['path']} ({info['kind']}, {len(info.get('configurations', []))} configurations, "
              f"{info.get('instances', 0)} instances)")
    return EXIT_OK


__all__ = ["cmd_batch", "cmd_plot"]
