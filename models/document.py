"""Strict YAML reading that remembers where each field stands, so errors can name the line.

`yaml.safe_load` builds the values; `yaml.compose` (same text) gives the marks. Every error is a
`ModelError` of one line: `FILE:LINE: field 'NAME': what was expected`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import yaml

from .base import ModelError

_MISSING = object()


class Document:
    """A YAML mapping plus the line of each key, with typed, validating accessors."""

    def __init__(self, source: str, data: dict[str, Any], key_lines: dict[str, int],
                 value_lines: dict[str, int]) -> None:
        self.source = source
        self.data = data
        self._key_lines = key_lines
        self._value_lines = value_lines

    # -- errors -------------------------------------------------------------------------------
    def line(self, key: str | None = None) -> int:
        if key is None:
            return 1
        return self._key_lines.get(key, 1)

    def value_line(self, key: str, offset: int = 0) -> int:
        """The file line of the `offset`-th line inside `key`'s value (block scalars)."""
        return self._value_lines.get(key, self.line(key)) + offset

    def error(self, key: str | None, expected: str, line: int | None = None) -> ModelError:
        where = f"{self.source}:{line if line is not None else self.line(key)}"
        field = f" field '{key}':" if key else ""
        return ModelError(f"{where}:{field} {expected}")

    # -- accessors ----------------------------------------------------------------------------
    def check_keys(self, allowed: Iterable[str]) -> None:
        allowed = set(allowed)
        for key in self.data:
            if key not in allowed:
                raise self.error(str(key), f"unknown key; expected one of {', '.join(sorted(allowed))}")

    def has(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, default: Any = _MISSING) -> Any:
        if key not in self.data:
            if default is _MISSING:
                raise self.error(None, f"missing required field '{key}'")
            return default
        return self.data[key]

    def text(self, key: str, default: Any = _MISSING) -> Any:
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise self.error(key, f"expected text, got {type(value).__name__}")
        return value

    def integer(self, key: str, default: Any = _MISSING, low: int | None = None,
                high: int | None = None) -> Any:
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected a whole number, got {value!r}")
        if low is not None and value < low:
            raise self.error(key, f"expected a whole number >= {low}, got {value}")
        if high is not None and value > high:
            raise self.error(key, f"expected a whole number <= {high}, got {value}")
        return value

    def choice(self, key: str, choices: Iterable[str], default: Any = _MISSING) -> Any:
        choices = tuple(choices)
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value
        if value not in choices:
            raise self.error(key, f"expected one of {', '.join(choices)}, got {value!r}")
        return value

    def mapping(self, key: str, default: Any = _MISSING) -> Any:
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, dict):
            raise self.error(key, f"expected a mapping, got {type(value).__name__}")
        return value


def _value_line(node: yaml.Node) -> int:
    """1-based line of the first content line of a value node."""
    style = getattr(node, "style", None)
    if isinstance(node, yaml.ScalarNode) and style in ("|", ">"):
        return node.start_mark.line + 2
    return node.start_mark.line + 1


def parse_document(text: str, source: str) -> Document:
    """Parse YAML text holding one mapping; errors name `source` and the line."""
    try:
        nodes = list(yaml.compose_all(text))
        data = list(yaml.safe_load_all(text))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        raise ModelError(f"{source}:{line}: YAML syntax error: {problem}") from None
    except yaml.YAMLError as exc:
        raise ModelError(f"{source}:1: YAML error: {str(exc).splitlines()[0]}") from None
    nodes = [n for n in nodes if n is not None]
    data = [d for d in data if d is not None]
    if not nodes:
        raise ModelError(f"{source}:1: empty file; expected a YAML mapping with a 'puzzle:' key")
    if len(nodes) > 1:
        raise ModelError(f"{source}:{nodes[1].start_mark.line + 1}: expected one YAML document, found {len(nodes)}")
    node, value = nodes[0], data[0]
    if not isinstance(node, yaml.MappingNode) or not isinstance(value, dict):
        raise ModelError(f"{source}:{node.start_mark.line + 1}: expected a YAML mapping with a 'puzzle:' key")
    key_lines: dict[str, int] = {}
    value_lines: dict[str, int] = {}
    for key_node, value_node in node.value:
        key = str(key_node.value)
        key_lines[key] = key_node.start_mark.line + 1
        value_lines[key] = _value_line(value_node)
    return Document(source, {str(k): v for k, v in value.items()}, key_lines, value_lines)


def read_text(path: str | Path, expected: str = "a puzzle file") -> str:
    """A file's UTF-8 text; anything unreadable is a one-line ModelError naming the file."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ModelError(f"{path}: is a directory, expected {expected}") from None
    except UnicodeDecodeError as exc:
        raise ModelError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise ModelError(f"{path}: cannot read: {exc.strerror}") from None


def read_document(path: str | Path) -> Document:
    """Read and parse a YAML file; an unreadable file is a ModelError too."""
    return parse_document(read_text(path), str(path))
