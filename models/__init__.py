"""Puzzle families: parsing, validation and the rules of each puzzle.

`load(path)` reads a YAML puzzle file and dispatches on its `puzzle:` key through the family
descriptors (models/family.py): each family package names its parts as lazy "module:attr"
strings. A built model is sealed: immutable, changed only into a new model (`with_changes`).
"""
from __future__ import annotations

import re

from pathlib import Path
from typing import Any

from puzzleplan.models.base import Model, ModelBase, ModelError, quote
from puzzleplan.models.document import STDIN, Document, parse_document, read_document, read_stdin
from puzzleplan.models.family import Family, families, family, resolve

def family_class(name: str) -> Any:
    """The model class of family `name` (KeyError if no such family is registered)."""
    found = family(name)
    if found is None:
        raise KeyError(name)
    return found.model_class()


def from_document(doc: Document) -> Model:
    """Build a model from a parsed YAML document (dispatch on `puzzle:`).

    Besides the built-in families, `puzzle:` may name a user class (`python:./file.py:Class`,
    `python:package.module:Class`, or an entry point of the `puzzleplan.models` group).
    """
    puzzle = doc.get("puzzle")
    known = family(puzzle) if isinstance(puzzle, str) else None
    if known is None and isinstance(puzzle, str):
        from puzzleplan.models.user.model import user_model_from_document
        from puzzleplan.models.user.spec import is_user_puzzle
        if is_user_puzzle(puzzle):
            base = Path(doc.source).parent if doc.source and not doc.source.startswith("<") else None
            return _sealed(user_model_from_document(doc, base))
    if known is None:
        raise doc.error("puzzle", f"unknown puzzle {quote(puzzle)}; expected one of {', '.join(sorted(families()))} "
                                  "or python:MODULE_OR_FILE:CLASS")
    return _sealed(known.model_class().from_document(doc))


def _sealed(model: Any) -> Any:
    seal = getattr(model, "seal", None)
    return seal() if callable(seal) else model


def load(path: str | Path, overrides: dict[str, Any] | None = None, level: str | None = None) -> Model:
    """Read, validate and build the puzzle in `path`. Raises ModelError on bad input.

    `overrides` replace top-level fields (e.g. {"metric": "slide"} from the command line).
    Level collections (files whose suffix a family declares, e.g. Sokoban's .xsb/.sok) hold many
    levels; `level` picks one by number or title. `-` reads a YAML puzzle (or XSB levels) from
    standard input (errors name `<stdin>`; a caller loading it twice reads it once and calls `loads`).
    """
    if str(path) == "-":
        return loads(read_stdin(), STDIN, overrides, level)
    suffix = Path(path).suffix.lower()
    reader = _collection_reader(suffix, path)
    if reader is not None:
        return _sealed(reader(path, level, overrides))
    if level is not None:
        suffixes = sorted({s for d in families().values() for s in d.collections})
        raise ModelError(f"{path}: --level is for level collections ({', '.join(suffixes)} files)")
    try:
        doc = read_document(path)
    except ModelError:
        if _holds_xsb(path):
            raise ModelError(f"{path}:1: the file holds XSB levels, not a YAML puzzle; name it .xsb or .sok") from None
        raise
    doc.override(overrides or {})
    model = from_document(doc)
    if not getattr(model, "name", "x") and isinstance(model, ModelBase):   # unnamed: called by its file, as a level is
        model = model.with_changes(name=Path(path).stem)
    return model


def level_count(path: str | Path) -> int | None:
    """How many levels the collection file `path` holds (None: not a collection, by its suffix).
    A family's collection reader names `load_collection`; its module's `count_levels` counts."""
    import importlib
    reader = _collection_reader(Path(path).suffix.lower(), path)
    if reader is None:
        return None
    return int(importlib.import_module(reader.__module__).count_levels(path))


