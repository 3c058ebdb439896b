"""The command line's grammar: every command, its options and the types that read them.

Choices that depend on what is installed come from the declarations: engine names from the
engine registry, `convert --to` from the families' notations, `export --to` from their
exporters (plus the two encoding backends' formats). Usage errors are one line, exit 2.
"""
from __future__ import annotations

import argparse
from typing import Any, Sequence

from puzzleplan.models.base import MAX_CAP
from puzzleplan.plans.cli.common import DEFAULT, EXIT_INPUT
from puzzleplan.plans.core.options import COMPARE_SOLVERS
from puzzleplan.plans.core.words import clip
from puzzleplan.plans.planfile import FORMATS


def whole(low: int, high: int | None = None) -> Any:
    """An argument type: a whole number from `low` (to `high`)."""
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


def memory(text: str) -> int | None:
    """An argument type: MiB, a size such as 4G, or 'none'."""
    from puzzleplan.plans.core.memory import parse_memory_limit, resident_mb
    try:
        value = parse_memory_limit(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MiB (e.g. 2048), a size such as 4G, or 'none', got {clip(text)!r}") from None
    held = resident_mb()
    if value is not None and value <= held:   # the limit is on this process's resident memory
        raise argparse.ArgumentTypeError(f"expected more than the {held:.0f} MiB this process already holds, "
                                         f"got {clip(text)}")
    return value


def seconds(text: str) -> float:
    """An argument type: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {clip(text)!r}") from None
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0 and below 1e9, got {clip(text)}")
    return value


def version() -> str:
    """The installed distribution's version, else the package's own `__version__`."""
    from puzzleplan import __version__
    return str(__version__)


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2
        self.exit(EXIT_INPUT, f"{self.prog}: error: {clip(' '.join(message.split()), 300)}\n")


class VersionAction(argparse.Action):
    """--version: `puzzleplan X.Y.Z` on stdout, exit 0 (the version is looked up only then)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option_string: Any = None) -> None:
        print(f"puzzleplan {version()}")
        parser.exit()


def declared_choices() -> tuple[list[str], list[str], list[str]]:
    """(engine names, convert --to kinds, export --to formats) of the built-in families, for the
    help text. The values are checked where they are used (a family from another package may
    add engines, notations and exports), so start-up never scans the installed packages."""
    from puzzleplan.models.family import families
    from puzzleplan.plans.core import engines
    descs = list(families(outside=False).values())
    notations = sorted({kind for d in descs for kind in d.notations})
    exports = ["dimacs", "cpsat"] + sorted({kind for d in descs for kind in d.exports} - {"dimacs", "cpsat"})
    return list(engines.registry(outside=False)), notations, exports


def _limits(p: argparse.ArgumentParser, searches: bool = True) -> None:
    """--time-limit and --memory-limit; for a command that searches, --max-states and --quiet too."""
    g = p.add_argument_group("limits")
    g.add_argument("--time-limit", type=seconds, metavar="SECONDS", help="stop after this many seconds")
    if searches:
        g.add_argument("--max-states", type=whole(1), metavar="N", help="stop when more states are stored")
    g.add_argument("--memory-limit", type=memory, metavar="MB", default=DEFAULT,
                   help="stop above this resident memory: MiB, '4G', or 'none' (or 0: no limit; default: 75%% of the memory "
                        "available at the start, or $PUZZLEPLAN_MEMORY_LIMIT)")
    if searches:
        g.add_argument("-q", "--quiet", action="store_true", help="no progress line on stderr")


def _encoder_options(p: argparse.ArgumentParser) -> None:
    from puzzleplan.encoders.base import CARD_ENCODINGS
    from puzzleplan.encoders.horizon import STRATEGIES
    g = p.add_argument_group("sat / cpsat engines")
    g.add_argument("--encoding", help="encoding name (see `puzzleplan encodings FILE`)")
    g.add_argument("--solver", help="python-sat solver name (default cadical195; e.g. glucose4, kissat)")
    g.add_argument("--strategy", choices=STRATEGIES, help="horizon strategy (default increasing; fixed with --any)")
    g.add_argument("--goal", choices=["by", "exact"], help="goal at some step <= T (idle allowed) or exactly at T")
    # dest no_reversal: True forbids the undo. (argparse's BooleanOptionalAction on a flag named
    # --no-reversal read both --no-reversal and --no-no-reversal as False: the cut could not be asked.)
    g.add_argument("--reversal-cut", dest="no_reversal", action=argparse.BooleanOptionalAction, default=None,
                   help="forbid undoing the previous move at once (--no-reversal-cut: allow it)")
    g.add_argument("--no-reversal", dest="no_reversal", action="store_const", const=True,
                   help="the same as --reversal-cut")
    g.add_argument("--idle-at-end", action=argparse.BooleanOptionalAction, default=None,
                   help="idle steps only after the last move (goal by)")
    g.add_argument("--distance-cuts", action=argparse.BooleanOptionalAction, default=None,
                   help="admissible distance-to-goal cuts per step")
    g.add_argument("--parity", action=argparse.BooleanOptionalAction, default=None,
                   help="use the family's plan-length parity")
    g.add_argument("--card", choices=CARD_ENCODINGS, help="pysat cardinality encoding for exactly-one")
    g.add_argument("--params", metavar="TEXT", help="CP-SAT SatParameters as text, e.g. 'num_workers:4'")
    g.add_argument("--workers", type=whole(1, 64), metavar="N",
                   help="CP-SAT worker threads; Sokoban's push engine: threads that expand each batch of states")
    g.add_argument("--hint", action="store_true", help="hint CP-SAT with the native engine's plan")
    g.add_argument("--max-horizon", type=whole(0, MAX_CAP), metavar="T",
                   help="largest horizon tried when there is no cap (default 200)")


def _level(p: argparse.ArgumentParser) -> None:
    p.add_argument("--level", help="level collections (.xsb/.sok): the level's 1-based number or title; "
                                   "Fogleman's Rush Hour database (.txt): the puzzle's 1-based number or board; "
                                   "Korf's lines (.korf, .txt): the instance's 1-based number")


METRIC_HELP = ("the metric to read the puzzle under (`puzzleplan families` lists each family's; "
               "default: the file's metric:, else the family's first)")


def _puzzle(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the puzzle file (YAML, or a level collection); '-' reads YAML from standard input")
    _level(p)


def _search_commands(sub: Any, engine_names: list[str], notations: list[str]) -> None:
    p = sub.add_parser("solve", help="find a plan (optimal by default)")
    _puzzle(p)
    p.add_argument("--engine", metavar="NAME",
                   help=f"{', '.join(engine_names)} (default: the family's optimal engine; `puzzleplan families`)")
    p.add_argument("--max-moves", type=whole(0, MAX_CAP), metavar="N", help="the move cap (overrides max_moves)")
    p.add_argument("--any", action="store_true", help="the first plan within the cap will do (fast)")
    p.add_argument("--metric", help="the move metric (family-specific, e.g. step or slide)")
    p.add_argument("--show", action="store_true", help="print every board of the plan")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                   help="colour the --show boards: auto = on a terminal without NO_COLOR (default)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument("--plan-file", metavar="OUT", help="also write the plan to OUT (as `check` reads it)")
    p.add_argument("--render", metavar="OUT",
                   help="also draw the plan found: OUT.html (a page that plays it), .gif, .svg (animated)")
    p.add_argument("--plan-format", choices=FORMATS, default="puzzleplan",
                   help="the plan file's format: puzzleplan (the moves as printed), fd (Fast Downward's plan "
                        "for `export --to pddl`), lurd (Sokoban), digits (tiles: the seed's 0-3 for the blank's up, "
                        "right, down, left), seed-003 and cells (Rush Hour: seed 003's and seed 001's moves; "
                        "cells under step only)")
    p.add_argument("--all-optimal", action="store_true",
                   help="every optimal plan (as seed 004 collects every goal state before choosing)")
    p.add_argument("--count-only", action="store_true", help="with --all-optimal: only how many there are")
    p.add_argument("--limit", type=whole(1), metavar="N", help="with --all-optimal: list at most N plans")
    p.add_argument("--heuristic", metavar="NAME",
                   help="the heuristic of --engine idastar or a task engine, as the family names them (tiles "
                        "IDA*: manhattan = Manhattan + linear conflicts, pdb = also pattern databases; default: "
                        "databases when cached or cheap to build; `puzzleplan engines` lists the task engines' "
                        "heuristics)")
    p.add_argument("--partition", metavar="GROUPS",
                   help="tiles pattern databases: faces per pattern, groups split by '/' (default: the largest "
                        "cached tables, else an automatic split)")
    p.add_argument("--rule", action="append", metavar="NAME=on|off",
                   help="switch one of the engine's rules (pruning rules, bounds) on or off; repeatable, or "
                        "comma-separated (`puzzleplan engines` lists each engine's rules with their defaults; "
                        "a wrong name lists them too)")
    _encoder_options(p)
    _limits(p)

    p = sub.add_parser("explore", help="breadth-first over the whole reachable space")
    _puzzle(p)
    p.add_argument("--metric", help=METRIC_HELP)
    p.add_argument("--workers", type=whole(1, 64), metavar="N",
                   help="explore with N threads over packed states (Rush Hour, tiles up to 15 cells), "
                        "else N processes (frontier partitioned by state hash)")
    p.add_argument("--json", action="store_true")
    _limits(p)

    p = sub.add_parser("check", help="replay a plan with the independent checker")
    _puzzle(p)
    p.add_argument("plan", help="the plan (e.g. UURDL or '0 3 2 1' or tile faces), @FILE, or @- (standard input); "
                                "whole lines starting ; or # are comments")
    p.add_argument("--metric", help=METRIC_HELP)
    p.add_argument("--notation", choices=["blank", "digits", "tiles"],
                   help="tiles only: read moves as blank directions, seed digits or tile faces")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("convert", help="write the puzzle in another notation")
    _puzzle(p)
    p.add_argument("--to", required=True, metavar="KIND",
                   help=f"one of the family's notations ({', '.join(notations)}): grid: bare rows; vehicles: YAML "
                        "in the vehicle-list notation (Rush Hour); yaml: a YAML puzzle file; xsb: Sokoban's text")
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")


def _encode_commands(sub: Any, exports: list[str]) -> None:
    p = sub.add_parser("verify", help="prove the minimal move count with independent certificates")
    _puzzle(p)
    p.add_argument("--claim", type=whole(0, MAX_CAP), metavar="N", help="check a claimed minimum instead")
    p.add_argument("--metric", help=METRIC_HELP)
    p.add_argument("--encodings", nargs="+", metavar="NAME",
                   help="default: per backend (SAT, CP-SAT), the family's first hand-tuned encoding and the "
                        "first generic one (sas-seq, cp-sas)")
    p.add_argument("--solver", default="cadical195", help="python-sat solver for SAT encodings")
    p.add_argument("--workers", type=whole(1, 64), metavar="N", help="CP-SAT worker threads")
    p.add_argument("--fresh-bound", action="store_true",
                   help="ask each 'no plan <= L-1' on a fresh solver, not on the one that found the plan of L")
    p.add_argument("--json", action="store_true")
    _limits(p)

    p = sub.add_parser("compare", help="run every encoding x solver at one horizon and tabulate")
    _puzzle(p)
    p.add_argument("--horizon", type=whole(0, MAX_CAP), metavar="T",
                   help="default: the proved optimum (in pushes for the encodings that count pushes); "
                        "a given T is asked of every encoding in its own unit")
    p.add_argument("--metric", help=METRIC_HELP)
    p.add_argument("--encodings", nargs="+", metavar="NAME", help="default: all of the family's encodings")
    p.add_argument("--solvers", nargs="+", default=list(COMPARE_SOLVERS), metavar="NAME",
                   help="python-sat solvers for the SAT encodings")
    p.add_argument("--goal", choices=["by", "exact"], help="horizon semantics (default: the proof semantics)")
    p.add_argument("--workers", type=whole(1, 64), metavar="N", help="CP-SAT worker threads")
    p.add_argument("--repeat", type=whole(1, 100), default=1, metavar="K")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--csv", metavar="FILE", help="also write the table as CSV")
    out.add_argument("--json", action="store_true")
    _limits(p)

    p = sub.add_parser("export", help="write the instance at a horizon for outside solvers and planners")
    _puzzle(p)
    p.add_argument("--horizon", type=whole(0, MAX_CAP), metavar="T",
                   help="the horizon of a dimacs or cpsat export (pddl needs none)")
    p.add_argument("--to", required=True, metavar="FORMAT",
                   help=f"{', '.join(exports)}, or another export the family declares")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="dimacs: the CNF file (plus OUT.map.json); cpsat: the proto (.pb binary, else text); "
                        "pddl: a directory for domain.pddl and problem.pddl")
    p.add_argument("--encoding", help="default: the family's first encoding for that backend")
    p.add_argument("--goal", choices=["by", "exact"], help="horizon semantics (default: the proof semantics)")
    p.add_argument("--metric", help=METRIC_HELP)
    _limits(p, searches=False)   # a dimacs or cpsat export builds a formula that grows with the horizon

    p = sub.add_parser("decode", help="turn an outside SAT solver's model of an exported CNF into a checked plan")
    _puzzle(p)
    p.add_argument("--map", required=True, metavar="MAP", help="the OUT.map.json written by export --to dimacs "
                                                               "(MAP or @MAP)")
    p.add_argument("solution", help="the solver's model ('v 1 -2 ... 0' lines or integers): a file, @FILE, or the text")
    p.add_argument("--metric", help="the metric to read the puzzle under (default: the export's, which its map records)")
    p.add_argument("--json", action="store_true")


def _tool_commands(sub: Any) -> None:
    p = sub.add_parser("render", help="draw the puzzle, or animate a plan: svg, png, gif, or an html player")
    _puzzle(p)
    p.add_argument("--plan", metavar="PLAN", help="the plan to animate (as `check` reads it), or @FILE")
    p.add_argument("--to", choices=["svg", "png", "gif", "html"], help="the format (default: from OUT's suffix)")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="the file to write")
    p.add_argument("--notation", choices=["blank", "digits", "tiles"],
                   help="tiles only: read moves as blank directions, seed digits or tile faces")
    p.add_argument("--frame", type=whole(0, MAX_CAP), metavar="K",
                   help="svg or png: the board after K moves of the plan")
    p.add_argument("--seconds", type=seconds, default=0.6, metavar="S", help="seconds per move when playing (0.6)")
    p.add_argument("--scale", type=float, default=1.0, metavar="X", help="png and gif: X times the size (1.0)")
    p.add_argument("--metric", help=METRIC_HELP)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("pdb", help="tiles pattern databases: build, list or clear the cache")
    pdb = p.add_subparsers(dest="pdb_command", required=True, parser_class=Parser)
    q = pdb.add_parser("build", help="build (or load) the databases a tiles puzzle uses")
    _puzzle(q)
    q.add_argument("--partition", metavar="GROUPS", help="faces per pattern, groups split by '/': 'a b c / d e f'")
    q.add_argument("--budget", type=seconds, metavar="SECONDS",
                   help="build-time budget: the automatic partition is chosen to build within it; an explicit "
                        "--partition's build stops at it")
    q.add_argument("--json", action="store_true")
    _limits(q)
    q = pdb.add_parser("info", help="list the cached tables")
    q.add_argument("--json", action="store_true")
    pdb.add_parser("clear", help="delete every cached table")

    sub.add_parser("engines", help="list the engines available here")

    p = sub.add_parser("encodings", help="list the SAT and CP-SAT encodings (of one puzzle's family and metric)")
    p.add_argument("file", nargs="?", help="a puzzle file: only the encodings that apply to it")
    _level(p)
    p.add_argument("--metric", help=METRIC_HELP)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("compile", help="the puzzle as a planning task (SAS+): its size, or the task itself")
    _puzzle(p)
    p.add_argument("--metric", help=METRIC_HELP)
    p.add_argument("--dump", action="store_true", help="print the variables, initial state, goal and every action")
    p.add_argument("--json", action="store_true")
    _limits(p, searches=False)   # a large grounding or a user class enumerated stops at them

    p = sub.add_parser("families", help="what runs on each family and metric: engines, encodings, exports, checker")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("warm-up", help="compile the numba kernels ahead (about a minute, once per installation)")
    p.add_argument("--json", action="store_true")


