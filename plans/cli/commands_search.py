"""The search commands: solve (one plan, or every optimal one), explore, check, convert."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from puzzleplan.plans.check import check_plan, read_plan_argument
from puzzleplan.plans.cli.common import (EXIT_LIMIT, EXIT_NEGATIVE, EXIT_OK, InputError, describe, limits_of,
                                         load_model, note_cold_kernels, partition_groups, pattern_databases, progress_for,
                                         plan_file_named, plan_notation, quiet, check_writable, command_context, shown_name,
                                         write_atomically)
from puzzleplan.plans.cli.output import print_exploration, print_json, print_result
from puzzleplan.plans.core.types import Request, Status
from puzzleplan.plans.core.words import clip, clip_path
from puzzleplan.plans.solve import EngineBug, default_engine, solve


def cmd_solve(args: argparse.Namespace) -> int:
    if args.show and args.json:
        raise InputError("--show prints the boards as text and --json one JSON object; give one of them")
    model = load_model(args)
    if args.max_moves is not None:
        model = model.with_changes(max_moves=args.max_moves)  # models are immutable: a new one
    if args.all_optimal or args.count_only or args.limit:
        return _all_optimal(args, model)
    _check_plan_format(args, model)
    render_to = _render_format(args)
    for option, path in (("--plan-file", args.plan_file), ("--render", getattr(args, "render", None))):
        if path is not None:   # before the search, so a bad second output leaves no first one written
            check_writable(path, option)
    request = Request(max_moves=model.max_moves, any_plan=args.any, limits=limits_of(args),
                      options=_engine_options(args, model))
    engine = args.engine or default_engine(model, request)
    _check_encoder_options(engine, model, args)
    note_cold_kernels(model, engine, args, [request.options.get("encoding")] if engine in ("sat", "cpsat") else [])
    with progress_for(args) as progress:
        result = solve(model, engine, request, command_context(args, progress, request.limits))
    if result.plan is not None and hasattr(model, "plan_summary"):
        result.stats.extra.update(model.plan_summary(result.plan.moves))
    if result.status is Status.UNSUPPORTED:  # exit 2: the reason is the one error line (JSON keeps the result)
        print(f"puzzleplan: error: engine {result.engine}: {' '.join(result.message.split()) or 'unsupported here'}",
              file=sys.stderr)
        if args.json:
            print_json({"puzzle": shown_name(model, args), "family": model.family, "file": args.file, "metric": model.metric,
                        "cap": model.max_moves, **result.as_dict(), "optimal": False})
        return result.status.exit_code
    _note_expected(args, model, result)
    written = _write_plan_file(args, model, result)
    if args.json:
        rendered = _render(args, model, result, render_to)
        print_json({"puzzle": shown_name(model, args), "family": model.family, "file": args.file, "metric": model.metric,
                    "cap": model.max_moves, **result.as_dict(), "optimal": result.status is Status.OPTIMAL,
                    **({"plan_file": written} if written else {}), **({"render": rendered} if rendered else {})})
    else:   # the answer first: a drawing of thousands of boards takes a while, and Ctrl-C may end it
        print_result(model, result, args.show, args.color)
        if written:
            print(f"wrote:   {written} ({args.plan_format})")
        sys.stdout.flush()
        rendered = _render(args, model, result, render_to)
        if rendered:
            print(f"picture: {rendered['path']} ({rendered['format']}, {rendered['frames']} boards)")
    return result.status.exit_code


def _note_expected(args: argparse.Namespace, model: Any, result: Any) -> None:
    """A note on stderr when a proof contradicts the file's `expect:` (its `optimal_<metric>`, or
    `optimal` for every metric, as the test catalogue reads them; a rush.txt line's MOVES): the
    file's figure, or the search, is wrong, and the user should know which to doubt."""
    expect = getattr(model, "expect", None) or {}
    wanted = expect.get(f"optimal_{model.metric}", expect.get("optimal"))
    if quiet(args) or not isinstance(wanted, int) or isinstance(wanted, bool):
        return
    found = None
    if result.status is Status.OPTIMAL and result.plan is not None and result.plan.cost != wanted:
        found = f"this search proved {result.plan.cost}"
    elif result.status is Status.UNSOLVABLE:
        found = "this search proved the puzzle unsolvable"
    if found is not None:
        print(f"puzzleplan: note: the file's expect: gives the optimum as {wanted} ({model.metric}); {found}",
              file=sys.stderr)


