"""The `puzzleplan` command line: solve, explore, check, convert, engines.

Exit codes: 0 success; 1 a negative answer (unsolvable, no plan within the cap, invalid plan);
2 bad input or usage; 3 a limit was reached first; 4 internal error (an engine produced a plan
the independent checker rejects).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from puzzleplan.models import ModelError, load

from . import engines as engine_registry
from .check import check_plan, read_plan_argument, split_plan
from .context import SearchContext
from .explore import explore
from .search.layered import packed_space
from .solve import EngineBug, default_engine, solve
from .types import Limits, Request, Result, Status

EXIT_OK, EXIT_NEGATIVE, EXIT_INPUT, EXIT_LIMIT, EXIT_BUG = 0, 1, 2, 3, 4
MAX_CAP = 100_000


class InputError(Exception):
    """Bad command-line input: printed as one line, exit 2."""


def _whole(low: int, high: int | None = None):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"expected a whole number {bound}, got {value}")
        return value
    return parse


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text}")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="puzzleplan", description="State move puzzles in YAML; solve, explore and check plans.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def limits(p: argparse.ArgumentParser) -> None:
        g = p.add_argument_group("limits")
        g.add_argument("--time-limit", type=_seconds, metavar="SECONDS", help="stop after this many seconds")
        g.add_argument("--max-states", type=_whole(1), metavar="N", help="stop when more states are stored")
        g.add_argument("--memory-limit", type=_whole(1), metavar="MB", help="stop above this resident memory (MiB)")
        g.add_argument("--quiet", action="store_true", help="no progress line on stderr")

    def encoder_options(p: argparse.ArgumentParser) -> None:
        from puzzleplan.encoders.base import CARD_ENCODINGS
        from puzzleplan.encoders.horizon import STRATEGIES
        g = p.add_argument_group("sat / cpsat engines")
        g.add_argument("--encoding", help="encoding name (see `puzzleplan encodings`)")
        g.add_argument("--solver", help="python-sat solver name (default cadical195; e.g. glucose4, kissat)")
        g.add_argument("--strategy", choices=STRATEGIES, help="horizon strategy (default increasing; fixed with --any)")
        g.add_argument("--goal", choices=["by", "exact"], help="goal at some step <= T (idle allowed) or exactly at T")
        g.add_argument("--no-reversal", action=argparse.BooleanOptionalAction, default=None,
                       help="forbid undoing the previous move at once")
        g.add_argument("--idle-at-end", action=argparse.BooleanOptionalAction, default=None,
                       help="idle steps only after the last move (goal by)")
        g.add_argument("--distance-cuts", action=argparse.BooleanOptionalAction, default=None,
                       help="admissible distance-to-goal cuts per step")
        g.add_argument("--parity", action=argparse.BooleanOptionalAction, default=None,
                       help="use the family's plan-length parity")
        g.add_argument("--card", choices=CARD_ENCODINGS, help="pysat cardinality encoding for exactly-one")
        g.add_argument("--params", metavar="TEXT", help="CP-SAT SatParameters as text, e.g. 'num_workers:4'")
        g.add_argument("--workers", type=_whole(1, 64), metavar="N", help="CP-SAT worker threads")
        g.add_argument("--hint", action="store_true", help="hint CP-SAT with the native engine's plan")
        g.add_argument("--max-horizon", type=_whole(0, MAX_CAP), metavar="T",
                       help="largest horizon tried when there is no cap (default 200)")

    def level(p: argparse.ArgumentParser) -> None:
        p.add_argument("--level", help="level collections (.xsb/.sok): the level's 1-based number or title")

    p = sub.add_parser("solve", help="find a plan (optimal by default)")
    p.add_argument("file")
    level(p)
    p.add_argument("--engine", choices=list(engine_registry.ENGINES), help="default: the family's optimal engine")
    p.add_argument("--max-moves", type=_whole(0, MAX_CAP), metavar="N", help="the move cap (overrides max_moves)")
    p.add_argument("--any", action="store_true", help="the first plan within the cap will do (fast)")
    p.add_argument("--metric", help="the move metric (family-specific, e.g. step or slide)")
    p.add_argument("--show", action="store_true", help="print every board of the plan")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--all-optimal", action="store_true",
                   help="every optimal plan (as seed 004 collects every goal state before choosing)")
    p.add_argument("--count-only", action="store_true", help="with --all-optimal: only how many there are")
    p.add_argument("--limit", type=_whole(1), metavar="N", help="with --all-optimal: list at most N plans")
    p.add_argument("--heuristic", choices=["manhattan", "pdb"],
                   help="tiles IDA*/DFS: Manhattan + linear conflicts, or also pattern databases "
                        "(default: databases when cached or cheap to build)")
    p.add_argument("--partition", metavar="GROUPS",
                   help="tiles pattern databases: faces per pattern, groups split by '/' (default: the largest "
                        "cached tables, else an automatic split)")
    encoder_options(p)
    limits(p)

    p = sub.add_parser("explore", help="breadth-first over the whole reachable space")
    p.add_argument("file")
    level(p)
    p.add_argument("--metric")
    p.add_argument("--workers", type=_whole(1, 64), metavar="N",
                   help="explore with N threads over packed states (Rush Hour, tiles up to 15 cells), "
                        "else N processes (frontier partitioned by state hash)")
    p.add_argument("--json", action="store_true")
    limits(p)

    p = sub.add_parser("check", help="replay a plan with the independent checker")
    p.add_argument("file")
    level(p)
    p.add_argument("plan", help="the plan (e.g. UURDL or '0 3 2 1' or tile faces), or @FILE")
    p.add_argument("--metric")
    p.add_argument("--notation", choices=["blank", "digits", "tiles"],
                   help="tiles only: read moves as blank directions, seed digits or tile faces")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("verify", help="prove the minimal move count with independent certificates")
    p.add_argument("file")
    level(p)
    p.add_argument("--claim", type=_whole(0, MAX_CAP), metavar="N", help="check a claimed minimum instead")
    p.add_argument("--metric")
    p.add_argument("--encodings", nargs="+", metavar="NAME", help="default: the family's first SAT and CP-SAT encodings")
    p.add_argument("--solver", default="cadical195", help="python-sat solver for SAT encodings")
    p.add_argument("--workers", type=_whole(1, 64), metavar="N", help="CP-SAT worker threads")
    p.add_argument("--json", action="store_true")
    limits(p)

    p = sub.add_parser("compare", help="run every encoding x solver at one horizon and tabulate")
    p.add_argument("file")
    level(p)
    p.add_argument("--horizon", type=_whole(0, MAX_CAP), metavar="T", help="default: the proved optimum")
    p.add_argument("--metric")
    p.add_argument("--encodings", nargs="+", metavar="NAME", help="default: all of the family's encodings")
    p.add_argument("--solvers", nargs="+", default=["cadical195", "glucose4"], metavar="NAME",
                   help="python-sat solvers for the SAT encodings")
    p.add_argument("--goal", choices=["by", "exact"], help="horizon semantics (default: the proof semantics)")
    p.add_argument("--workers", type=_whole(1, 64), metavar="N", help="CP-SAT worker threads")
    p.add_argument("--repeat", type=_whole(1, 100), default=1, metavar="K")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    out.add_argument("--json", action="store_true")
    limits(p)

    p = sub.add_parser("export", help="write the instance at a horizon for outside solvers and planners")
    p.add_argument("file")
    level(p)
    p.add_argument("--horizon", type=_whole(0, MAX_CAP), required=True, metavar="T")
    p.add_argument("--to", required=True, choices=["dimacs", "cpsat", "pddl"])
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="dimacs: the CNF file (plus OUT.map.json); cpsat: the proto (.pb binary, else text); "
                        "pddl: a directory for domain.pddl and problem.pddl")
    p.add_argument("--encoding", help="default: the family's first encoding for that backend")
    p.add_argument("--goal", choices=["by", "exact"], help="horizon semantics (default: the proof semantics)")
    p.add_argument("--metric")

    p = sub.add_parser("decode", help="turn an outside SAT solver's model of an exported CNF into a checked plan")
    p.add_argument("file")
    level(p)
    p.add_argument("--map", required=True, metavar="MAP", help="the OUT.map.json written by export --to dimacs")
    p.add_argument("solution", help="the solver's model: 'v 1 -2 ... 0' lines or integers")
    p.add_argument("--metric")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("convert", help="write the puzzle in another notation")
    p.add_argument("file")
    level(p)
    p.add_argument("--to", required=True, choices=["grid", "vehicles", "yaml", "xsb"],
                   help="grid: bare rows; vehicles: YAML in the vehicle-list notation (Rush Hour); "
                        "yaml: a YAML puzzle file; xsb: Sokoban's text notation")
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")

    p = sub.add_parser("pdb", help="tiles pattern databases: build, list or clear the cache")
    pdb = p.add_subparsers(dest="pdb_command", required=True, parser_class=_Parser)
    q = pdb.add_parser("build", help="build (or load) the databases a tiles puzzle uses")
    q.add_argument("file")
    level(q)
    q.add_argument("--partition", metavar="GROUPS", help="faces per pattern, groups split by '/': 'a b c / d e f'")
    q.add_argument("--budget", type=_seconds, metavar="SECONDS", help="build-time budget for the automatic partition")
    q.add_argument("--json", action="store_true")
    q = pdb.add_parser("info", help="list the cached tables")
    q.add_argument("--json", action="store_true")
    pdb.add_parser("clear", help="delete every cached table")

    sub.add_parser("engines", help="list the engines available here")
    return parser


def _load(args: argparse.Namespace) -> Any:
    level = getattr(args, "level", None)
    model = load(args.file, level=level)
    metric = getattr(args, "metric", None)
    if metric and metric != model.metric:
        if metric not in type(model).metrics:
            raise InputError(f"--metric: expected one of {', '.join(type(model).metrics)} "
                             f"for {model.family}, got {metric!r}")
        model = load(args.file, {"metric": metric}, level=level)
    return model


def _limits(args: argparse.Namespace) -> Limits:
    return Limits(time_limit=args.time_limit, max_states=args.max_states, memory_mb=args.memory_limit)


def _describe(model: Any) -> str:
    size = f" {model.rows}x{model.cols}" if hasattr(model, "rows") else ""
    cap = "" if model.max_moves is None else f", cap {model.max_moves}"
    name = f"{model.name} " if model.name else ""
    return f"{name}({model.family}{size}, metric {model.metric}{cap})"


def _states_along(model: Any, moves: Sequence[str]) -> list[Any]:
    """Replay moves through the model to show boards (display only; checking is done apart)."""
    if hasattr(model, "states_along"):  # families whose actions are not single moves (Sokoban pushes)
        return model.states_along(moves)
    state = model.initial()
    states = [state]
    for move in moves:
        for action, child in model.successors(state):
            if model.plan_moves([action]) == [move]:
                state = child
                break
        states.append(state)
    return states


def cmd_solve(args: argparse.Namespace) -> int:
    model = _load(args)
    if args.max_moves is not None:
        model.max_moves = args.max_moves
    if args.all_optimal or args.count_only or args.limit:
        return _all_optimal(args, model)
    request = Request(max_moves=model.max_moves, any_plan=args.any, limits=_limits(args),
                      options=_encoder_request_options(args, model))
    engine = args.engine or default_engine(model, request)
    ctx = SearchContext.for_terminal(request.limits, quiet=args.quiet or args.json)
    result = solve(model, engine, request, ctx)
    if result.plan is not None and hasattr(model, "plan_summary"):
        result.stats.extra.update(model.plan_summary(result.plan.moves))
    if args.json:
        out = {"puzzle": model.name, "family": model.family, "file": args.file, "metric": model.metric,
               "cap": model.max_moves, **result.as_dict(), "optimal": result.status is Status.OPTIMAL}
        print(json.dumps(out))
    else:
        _print_result(model, result, args.show)
    return result.status.exit_code


def _all_optimal(args: argparse.Namespace, model: Any) -> int:
    from .all_optimal import all_optimal_plans
    if not args.all_optimal:
        raise InputError("--count-only and --limit go with --all-optimal")
    ctx = SearchContext.for_terminal(_limits(args), quiet=args.quiet or args.json)
    found = all_optimal_plans(model, ctx, count_only=args.count_only, limit=args.limit)
    for plan in found.plans or []:
        report = check_plan(model, plan)
        if not report.valid:
            raise EngineBug(f"an enumerated optimal plan fails the checker: {report.error}")
    if args.json:
        print(json.dumps({"puzzle": model.name, "family": model.family, "file": args.file, **found.as_dict()}))
    else:
        print(f"puzzle:  {_describe(model)}")
        print(found.text())
    return found.status.exit_code


def _encoder_request_options(args: argparse.Namespace, model: Any) -> dict[str, Any]:
    keys = ("encoding", "solver", "strategy", "goal", "no_reversal", "idle_at_end", "distance_cuts", "parity",
            "card", "params", "workers", "max_horizon", "heuristic")
    options = {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}
    if getattr(args, "partition", None):
        options["partition"] = _checked_partition(args, model)
    if getattr(args, "hint", False):
        native = solve(model, getattr(model, "default_engine", "bfs"),
                       Request(max_moves=model.max_moves, limits=_limits(args)))
        if native.plan is not None:
            options["hint"] = list(native.plan.moves)
    return options


def _print_result(model: Any, result: Result, show: bool) -> None:
    print(f"puzzle:  {_describe(model)}")
    print(f"engine:  {result.engine}")
    status = result.status
    if result.plan is not None:
        proof = "proved optimal" if status is Status.OPTIMAL else "not proved optimal"
        cap = "" if model.max_moves is None else f", within the cap of {model.max_moves}"
        cost = "" if result.plan.cost == result.plan.length else f" ({result.plan.cost} {model.metric})"
        print(f"status:  {status.value}: {result.plan.length} moves{cost}{cap}, {proof}")
        print(f"plan:    {result.plan.text()}")
    else:
        print(f"status:  {status.value}" + (f": {result.message}" if result.message else ""))
        if result.lower_bound is not None:
            print(f"bound:   every plan needs at least {result.lower_bound} moves")
    s = result.stats
    timing = f"{s.seconds:.3f} s"
    if "setup_seconds" in s.extra and "search_seconds" in s.extra:
        timing += f" ({s.extra['setup_seconds']:.3f} s tables and kernels, {s.extra['search_seconds']:.4f} s search)"
    print(f"stats:   {s.nodes:,} nodes, {s.generated:,} generated, {s.states:,} states stored, {timing}")
    if show and result.plan is not None:
        states = _states_along(model, result.plan.moves)
        for i, state in enumerate(states):
            label = "start" if i == 0 else f"move {i}: {result.plan.moves[i - 1]}"
            print(f"\n{label}\n{model.render(state)}")


def cmd_explore(args: argparse.Namespace) -> int:
    model = _load(args)
    ctx = SearchContext.for_terminal(_limits(args), quiet=args.quiet or args.json)
    if args.workers and packed_space(model) is None:
        from .search.pbfs import explore_parallel
        out = explore_parallel(model, args.workers, ctx)
    else:   # packed states: the array sweep, on threads when --workers asks for them
        out = explore(model, ctx, workers=args.workers or 1)
    if args.json:
        print(json.dumps({"puzzle": model.name, "family": model.family, "file": args.file, **out.as_dict()}))
    else:
        print(f"puzzle:        {_describe(model)}")
        if not out.complete:
            print(f"status:        limit_reached: {out.message} (counts below are partial)")
        print(f"reachable:     {out.reachable:,} states")
        print(f"max depth:     {out.max_depth}")
        nearest = "no goal is reachable" if out.goal_distance is None else f"{out.goal_distance} moves"
        print(f"nearest goal:  {nearest} ({out.goals:,} goal states)")
        print("per depth:     " + " ".join(str(n) for n in out.per_depth))
        print(f"stats:         {out.stats.generated:,} generated, {out.stats.seconds:.3f} s")
    return EXIT_OK if out.complete else EXIT_LIMIT


def cmd_check(args: argparse.Namespace) -> int:
    model = _load(args)
    try:
        text = read_plan_argument(args.plan)
    except OSError as exc:
        raise InputError(f"{args.plan[1:]}: cannot read the plan: {exc.strerror}") from None
    report = check_plan(model, split_plan(text), args.notation)
    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        print(report.summary())
    return EXIT_OK if report.valid else EXIT_NEGATIVE


def _encodings_arg(model: Any, names: list[str] | None, default_one_per_backend: bool) -> list[str]:
    from puzzleplan.encoders.base import encodings_for
    known = encodings_for(model.family, metric=model.metric)
    if names:
        for name in names:
            if name not in known:
                raise InputError(f"--encodings: no encoding {name!r} for {model.family} "
                                 f"(available: {', '.join(known) or 'none'})")
        return names
    if not known:
        raise InputError(f"no encodings for {model.family} under the {model.metric} metric")
    if default_one_per_backend:
        return [n for b in ("sat", "cpsat") for n in encodings_for(model.family, b, model.metric)[:1]]
    return known


def _check_solvers(names: list[str], option: str) -> None:
    from puzzleplan.encoders.sat.base import known_solver
    for name in names:
        if not known_solver(name):
            raise InputError(f"{option}: {name!r} is not a python-sat solver name (e.g. cadical195, glucose4)")


def _native_optimum(model: Any, args: argparse.Namespace) -> Result:
    ctx = SearchContext.for_terminal(_limits(args), quiet=args.quiet or args.json)
    return solve(model, getattr(model, "default_engine", "bfs"), Request(limits=_limits(args)), ctx)


def cmd_verify(args: argparse.Namespace) -> int:
    from puzzleplan.encoders.certify import Certificate, certify
    model = _load(args)
    encodings = _encodings_arg(model, args.encodings, True)
    _check_solvers([args.solver], "--solver")
    native = _native_optimum(model, args)
    if not native.status.has_plan:
        payload = {"optimal": None, "agree": False, "status": native.status.value, "message": native.message,
                   "certificates": []}
        if args.json:
            print(json.dumps(payload))
        else:
            print(f"native {native.engine}: {native.status.value}: {native.message}")
        return native.status.exit_code
    optimum = native.plan.length
    claim = optimum if args.claim is None else args.claim
    rows = [Certificate(native.engine, f"optimum {claim}", "holds" if optimum == claim else f"fails: optimum is {optimum}",
                        native.stats.seconds, list(native.plan.moves), optimum == claim)]
    rows += certify(model, claim, encodings, args.solver, args.workers, args.time_limit)
    agree = all(r.holds for r in rows)
    if args.json:
        print(json.dumps({"optimal": optimum, "claim": claim, "agree": agree,
                          "certificates": [r.as_dict() for r in rows]}))
    else:
        print(f"puzzle:  {_describe(model)}")
        print(f"{'method':34} {'claim':44} {'result':24} seconds")
        for r in rows:
            print(f"{r.method:34} {r.claim:44} {r.result:24} {r.seconds:.3f}")
        if agree:
            print(f"verified: the minimal move count is {claim}")
        else:
            print("DISAGREEMENT:")
            for r in rows:
                if r.plan is not None:
                    print(f"  {r.method} ({r.claim}): {' '.join(r.plan)}")
    return EXIT_OK if agree else EXIT_NEGATIVE


def cmd_compare(args: argparse.Namespace) -> int:
    import csv
    from dataclasses import asdict
    from puzzleplan.encoders.certify import compare, proof_options
    model = _load(args)
    encodings = _encodings_arg(model, args.encodings, False)
    _check_solvers(args.solvers, "--solvers")
    horizon = args.horizon
    if horizon is None:
        native = _native_optimum(model, args)
        if not native.status.has_plan:
            raise InputError(f"no proved optimum to use as the horizon ({native.status.value}); give --horizon")
        horizon = native.plan.length
    options = proof_options(model)[0]
    if args.goal:
        options = options.with_(goal=args.goal)
    trials = []
    header = f"{'encoding':16} {'solver':14} {'T':>4} {'vars':>8} {'clauses':>9} {'build s':>8} {'solve s':>8} {'result':>7} {'length':>6}"
    if not args.json:
        print(f"puzzle:  {_describe(model)}  horizon {horizon}, goal {options.goal}")
        print(header)
    for t in compare(model, horizon, encodings, args.solvers, args.repeat, options, args.workers, args.time_limit):
        trials.append(t)
        if not args.json:
            length = "" if t.length is None else str(t.length)
            print(f"{t.encoding:16} {t.solver:14} {t.horizon:>4} {t.variables:>8} {t.constraints:>9} "
                  f"{t.build_seconds:>8.3f} {t.solve_seconds:>8.3f} {t.result:>7} {length:>6}", flush=True)
        if t.valid is False:
            raise EngineBug(f"encoding {t.encoding} decoded a plan the checker rejects")
    if args.json:
        print(json.dumps([asdict(t) for t in trials]))
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
    from puzzleplan.encoders.export import export_cpsat, export_dimacs
    from puzzleplan.encoders.pddl import pddl_for
    model = _load(args)
    out = Path(args.output)
    try:
        if args.to == "pddl":
            domain, problem = pddl_for(model)
            out.mkdir(parents=True, exist_ok=True)
            _write_atomically(str(out / "domain.pddl"), domain)
            _write_atomically(str(out / "problem.pddl"), problem)
            print(f"wrote {out / 'domain.pddl'} and {out / 'problem.pddl'}")
            return EXIT_OK
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


def _backend_encodings(model: Any, backend: str) -> list[str]:
    from puzzleplan.encoders.base import encodings_for
    return encodings_for(model.family, backend, model.metric)


def cmd_decode(args: argparse.Namespace) -> int:
    from puzzleplan.encoders.export import decode_dimacs
    model = _load(args)
    try:
        map_text = open(args.map, encoding="utf-8").read()
        solution = open(args.solution, encoding="utf-8").read()
    except OSError as exc:
        raise InputError(f"{exc.filename}: cannot read: {exc.strerror}") from None
    try:
        moves = decode_dimacs(model, map_text, solution)
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"{args.map}: {exc}") from None
    report = check_plan(model, moves)
    if args.json:
        print(json.dumps({"plan": moves, "length": len(moves), **report.as_dict()}))
    else:
        print(f"plan:    {' '.join(moves)}")
        print(report.summary())
    return EXIT_OK if report.valid else EXIT_NEGATIVE


def cmd_convert(args: argparse.Namespace) -> int:
    model = _load(args)
    kinds = getattr(model, "notations", ())
    if args.to not in kinds:
        raise InputError(f"--to: {model.family} can be written as {', '.join(kinds) or 'nothing'}, not {args.to!r}")
    text = model.notation(args.to)
    if args.output:
        _write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _write_atomically(path: str, text: str) -> None:
    """Write all or nothing: a temporary file beside the target, then a rename."""
    import os
    import tempfile
    target = os.path.abspath(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".puzzleplan-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file normal permissions
        os.replace(tmp, target)
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror}") from None


def cmd_pdb(args: argparse.Namespace) -> int:
    from puzzleplan.models import tiles_pdb
    if args.pdb_command == "clear":
        print(f"removed {tiles_pdb.clear_cache()} table files from {tiles_pdb.cache_dir()}")
        return EXIT_OK
    if args.pdb_command == "info":
        entries = tiles_pdb.cache_info()
        if args.json:
            print(json.dumps([{**e.__dict__, "path": str(e.path)} for e in entries]))
            return EXIT_OK
        print(f"cache: {tiles_pdb.cache_dir()}  ({len(entries)} tables, "
              f"{sum(e.size for e in entries) / 2**20:.1f} MiB)")
        for e in entries:
            faces = " ".join(e.faces or []) if e.valid_header else "(not a valid table: would be rebuilt)"
            print(f"  {e.path.name}  {e.board}  {e.entries or 0:>11,} entries  {e.size / 2**20:7.1f} MiB  {faces}")
        return EXIT_OK
    model = _load(args)
    if model.family != "tiles":
        raise InputError(f"{args.file}: pattern databases are for tiles puzzles, not {model.family}")
    partition = _partition(args.partition) if args.partition else None
    progress = _progress_printer() if sys.stderr.isatty() and not args.json else None
    try:
        dbs = tiles_pdb.databases_for(model, partition, progress,
                                      args.budget if args.budget else tiles_pdb.DEFAULT_BUDGET_SECONDS)
    except ValueError as exc:
        raise InputError(f"{args.file}: {exc}") from None
    if progress is not None:
        sys.stderr.write("\n")
    rows = [{"faces": [model.faces[f] for f in t.pattern.faces],
             "entries": int(t.data.shape[0])} for t in dbs.tables]
    if args.json:
        print(json.dumps({"tables": rows, "seconds": dbs.seconds, "built": dbs.built,
                          "cache": str(tiles_pdb.cache_dir())}))
    else:
        print(f"{len(dbs.tables)} tables ({len(dbs.built)} built, {len(dbs.tables) - len(dbs.built)} loaded) "
              f"in {dbs.seconds:.2f} s, cache {tiles_pdb.cache_dir()}")
    return EXIT_OK


def _checked_partition(args: argparse.Namespace, model: Any) -> list[list[str]]:
    """--partition of `solve`, checked against the model's faces before any search."""
    if model.family != "tiles":
        raise InputError(f"{args.file}: --partition is for tiles puzzles, not {model.family}")
    from puzzleplan.models import tiles_pdb
    groups = _partition(args.partition)
    try:
        tiles_pdb.partition_of(tiles_pdb.Geometry(model.rows, model.cols, model.goal), model.faces, groups)
    except ValueError as exc:
        raise InputError(f"{args.file}: --partition: {exc}") from None
    return groups


