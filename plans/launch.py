"""The `puzzleplan` command's entry point. Ctrl-C while the command line is still loading (its
modules imported, its parser built) ends the command as Ctrl-C does later: one line and exit 3,
not a traceback. `puzzleplan.plans.cli.main` handles everything once a command runs."""
from __future__ import annotations

import sys

EXIT_INTERRUPTED = 3   # plans/cli's EXIT_LIMIT, not imported: this module must load before it


def main() -> int:
    try:
        from puzzleplan.plans.cli import main as run
        return run()
    except KeyboardInterrupt:
        print("puzzleplan: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


__all__ = ["main"]