def _batch_commands(sub: Any) -> None:
    p = sub.add_parser("batch", help="run a spec's instances x engines x encodings (local pool or Dask) into a table")
    p.add_argument("spec", help="the batch spec (YAML): instances, metrics, engines, limits, repeats")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="the results table, .parquet or .csv (default: the spec's output:, else SPEC.parquet)")
    p.add_argument("--workers", type=whole(1, 1024), metavar="N",
                   help="runs at a time (local pool), or the LocalCluster's workers (default: the cores here)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS (tcp://HOST:PORT)")
    where.add_argument("--cluster", choices=["local"], help="run on a Dask LocalCluster started here")
    again = p.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true", help="keep the rows already in OUT and run the rest")
    again.add_argument("--overwrite", action="store_true", help="start OUT again")
    p.add_argument("--dry-run", action="store_true", help="list the runs without running them")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line on stderr")

    p = sub.add_parser("plot", help="draw a batch's results: cactus, scatter, or the summary table")
    p.add_argument("results", help="a results table written by `batch` (.parquet or .csv)")
    p.add_argument("--kind", choices=["cactus", "scatter", "table"], default="cactus",
                   help="cactus: instances solved vs time per configuration; scatter: configuration X vs Y per "
                        "instance; table: the summary (default cactus)")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help=".png or .svg (table also .txt, .md, .csv)")
    p.add_argument("--x", metavar="CONFIG", help="scatter: the configuration on the x axis (default: the first)")
    p.add_argument("--y", metavar="CONFIG", help="scatter: the configuration on the y axis (default: the second)")
    p.add_argument("--metric", help="only the runs under this metric")
    p.add_argument("--solved", choices=["answered", "proved"], default="answered",
                   help="what counts as solved: any answer (default), or a proved one")
    p.add_argument("--title", help="the picture's title")
    p.add_argument("--json", action="store_true")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="puzzleplan", description="State move puzzles in YAML; solve, explore and check plans.")
    parser.add_argument("--version", action=VersionAction, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    engine_names, notations, exports = declared_choices()
    _search_commands(sub, engine_names, notations)
    _encode_commands(sub, exports)
    _tool_commands(sub)
    _batch_commands(sub)
    return parser