def _partition(text: str) -> list[list[str]]:
    """'a b c / d e' -> [['a', 'b', 'c'], ['d', 'e']]."""
    return [group.split() for group in text.split("/") if group.split()]


def _progress_printer() -> Any:
    def show(done: int, total: int) -> None:
        sys.stderr.write(f"\r  building: {done:,} / {total:,} ({100 * done / max(total, 1):.0f}%)   ")
        sys.stderr.flush()
    return show


def cmd_engines(args: argparse.Namespace) -> int:
    available = set(engine_registry.available())
    for name, (_, about) in engine_registry.ENGINES.items():
        mark = "" if name in available else "  (unavailable: missing dependency)"
        print(f"{name:10} {about}{mark}")
    return EXIT_OK


COMMANDS = {"solve": cmd_solve, "explore": cmd_explore, "check": cmd_check, "convert": cmd_convert,
            "verify": cmd_verify, "compare": cmd_compare, "export": cmd_export, "decode": cmd_decode,
            "pdb": cmd_pdb, "engines": cmd_engines}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (ModelError, InputError) as exc:
        print(f"puzzleplan: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except ValueError as exc:  # bad engine options (e.g. CP-SAT parameters), raised before any search
        print(f"puzzleplan: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except EngineBug as exc:
        print(f"puzzleplan: internal error: {exc}", file=sys.stderr)
        return EXIT_BUG
    except KeyboardInterrupt:
        print("puzzleplan: interrupted", file=sys.stderr)
        return EXIT_LIMIT
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
