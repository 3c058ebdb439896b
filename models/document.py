"""Strict YAML reading that remembers where each field stands, so errors can name the line.

Every error is a `ModelError` of one line: `FILE:LINE: field 'NAME': what was expected`.
(A little over 400 lines on purpose: the bounded event composer and the typed accessors share
the line marks it records, and splitting them would pass those marks across a module border.)

Puzzle files are read with a small, strict subset of YAML, in bounded time and memory:

- at most MAX_FILE_BYTES bytes (a level collection: MAX_COLLECTION_BYTES), at most MAX_NODES
  values in all, nested at most MAX_DEPTH collections deep;
- no anchors or aliases (`&a`, `*a`: the "billion laughs" expand a few hundred bytes into
  gigabytes), no explicit tags other than `!!str`, `!!seq`, `!!map` (`!!python/...`, `!!binary`,
  `!!set`, ... are refused), keys that are plain scalars, and no key twice in one mapping;
- scalars are typed by the YAML 1.2 core schema, not YAML 1.1's: a plain scalar is a whole
  number only in decimal without leading zeros (`16`, `-3`), a float only with a `.` or an
  exponent (`1.5`, `1e3`, `.inf`), a boolean only `true`/`false` (any case style), empty or
  `~`/`null` is nothing; everything else is text. So `0x10`, `0o17`, `017`, `1_000`, `1:30`,
  `yes`, `no`, `on`, `off` and `2024-01-01` are text, and a field expecting a whole number
  refuses them instead of reading 16, 15, 17, 1000, 90 or true.
- a top-level text field (name, description, primary, ...) holding a plain number or boolean
  is read as written: `name: 1.50` is the text `1.50`.

The nodes are composed here from the parser's events (libyaml's when installed), so none of
PyYAML's recursive composition or alias expansion ever runs.
"""
from __future__ import annotations

import math
import re
import unicodedata
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import yaml
from yaml.events import (AliasEvent, MappingEndEvent, MappingStartEvent, ScalarEvent, SequenceEndEvent,
                         SequenceStartEvent, StreamEndEvent)

from puzzleplan.models.base import MAX_CAP, ModelError, describe, quote, shorten

try:  # libyaml's scanner and parser: the events come from C, ~10x faster
    from yaml import CBaseLoader as _EventSource
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import BaseLoader as _EventSource  # type: ignore[assignment]

MAX_FILE_BYTES = 1_000_000           # a YAML puzzle file
MAX_COLLECTION_BYTES = 16_000_000    # a Sokoban level collection (.xsb/.sok)
MAX_NODES = 100_000                  # scalars, lists and mappings in one YAML file
MAX_DEPTH = 32                       # lists and mappings nested in one another

_MISSING = object()

STR, INT, FLOAT, BOOL, NULL, SEQ, MAP = (f"tag:yaml.org,2002:{t}" for t in
                                         ("str", "int", "float", "bool", "null", "seq", "map"))
_ALLOWED_TAGS = {None, "!", STR, SEQ, MAP}
# The YAML 1.2 core schema, without YAML 1.1's hex/octal/sexagesimal numbers and yes/no booleans.
_IMPLICIT = (
    (NULL, re.compile(r"(?:~|null|Null|NULL|)\Z")),
    (BOOL, re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")),
    (INT, re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")),
    (FLOAT, re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*|[0-9]+(?:\.[0-9]*)?[eE][-+]?[0-9]+)\Z"
                       r"|[-+]?\.(?:inf|Inf|INF)\Z|\.(?:nan|NaN|NAN)\Z")),
)


@dataclass(frozen=True)
class CommonFields:
    """What every puzzle file may state besides its family's own fields."""

    name: str
    description: str
    metric: str
    max_moves: int | None
    expect: dict[str, Any]


def fact_lines(model: Any, keep_plans: bool = True) -> list[str]:
    """A model's `description:` and `expect:` as lines of a YAML file written back (`convert`),
    in JSON's flow form, which YAML reads; `valid_plans` left out where the writer renames the
    moves (`keep_plans` False), as the plans would no longer name them."""
    import json
    lines = []
    description = (getattr(model, "description", "") or "").strip()
    if description:
        lines.append(f"description: {json.dumps(description, ensure_ascii=False)}")
    expect = {k: v for k, v in (getattr(model, "expect", None) or {}).items() if keep_plans or k != "valid_plans"}
    if expect:
        lines.append(f"expect: {json.dumps(expect, ensure_ascii=False)}")
    return lines


