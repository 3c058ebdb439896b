"""Puzzle families: parsing, validation and the rules of each puzzle.

`load(path)` reads a YAML puzzle file and dispatches on its `puzzle:` key through `FAMILIES`,
a registry of "module:attr" strings imported lazily (a family whose dependency is missing simply
does not appear).
"""
from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from puzzleplan.models.base import Model, ModelBase, ModelError, quote
from puzzleplan.models.document import Document, parse_document, read_document

FAMILIES: dict[str, str] = {
    "tiles": "puzzleplan.models.tiles.model:TilesPuzzle",
    "rush-hour": "puzzleplan.models.rush_hour.model:RushHour",
    "sokoban": "puzzleplan.models.sokoban.model:Sokoban",
}


def family_class(name: str) -> Any:
    """Import and return the class registered for family `name` (KeyError if unknown)."""
    module, _, attr = FAMILIES[name].partition(":")
    return getattr(importlib.import_module(module), attr)


def from_document(doc: Document) -> Model:
    """Build a model from a parsed YAML document (dispatch on `puzzle:`).

    Besides the built-in families, `puzzle:` may name a user class (`python:./file.py:Class`,
    `python:package.module:Class`, or an entry point of the `puzzleplan.models` group).
    """
    puzzle = doc.get("puzzle")
    if isinstance(puzzle, str) and puzzle not in FAMILIES:
        from puzzleplan.models.user.model import is_user_puzzle, user_model_from_document
        if is_user_puzzle(puzzle):
            base = Path(doc.source).parent if doc.source and not doc.source.startswith("<") else None
            return user_model_from_document(doc, base)
    if not isinstance(puzzle, str) or puzzle not in FAMILIES:
        raise doc.error("puzzle", f"unknown puzzle {quote(puzzle)}; expected one of {', '.join(sorted(FAMILIES))} "
                                  "or python:MODULE_OR_FILE:CLASS")
    return family_class(puzzle).from_document(doc)


COLLECTION_SUFFIXES = (".xsb", ".sok")


def load(path: str | Path, overrides: dict[str, Any] | None = None, level: str | None = None) -> Model:
    """Read, validate and build the puzzle in `path`. Raises ModelError on bad input.

    `overrides` replace top-level fields (e.g. {"metric": "slide"} from the command line).
    Sokoban collections (.xsb/.sok) hold many levels; `level` picks one by number or title.
    """
    if Path(path).suffix.lower() in COLLECTION_SUFFIXES:
        from puzzleplan.models.sokoban.model import load_collection
        return load_collection(path, level, overrides)
    if level is not None:
        raise ModelError(f"{path}: --level is for level collections (.xsb/.sok files)")
    doc = read_document(path)
    doc.override(overrides or {})
    return from_document(doc)


def loads(text: str, source: str = "<text>") -> Model:
    """Like `load`, from YAML text."""
    return from_document(parse_document(text, source))


__all__ = ["FAMILIES", "Model", "ModelBase", "ModelError", "Document", "load", "loads", "family_class"]
