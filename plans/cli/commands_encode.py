"""The encoding commands: verify, compare, export, decode, encodings."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from puzzleplan.models.base import ModelError
from puzzleplan.models.document import read_text
from puzzleplan.plans.check import check_plan
from puzzleplan.plans.cli.common import (EXIT_LIMIT, EXIT_NEGATIVE, EXIT_OK, InputError, describe, limits_of,
                                         load_model, note_cold_kernels, progress_for, check_writable,
                                         command_context, command_started, quiet)
from puzzleplan.plans.cli.output import print_json, print_verification
from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.progress import Progress
from puzzleplan.plans.core.types import Result, Status
from puzzleplan.plans.core.words import clip, clip_path, count
from puzzleplan.plans.solve import EngineBug
from puzzleplan.plans.verify import (NoEncodings, UnknownEncoding, UnknownSolver, Verification, check_solver,
                                     choose_encodings, compare_horizon, verify)

if TYPE_CHECKING:
    from puzzleplan.encoders.certify import Trial


def _encodings_arg(model: Any, names: list[str] | None, one_per_backend: bool) -> list[str]:
    try:
        return choose_encodings(model, names, one_per_backend)
    except UnknownEncoding as exc:
        raise InputError(f"--encodings: {exc}") from None
    except NoEncodings as exc:
        raise InputError(str(exc)) from None


def _fitting_goal(names: list[str], goal: str | None, named: bool, args: argparse.Namespace) -> list[str]:
    """The encodings that encode `goal`: one named that does not is an error; of the default
    ones, those that do not are left out, with a note."""
    from puzzleplan.encoders.base import fitting_goal
    try:
        kept, unfit = fitting_goal(names, goal, named)
    except ValueError as exc:
        raise InputError(f"--goal: {exc}") from None
    if unfit and not quiet(args):
        print(f"puzzleplan: note: left out under --goal {goal}: {'; '.join(unfit)}", file=sys.stderr)
    return kept


def _check_solvers(names: list[str], option: str) -> None:
    for name in names:
        try:
            check_solver(name)
        except UnknownSolver as exc:
            raise InputError(f"{option}: {exc}") from None


def cmd_verify(args: argparse.Namespace) -> int:
    """The native optimum L, then per encoding a checked plan of the claim and UNSAT below it
    (plans.verify); one `--time-limit` covers the whole command. A solver process starts at
    once, so its start overlaps loading the puzzle (encoders.runner.early_child)."""
    from puzzleplan.encoders.runner import early_child
    with early_child():
        return _verify(args)


def _verify(args: argparse.Namespace) -> int:
    model = load_model(args)
    try:
        encodings = _encodings_arg(model, args.encodings, True)   # may compile the planning task: seconds
    except LimitReached as exc:   # before any method ran: the verdict says so, in verify's own shape
        found = Verification("limit_reached", None, args.claim, None, exit_code=EXIT_LIMIT,
                             message=f"{exc} while compiling the planning task, before any method ran")
    else:
        _check_solvers([args.solver], "--solver")
        note_cold_kernels(model, getattr(model, "default_engine", "bfs"), args, list(encodings))
        with progress_for(args) as progress:   # the time limit counts from the command's start
            found = verify(model, args.claim, encodings, args.solver, args.workers, limits_of(args), progress,
                           args.fresh_bound, since=command_started())
    if args.json:
        print_json(found.as_dict())
    else:
        print_verification(model, found)
    return found.exit_code


def cmd_compare(args: argparse.Namespace) -> int:
    """Every encoding x solver at one horizon (default: the native optimum), as a table; one
    `--time-limit` covers the whole command, the native search included."""
    model = load_model(args)
    from puzzleplan.encoders.base import encodings_for
    native = getattr(model, "default_engine", "bfs") if args.horizon is None else ""   # no native run
    note_cold_kernels(model, native, args, list(args.encodings or encodings_for(model)))
    with progress_for(args) as progress:
        return _compare(args, model, progress)


def _compare(args: argparse.Namespace, model: Any, progress: Progress) -> int:
    """compare's table under its progress display: a bar over the rows (printed above it).
    A row a limit stopped makes the exit code 3; so does Ctrl-C, after the rows finished so far
    are printed (and written to --csv)."""
    from puzzleplan.encoders.base import encoding_class
    from puzzleplan.encoders.certify import compare, costed, counts_steps, proof_options, with_goal
    encodings = _fitting_goal(_encodings_arg(model, args.encodings, False), args.goal, bool(args.encodings), args)
    _check_solvers(args.solvers, "--solvers")
    if args.csv:
        check_writable(args.csv, "--csv")
    limits = limits_of(args)   # counted from the command's start: loading and the checks count too
    remaining = SearchContext(limits, since=command_started()).remaining   # the seconds left of the whole command

    asked = compare_horizon(model, args.horizon, limits, command_started(), progress)
    if isinstance(asked, Result):   # the native search found no optimum to use
        if asked.status is Status.LIMIT_REACHED:
            return _no_horizon(args, asked.message)
        raise InputError(f"no proved optimum to use as the horizon ({asked.status.value}); give --horizon")
    horizon, own_steps = asked.moves, asked.own_steps
    options = with_goal(proof_options(model)[0], args.goal)
    trials: list[Trial] = []
    with_cost = costed(model)
    header = (f"{'encoding':16} {'solver':14} {'T':>4} {'vars':>8} {'clauses':>9} {'build s':>8} {'solve s':>8} "
              f"{'result':>7} {'length':>6}" + (f" {'cost':>5}" if with_cost else ""))
    if not args.json:
        stepped = [name for name in encodings if counts_steps(name)]
        also = f" ({own_steps} for {', '.join(stepped)}: {model.metric})" if stepped and own_steps != horizon else ""
        print(f"puzzle:  {describe(model)}  horizon {horizon}{also}, goal {options.goal}")
        print(header)
    runs = sum(len(args.solvers) if encoding_class(name).backend == "sat" else 1 for name in encodings) * args.repeat
    rows_bar = progress.counted(f"compare at horizon {horizon}", runs)
    trials_of = (compare(model, asked.of(name), [name], args.solvers, args.repeat, options, args.workers,
                         remaining=remaining, memory_mb=limits.memory_mb) for name in encodings)
    interrupted = ""
    try:
        for t in (t for each in trials_of for t in each):
            rows_bar.update(advance=1, label=f"compare: {t.encoding} {t.solver} done")
            trials.append(t)
            if not args.json:
                print(_table_line(t, with_cost), flush=True)
            if t.valid is False:
                raise EngineBug(f"encoding {t.encoding} decoded a plan the checker rejects")
    except KeyboardInterrupt:   # the rows finished so far are still printed and written
        interrupted = f"interrupted (Ctrl-C) after {len(trials)} of {count(runs, 'row')}"
    rows = [_row(t) for t in trials]
    if args.json:
        print_json({"status": "limit_reached", "message": interrupted, "rows": rows} if interrupted else rows)
    elif interrupted:
        print(interrupted)
    if args.csv:
        _write_csv(args.csv, rows)
    if interrupted:
        print("puzzleplan: interrupted", file=sys.stderr)
    return EXIT_LIMIT if interrupted or any(t.limit is not None for t in trials) else EXIT_OK


CSV_FIELDS = ["encoding", "solver", "horizon", "variables", "constraints", "build_seconds", "solve_seconds",
              "result", "length", "repeat"]


def _row(t: Trial) -> dict[str, Any]:
    """A compare row for JSON and CSV. What the solver never reported is null, and such a
    row's solve_seconds is its wall time, build and solve together."""
    from dataclasses import asdict
    row = asdict(t)
    if not t.reported:
        row.update(variables=None, constraints=None, build_seconds=None, solve_seconds=t.seconds)
    return row