class Document:
    """A YAML mapping plus the line of each key, with typed, validating accessors."""

    def __init__(self, source: str, data: dict[str, Any], key_lines: dict[str, int],
                 value_lines: dict[str, int], raw: dict[str, str] | None = None,
                 node: yaml.Node | None = None, text: str | None = None) -> None:
        self.source = source
        self.data = data
        self._key_lines = key_lines
        self._value_lines = value_lines
        # the source text of top-level plain scalars that YAML read as a number or boolean
        self._raw: dict[str, str] = dict(raw or {})
        self.node = node   # the parsed YAML tree, for the lines of nested fields (None: not parsed here)
        self._lines = text.split("\n") if text is not None else []   # the source, for what YAML dropped

    def override(self, values: dict[str, Any]) -> None:
        """Replace top-level fields (from the command line): they count as written that way."""
        for key, value in values.items():
            self.data[key] = value
            self._raw.pop(key, None)

    # -- errors -------------------------------------------------------------------------------
    def line(self, key: str | None = None) -> int:
        if key is None:
            return 1
        return self._key_lines.get(key, 1)

    def value_line(self, key: str, offset: int = 0) -> int:
        """The file line of the `offset`-th line inside `key`'s value (block scalars); a value
        written on one line (a quoted board string) is on that line whatever the offset."""
        first = self._value_lines.get(key, self.line(key))
        if self.node is not None:
            for key_node, value_node in self.node.value:
                if key_node.value == key and not (isinstance(value_node, yaml.ScalarNode)
                                                  and value_node.style in ("|", ">")):
                    return min(first + offset, value_node.end_mark.line + 1)
        return first + offset

    def lines_read_as_comments(self, key: str) -> list[tuple[int, str]]:
        """(file line, text) of the indented `#` lines right after `key`'s block scalar: YAML
        takes them for comments, which a board's rows indented less than its first row become."""
        for key_node, value_node in (self.node.value if self.node is not None else ()):
            if key_node.value == key and isinstance(value_node, yaml.ScalarNode) and value_node.style in ("|", ">"):
                out = []
                for number in range(value_node.end_mark.line, len(self._lines)):
                    text = self._lines[number]
                    if not (text[:1] in (" ", "\t") and text.lstrip().startswith("#")):
                        break
                    out.append((number + 1, text))
                return out
        return []

    def error(self, key: str | None, expected: str, line: int | None = None) -> ModelError:
        where = f"{self.source}:{line if line is not None else self.line(key)}"
        field = f" field {quote(str(key))}:" if key else ""
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
                raise self.error(None, f"missing required field {quote(key)}")
            return default
        return self.data[key]

    def text(self, key: str, default: Any = _MISSING) -> Any:
        """A text field. A plain number or boolean is taken as written (`name: 0x10`, `name: 1.50`)."""
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value
        if key in self._raw:
            return self._raw[key]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise self.error(key, f"expected text, got {describe(value)}")
        # YAML refuses raw control bytes, but its escapes ("\e", "\a") make them; printed in a
        # terminal they would act (clear the screen, ring the bell) instead of showing.
        bad = next((c for c in value if c not in "\n\t" and unicodedata.category(c) == "Cc"), None)
        if bad is not None:
            raise self.error(key, f"expected printable text, got the control character U+{ord(bad):04X}")
        return value

    def integer(self, key: str, default: Any = _MISSING, low: int | None = None,
                high: int | None = None) -> Any:
        """A whole number written in decimal digits."""
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"expected a whole number in decimal digits, got {describe(value)}")
        if low is not None and value < low:
            raise self.error(key, f"expected a whole number >= {low}, got {quote(value)}")
        if high is not None and value > high:
            raise self.error(key, f"expected a whole number <= {high}, got {quote(value)}")
        return value

    def choice(self, key: str, choices: Iterable[str], default: Any = _MISSING) -> Any:
        choices = tuple(choices)
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, str) or value not in choices:
            raise self.error(key, f"expected one of {', '.join(choices)}, got {describe(value)}")
        return value

    def mapping(self, key: str, default: Any = _MISSING) -> Any:
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, dict):
            raise self.error(key, f"expected a mapping, got {describe(value)}")
        return value

    def common(self, metrics: Sequence[str], expect_facts: Iterable[str]) -> "CommonFields":
        """The fields every family shares, read one way: name, description, metric (the first of
        `metrics` by default), max_moves (0..MAX_CAP) and the expect: facts."""
        return CommonFields(name=self.text("name", ""), description=self.text("description", ""),
                            metric=self.choice("metric", metrics, metrics[0]),
                            max_moves=self.integer("max_moves", None, low=0, high=MAX_CAP),
                            expect=self.expect(expect_facts))

    def expect(self, facts: Iterable[str]) -> dict[str, Any]:
        """The `expect:` mapping: known fact names, each with a value of its kind (`solvable`:
        true/false; `valid_plans`: a list of plans; every other fact a whole number >= 0)."""
        facts = tuple(facts)
        expect = self.mapping("expect", {})
        for fact, value in expect.items():
            if fact not in facts:
                raise self.error("expect", f"unknown fact {quote(fact)}; expected one of {', '.join(facts)}")
            if fact == "solvable":
                ok, kind = isinstance(value, bool), "true or false"
            elif fact == "valid_plans":
                ok = isinstance(value, list) and all(isinstance(p, (str, int)) and not isinstance(p, bool)
                                                     for p in value)
                kind = "a list of plans"
            else:
                ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
                kind = "a whole number >= 0"
            if not ok:
                raise self.error("expect", f"fact {quote(fact)}: expected {kind}, got {describe(value)}")
        return expect

    def sequence(self, key: str, default: Any = _MISSING) -> Any:
        value = self.get(key, default)
        if value is default and default is not _MISSING:
            return value
        if not isinstance(value, list):
            raise self.error(key, f"expected a list, got {describe(value)}")
        return value


