"""README drift guards: the tables users read list what the program has.

A review found the engine table without `push` (Sokoban's default engine); these tests fail when
an engine or an encoding is added without its README row, or a subcommand without its line.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from puzzleplan.encoders.base import all_encodings
from puzzleplan.plans.core import engines

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _engine_table() -> str:
    start = README.index("Engines (`puzzleplan engines`):")
    end = README.index("\n\n", README.index("| engine |", start))
    return README[start:end]


@pytest.mark.parametrize("name", engines.names())
def test_every_engine_has_a_row(name: str) -> None:
    rows = [line for line in _engine_table().splitlines() if line.startswith("| `")]
    named = {n for row in rows for n in re.findall(r"`([a-z-]+)`", row.split("|")[1])}
    assert name in named, f"README's engine table has no row for {name!r}"


@pytest.mark.parametrize("name", all_encodings())
def test_every_encoding_is_named(name: str) -> None:
    assert f"`{name}`" in README, f"README never names the encoding {name!r}"


def test_every_subcommand_is_in_the_command_summary() -> None:
    from puzzleplan.plans.cli.parser import build_parser
    parser = build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    missing = [c for c in commands if not re.search(rf"^puzzleplan {re.escape(c)}\b", README, re.M)]
    assert not missing, f"README's command summary lacks {missing}"


def _puzzle_snippets() -> list[str]:
    return [b for b in re.findall(r"```yaml\n(.*?)```", README, re.S) if b.lstrip().startswith("puzzle:")]


@pytest.mark.parametrize("snippet", _puzzle_snippets(), ids=lambda b: b.split("\n", 1)[0][8:30].strip())
def test_every_puzzle_snippet_loads_as_written(snippet: str) -> None:
    """A user copies them: a note inside a board's block, or rows left out, broke two once."""
    import puzzleplan
    examples = Path(__file__).resolve().parent.parent / "examples"
    named = re.findall(r"\b([\w-]+\.(?:py|pddl))\b", snippet)   # files "beside the YAML file"
    base = next(examples.rglob(named[0])).parent if named else examples
    puzzleplan.loads(snippet, source=str(base / "snippet.yaml"))
