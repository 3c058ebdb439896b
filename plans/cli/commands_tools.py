"""The tool commands: pattern databases (pdb), engines, families, warm-up, compile, render."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from puzzleplan.plans.cli.common import (EXIT_LIMIT, EXIT_OK, InputError, all_pattern_databases, command_context,
                                         load_model, partition_groups, pattern_databases, plan_file_named, plan_notation,
                                         progress_for)
from puzzleplan.plans.cli.output import print_json
from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.memory import resident_mb


def cmd_pdb(args: argparse.Namespace) -> int:
    """Pattern databases of the families that declare them (`Family.pattern_databases`)."""
    if args.pdb_command in ("clear", "info"):
        modules = all_pattern_databases()
        entries = [e for pdb in modules for e in pdb.cache_info()]
        where = ", ".join(str(pdb.cache_dir()) for pdb in modules) or "(no family keeps pattern databases)"
        if args.pdb_command == "clear":
            print(f"removed {sum(pdb.clear_cache() for pdb in modules)} table files from {where}")
            return EXIT_OK
        if args.json:
            print_json([{**e.__dict__, "path": str(e.path)} for e in entries])
            return EXIT_OK
        print(f"cache: {where}  ({len(entries)} tables, {sum(e.size for e in entries) / 2**20:.1f} MiB)")
        for e in entries:
            faces = " ".join(e.faces or []) if e.valid_header else "(not a valid table: would be rebuilt)"
            print(f"  {e.path.name}  {e.board}  {e.entries or 0:>11,} entries  {e.size / 2**20:7.1f} MiB  {faces}")
        return EXIT_OK
    if getattr(args, "max_states", None) is not None:
        raise InputError("pdb build: --max-states does not apply to a table build (it stores no search states); "
                         "--time-limit and --memory-limit do")
    model = load_model(args)
    tiles_pdb = pattern_databases(model, f"{args.file}: pdb build")
    partition = partition_groups(args.partition) if args.partition is not None else None
    with progress_for(args) as display:
        return _pdb_build(args, model, tiles_pdb, partition, command_context(args, display))


def _pdb_build(args: argparse.Namespace, model: Any, tiles_pdb: Any, partition: list[list[str]] | None,
               ctx: SearchContext) -> int:
    """`pdb build`: its tables, built under the limits with a bar over the placements."""
    def progress(done: int, total: int) -> None:
        ctx.count("building pattern databases", done, total)  # the time and memory limits stop a build
    limits = ctx.limits
    memory = float("inf") if limits.memory_mb is None else max(0.0, limits.memory_mb - resident_mb())
    # --budget also stops the build of an explicit --partition on time
    stop_after = min((t for t in (args.budget if partition else None, limits.time_limit) if t is not None),
                     default=None)
    try:
        dbs = tiles_pdb.databases_for(model, partition, progress,
                                      args.budget if args.budget else tiles_pdb.DEFAULT_BUDGET_SECONDS,
                                      memory_limit_mb=memory, time_limit=stop_after)
    except ValueError as exc:
        raise InputError(f"{args.file}: {exc}") from None
    except (LimitReached, KeyboardInterrupt) as exc:
        ctx.finish()
        why = "interrupted (Ctrl-C)" if isinstance(exc, KeyboardInterrupt) else str(exc)
        if partition and args.budget and stop_after == args.budget and why.startswith("time limit"):
            why = f"the --budget of {args.budget:g} s reached"
        if args.json:
            print_json({"status": "limit_reached", "message": why, "seconds": round(ctx.elapsed(), 3)})
        else:
            print(f"status:  limit_reached: {why}; nothing was cached for the unfinished tables")
        return EXIT_LIMIT
    ctx.finish()
    # tables under MIN_CACHED_ENTRIES are rebuilt faster than read: never written to the cache
    smallest = tiles_pdb.MIN_CACHED_ENTRIES
    rows = [{"faces": [model.faces[f] for f in t.pattern.faces], "entries": int(t.data.shape[0]),
             "cached": t.pattern.entries >= smallest} for t in dbs.tables]
    loaded = [key for key in (t.pattern.key() for t in dbs.tables) if key not in dbs.built]
    if args.json:
        print_json({"tables": rows, "seconds": dbs.seconds, "built": dbs.built, "loaded": loaded,
                    "cache": str(tiles_pdb.cache_dir())})
    else:
        memory_only = sum(not row["cached"] for row in rows)
        kept = (f"; {memory_only} under {smallest:,} entries kept in memory only, faster to rebuild than to read"
                if memory_only else "")
        print(f"{len(dbs.tables)} tables ({len(dbs.built)} built, {len(dbs.tables) - len(dbs.built)} loaded{kept}) "
              f"in {dbs.seconds:.2f} s, cache {tiles_pdb.cache_dir()}")
    return EXIT_OK


def cmd_engines(args: argparse.Namespace) -> int:
    from puzzleplan.plans.core import engine_rules, engines
    available = set(engines.available())
    for name in engines.names():
        mark = "" if name in available else "  (unavailable: missing dependency)"
        print(f"{name:10} {engines.about(name) if name in available else _declared_about(name)}{mark}")
        for rule, (default, what) in (engine_rules.declared(name) if name in available else {}).items():
            # `what` says what the rule does when on, so the default is named apart from it
            print(f"{'':10}   --rule {rule}=on|off ({'on' if default else 'off'} by default): {what}")
    return EXIT_OK


def _declared_about(name: str) -> str:
    """An engine's line without importing it (its module may not import here)."""
    from puzzleplan.plans.core import engines
    return engines.spec(name).about