# -- reading YAML ----------------------------------------------------------------------------------
class OneLineDocument(Document):
    """A document of one line of a collection file (Rush Hour's database, Korf's lines): every
    field, and every row of the board, is on that line."""

    def __init__(self, source: str, data: dict[str, Any], line: int) -> None:
        lines = {key: line for key in data}
        super().__init__(source, data, lines, dict(lines))
        self._line = line

    def line(self, key: str | None = None) -> int:
        return self._line

    def value_line(self, key: str, offset: int = 0) -> int:
        return self._line


def _value_line(node: yaml.Node) -> int:
    """1-based line of the first content line of a value node."""
    style = getattr(node, "style", None)
    if isinstance(node, yaml.ScalarNode) and style in ("|", ">"):
        return node.start_mark.line + 2
    return node.start_mark.line + 1


def _resolve(value: str, implicit: tuple[bool, bool]) -> str:
    if not implicit[0]:      # quoted or block scalar: always text
        return STR
    for tag, pattern in _IMPLICIT:
        if pattern.match(value):
            return tag
    return STR


class _Composer:
    """Nodes from parser events, refusing what a puzzle file has no use for, within the caps."""

    def __init__(self, events: Any, source: str) -> None:
        self.events = events
        self.source = source
        self.count = 0

    def fail(self, event: Any, message: str) -> ModelError:
        return ModelError(f"{self.source}:{event.start_mark.line + 1}: {message}")

    def node(self, depth: int) -> yaml.Node:
        event = self.events.get_event()
        self.count += 1
        if self.count > MAX_NODES:
            raise self.fail(event, f"more than {MAX_NODES:,} values; a puzzle file is far smaller")
        if isinstance(event, AliasEvent):
            raise self.fail(event, f"alias *{shorten(event.anchor, 20)}: anchors and aliases are not "
                                   "supported in puzzle files; write the value out")
        if event.anchor is not None:
            raise self.fail(event, f"anchor &{shorten(event.anchor, 20)}: anchors and aliases are not "
                                   "supported in puzzle files; write the value out")
        tag = event.tag
        if tag not in _ALLOWED_TAGS:
            shown = "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag
            raise self.fail(event, f"tag {quote(shown)}: explicit tags are not supported in puzzle files "
                                   "(quote a value to make it text)")
        if isinstance(event, ScalarEvent):
            if tag is None or tag == "!":
                tag = _resolve(event.value, event.implicit)
            return yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style or None)
        if depth >= MAX_DEPTH:
            raise self.fail(event, f"lists and mappings nested more than {MAX_DEPTH} deep")
        if isinstance(event, SequenceStartEvent):
            if tag == MAP:
                raise self.fail(event, "tag !!map on a list")
            items = []
            while not self.events.check_event(SequenceEndEvent):
                items.append(self.node(depth + 1))
            end = self.events.get_event()
            return yaml.SequenceNode(SEQ, items, event.start_mark, end.end_mark, flow_style=event.flow_style)
        if isinstance(event, MappingStartEvent):
            if tag == SEQ:
                raise self.fail(event, "tag !!seq on a mapping")
            pairs = []
            seen: dict[Any, int] = {}
            while not self.events.check_event(MappingEndEvent):
                key = self.node(depth + 1)
                if not isinstance(key, yaml.ScalarNode):
                    raise ModelError(f"{self.source}:{key.start_mark.line + 1}: a list or mapping as a key; "
                                     "keys are plain names")
                identity = _key_identity(key)
                line = key.start_mark.line + 1
                if identity in seen:
                    raise ModelError(f"{self.source}:{line}: duplicate key {quote(key.value)} "
                                     f"(first at line {seen[identity]}); each key may appear once")
                seen[identity] = line
                pairs.append((key, self.node(depth + 1)))
            end = self.events.get_event()
            return yaml.MappingNode(MAP, pairs, event.start_mark, end.end_mark, flow_style=event.flow_style)
        raise self.fail(event, f"unexpected YAML event {type(event).__name__}")  # pragma: no cover

    def documents(self) -> list[yaml.Node]:
        """The root node of every non-empty document in the stream."""
        roots = []
        self.events.get_event()  # StreamStartEvent
        while not self.events.check_event(StreamEndEvent):
            self.events.get_event()  # DocumentStartEvent
            root = self.node(0)
            self.events.get_event()  # DocumentEndEvent
            if not (isinstance(root, yaml.ScalarNode) and root.value == "" and not root.style):
                roots.append(root)
            if len(roots) > 1:
                break
        return roots


