"""The `puzzleplan` command line: solve, explore, check, convert, verify, compare, export, decode,
encodings, engines, families, pdb, warm-up, render, batch, plot.

Exit codes: 0 success; 1 a negative answer (unsolvable, no plan within the cap, invalid plan);
2 bad input or usage; 3 a limit was reached first; 4 internal error (an engine produced a plan
the independent checker rejects).

The modules: `parser` (the grammar and option types), `common` (exit codes, loading, limits),
`output` (what results look like), and one module per group of commands: `commands_search`
(solve, explore, check, convert), `commands_encode` (verify, compare, export, decode,
encodings), `commands_tools` (pdb, engines, families, warm-up, render), `commands_batch` (batch, plot). A command's module is imported
only when that command runs.
"""
from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import io
import json
import os
import sys
from typing import Any, Callable, Sequence

from puzzleplan.models import ModelError
from puzzleplan.models.task.checkpoints import checkpoints
from puzzleplan.plans.check import PlanNotationError
from puzzleplan.plans.cli.common import (EXIT_BUG, EXIT_INPUT, EXIT_LIMIT, EXIT_NEGATIVE, EXIT_OK, InputError,
                                         mark_command_start)
from puzzleplan.plans.cli.parser import build_parser
from puzzleplan.plans.core.context import LimitReached
from puzzleplan.plans.core.words import clip

# command -> "module:function" under puzzleplan.plans.cli (imported when the command runs)
COMMANDS: dict[str, str] = {
    "solve": "commands_search:cmd_solve", "explore": "commands_search:cmd_explore",
    "check": "commands_search:cmd_check", "convert": "commands_search:cmd_convert",
    "verify": "commands_encode:cmd_verify", "compare": "commands_encode:cmd_compare",
    "export": "commands_encode:cmd_export", "decode": "commands_encode:cmd_decode",
    "encodings": "commands_encode:cmd_encodings",
    "pdb": "commands_tools:cmd_pdb", "engines": "commands_tools:cmd_engines",
    "families": "commands_tools:cmd_families", "compile": "commands_tools:cmd_compile", "warm-up": "commands_tools:cmd_warm_up",
    "render": "commands_tools:cmd_render",
    "batch": "commands_batch:cmd_batch", "plot": "commands_batch:cmd_plot",
}


def command(name: str) -> Callable[[Any], int]:
    """The function that runs command `name`."""
    module, _, attr = COMMANDS[name].partition(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), attr)


def usage_error(stderr: str) -> str:
    """The message of argparse's "PROG: error: MESSAGE" line in `stderr`, on one line."""
    for line in reversed(stderr.splitlines()):
        if ": error: " in line:
            return clip(" ".join(line.split(": error: ", 1)[1].split()), 400)
    return "bad command-line arguments (see stderr)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Every error is one line on stderr (and, with --json, a JSON object on
    stdout); exit codes as in the module docstring. PUZZLEPLAN_DEBUG=1 shows internal tracebacks."""
    from puzzleplan.plans.solve import EngineBug
    argv = list(sys.argv[1:] if argv is None else argv)
    mark_command_start()
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stderr)
        return EXIT_INPUT
    wants_json = "--json" in argv
    said = io.StringIO()   # argparse's message, for the JSON error; stderr still gets it as printed
    try:
        with contextlib.redirect_stderr(said):
            args = parser.parse_args(argv)
    except SystemExit as exc:
        sys.stderr.write(said.getvalue())
        if exc.code not in (0, None) and wants_json:
            _json_error({"status": "error", "error": usage_error(said.getvalue())})
        return int(exc.code or 0) if isinstance(exc.code, int) else EXIT_INPUT
    sys.stderr.write(said.getvalue())

    def internal(exc: Exception) -> int:
        if os.environ.get("PUZZLEPLAN_DEBUG"):
            raise exc
        return fail("internal error: ", f"{type(exc).__name__}: {exc} (PUZZLEPLAN_DEBUG=1 shows the traceback)",
                    EXIT_BUG)

    def fail(kind: str, message: str, code: int) -> int:
        line = " ".join(str(message).split())  # one line, whatever the message held
        print(f"puzzleplan: {kind}{clip(line, 400)}", file=sys.stderr)
        if getattr(args, "json", False):
            _json_error({"status": "error" if code == EXIT_INPUT else "internal_error", "error": clip(line, 400)})
        return code

    try:
        with checkpoints(_command_poll(args)):
            code = command(args.command)(args)
        sys.stdout.flush()   # a full disk fails here, not at exit after the status was decided
        return code
    except LimitReached as exc:   # a planning task compiled outside a search (encodings listed, exported), a pipe read
        message = f"{exc} while {getattr(exc, 'during', 'compiling the planning task')}"
        print(f"puzzleplan: limit_reached: {message}", file=sys.stderr)
        if getattr(args, "json", False):   # no puzzle yet, perhaps: the file it was reading
            named = {"file": str(args.file)} if getattr(args, "file", None) else {}
            _json_error({"status": "limit_reached", "message": message, **named})
        return EXIT_LIMIT
    except (ModelError, InputError, PlanNotationError) as exc:
        return fail("error: ", str(exc), EXIT_INPUT)
    except ValueError as exc:  # bad engine options (e.g. CP-SAT parameters), raised before any search
        return fail("error: ", str(exc), EXIT_INPUT)
    except EngineBug as exc:
        return fail("internal error: ", str(exc), EXIT_BUG)
    except KeyboardInterrupt:   # a command that reports its partial work catches it itself
        print("puzzleplan: interrupted", file=sys.stderr)
        if getattr(args, "json", False):
            _json_error({"status": "limit_reached", "message": "interrupted (Ctrl-C)"})
        return EXIT_LIMIT
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        if exc.errno not in _WRITE_ERRNOS:
            return internal(exc)
        _silence_stdout()
        print(f"puzzleplan: error: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT
    except RecursionError:
        return fail("error: ", "the input is nested too deeply", EXIT_INPUT)
    except MemoryError:
        return fail("error: ", "out of memory (see --memory-limit)", EXIT_LIMIT)
    except Exception as exc:  # a bug: one line, not a traceback, unless asked for
        return internal(exc)


_WRITE_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EDQUOT}   # standard output cannot take it


def _json_error(answer: dict[str, Any]) -> None:
    """An error's JSON object on standard output, as --json promises; where standard output
    cannot take it (a full disk), the one line on stderr says enough."""
    try:
        print(json.dumps(answer), flush=True)
    except OSError:
        _silence_stdout()


def _silence_stdout() -> None:
    """Standard output to /dev/null, so what its buffer still holds fails no more at exit (Python
    would print a traceback of its own there)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _command_poll(args: argparse.Namespace) -> Any:
    """The limits of a command that takes them, as a poll for compilations outside its searches
    (models/task/compile.py checkpoints): one time limit from the command's start. None for
    commands without limits."""
    if not hasattr(args, "time_limit"):
        return None
    from puzzleplan.plans.cli.common import command_context
    return command_context(args).poll


__all__ = ["COMMANDS", "EXIT_BUG", "EXIT_INPUT", "EXIT_LIMIT", "EXIT_NEGATIVE", "EXIT_OK", "InputError",
           "build_parser", "command", "main"]