def _parallel(encoding: str) -> bool:
    """An ∃-step encoding (sas-exists): one step may hold several moves."""
    from puzzleplan.encoders.base import encoding_class
    return bool(getattr(encoding_class(encoding), "parallel", False))


def _table_line(t: Trial, with_cost: bool) -> str:
    """A compare row in the text table; what the solver never reported shows as '-' (see `_row`)."""
    row = _row(t)

    def shown(key: str, spec: str = "") -> str:
        return "-" if row[key] is None else format(row[key], spec)
    length = "" if t.length is None else str(t.length)
    cost = f" {t.extra.get('cost', ''):>5}" if with_cost else ""
    bound = str(t.extra.get("bound", ""))
    note = f"  (bound: {bound})" if bound.startswith("none") else ""   # the encoding ran without its bound
    if t.result == "sat" and t.length is not None and t.length > t.horizon and _parallel(t.encoding):
        note += f"  ({t.length} moves in {t.horizon} parallel steps: sat says nothing of plans of {t.horizon} moves)"
    return (f"{t.encoding:16} {t.solver:14} {t.horizon:>4} {shown('variables'):>8} {shown('constraints'):>9} "
            f"{shown('build_seconds', '.3f'):>8} {shown('solve_seconds', '.3f'):>8} {t.result:>7} {length:>6}{cost}{note}")


def _no_horizon(args: argparse.Namespace, why: str) -> int:
    """compare's end when a limit stopped the native search before it found the horizon (exit 3)."""
    message = f"{why or 'a limit was reached'} before the horizon was known; give --horizon T to skip the native search"
    print(f"puzzleplan: {message}", file=sys.stderr)
    if args.json:
        print_json({"status": "limit_reached", "message": message, "rows": []})
    return EXIT_LIMIT


def _write_csv(path: str, rows: list[dict[str, Any]]) -> None:
    """compare's rows as CSV at `path`, all or nothing."""
    import csv
    import io
    from puzzleplan.plans.core.files import write_bytes
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=CSV_FIELDS, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    try:
        write_bytes(path, text.getvalue().encode("utf-8"))
    except OSError as exc:
        raise InputError(f"--csv {clip_path(path)}: cannot write: {exc.strerror or exc}") from None