def _key_identity(node: yaml.ScalarNode) -> Any:
    """The key as Python will hold it, so keys one dict cannot tell apart (`1`, `+1`, `1.0`,
    `true`) count as the same key."""
    try:
        return _scalar(node)
    except (ValueError, OverflowError):
        return ("unreadable", node.value)


def _scalar(node: yaml.ScalarNode) -> Any:
    tag, value = node.tag, node.value
    if tag == STR:
        return value
    if tag == NULL:
        return None
    if tag == BOOL:
        return value.lower() == "true"
    if tag == INT:
        return int(value)
    lowered = value.lower()
    if lowered.endswith("inf"):
        return -math.inf if lowered.startswith("-") else math.inf
    if lowered.endswith("nan"):
        return math.nan
    return float(value)


def _construct(node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item) for item in node.value]
    return {_construct(k): _construct(v) for k, v in node.value}


def _syntax_hint(text: str, mark: Any, problem: str) -> str:
    """What usually causes a YAML syntax error where it was found: a tab (YAML indents with
    spaces), or brackets, braces or commas inside a [...] or {...} list (rules written
    `requires: [at[x] == farmer]`: the inner brackets open a nested list)."""
    if mark is None:
        return ""
    lines = text.splitlines()
    here = lines[mark.line] if 0 <= mark.line < len(lines) else ""
    if mark.column < len(here) and here[mark.column] == "\t" or "\t" in here[:mark.column + 1]:
        return " (a tab: YAML indents with spaces)"
    nested = re.search(r"[\[{][^\n]*\w\[", here) is not None   # a flow list or mapping holding `name[...]`
    if "expected ',' or ']'" in problem or "expected ',' or '}'" in problem or nested:
        return (" (inside [...] or {...}, quote an item holding brackets, braces or commas, or write the list "
                "one '- item' per line)")
    return ""


def compose(text: str, source: str, expected: str = "a YAML mapping with a 'puzzle:' key") -> yaml.MappingNode:
    """The root mapping of YAML text, composed strictly (the limits above) with every node's
    line kept (`node.start_mark.line`); errors are one-line ModelErrors naming `source` and the
    line. Readers of nested fields (batch specs) walk these nodes; puzzle files use `parse_document`."""
    if len(text) > MAX_FILE_BYTES:
        raise ModelError(f"{source}:1: {len(text):,} characters; a file here holds at most {MAX_FILE_BYTES:,}")
    events = None
    try:
        events = _EventSource(text)
        roots = _Composer(events, source).documents()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = " ".join((exc.problem or exc.context or "invalid YAML").split())
        if "nesting depth" in problem:
            # libyaml (PyYAML >= 6.0.4) refuses deep flow nesting while it scans ahead, before
            # the composer sees the events; its limit is far above MAX_DEPTH, so say ours.
            raise ModelError(f"{source}:{line}: lists and mappings nested more than {MAX_DEPTH} deep") from None
        raise ModelError(f"{source}:{line}: YAML syntax error: {shorten(problem, 120)}{_syntax_hint(text, mark, problem)}") from None
    except yaml.YAMLError as exc:
        first = (str(exc).splitlines() or ["invalid YAML"])[0]
        raise ModelError(f"{source}:1: YAML error: {shorten(first, 120)}") from None
    except UnicodeError:  # text with lone surrogates (only from `loads`: files are decoded UTF-8)
        raise ModelError(f"{source}:1: not valid Unicode text") from None
    finally:
        if events is not None:
            events.dispose()
    if not roots:
        raise ModelError(f"{source}:1: empty file; expected {expected}")
    if len(roots) > 1:
        raise ModelError(f"{source}:{roots[1].start_mark.line + 1}: expected one YAML document, found more")
    node = roots[0]
    if not isinstance(node, yaml.MappingNode):
        what = "nothing" if isinstance(node, yaml.ScalarNode) and node.tag == NULL else \
            "a list" if isinstance(node, yaml.SequenceNode) else "a single value"
        raise ModelError(f"{source}:{node.start_mark.line + 1}: expected {expected}, found {what}")
    return node


