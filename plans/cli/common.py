"""What every command shares: exit codes, the input error, loading the puzzle, the limits.

Exit codes: 0 success; 1 a negative answer (unsolvable, no plan within the cap, invalid plan);
2 bad input or usage; 3 a limit was reached first; 4 internal error (an engine produced a plan
the independent checker rejects).
"""
from __future__ import annotations

import argparse
from contextlib import contextmanager
from typing import Any, Iterator

from puzzleplan.models import load, loads
from puzzleplan.models.document import STDIN, read_stdin, read_text
from puzzleplan.plans.core.progress import Progress
from puzzleplan.plans.core.types import Limits
from puzzleplan.plans.core.words import clip_path

EXIT_OK, EXIT_NEGATIVE, EXIT_INPUT, EXIT_LIMIT, EXIT_BUG = 0, 1, 2, 3, 4

DEFAULT = object()  # an option left out: its default applies


class InputError(Exception):
    """Bad command-line input: printed as one line, exit 2."""


def load_model(args: argparse.Namespace) -> Any:
    """The puzzle of `args.file` (its --level), under --metric when one is given; `-` is
    standard input, read once."""
    level = getattr(args, "level", None)
    if args.file == "-" or _is_stream(args.file):   # read once, within the time limit: a pipe may never be written
        source = STDIN if args.file == "-" else args.file
        with _reading_within_time_limit(args):
            text = read_stdin() if args.file == "-" else read_text(args.file)

        def reload(overrides: dict[str, Any] | None) -> Any:
            return loads(text, source, overrides, level)
    else:
        def reload(overrides: dict[str, Any] | None) -> Any:
            return load(args.file, overrides, level=level)
    model = reload(None)
    metric = getattr(args, "metric", None)
    if metric and metric != model.metric:
        if metric not in type(model).metrics:
            raise InputError(f"--metric: expected one of {', '.join(type(model).metrics)} "
                             f"for {model.family}, got {metric!r}")
        model = reload({"metric": metric})
    return model


def _is_stream(path: str) -> bool:
    """Whether `path` is a named pipe (or another file that is no regular file but can be read)."""
    import os
    import stat
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


@contextmanager
def _reading_within_time_limit(args: argparse.Namespace) -> Iterator[None]:
    """Reading the puzzle from a pipe stopped at --time-limit (LimitReached), counted from the
    command's start: open and read block while nothing writes to it, and no search polls then."""
    import signal
    import threading
    import time
    from puzzleplan.plans.core.context import LimitReached
    limit = getattr(args, "time_limit", None)
    if limit is None or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def stop(*_: Any) -> None:
        reached = LimitReached(f"time limit of {limit:g} s reached", "time limit")
        reached.during = "reading the puzzle"   # type: ignore[attr-defined]
        raise reached
    remaining = limit - (time.monotonic() - command_started())
    if remaining <= 0:
        stop()
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, remaining)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_COMMAND_STARTED: list[float] = []


def mark_command_start() -> None:
    """Note when the command began (main calls this first): its time limit counts from here."""
    import time
    _COMMAND_STARTED[:] = [time.monotonic()]


def command_started() -> float:
    """When the command began (a `time.monotonic()` reading; now when main did not mark it)."""
    import time
    return _COMMAND_STARTED[0] if _COMMAND_STARTED else time.monotonic()


def command_context(args: argparse.Namespace, progress: Progress | None = None, limits: Limits | None = None) -> Any:
    """A SearchContext for the command's run: its limits (or `limits`), the time limit counted
    from the command's start, so loading the puzzle and the checks before the search count."""
    from puzzleplan.plans.core.context import SearchContext
    return SearchContext(limits_of(args) if limits is None else limits, progress, since=command_started())


def limits_of(args: argparse.Namespace) -> Limits:
    """The limits the command line asked for; the memory limit is on unless `--memory-limit none`."""
    memory = getattr(args, "memory_limit", DEFAULT)
    extra = {} if memory is DEFAULT else {"memory_mb": memory}
    return Limits(time_limit=getattr(args, "time_limit", None), max_states=getattr(args, "max_states", None), **extra)


def quiet(args: argparse.Namespace) -> bool:
    """No progress line: asked for (--quiet), or the output is JSON."""
    return bool(getattr(args, "quiet", False) or getattr(args, "json", False))


def note_cold_kernels(model: Any, engine: str, args: argparse.Namespace, encodings: list[str | None]) -> None:
    """Say up front when this run first compiles the family's kernels (about 10-35 s that no
    limit can cut): for an engine that uses them (`Family.kernel_engines`; its `kernels`), or an
    encoding whose `loads_kernels(model)` says it does (tiles-pdb's bound on a 15-puzzle; its
    `table_kernels` too). None in `encodings` is the backend's default encoding."""
    import sys
    from puzzleplan.models.family import family_of
    desc = family_of(model)
    if desc is None or not desc.kernels or quiet(args):
        return
    tables = any(_encoding_loads_kernels(name, model, engine) for name in encodings)
    if engine not in desc.kernel_engines and not tables:
        return
    from puzzleplan.plans.warmup import kernels_cached
    if not kernels_cached(desc.kernels + (desc.table_kernels if tables else ())):
        print("puzzleplan: note: compiling the search kernels first (about 10-35 s, once per installation; "
              "no limit can cut it short; `puzzleplan warm-up` does it ahead)", file=sys.stderr)