def cmd_families(args: argparse.Namespace) -> int:
    """The capability matrix: per family and metric, what runs (from the declarations)."""
    from puzzleplan.plans.families import matrix
    rows = matrix()
    if args.json:
        print_json([row.as_dict() for row in rows])
        return EXIT_OK
    for row in rows:
        print(f"{row.family} ({row.metric}): {row.summary}" if row.summary else f"{row.family} ({row.metric})")
        print(f"  engines:    {' '.join(row.engines) or '-'}")
        if row.unit_cost_engines:
            print(f"              where every action costs 1, also: {' '.join(row.unit_cost_engines)}")
        print(f"  encodings:  {' '.join(row.encodings) or '-'}")
        print(f"  exports:    {' '.join(row.exports) or '-'}")
        print(f"  checker:    {row.checker}")
        print(f"  notations:  {' '.join(row.notations) or '-'}")
    return EXIT_OK


def cmd_warm_up(args: argparse.Namespace) -> int:
    from puzzleplan.plans.warmup import warm_up
    report = warm_up()
    if args.json:
        print_json(report)
    else:
        print(f"compiled kernels ready in {report['seconds']:.1f} s ({report['cache']})")
    return EXIT_OK


def cmd_compile(args: argparse.Namespace) -> int:
    """The puzzle as a planning task: its size, or with --dump the task itself (text or JSON)."""
    from puzzleplan.models.task import text
    from puzzleplan.models.task.compile import NotCompilable, compiled
    model = load_model(args)
    try:
        task = compiled(model).task
    except NotCompilable as exc:
        raise InputError(f"{args.file}: {exc}") from None
    if args.json:
        print_json(text.dump_data(task) if args.dump else text.summary(task))
    else:
        print(text.dump_text(task) if args.dump else text.summary_text(task))
    return EXIT_OK


def render_format(path: str, to: str | None = None) -> str:
    """The picture format of OUT (from --to or its suffix), checked before any work."""
    from puzzleplan.plans.render import RenderError, format_of
    try:
        return format_of(path, to)
    except RenderError as exc:
        raise InputError(str(exc)) from None


def write_rendering(args: argparse.Namespace, model: Any, path: str, plan: Any, to: str,
                    **options: Any) -> dict[str, Any]:
    """Draw `plan` (None: the start) into `path`, all or nothing; what was written, for the output."""
    from puzzleplan.plans.render import RenderError, render_file
    try:
        made = render_file(model, path, plan, to, **options)
    except RenderError as exc:   # an option's value (--scale, --frame, --seconds), else of the puzzle or plan
        text = str(exc)
        option = text.split(":", 1)[0]
        raise InputError(f"--{text}" if option in ("scale", "frame", "seconds") else f"{args.file}: {text}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror or exc}") from None
    for note in made.notes:
        print(f"puzzleplan: note: {note}", file=sys.stderr)
    return {"path": str(path), "format": made.format, "frames": made.frames}


def cmd_render(args: argparse.Namespace) -> int:
    """A picture of the puzzle, or an animation of a plan (checked first): svg, png, gif, html."""
    from puzzleplan.plans.check import read_plan_argument
    from puzzleplan.plans.core.words import clip_path, count
    to = render_format(args.output, args.to)
    if args.notation is not None and args.plan is None:
        raise InputError(f"--notation {args.notation}: it chooses how the plan is read; give --plan")
    model = load_model(args)
    plan = None
    if args.plan is not None:
        try:
            plan = read_plan_argument(args.plan)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            if isinstance(exc, ValueError) and not isinstance(exc, UnicodeDecodeError):
                raise InputError(str(exc)) from None   # names the file already
            why = getattr(exc, "strerror", None) or exc
            raise InputError(f"{clip_path(args.plan[1:])}: cannot read the plan: {why}") from None
    with plan_file_named(args):
        written = write_rendering(args, model, args.output, plan, to, frame=args.frame, seconds=args.seconds,
                                  scale=args.scale, notation=plan_notation(args, model))
    if args.json:
        print_json({"file": args.file, **written})
    else:
        print(f"wrote {written['path']}: {written['format']}, {count(written['frames'], 'board')}")
    return EXIT_OK
