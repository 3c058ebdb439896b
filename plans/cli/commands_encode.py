"""The encoding commands: verify, compare, export, decode, encodings."""
from __future__ import annotations

import argparse
import time
from typing import Any

from puzzleplan.plans.check import check_plan
from puzzleplan.plans.cli.common import (EXIT_NEGATIVE, EXIT_OK, InputError, describe, limits_of, load_model,
                                         note_cold_kernels, progress_for, write_atomically)
from puzzleplan.plans.cli.output import print_json, print_verification
from puzzleplan.plans.core.progress import Progress
from puzzleplan.plans.core.types import spent
from puzzleplan.plans.core.words import clip, clip_path
from puzzleplan.plans.solve import EngineBug
from puzzleplan.plans.verify import (NoEncodings, UnknownEncoding, UnknownSolver, check_solver, choose_encodings,
                                     native_optimum, verify)


def _encodings_arg(model: Any, names: list[str] | None, one_per_backend: bool) -> list[str]:
    try:
        return choose_encodings(model, names, one_per_backend)
    except UnknownEncoding as exc:
        raise InputError(f"--encodings: {exc}") from None
    except NoEncodings as exc:
        raise InputError(str(exc)) from None


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
    started = time.monotonic()
    encodings = _encodings_arg(model, args.encodings, True)   # may compile the planning task: seconds
    _check_solvers([args.solver], "--solver")
    note_cold_kernels(model, getattr(model, "default_engine", "bfs"), args, list(encodings))
    limits = spent(limits_of(args), time.monotonic() - started)   # that time counts toward --time-limit too
    with progress_for(args) as progress:
        found = verify(model, args.claim, encodings, args.solver, args.workers, limits, progress,
                       args.fresh_bound)
    if args.json:
        print_json(found.as_dict())
    else:
        print_verification(model, found)
    return found.exit_code


def cmd_compare(args: argparse.Namespace) -> int:
    model = load_model(args)
    from puzzleplan.encoders.base import encodings_for
    native = getattr(model, "default_engine", "bfs") if args.horizon is None else ""   # no native run
    note_cold_kernels(model, native, args, list(args.encodings or encodings_for(model)))
    with progress_for(args) as progress:
        return _compare(args, model, progress)


def _compare(args: argparse.Namespace, model: Any, progress: Progress) -> int:
    """compare's table under its progress display: a bar over the rows (printed above it)."""
    import csv
    from dataclasses import asdict
    from puzzleplan.encoders.base import encoding_class
    from puzzleplan.encoders.certify import compare, costed, counts_steps, proof_options
    encodings = _encodings_arg(model, args.encodings, False)
    _check_solvers(args.solvers, "--solvers")
    horizon = own_steps = args.horizon   # own_steps: for encodings counting their own steps (sok-push: pushes)
    if horizon is None:
        native = native_optimum(model, limits_of(args), progress=progress)
        if not native.status.has_plan:
            raise InputError(f"no proved optimum to use as the horizon ({native.status.value}); give --horizon")
        horizon, own_steps = native.plan.length, native.plan.cost
    options = proof_options(model)[0]
    if args.goal:
        options = options.with_(goal=args.goal)
    trials = []
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
    def horizon_of(name: str) -> int:
        return own_steps if counts_steps(name) else horizon

    trials_of = (compare(model, horizon_of(name), [name], args.solvers, args.repeat, options, args.workers,
                         args.time_limit) for name in encodings)
    for t in (t for each in trials_of for t in each):
        rows_bar.update(advance=1, label=f"compare: {t.encoding} {t.solver} done")
        trials.append(t)
        if not args.json:
            length = "" if t.length is None else str(t.length)
            cost = f" {t.extra.get('cost', ''):>5}" if with_cost else ""
            print(f"{t.encoding:16} {t.solver:14} {t.horizon:>4} {t.variables:>8} {t.constraints:>9} "
                  f"{t.build_seconds:>8.3f} {t.solve_seconds:>8.3f} {t.result:>7} {length:>6}{cost}", flush=True)
        if t.valid is False:
            raise EngineBug(f"encoding {t.encoding} decoded a plan the checker rejects")
    if args.json:
        print_json([asdict(t) for t in trials])
    if args.csv:
        fields = ["encoding", "solver", "horizon", "variables", "constraints", "build_seconds", "solve_seconds",
                  "result", "length", "repeat"]
        try:
            with open(args.csv, "w", newline="", encoding="utf-8") as f:
                writer = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
                writer.writeheader()
                writer.writerows(asdict(t) for t in trials)
        except OSError as exc:
            raise InputError(f"{args.csv}: cannot write: {exc.strerror}") from None
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path
    from puzzleplan.encoders.certify import proof_options
    model = load_model(args)
    out = Path(args.output)
    try:
        if args.to not in ("dimacs", "cpsat"):   # a family's own exporter (e.g. pddl)
            return _export_declared(model, args.to, out)
        from puzzleplan.encoders.export import export_cpsat, export_dimacs
        if args.horizon is None:
            raise InputError(f"--horizon: a {args.to} export encodes one horizon; give --horizon T")
        backend = "sat" if args.to == "dimacs" else "cpsat"
        encoding = args.encoding or next(iter(_backend_encodings(model, backend)), None)
        if encoding not in _backend_encodings(model, backend):
            raise InputError(f"--encoding: expected a {backend} encoding for {model.family} "
                             f"({', '.join(_backend_encodings(model, backend)) or 'none'}), got {encoding!r}")
        options = proof_options(model)[0]
        if args.goal:
            options = options.with_(goal=args.goal)
        if args.to == "dimacs":
            map_path = export_dimacs(model, encoding, options, args.horizon, out)
            print(f"wrote {out} and the variable map {map_path}")
        else:
            export_cpsat(model, encoding, options, args.horizon, out)
            print(f"wrote {out}")
    except ValueError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"{args.output}: cannot write: {exc.strerror or exc}") from None
    return EXIT_OK