def _check_encoder_options(engine: str, model: Any, args: argparse.Namespace) -> None:
    """The sat / cpsat engines' options, refused before any search when the engine does not
    read them (plans.core.options.READERS); --encoding, unless it names one of the engine's
    encodings for this model."""
    from puzzleplan.plans.core.options import READERS
    for key, readers in READERS.items():
        value = getattr(args, key, None)
        if value is None or (key == "hint" and not value):   # not given (--hint is a plain flag)
            continue
        if engine not in readers:
            flag = "--reversal-cut" if key == "no_reversal" else "--" + key.replace("_", "-")
            raise InputError(f"{flag} goes with --engine {' or '.join(readers)}, not {engine}")
    if engine not in ("sat", "cpsat"):
        return
    from puzzleplan.encoders.base import encodings_for, goal_reason
    from puzzleplan.encoders.engines import pick_encoding
    name = getattr(args, "encoding", None)
    chosen = pick_encoding(model, engine, name)
    if name is not None and chosen is None:
        names = encodings_for(model, engine)
        raise InputError(f"--encoding: expected one of {', '.join(names) or 'none'} (the {engine} encodings of "
                         f"{model.family} under {model.metric}), got {clip(name)!r}")
    why = None if chosen is None else goal_reason(chosen, getattr(args, "goal", None))
    if why is not None:   # as compare and export say it, before any solver runs
        raise InputError(f"--goal: {why}")


def _check_plan_format(args: argparse.Namespace, model: Any) -> None:
    """--plan-file/--plan-format, refused before any search when the format does not fit."""
    from puzzleplan.plans.planfile import supports
    if args.plan_file is None:
        if args.plan_format != "puzzleplan":
            raise InputError("--plan-format goes with --plan-file OUT")
        return
    reason = supports(model, args.plan_format)
    if reason is not None:
        raise InputError(f"--plan-format {args.plan_format}: {reason}")


def _render_format(args: argparse.Namespace) -> str | None:
    """--render OUT's picture format, refused before any search when OUT names none."""
    if getattr(args, "render", None) is None:
        return None
    from puzzleplan.plans.cli.commands_tools import render_format
    to = render_format(args.render)
    if to == "png":   # a PNG is one board; a plan is drawn as an animation or a page
        raise InputError(f"--render {args.render}: a plan is drawn as html, gif or svg; png is one board "
                         "(`puzzleplan render FILE --plan PLAN --frame K -o OUT.png`)")
    return to


def _render(args: argparse.Namespace, model: Any, result: Any, to: str | None) -> dict[str, Any] | None:
    """Draw the plan found into --render OUT (what was written; None: no file or no plan)."""
    if to is None:
        return None
    if result.plan is None:
        if not quiet(args):
            print(f"puzzleplan: note: no plan, so {args.render} was not drawn", file=sys.stderr)
        return None
    from puzzleplan.plans.cli.commands_tools import write_rendering
    return write_rendering(args, model, args.render, result.plan, to)


def _write_plan_file(args: argparse.Namespace, model: Any, result: Any) -> str | None:
    """Write the plan to --plan-file, all or nothing (None when there is no file or no plan)."""
    if args.plan_file is None:
        return None
    if result.plan is None:
        if not quiet(args):
            print(f"puzzleplan: note: no plan, so {args.plan_file} was not written", file=sys.stderr)
        return None
    from puzzleplan.plans.planfile import PlanFormatError, write_plan
    try:
        text = write_plan(model, result.plan.moves, args.plan_format)
    except PlanFormatError as exc:
        raise InputError(f"--plan-format {args.plan_format}: {exc}") from None
    write_atomically(args.plan_file, text)
    return str(args.plan_file)


def _all_optimal(args: argparse.Namespace, model: Any) -> int:
    from puzzleplan.plans.all_optimal import all_optimal_plans
    if not args.all_optimal:
        raise InputError("--count-only and --limit go with --all-optimal")
    if args.plan_file is not None:
        raise InputError("--plan-file writes one plan; not with --all-optimal")
    if getattr(args, "render", None) is not None:
        raise InputError("--render draws one plan; not with --all-optimal")
    if args.engine is not None:
        raise InputError("--all-optimal runs its own breadth-first enumeration; --engine does not apply")
    if args.any:
        raise InputError("--any takes the first plan found and --all-optimal every optimal one; give one of them")
    if args.count_only and args.limit:
        raise InputError("--limit lists at most N plans and --count-only lists none; give one of them")
    if args.show:
        raise InputError("--show prints one plan's boards; not with --all-optimal")
    def checked(plan: list[str]) -> None:  # every listed plan is replayed, within the limits
        report = check_plan(model, plan, "printed")
        if not report.valid:
            raise EngineBug(f"an enumerated optimal plan fails the checker: {report.error}")
    with progress_for(args) as progress:
        found = all_optimal_plans(model, command_context(args, progress), count_only=args.count_only,
                                  limit=args.limit, accept=checked)
    if args.json:
        print_json({"puzzle": shown_name(model, args), "family": model.family, "file": args.file, **found.as_dict()})
    else:
        print(f"puzzle:  {describe(model)}")
        print(found.text())
    return found.exit_code