def _encoding_loads_kernels(name: str | None, model: Any, engine: str) -> bool:
    from puzzleplan.encoders.base import encoding_class
    from puzzleplan.encoders.engines import pick_encoding
    name = pick_encoding(model, engine, name) if engine in ("sat", "cpsat") else name
    if name is None:
        return False
    try:
        loads = getattr(encoding_class(name), "loads_kernels", None)
    except KeyError:
        return False
    return bool(loads is not None and loads(model))


def progress_for(args: argparse.Namespace) -> Progress:
    """The command's progress display: on stderr when it is a terminal, unless quiet (see `quiet`)."""
    return Progress.for_terminal(quiet=quiet(args))


def shown_name(model: Any, args: argparse.Namespace) -> str:
    """The puzzle's name for the output: its own, else `<stdin>` for an unnamed one piped in
    (a file's is its stem already; the model keeps no placeholder, so convert writes none)."""
    return model.name or (STDIN if getattr(args, "file", None) == "-" else "")


def plan_notation(args: argparse.Namespace, model: Any) -> str | None:
    """`--notation`, which only tiles plans have a choice of (InputError for another family:
    `check.check_notation`'s rule, said with the option's name)."""
    from puzzleplan.plans.check import check_notation
    try:
        check_notation(model, args.notation)
    except ValueError as exc:
        raise InputError(f"--notation {args.notation}: {str(exc).removeprefix('notation: ')}") from None
    return args.notation


@contextmanager
def plan_file_named(args: argparse.Namespace) -> Iterator[None]:
    """A plan that cannot be read, named by its file when it came from `@FILE`."""
    from puzzleplan.plans.check import PlanNotationError
    try:
        yield
    except PlanNotationError as exc:
        if args.plan.startswith("@"):
            raise PlanNotationError(f"{clip_path(args.plan[1:])}: {exc}") from None
        raise


def describe(model: Any) -> str:
    """'name (family RxC, metric m, cap N)' for the first line of a command's output."""
    size = f" {model.rows}x{model.cols}" if hasattr(model, "rows") else ""
    cap = "" if model.max_moves is None else f", cap {model.max_moves}"
    name = f"{model.name} " if model.name else ""
    return f"{name}({model.family}{size}, metric {model.metric}{cap})"


def pattern_databases(model: Any, what: str) -> Any:
    """The pattern-database module the model's family declares (InputError naming who has one)."""
    from puzzleplan.models.family import families, family_of, resolve
    desc = family_of(model)
    if desc is None or desc.pattern_databases is None:
        having = [d.name for d in families(outside=False).values() if d.pattern_databases]
        raise InputError(f"{what} is for pattern databases, which {', '.join(having) or 'no family'} "
                         f"{'has' if len(having) == 1 else 'have'}; not {getattr(model, 'family', '?')}")
    return resolve(desc.pattern_databases)


def all_pattern_databases() -> list[Any]:
    """The pattern-database modules of every family that declares one (for `pdb info/clear`)."""
    from puzzleplan.models.family import families, resolve
    return [resolve(d.pattern_databases) for d in families(outside=False).values() if d.pattern_databases]


def partition_groups(text: str) -> list[list[str]]:
    """--partition 'a b c / d e' -> [['a', 'b', 'c'], ['d', 'e']] (options.partition_groups)."""
    from puzzleplan.plans.core.options import partition_groups as groups
    try:
        return groups(text)
    except ValueError as exc:
        raise InputError(f"--partition: {exc}") from None


def check_writable(path: str, option: str) -> None:
    """Refuse, before any work, an output file that cannot be written: a folder, or a place
    where no new file can be made (outputs are written beside the target, then renamed onto it;
    a device or FIFO such as /dev/null is written through)."""
    import os
    from pathlib import Path

    from puzzleplan.plans.core.files import probe_folder
    from puzzleplan.plans.core.words import clip_path
    if os.path.isdir(path):
        raise InputError(f"{option} {clip_path(path)}: cannot write: it is a folder")
    if os.path.exists(path) and not os.path.isfile(path):
        return
    try:
        probe_folder(Path(path).resolve().parent)
    except OSError as exc:
        raise InputError(f"{option} {clip_path(path)}: cannot write: {exc.strerror or exc}") from None


def write_atomically(path: str, text: str) -> None:
    """Write all or nothing: a temporary file beside the target, then a rename."""
    from puzzleplan.plans.core.files import write_bytes
    try:
        write_bytes(path, text.encode("utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot write: {exc.strerror}") from None