def scalar_value(node: yaml.ScalarNode) -> Any:
    """A scalar node's value under the core schema (see the module docstring)."""
    return _scalar(node)


def parse_document(text: str, source: str) -> Document:
    """Parse YAML text holding one mapping; errors name `source` and the line."""
    if len(text) > MAX_FILE_BYTES:
        raise ModelError(f"{source}:1: {len(text):,} characters; a puzzle file holds at most "
                         f"{MAX_FILE_BYTES:,}")
    node = compose(text, source)
    data: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    value_lines: dict[str, int] = {}
    raw: dict[str, str] = {}
    for key_node, value_node in node.value:
        try:
            key = str(_scalar(key_node))
        except (ValueError, OverflowError):  # e.g. an integer of more than 4300 digits
            raise ModelError(f"{source}:{key_node.start_mark.line + 1}: key {quote(key_node.value)}: "
                             "not a name") from None
        try:
            value = _construct(value_node)
        except (ValueError, OverflowError):
            raise ModelError(f"{source}:{key_node.start_mark.line + 1}: field {quote(key)}: a number too long "
                             "to read (more than 4300 digits)") from None
        line = key_node.start_mark.line + 1
        if key in key_lines:
            raise ModelError(f"{source}:{line}: duplicate key {quote(key)} (first at line {key_lines[key]}); "
                             "each key may appear once")
        data[key] = value
        key_lines[key] = line
        value_lines[key] = _value_line(value_node)
        if isinstance(value_node, yaml.ScalarNode) and value_node.tag in (INT, FLOAT, BOOL):
            raw[key] = value_node.value
    return Document(source, data, key_lines, value_lines, raw, node, text)


def read_text(path: str | Path, expected: str = "a puzzle file", limit: int = MAX_FILE_BYTES,
              shown: str | None = None) -> str:
    """A file's UTF-8 text (at most `limit` bytes); anything else is a one-line ModelError naming
    the file (as `shown`, when given: a long path clipped)."""
    path = Path(path)
    name = str(path) if shown is None else shown
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise ModelError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise ModelError(f"{name}: is a directory, expected {expected}") from None
    except OSError as exc:
        raise ModelError(f"{name}: cannot read: {exc.strerror or type(exc).__name__}") from None
    return _decoded(data, name, limit, expected)


def _decoded(data: bytes, source: str, limit: int, expected: str) -> str:
    """`data` (read up to limit + 1 bytes) as UTF-8 text, or a one-line ModelError naming `source`."""
    if len(data) > limit:
        raise ModelError(f"{source}: larger than {limit:,} bytes; expected {expected}")
    try:
        return data.decode("utf-8-sig")   # a leading byte-order mark (Windows editors write one) is dropped
    except UnicodeDecodeError as exc:
        raise ModelError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


SNIFF_BYTES = 65_536   # what a collection reader looks at to claim a file another family reads too


def file_head(path: str | Path) -> str | None:
    """The opening SNIFF_BYTES of a file as text (undecodable bytes replaced, a byte-order mark
    dropped), or None when it cannot be read: what `claims(path)` of collection readers sniff."""
    try:
        with Path(path).open("rb") as handle:
            return handle.read(SNIFF_BYTES).decode("utf-8", "replace").lstrip("\ufeff")
    except OSError:
        return None


STDIN = "<stdin>"   # the source name of a puzzle read from standard input (`-` as the file)


def read_stdin(limit: int = MAX_FILE_BYTES) -> str:
    """Standard input's UTF-8 text (at most `limit` bytes), read once by the caller."""
    import sys
    stream = getattr(sys.stdin, "buffer", None)
    try:
        data = stream.read(limit + 1) if stream is not None else (sys.stdin.read(limit + 1) or "").encode("utf-8")
    except (OSError, ValueError, AttributeError) as exc:   # closed or absent (python -c, a daemon)
        raise ModelError(f"{STDIN}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    return _decoded(data, STDIN, limit, "a puzzle file")


def read_document(path: str | Path) -> Document:
    """Read and parse a YAML file; an unreadable file is a ModelError too."""
    return parse_document(read_text(path), str(path))