def _export_declared(model: Any, kind: str, out: Any) -> int:
    """An exporter of `kind` (PDDL for every model with a planning-task form, or one the family
    declares) writes into the directory `out`: a (domain, problem) pair as domain.pddl and
    problem.pddl, or a mapping of file names to texts."""
    from puzzleplan.encoders.pddl import exporter, exporter_supports
    reason = exporter_supports(model, kind)
    if reason is not None:
        raise InputError(f"--to: {reason}")
    written = exporter(model, kind)(model)
    files = written if isinstance(written, dict) else dict(zip(("domain.pddl", "problem.pddl"), written))
    out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        write_atomically(str(out / name), text)
    print("wrote " + " and ".join(str(out / name) for name in files))
    return EXIT_OK


def _backend_encodings(model: Any, backend: str) -> list[str]:
    from puzzleplan.encoders.base import encodings_for
    return encodings_for(model, backend)


def cmd_decode(args: argparse.Namespace) -> int:
    from puzzleplan.encoders.export import decode_dimacs
    from puzzleplan.encoders.sat.base import UndecodableModel
    model = load_model(args)
    map_path = args.map[1:] if args.map.startswith("@") else args.map   # `@FILE` as for the solution
    try:
        map_text = open(map_path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{clip_path(map_path)}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    where, solution = _solution_text(args.solution)
    try:
        moves = decode_dimacs(model, map_text, solution)
    except UndecodableModel as exc:
        raise InputError(f"{where}: {exc}") from None
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        raise InputError(f"{clip_path(map_path)}: not a variable map of this puzzle: {clip(exc, 80)}") from None
    report = check_plan(model, moves, "printed")
    if args.json:
        print_json({"plan": moves, "length": len(moves), **report.as_dict()})
    else:
        print(f"plan:    {' '.join(moves)}")
        print(report.summary())
    return EXIT_OK if report.valid else EXIT_NEGATIVE


def _solution_text(arg: str) -> tuple[str, str]:
    """decode's SOLUTION (`@FILE`, a file's path, or the model's text itself): what to call it
    in an error (the file's path, or 'SOLUTION' for text) and its text."""
    import os
    path = arg[1:] if arg.startswith("@") else arg
    if arg.startswith("@") or (len(arg) < 4096 and os.path.isfile(path)):
        try:
            return clip_path(path), open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{clip_path(path)}: cannot read the solution: {getattr(exc, 'strerror', None) or exc}") from None
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
        about = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
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
