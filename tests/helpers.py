"""Shared test helpers: run the CLI in-process and capture its output."""
from __future__ import annotations

import json
from typing import Any

from puzzleplan.plans.cli import main


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run_cli(capsys, *args, "--json")
    return code, json.loads(out)