def cmd_export(args: argparse.Namespace) -> int:
    """The instance at a horizon as DIMACS (built in a solver process under --time-limit and
    the memory limit) or a CP-SAT proto (its build polls them), or as a family's own export;
    every file written whole or not at all (encoders.export.export)."""
    from puzzleplan.encoders.export import ExportArgumentError, export
    from puzzleplan.encoders.runner import Deadline
    model = load_model(args)
    ctx = command_context(args)
    try:
        written = export(model, args.to, args.output, args.horizon, args.encoding, args.goal, ctx.remaining(),
                         ctx.limits.memory_mb, ctx.poll)
    except (Deadline, LimitReached) as exc:
        print(f"puzzleplan: {ctx.reached(exc.reason)} while building the formula; nothing was written",
              file=sys.stderr)
        return EXIT_LIMIT
    except ExportArgumentError as exc:   # said as the flag that gave it
        flag = {"output": "-o"}.get(exc.name, f"--{exc.name}")
        raise InputError(f"{flag}: {exc.why.replace('give one', f'give {flag} T')}") from None
    except ValueError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{exc.filename or args.output}: cannot write: {exc.strerror or exc}") from None
    if args.to == "dimacs":
        print(f"wrote {written[0]} and the variable map {written[1]}")
    else:
        print("wrote " + " and ".join(str(path) for path in written))
    return EXIT_OK


MAX_DECODE_BYTES = 256_000_000   # a map or a solver's model: tens of millions of variables


def cmd_decode(args: argparse.Namespace) -> int:
    from puzzleplan.encoders.export import decode_dimacs, map_metric, parsed_map
    from puzzleplan.encoders.sat.base import UndecodableModel
    map_path = args.map[1:] if args.map.startswith("@") else args.map   # `@FILE` as for the solution
    try:
        map_text = read_text(map_path, "a variable map (JSON)", MAX_DECODE_BYTES, clip_path(map_path))
    except ModelError as exc:
        raise InputError(str(exc)) from None
    try:
        mapping: Any = parsed_map(map_text)
    except (ValueError, RecursionError):
        mapping = map_text   # decode_dimacs names what is wrong with it, after the puzzle is read
    recorded = map_metric(mapping) if args.metric is None else None
    if recorded is not None:   # the export's own metric, which its map records
        args.metric = recorded
    try:
        model = load_model(args)
    except InputError as exc:
        if recorded is None or not str(exc).startswith("--metric"):
            raise
        raise InputError(f"{clip_path(map_path)}: the metric the export was made under: {str(exc)[10:]}") from None
    where, solution = _solution_text(args.solution)
    try:
        moves = decode_dimacs(model, mapping, solution)
    except UndecodableModel as exc:
        raise InputError(f"{where}: {exc}") from None
    except RecursionError:
        raise InputError(f"{clip_path(map_path)}: not a variable map of this puzzle: nested too deeply") from None
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        raise InputError(f"{clip_path(map_path)}: not a variable map of this puzzle: {clip(exc, 160)}") from None
    report = check_plan(model, moves, "printed")
    if args.json:
        print_json({"plan": moves, "length": len(moves), **report.as_dict()})
    else:
        from puzzleplan.plans.check import reads_runs
        from puzzleplan.plans.core.types import Plan
        print(f"plan:    {Plan(tuple(moves), len(moves), spaced=not reads_runs(model)).text()}")   # as solve prints it
        print(report.summary())
    return EXIT_OK if report.valid else EXIT_NEGATIVE


def _solution_text(arg: str) -> tuple[str, str]:
    """decode's SOLUTION (`@FILE`, a file's path, or the model's text itself): what to call it
    in an error (the file's path, or 'SOLUTION' for text) and its text."""
    import os
    path = arg[1:] if arg.startswith("@") else arg
    # one word naming no file but shaped like a path (a dot or a slash in it) was meant as a file
    meant_a_file = len(arg.split()) == 1 and any(ch in arg for ch in "./\\") and len(arg) < 4096
    if arg.startswith("@") or (len(arg) < 4096 and os.path.isfile(path)) or meant_a_file:
        try:
            return clip_path(path), read_text(path, "a SAT solver's model", MAX_DECODE_BYTES, clip_path(path))
        except ModelError as exc:
            raise InputError(str(exc)) from None
    return "SOLUTION", arg


def cmd_encodings(args: argparse.Namespace) -> int:
    from puzzleplan.encoders.base import all_encodings, encoding_class, is_generic, supports
    model = load_model(args) if args.file else None
    rows = []
    for name in all_encodings():
        try:
            cls = encoding_class(name)
        except ImportError:
            continue
        metrics = list(getattr(cls, "metrics", ()) or ())
        if model is not None and supports(cls, model) is not None:
            continue
        about = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())   # the first paragraph, whole
        rows.append({"name": name, "backend": cls.backend, "family": "any" if is_generic(cls) else cls.family,
                     "metrics": metrics or None, "about": about})
    if args.json:
        print_json(rows)
        return EXIT_OK
    if model is not None and not rows:
        print(f"no encodings for {model.family} under the {model.metric} metric")
    for r in rows:
        metrics = f" ({', '.join(r['metrics'])})" if r["metrics"] else ""
        print(f"{r['name']:16} {r['backend']:6} {r['family']}{metrics}: {r['about']}")
    return EXIT_OK