def _collection_reader(suffix: str, path: str | Path | None = None) -> Any:
    """The family reader of level collections with this file suffix (built-ins first: reading
    other packages' entry points costs milliseconds, and a YAML file never needs it). Where
    several families read the suffix (.txt: Rush Hour's database, Sokoban levels, Korf's lines),
    the first whose reader module `claims(path)` the file's opening lines."""
    import importlib
    for outside in (False, True):
        if outside and suffix in (".yaml", ".yml"):
            return None
        readers = [resolve(desc.collections[suffix]) for desc in families(outside).values()
                   if suffix in desc.collections]
        if len(readers) > 1 and path is not None:
            modules = [importlib.import_module(r.__module__) for r in readers]
            claimed = [r for r, m in zip(readers, modules) if m.claims(path)]
            # a file no reader claims goes to the first that names what it expected: not to one
            # (Korf's lines) whose errors would be a guess at a file of numbers
            readers = claimed or [r for r, m in zip(readers, modules) if getattr(m, "READS_UNCLAIMED", True)]
        if readers:
            return readers[0]
    return None


def loads(text: str, source: str = "<text>", overrides: dict[str, Any] | None = None,
          level: str | None = None) -> Model:
    """Like `load`, from YAML text, or from XSB levels (YAML reads their `#` rows as comments),
    lines of Fogleman's Rush Hour database or Korf's lines; `level` picks one of several."""
    try:
        doc: Document | None = parse_document(text, source)
        failure: ModelError | None = None
    except ModelError as exc:   # XSB rows are comments to YAML: nothing, or a single value
        doc, failure = None, exc
    if (doc is None and not _PUZZLE_KEY.search(text)) or (doc is not None and "puzzle" not in doc.data):
        levels = (_xsb_levels(text, source, overrides, level) or _database_lines(text, source, overrides, level)
                  or _korf_lines(text, source, overrides, level))
        if levels is not None:
            return levels
    if level is not None:
        raise ModelError(f"{source}: --level is for level collections (their files, or XSB levels, Rush Hour "
                         "database lines or Korf's lines as text); this text holds none of them")
    if failure is not None:
        raise failure
    assert doc is not None
    doc.override(overrides or {})
    return from_document(doc)


_PUZZLE_KEY = re.compile(r"""^\s*["']?puzzle["']?\s*:""", re.MULTILINE)   # a YAML puzzle that failed: its error stands


def _database_lines(text: str, source: str, overrides: dict[str, Any] | None, level: str | None) -> Model | None:
    """The Rush Hour puzzle of text holding lines of Fogleman's database (`MOVES BOARD
    CLUSTER`), as `--level` picks it; None when the text does not open with such a line."""
    from puzzleplan.models.document import MAX_COLLECTION_BYTES
    from puzzleplan.models.rush_hour.database import claims_text, load_collection
    if len(text) > MAX_COLLECTION_BYTES or not claims_text(text):
        return None
    return _sealed(load_collection(source, level, overrides, text=text))


def _korf_lines(text: str, source: str, overrides: dict[str, Any] | None, level: str | None) -> Model | None:
    """The tiles instance of text holding Korf's lines, as `--level` picks it; None when the
    text does not open with one."""
    from puzzleplan.models.document import MAX_COLLECTION_BYTES
    from puzzleplan.models.tiles.korf_lines import claims_text, load_collection
    if len(text) > MAX_COLLECTION_BYTES or not claims_text(text):
        return None
    return _sealed(load_collection(source, level, overrides, text=text))


def _holds_xsb(path: str | Path) -> bool:
    """Whether a file that failed as YAML and has no `puzzle:` key holds XSB levels (YAML reads
    their rows as comments)."""
    from puzzleplan.models.document import MAX_COLLECTION_BYTES
    from puzzleplan.models.sokoban.notation import read_collection
    try:
        with open(path, "rb") as handle:
            text = handle.read(MAX_COLLECTION_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return False
    return not _PUZZLE_KEY.search(text) and bool(read_collection(text))   # a YAML puzzle's own error stands


def _xsb_levels(text: str, source: str, overrides: dict[str, Any] | None, level: str | None) -> Model | None:
    """The Sokoban level of text that is no YAML puzzle (no mapping with a `puzzle:` key) but
    holds XSB levels within a collection's size; None otherwise."""
    from puzzleplan.models.document import MAX_COLLECTION_BYTES
    from puzzleplan.models.sokoban.model import Sokoban
    from puzzleplan.models.sokoban.notation import collection_level, read_collection
    if len(text) > MAX_COLLECTION_BYTES or not read_collection(text):
        return None
    return _sealed(Sokoban.from_spec(collection_level(source, level, overrides, text=text)))


__all__ = ["Family", "families", "family", "Model", "ModelBase", "ModelError", "Document", "family_class", "level_count",
           "load", "loads"]
