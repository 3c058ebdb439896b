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

from puzzleplan.plans.core import engines as engine_registry
from puzzleplan.plans.check import PlanNotationError, check_plan, read_plan_argument
from puzzleplan.plans.core.words import clip, count
from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.memory import resident_mb
from puzzleplan.plans.explore import explore
from puzzleplan.plans.search.layered import packed_space
from puzzleplan.plans.solve import EngineBug, default_engine, solve
from puzzleplan.plans.core.types import Limits, Request, Result, Status

EXIT_OK, EXIT_NEGATIVE, EXIT_INPUT, EXIT_LIMIT, EXIT_BUG = 0, 1, 2, 3, 4
MAX_CAP = 100_000


class InputError(Exception):
    """Bad command-line input: printed as one line, exit 2."""


def _whole(low: int, high: int | None = None):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {clip(text)!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"expected a whole number {bound}, got {value}")
        return value
    return parse


def _memory(text: str) -> int | None:
    from puzzleplan.plans.core.memory import parse_memory_limit
    try:
        return parse_memory_limit(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MiB (e.g. 2048), a size such as 4G, or 'none', got {clip(text)!r}") from None


_DEFAULT = object()  # an option left out: its default applies


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {clip(text)!r}") from None
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {clip(text)}")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2
        self.exit(EXIT_INPUT, f"{self.prog}: error: {clip(' '.join(message.split()), 300)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="puzzleplan", description="State move puzzles in YAML; solve, explore and check plans.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def limits(p: argparse.ArgumentParser) -> None:
        g = p.add_argument_group("limits")
        g.add_argument("--time-limit", type=_seconds, metavar="SECONDS", help="stop after this many seconds")
        g.add_argument("--max-states", type=_whole(1), metavar="N", help="stop when more states are stored")
        g.add_argument("--memory-limit", type=_memory, metavar="MB", default=_DEFAULT,
                       help="stop above this resident memory: MiB, '4G', or 'none' (default: 75%% of the memory "
                            "available at the start, or $PUZZLEPLAN_MEMORY_LIMIT)")
        g.add_argument("--quiet", action="store_true", help="no progress line on stderr")

    def encoder_options(p: argparse.ArgumentParser) -> None:
        from puzzleplan.encoders.base import CARD_ENCODINGS
        from puzzleplan.encoders.horizon import STRATEGIES
        g = p.add_argument_group("sat / cpsat engines")
        g.add_argument("--encoding", help="encoding name (see `puzzleplan encodings FILE`)")
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
    p.add_argument("solution", help="the solver's model ('v 1 -2 ... 0' lines or integers): a file, @FILE, or the text")
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
    limits(q)
    q = pdb.add_parser("info", help="list the cached tables")
    q.add_argument("--json", action="store_true")
    pdb.add_parser("clear", help="delete every cached table")

    sub.add_parser("engines", help="list the engines available here")

    p = sub.add_parser("encodings", help="list the SAT and CP-SAT encodings (of one puzzle's family and metric)")
    p.add_argument("file", nargs="?", help="a puzzle file: only the encodings that apply to it")
    level(p)
    p.add_argument("--metric")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("warm-up", help="compile the numba kernels ahead (about 10 s, once per installation)")
    p.add_argument("--json", action="store_true")
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
    """The limits the command line asked for; the memory limit is on unless `--memory-limit none`."""
    memory = getattr(args, "memory_limit", _DEFAULT)
    extra = {} if memory is _DEFAULT else {"memory_mb": memory}
    return Limits(time_limit=getattr(args, "time_limit", None), max_states=getattr(args, "max_states", None), **extra)


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
    _note_cold_kernels(model, engine, args)
    ctx = SearchContext.for_terminal(request.limits, quiet=args.quiet or args.json)
    result = solve(model, engine, request, ctx)
    if result.plan is not None and hasattr(model, "plan_summary"):
        result.stats.extra.update(model.plan_summary(result.plan.moves))
    if result.status is Status.UNSUPPORTED:  # exit 2, so the reason is also the one error line
        print(f"puzzleplan: error: engine {result.engine}: {' '.join(result.message.split()) or 'unsupported here'}",
              file=sys.stderr)
    if args.json:
        out = {"puzzle": model.name, "family": model.family, "file": args.file, "metric": model.metric,
               "cap": model.max_moves, **result.as_dict(), "optimal": result.status is Status.OPTIMAL}
        print(json.dumps(out))
    else:
        _print_result(model, result, args.show)
    return result.status.exit_code


def _note_cold_kernels(model: Any, engine: str, args: argparse.Namespace) -> None:
    """Say up front when this run first compiles the kernels (about 10 s that no limit can cut)."""
    if model.family != "tiles" or engine not in ("idastar", "dfs") or args.quiet or args.json:
        return
    from puzzleplan.plans.warmup import kernels_cached
    if not kernels_cached():
        print("puzzleplan: note: compiling the search kernels first (about 10 s, once per installation; "
              "no limit can cut it short; `puzzleplan warm-up` does it ahead)", file=sys.stderr)


def _all_optimal(args: argparse.Namespace, model: Any) -> int:
    from puzzleplan.plans.all_optimal import all_optimal_plans
    if not args.all_optimal:
        raise InputError("--count-only and --limit go with --all-optimal")
    ctx = SearchContext.for_terminal(_limits(args), quiet=args.quiet or args.json)

    def checked(plan: list[str]) -> None:  # every listed plan is replayed, within the limits
        report = check_plan(model, plan, "printed")
        if not report.valid:
            raise EngineBug(f"an enumerated optimal plan fails the checker: {report.error}")
    found = all_optimal_plans(model, ctx, count_only=args.count_only, limit=args.limit, accept=checked)
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
        print(f"status:  {status.value}: {count(result.plan.length, 'move')}{cost}{cap}, {proof}")
        print(f"plan:    {result.plan.text()}")
    else:
        print(f"status:  {status.value}" + (f": {result.message}" if result.message else ""))
        if result.lower_bound is not None:
            print(f"bound:   every plan needs at least {count(result.lower_bound, 'move')}")
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
        from puzzleplan.plans.parallel.pbfs import explore_parallel
        out = explore_parallel(model, args.workers, ctx)
    else:   # packed states: the array sweep, on threads when --workers asks for them
        out = explore(model, ctx, workers=args.workers or 1)
    if args.json:
        print(json.dumps({"puzzle": model.name, "family": model.family, "file": args.file, **out.as_dict()}))
    else:
        print(f"puzzle:        {_describe(model)}")
        if not out.complete:
            print(f"status:        limit_reached: {out.message} (counts below are partial)")
        print(f"reachable:     {count(out.reachable, 'state')}")
        print(f"max depth:     {out.max_depth}")
        nearest = "no goal is reachable" if out.goal_distance is None else count(out.goal_distance, "move")
        print(f"nearest goal:  {nearest} ({count(out.goals, 'goal state')})")
        print("per depth:     " + " ".join(str(n) for n in out.per_depth))
        print(f"stats:         {out.stats.generated:,} generated, {out.stats.seconds:.3f} s")
    return EXIT_OK if out.complete else EXIT_LIMIT


def cmd_check(args: argparse.Namespace) -> int:
    model = _load(args)
    try:
        text = read_plan_argument(args.plan)
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{clip(args.plan[1:])}: cannot read the plan: {getattr(exc, 'strerror', None) or exc}") from None
    report = check_plan(model, text, args.notation)
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


def _native_optimum(model: Any, args: argparse.Namespace, time_limit: float | None = _DEFAULT) -> Result:  # type: ignore[assignment]
    limits = _limits(args)
    if time_limit is not _DEFAULT:
        from dataclasses import replace
        limits = replace(limits, time_limit=time_limit)
    ctx = SearchContext.for_terminal(limits, quiet=args.quiet or args.json)
    return solve(model, getattr(model, "default_engine", "bfs"), Request(limits=limits), ctx)


def cmd_verify(args: argparse.Namespace) -> int:
    """The native optimum L, then per encoding a checked plan of the claim and UNSAT below it.

    One `--time-limit` covers the whole command. The verdict: DISAGREEMENT (exit 1) only when a
    definite answer contradicts another; a method that ran out of time is "unknown" and makes
    the verdict `limit_reached` (exit 3); a claim every method refutes is `refuted` (exit 1).
    """
    import time
    from puzzleplan.encoders.certify import Certificate, certify
    model = _load(args)
    encodings = _encodings_arg(model, args.encodings, True)
    _check_solvers([args.solver], "--solver")
    ends = None if args.time_limit is None else time.monotonic() + args.time_limit

    def remaining() -> float | None:
        return None if ends is None else max(0.0, ends - time.monotonic())

    native = _native_optimum(model, args, remaining())
    if not native.status.has_plan:
        payload = {"status": native.status.value, "optimal": None, "claim": args.claim, "agree": None,
                   "message": native.message, "certificates": []}
        if args.json:
            print(json.dumps(payload))
        else:
            print(f"puzzle:  {_describe(model)}")
            print(f"native {native.engine}: {native.status.value}: {native.message}")
        return native.status.exit_code
    optimum = native.plan.length
    claim = optimum if args.claim is None else args.claim
    rows = [Certificate(native.engine, f"optimum {claim}", "holds" if optimum == claim else f"fails: optimum is {optimum}",
                        native.stats.seconds, list(native.plan.moves), optimum == claim, kind="optimum",
                        horizon=claim, answer="holds" if optimum == claim else "fails")]
    rows += certify(model, claim, encodings, args.solver, args.workers, remaining)
    conflicting = [r for r in rows if r.contradicts(optimum)]
    unknown = [r for r in rows if r.answer == "unknown"]
    if conflicting:
        verdict, code = "disagreement", EXIT_NEGATIVE
    elif unknown:
        verdict, code = "limit_reached", EXIT_LIMIT
    elif claim == optimum:
        verdict, code = "verified", EXIT_OK
    else:
        verdict, code = "refuted", EXIT_NEGATIVE
    if args.json:
        print(json.dumps({"status": verdict, "optimal": optimum, "claim": claim, "agree": not conflicting,
                          "certificates": [r.as_dict() for r in rows]}))
        return code
    print(f"puzzle:  {_describe(model)}")
    print(f"{'method':34} {'claim':44} {'result':24} seconds")
    for r in rows:
        print(f"{r.method:34} {r.claim:44} {r.result:24} {r.seconds:.3f}")
    if verdict == "verified":
        print(f"verified: the minimal move count is {claim}")
    elif verdict == "refuted":
        print(f"refuted: the minimal move count is not {claim}; every method agrees it is {optimum}")
    elif verdict == "limit_reached":
        print(f"limit_reached: {count(len(unknown), 'method')} gave up before the time limit; "
              f"no method contradicts the optimum {optimum}")
    else:
        print("DISAGREEMENT:")
        for r in conflicting:
            plan = f": {' '.join(r.plan)}" if r.plan is not None else ""
            print(f"  {r.method} ({r.claim}): {r.result}{plan}")
        print(f"  {native.engine} (optimum {optimum}): {' '.join(native.plan.moves)}")
    return code


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
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{clip(args.map)}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    solution = _solution_text(args.solution)
    try:
        moves = decode_dimacs(model, map_text, solution)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        raise InputError(f"{clip(args.map)}: not a variable map of this puzzle: {clip(exc, 80)}") from None
    report = check_plan(model, moves, "printed")
    if args.json:
        print(json.dumps({"plan": moves, "length": len(moves), **report.as_dict()}))
    else:
        print(f"plan:    {' '.join(moves)}")
        print(report.summary())
    return EXIT_OK if report.valid else EXIT_NEGATIVE


def _solution_text(arg: str) -> str:
    """decode's SOLUTION: `@FILE`, a file's path, or the model's text itself."""
    import os
    path = arg[1:] if arg.startswith("@") else arg
    if arg.startswith("@") or (len(arg) < 4096 and os.path.isfile(path)):
        try:
            return open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{clip(path)}: cannot read the solution: {getattr(exc, 'strerror', None) or exc}") from None
    return arg


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
    from puzzleplan.models.tiles import pdb as tiles_pdb
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
    ctx = SearchContext(_limits(args))
    show = _progress_printer() if sys.stderr.isatty() and not args.json and not args.quiet else None

    def progress(done: int, total: int) -> None:
        ctx.poll()  # the time and memory limits stop a build (LimitReached)
        if show is not None:
            show(done, total)
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
    except LimitReached as exc:
        if show is not None:
            sys.stderr.write("\n")
        if args.json:
            print(json.dumps({"status": "limit_reached", "message": str(exc), "seconds": round(ctx.elapsed(), 3)}))
        else:
            print(f"status:  limit_reached: {exc}; nothing was cached for the unfinished tables")
        return EXIT_LIMIT
    if show is not None:
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
    from puzzleplan.models.tiles import pdb as tiles_pdb
    groups = _partition(args.partition)
    try:
        tiles_pdb.partition_of(tiles_pdb.Geometry(model.rows, model.cols, model.goal), model.faces, groups)
    except (ValueError, OverflowError) as exc:
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


def cmd_encodings(args: argparse.Namespace) -> int:
    from puzzleplan.encoders.base import ENCODINGS, encoding_class
    model = _load(args) if args.file else None
    rows = []
    for name in ENCODINGS:
        try:
            cls = encoding_class(name)
        except ImportError:
            continue
        metrics = list(getattr(cls, "metrics", ()))
        if model is not None and (cls.family != model.family or (metrics and model.metric not in metrics)):
            continue
        about = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        rows.append({"name": name, "backend": cls.backend, "family": cls.family, "metrics": metrics or None,
                     "about": about})
    if args.json:
        print(json.dumps(rows))
        return EXIT_OK
    if model is not None and not rows:
        print(f"no encodings for {model.family} under the {model.metric} metric")
    for r in rows:
        metrics = f" ({', '.join(r['metrics'])})" if r["metrics"] else ""
        print(f"{r['name']:16} {r['backend']:6} {r['family']}{metrics}: {r['about']}")
    return EXIT_OK


def cmd_warm_up(args: argparse.Namespace) -> int:
    from puzzleplan.plans.warmup import warm_up
    report = warm_up()
    if args.json:
        print(json.dumps(report))
    else:
        print(f"compiled kernels ready in {report['seconds']:.1f} s ({report['cache']})")
    return EXIT_OK


COMMANDS = {"solve": cmd_solve, "explore": cmd_explore, "check": cmd_check, "convert": cmd_convert,
            "verify": cmd_verify, "compare": cmd_compare, "export": cmd_export, "decode": cmd_decode,
            "pdb": cmd_pdb, "engines": cmd_engines, "encodings": cmd_encodings, "warm-up": cmd_warm_up}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Every error is one line on stderr (and, with --json, a JSON object on
    stdout); exit codes as in the module docstring. PUZZLEPLAN_DEBUG=1 shows internal tracebacks."""
    import os
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    wants_json = "--json" in argv
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code not in (0, None) and wants_json:
            print(json.dumps({"status": "error", "error": "bad command-line arguments (see stderr)"}))
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_INPUT

    def fail(kind: str, message: str, code: int) -> int:
        line = " ".join(str(message).split())  # one line, whatever the message held
        print(f"puzzleplan: {kind}{clip(line, 400)}", file=sys.stderr)
        if getattr(args, "json", False):
            print(json.dumps({"status": "error" if code == EXIT_INPUT else "internal_error", "error": clip(line, 400)}))
        return code

    try:
        return COMMANDS[args.command](args)
    except (ModelError, InputError, PlanNotationError) as exc:
        return fail("error: ", str(exc), EXIT_INPUT)
    except ValueError as exc:  # bad engine options (e.g. CP-SAT parameters), raised before any search
        return fail("error: ", str(exc), EXIT_INPUT)
    except EngineBug as exc:
        return fail("internal error: ", str(exc), EXIT_BUG)
    except KeyboardInterrupt:
        print("puzzleplan: interrupted", file=sys.stderr)
        return EXIT_LIMIT
    except BrokenPipeError:
        return EXIT_OK
    except RecursionError:
        return fail("error: ", "the input is nested too deeply", EXIT_INPUT)
    except MemoryError:
        return fail("error: ", "out of memory (see --memory-limit)", EXIT_LIMIT)
    except Exception as exc:  # a bug: one line, not a traceback, unless asked for
        if os.environ.get("PUZZLEPLAN_DEBUG"):
            raise
        return fail("internal error: ", f"{type(exc).__name__}: {exc} (PUZZLEPLAN_DEBUG=1 shows the traceback)",
                    EXIT_BUG)


if __name__ == "__main__":
    sys.exit(main())