PLAIN_OPTIONS = ("encoding", "solver", "strategy", "goal", "no_reversal", "idle_at_end", "distance_cuts", "parity",
                 "card", "params", "workers", "max_horizon", "heuristic")   # engine options taken from args as given


def _engine_options(args: argparse.Namespace, model: Any) -> dict[str, Any]:
    """Request.options from the engine options given (encoders', --heuristic, --partition, --rule,
    --hint)."""
    options = {k: getattr(args, k) for k in PLAIN_OPTIONS if getattr(args, k, None) is not None}
    asked = {**options, **({"partition": args.partition} if getattr(args, "partition", None) is not None else {})}
    # the engine these options go to: without --engine, a heuristic or a partition asks for IDA*
    engine = args.engine or default_engine(model, Request(any_plan=args.any, max_moves=model.max_moves,
                                                          options=asked))
    if "heuristic" in options:
        from puzzleplan.plans.core.engines import reads_heuristic
        from puzzleplan.plans.core.options import check_heuristic
        if not reads_heuristic(engine):
            raise InputError(f"--heuristic goes with --engine idastar or a task engine, not {engine}")
        try:
            check_heuristic(model, engine, options["heuristic"])
        except ValueError as exc:
            raise InputError(f"--{exc}") from None
    if getattr(args, "partition", None) is not None:
        options["partition"] = _checked_partition(args, model)
    if getattr(args, "rule", None):
        options["rules"] = _checked_rules(args, engine)
    if getattr(args, "hint", False):
        native = solve(model, getattr(model, "default_engine", "bfs"),
                       Request(max_moves=model.max_moves, limits=limits_of(args)))
        if native.plan is not None:
            options["hint"] = list(native.plan.moves)
    return options


def _checked_rules(args: argparse.Namespace, engine: str) -> dict[str, bool]:
    """--rule (repeatable, comma-separated) checked against `engine`'s rules before any search."""
    from puzzleplan.plans.core import engine_rules
    try:
        return engine_rules.checked(engine, ",".join(args.rule))
    except ValueError as exc:
        raise InputError(f"--rule: {exc}") from None


def _checked_partition(args: argparse.Namespace, model: Any) -> list[list[str]]:
    """--partition of `solve`, checked against the model's faces before any search."""
    pdb = pattern_databases(model, "--partition")
    groups = partition_groups(args.partition)
    try:
        pdb.check_partition(model, groups)
    except (ValueError, OverflowError) as exc:
        raise InputError(f"{args.file}: --partition: {exc}") from None
    return groups


def cmd_explore(args: argparse.Namespace) -> int:
    from puzzleplan.plans.explore import counted_space, explore
    from puzzleplan.plans.search.layered import packed_space
    model = load_model(args)
    with progress_for(args) as progress:
        ctx = command_context(args, progress)
        if args.workers and packed_space(counted_space(model)) is None:
            from puzzleplan.plans.parallel.pbfs import explore_parallel
            out = explore_parallel(model, args.workers, ctx)
        else:   # packed states: the array sweep, on threads when --workers asks for them
            out = explore(model, ctx, workers=args.workers or 1)
    if args.json:
        print_json({"puzzle": shown_name(model, args), "family": model.family, "file": args.file, **out.as_dict()})
    else:
        print_exploration(model, out)
    return EXIT_OK if out.complete else EXIT_LIMIT


def cmd_check(args: argparse.Namespace) -> int:
    if args.file == "-" and args.plan == "@-":
        raise InputError("the puzzle and the plan cannot both come from standard input (give one as a file)")
    model = load_model(args)
    notation = plan_notation(args, model)
    try:
        text = read_plan_argument(args.plan)
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{clip_path(args.plan[1:])}: cannot read the plan: {getattr(exc, 'strerror', None) or exc}") from None
    with plan_file_named(args):
        report = check_plan(model, text, notation)
    if args.json:
        print_json(report.as_dict())
    else:
        print(report.summary())
    return EXIT_OK if report.valid else EXIT_NEGATIVE


def cmd_convert(args: argparse.Namespace) -> int:
    from puzzleplan.models.family import family_of
    model = load_model(args)
    desc = family_of(model)
    kinds = desc.notations if desc is not None else getattr(model, "notations", ())
    if args.to not in kinds:
        if not kinds:
            raise InputError(f"--to: convert has no notation for {model.family} puzzles (`export --to pddl` "
                             "writes the planning task)")
        raise InputError(f"--to: {model.family} can be written as {', '.join(kinds)}, not {args.to!r}")
    try:
        text = model.notation(args.to)
    except ValueError as exc:   # the notation cannot state this puzzle
        raise InputError(f"--to {args.to}: {exc}") from None
    if args.output:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK
