"""Shared test helpers: run the CLI in-process and capture its output; find Fast Downward."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from puzzleplan.plans.cli import main

# A rules puzzle whose actions state costs: 3 steps cost 6, one jump costs 5.
COSTED_RULES = """\
puzzle: rules
variables: {x: 0..3}
init: {x: 0}
goal: {x: 3}
actions:
  step: {requires: x < 3, effects: {x: x + 1}, cost: 2, name: s}
  jump: {requires: x == 0, effects: {x: 3}, cost: 5, name: j}
"""


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run_cli(capsys, *args, "--json")
    return code, json.loads(out)


def fast_downward() -> Path | None:
    """The driver script that the up-fast-downward package ships (None when not installed)."""
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or spec.origin is None:
        return None
    script = Path(spec.origin).parent / "downward" / "fast-downward.py"
    return script if script.is_file() else None
