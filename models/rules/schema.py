"""Reading the declarations of a `puzzle: rules` document: sets, constants, variables, init,
goal, invariant, show.

Returns data (`Declarations`), never a model; the action schemas are read by actions.py, the
whole file by file.py, and grounded by ground.py. Every error is a one-line ModelError
`FILE:LINE: field 'PATH': what was expected`, with the line of the nested field when the
document came from a file (lines.py).

Values (set elements, domain values, init and goal values) are whole numbers or text without
spaces, commas, semicolons, brackets or quotes; they are matched by their text form, so `1` and
'1' are the same value and a set may not hold both. Text values that are plain names may be
written bare in expressions (`boat == left`) unless a set, variable or constant has that name.
"""
from __future__ import annotations

import ast
import dataclasses
import itertools
import keyword
import math
import re
from dataclasses import dataclass
from typing import Any, Iterator

from puzzleplan.models.base import ModelError, describe, quote
from puzzleplan.models.document import Document
from puzzleplan.models.rules.expressions import FUNCTIONS, Compiler, Expression, compile_expression, parse_target
from puzzleplan.models.rules.frames import (BudgetExceeded, ExprError, Frame, Scope, Value, VarFamily, World,
                                            no_state, norm, show)
from puzzleplan.models.rules.lines import Lines, Step, field_name

KEYS = ("puzzle", "name", "description", "metric", "max_moves", "expect", "sets", "constants", "variables",
        "init", "goal", "invariant", "actions", "show")
EXPECT_KEYS = ("optimal", "optimal_step", "optimal_cost", "solvable", "reachable", "max_depth", "valid_plans")
METRICS = ("step", "cost")

MAX_SET = 10_000            # elements of one set or domain
MAX_VARIABLES = 10_000      # state variables in one file
MAX_TEMPLATE = 4_000        # characters of the show template

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_VALUE = re.compile(r"[^\s,;\[\](){}'\"]+\Z")
_RANGE = re.compile(r"\s*(-?[0-9]+)\s*\.\.\s*(-?[0-9]+)\s*\Z")
_ASSIGNMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*\Z")


@dataclass(frozen=True)
class Template:
    """A text with `{expression}` fields (move names, the show picture); `where` is the file,
    line and field it was read from ("FILE:LINE: field 'show':"), for errors met rendering it."""

    parts: tuple[str | Expression, ...]
    where: str = ""

    def render(self, frame: Frame) -> str:
        return "".join(p if isinstance(p, str) else show(p(frame)) for p in self.parts)


@dataclass(frozen=True)
class Declarations:
    """What a file declares besides its actions: the names, the start, the goal, the invariant
    and the picture of a state."""

    world: World
    names: tuple[str, ...]                 # variable names, e.g. "on[1]"
    init: tuple[int, ...]                  # value index of each variable
    goal: tuple[tuple[int, int], ...]
    invariant: tuple[Expression, ...]
    show: Template | None


class Reader:
    """The document, its nested lines, and the error builder every reading step shares."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.lines = Lines(doc)

    def fail(self, path: tuple[Step, ...], message: str) -> ModelError:
        return self.doc.error(field_name(path), message, line=self.lines.line(path))


# -- names and values ------------------------------------------------------------------------------
def check_name(reader: Reader, path: tuple[Step, ...], name: Any, what: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or keyword.iskeyword(name) or name in FUNCTIONS:
        raise reader.fail(path, f"{what} {quote(name)} is not a plain name (letters, digits, _; not a Python "
                                f"keyword or one of {', '.join(FUNCTIONS)})")
    return name


def _value(reader: Reader, path: tuple[Step, ...], value: Any) -> Value:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise reader.fail(path, f"expected a whole number or a word as a value, got {describe(value)}")
    if isinstance(value, str) and not _VALUE.match(value):
        raise reader.fail(path, f"the value {quote(value)} holds a space, comma, semicolon, bracket or quote")
    return value


def read_values(reader: Reader, path: tuple[Step, ...], spec: Any, sets: dict[str, tuple[Value, ...]],
                allow_set: bool = True) -> tuple[Value, ...]:
    """Values given as a list, a range `a..b`, or (where allowed) the name of a set."""
    if isinstance(spec, str):
        m = _RANGE.match(spec)
        if m:
            low, high = int(m.group(1)), int(m.group(2))
            if high < low:
                raise reader.fail(path, f"the range {quote(spec)} is empty; expected low..high with low <= high")
            if high - low + 1 > MAX_SET:
                raise reader.fail(path, f"the range {quote(spec)} has {high - low + 1:,} values; at most {MAX_SET:,}")
            return tuple(range(low, high + 1))
        if allow_set and spec in sets:
            return sets[spec]
        hint = f"the name of a set ({', '.join(sets) or 'none declared'}), " if allow_set else ""
        raise reader.fail(path, f"expected {hint}a list of values or a range like 0..3, got {quote(spec)}")
    if not isinstance(spec, list):
        raise reader.fail(path, f"expected a list of values or a range like 0..3, got {describe(spec)}")
    if not spec:
        raise reader.fail(path, "an empty list; expected at least one value")
    if len(spec) > MAX_SET:
        raise reader.fail(path, f"{len(spec):,} values; at most {MAX_SET:,}")
    values = tuple(_value(reader, path + (i,), v) for i, v in enumerate(spec))
    seen: dict[str, int] = {}
    for i, v in enumerate(values):
        if norm(v) in seen:
            raise reader.fail(path + (i,), f"the value {quote(norm(v))} is listed twice")
        seen[norm(v)] = i
    return values


# -- the declarations --------------------------------------------------------------------------------
def _mapping(reader: Reader, key: str, required: bool) -> dict[Any, Any]:
    doc = reader.doc
    if not doc.has(key):
        if required:
            raise doc.error(None, f"missing required field {quote(key)}")
        return {}
    value = doc.get(key)
    if not isinstance(value, dict) or (required and not value):
        got = "an empty mapping" if isinstance(value, dict) else describe(value)
        raise reader.fail((key,), f"expected a mapping{' with at least one entry' if required else ''}, got {got}")
    return value


def _sets(reader: Reader) -> dict[str, tuple[Value, ...]]:
    sets: dict[str, tuple[Value, ...]] = {}
    for name, spec in _mapping(reader, "sets", False).items():
        path = ("sets", name)
        check_name(reader, path, name, "the set name")
        sets[name] = read_values(reader, path, spec, sets, allow_set=False)
    return sets


MAX_TABLE_KEYS = 4   # keys of a nested table: road[a, b], cost[x, y, z, w]


def _constants(reader: Reader) -> tuple[dict[str, Value], dict[str, dict[tuple[str, ...], Value]]]:
    constants: dict[str, Value] = {}
    tables: dict[str, dict[tuple[str, ...], Value]] = {}
    for name, spec in _mapping(reader, "constants", False).items():
        path = ("constants", name)
        check_name(reader, path, name, "the constant name")
        if isinstance(spec, dict):
            tables[name] = dict(_table_entries(reader, path, spec, ()))
            if len({len(key) for key in tables[name]}) > 1:
                raise reader.fail(path, "its entries nest to different depths; expected as many keys for every "
                                        "value, as in {a: {b: 1}, c: {d: 2}} read road[a, b]")
        else:
            constants[name] = _value(reader, path, spec)
    return constants, tables


def _table_entries(reader: Reader, path: tuple[Step, ...], spec: dict[Any, Any], keys: tuple[str, ...]
                   ) -> Iterator[tuple[tuple[str, ...], Value]]:
    """(keys, value) of a table, nested mappings giving a key each (`road: {a: {b: 3}}` is
    road[a, b] = 3)."""
    if not spec:
        raise reader.fail(path, "an empty table; expected key: value entries")
    if len(keys) >= MAX_TABLE_KEYS:
        raise reader.fail(path, f"tables take at most {MAX_TABLE_KEYS} keys")
    for k, v in spec.items():
        key = keys + (norm(_value(reader, path + (k,), k)),)
        if isinstance(v, dict):
            yield from _table_entries(reader, path + (k,), v, key)
        else:
            yield key, _value(reader, path + (k,), v)


@dataclass
class _Declared:
    names: list[str]
    domains: list[tuple[Value, ...]]
    scalars: dict[str, int]
    families: dict[str, VarFamily]


def _variables(reader: Reader, world: World) -> _Declared:
    out = _Declared([], [], {}, {})
    for key, spec in _mapping(reader, "variables", True).items():
        path = ("variables", key)
        domain = read_values(reader, path, spec, dict(world.sets))
        name, indices = _declared_key(reader, path, key, world)
        if name in out.scalars or name in out.families or world.kind(name) in ("set", "constant", "table"):
            raise reader.fail(path, f"the name {quote(name)} is declared twice")
        if indices is None:
            out.scalars[name] = len(out.names)
            out.names.append(name)
            out.domains.append(domain)
            continue
        index: dict[tuple[str, ...], int] = {}
        for combo in indices:
            key_text = tuple(norm(v) for v in combo)
            if key_text in index:
                raise reader.fail(path, f"{name}[{', '.join(key_text)}] is declared twice")
            index[key_text] = len(out.names)
            out.names.append(f"{name}[{','.join(key_text)}]")
            out.domains.append(domain)
            if len(out.names) > MAX_VARIABLES:
                raise reader.fail(path, f"more than {MAX_VARIABLES:,} state variables")
        if not index:
            raise reader.fail(path, f"{name}[...] declares no variable (its sets or conditions leave none)")
        arity = len(next(iter(index)))
        out.families[name] = VarFamily(name, arity, index, domain)
    return out


def _declared_key(reader: Reader, path: tuple[Step, ...], key: Any, world: World
                  ) -> tuple[str, list[tuple[Value, ...]] | None]:
    """`name` (one variable), `name[set, ...]` (one per element) or `name[i, j] for i in set ...`."""
    if not isinstance(key, str):
        raise reader.fail(path, f"expected a variable name such as on[disc], got {describe(key)}")
    try:
        tree, comprehension = parse_target(key)
    except ExprError as exc:
        raise reader.fail(path, str(exc)) from None
    if isinstance(tree, ast.Name):
        if comprehension is not None:
            raise reader.fail(path, "a comprehension declares indexed variables: name[i, ...] for i in set")
        return check_name(reader, path, tree.id, "the variable name"), None
    if not isinstance(tree, ast.Subscript) or not isinstance(tree.value, ast.Name):
        raise reader.fail(path, "expected name, name[set, ...] or `name[i, j] for i in set ...`")
    name = check_name(reader, path, tree.value.id, "the variable name")
    index = tree.slice.elts if isinstance(tree.slice, ast.Tuple) else [tree.slice]
    if comprehension is None:
        sets = []
        for node in index:
            if not (isinstance(node, ast.Name) and node.id in world.sets):
                raise reader.fail(path, f"{quote(ast.unparse(node))} is no set; index a family by sets "
                                        f"({', '.join(world.sets) or 'none declared'}) or write a comprehension")
            sets.append(world.sets[node.id])
        if math.prod(len(s) for s in sets) > MAX_VARIABLES:
            raise reader.fail(path, f"more than {MAX_VARIABLES:,} state variables")
        return name, list(itertools.product(*sets))
    generator = ast.GeneratorExp(elt=ast.Tuple(elts=list(index), ctx=ast.Load()), generators=comprehension)
    try:
        fn = Compiler(world).expr(generator, Scope())
        combos = list(fn(Frame({}, no_state)))
    except ExprError as exc:
        raise reader.fail(path, str(exc)) from None
    except BudgetExceeded:
        raise reader.fail(path, "the comprehension runs too many loop steps") from None
    for combo in combos:
        for v in combo:
            if isinstance(v, bool) or not isinstance(v, (int, str)) or (isinstance(v, str) and not _VALUE.match(v)):
                raise reader.fail(path, f"an index must be a whole number or a word, got {quote(v)}")
    return name, combos


# -- init and goal ------------------------------------------------------------------------------------
def _assignments(reader: Reader, key: str, world: World, declared: _Declared, required: bool
                 ) -> dict[int, int]:
    """`init:` / `goal:` entries: `name`, `name[a, b]`, `name[*]` (every variable of the family,
    overridden by entries naming fewer `*`), or `name: {index: value, ...}`."""
    entries = _mapping(reader, key, required)
    chosen: dict[int, tuple[int, int, str]] = {}   # var -> (value index, wildcards, entry)
    for entry, value in entries.items():
        path = (key, entry)
        targets = _targets(reader, path, entry, declared)
        pairs: list[tuple[tuple[Step, ...], list[int], Any]] = []
        if isinstance(value, dict):
            family = declared.families.get(str(entry))
            if family is None:
                raise reader.fail(path, "a mapping of values is for a family of variables, as in on: {1: a}")
            for idx, item in value.items():
                parts = tuple(p.strip() for p in str(idx).split(","))
                var = family.index.get(parts)
                if var is None:
                    raise reader.fail(path + (idx,), f"{family.name}[{idx}] is no variable")
                pairs.append((path + (idx,), [var], item))
            wildcards = 0
        else:
            vars_, wildcards = targets
            if not vars_:
                raise reader.fail(path, f"{quote(str(entry))} is a family of variables; write {entry}[*]: value, "
                                        f"{entry}[index]: value or {entry}: {{index: value, ...}}")
            pairs.append((path, vars_, value))
        for where, vars_, item in pairs:
            for var in vars_:
                domain = declared.domains[var]
                index = {norm(v): i for i, v in enumerate(domain)}
                if isinstance(item, bool) or not isinstance(item, (int, str)) or norm(item) not in index:
                    plain = isinstance(item, (int, str)) and not isinstance(item, bool)
                    shown = quote(item) if plain else describe(item)
                    raise reader.fail(where, f"{shown} is outside the domain of {declared.names[var]} "
                                             f"({_domain_text(domain)})")
                before = chosen.get(var)
                if before is not None and before[1] == wildcards and before[0] != index[norm(item)]:
                    raise reader.fail(where, f"{declared.names[var]} is set twice (also by {quote(before[2])})")
                if before is None or wildcards <= before[1]:
                    chosen[var] = (index[norm(item)], wildcards, str(entry))
    return {var: v for var, (v, _, _) in chosen.items()}


def _targets(reader: Reader, path: tuple[Step, ...], entry: Any, declared: _Declared) -> tuple[list[int], int]:
    m = _ASSIGNMENT.match(str(entry))
    if not m:
        raise reader.fail(path, "expected a variable: name, name[a, b] or name[*]")
    name, inner = m.group(1), m.group(2)
    if inner is None:
        if name in declared.scalars:
            return [declared.scalars[name]], 0
        if name in declared.families:
            return [], 0   # a mapping of values follows (checked by the caller)
        raise reader.fail(path, f"unknown variable {quote(name)}; expected one of "
                                f"{', '.join(list(declared.scalars) + list(declared.families))}")
    family = declared.families.get(name)
    if family is None:
        raise reader.fail(path, f"{quote(name)} is no family of variables")
    parts = tuple(p.strip() for p in inner.split(","))
    if len(parts) != family.arity:
        raise reader.fail(path, f"{name}[...] takes {family.arity} index values, got {len(parts)}")
    found = [var for key, var in family.index.items() if all(p == "*" or p == k for p, k in zip(parts, key))]
    if not found:
        raise reader.fail(path, f"{name}[{', '.join(parts)}] names no variable")
    return found, sum(p == "*" for p in parts)


def _domain_text(domain: tuple[Value, ...]) -> str:
    ints = all(isinstance(v, int) for v in domain)
    if ints and len(domain) > 2 and list(domain) == list(range(domain[0], domain[0] + len(domain))):
        return f"{domain[0]}..{domain[-1]}"
    shown = ", ".join(norm(v) for v in domain[:8])
    return shown + (", ..." if len(domain) > 8 else "")


# -- templates ------------------------------------------------------------------------------------------
def read_template(reader: Reader, path: tuple[Step, ...], text: Any, world: World, scope: Scope) -> Template:
    """A text with `{expression}` fields; `{{` and `}}` are literal braces."""
    if not isinstance(text, (str, int)) or isinstance(text, bool):
        raise reader.fail(path, f"expected text with {{expression}} fields, got {describe(text)}")
    text = str(text)
    if len(text) > MAX_TEMPLATE:
        raise reader.fail(path, f"{len(text):,} characters; at most {MAX_TEMPLATE:,}")
    parts: list[str | Expression] = []
    try:
        pieces = split_template(text)
    except ValueError as exc:
        raise reader.fail(path, f"{exc}; write {{{{ and }}}} for literal braces") from None
    for literal, field in pieces:
        if not field:
            parts.append(literal)
            continue
        try:
            parts.append(compile_expression(literal, world, scope))
        except ExprError as exc:
            raise reader.fail(path, f"the field {{{literal}}}: {exc}") from None
    return Template(tuple(parts), str(reader.fail(path, "")).rstrip())


def split_template(text: str) -> list[tuple[str, bool]]:
    """(text, is a field) pieces of a template: `{...}` fields (braces inside quotes do not count)."""
    pieces: list[tuple[str, bool]] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "{}" and text[i:i + 2] in ("{{", "}}"):
            literal.append(ch)
            i += 2
            continue
        if ch == "}":
            raise ValueError(f"a '}}' without its '{{' at character {i + 1}")
        if ch != "{":
            literal.append(ch)
            i += 1
            continue
        end, quote_char = i + 1, ""
        while end < len(text) and (quote_char or text[end] != "}"):
            if quote_char and text[end] == quote_char:
                quote_char = ""
            elif not quote_char and text[end] in "'\"":
                quote_char = text[end]
            end += 1
        if end >= len(text):
            raise ValueError(f"a '{{' without its '}}' at character {i + 1}")
        if literal:
            pieces.append(("".join(literal), False))
            literal = []
        pieces.append((text[i + 1:end], True))
        i = end + 1
    if literal:
        pieces.append(("".join(literal), False))
    return pieces


def compile_at(reader: Reader, path: tuple[Step, ...], text: Any, world: World, scope: Scope) -> Expression:
    try:
        return dataclasses.replace(compile_expression(text, world, scope), path=path)
    except ExprError as exc:
        raise reader.fail(path, str(exc)) from None


def expressions(reader: Reader, path: tuple[Step, ...], spec: Any, world: World, scope: Scope
                ) -> tuple[Expression, ...]:
    """One expression or a list of them (all must hold)."""
    items = spec if isinstance(spec, list) else [spec]
    if not items:
        raise reader.fail(path, "an empty list; expected conditions (or leave the field out)")
    return tuple(compile_at(reader, path + ((i,) if isinstance(spec, list) else ()), item, world, scope)
                 for i, item in enumerate(items))


def read_declarations(reader: Reader) -> Declarations:
    """Sets, constants, variables, init, goal, invariant and show, checked (the start must keep
    the invariant)."""
    sets = _sets(reader)
    constants, tables = _constants(reader)
    for name in constants:
        if name in sets or name in tables:
            raise reader.fail(("constants", name), f"{quote(name)} is also the name of a set")
    world = World(sets=sets, constants=constants, tables=tables)
    declared = _variables(reader, world)
    symbols = {}
    for values in list(sets.values()) + declared.domains:
        for v in values:
            if isinstance(v, str) and _NAME.match(v) and not keyword.iskeyword(v) and world.kind(v) is None \
                    and v not in declared.scalars and v not in declared.families:
                symbols[v] = v
    world = World(sets=sets, constants=constants, tables=tables, scalars=declared.scalars,
                  families=declared.families, symbols=symbols, domains=tuple(declared.domains))
    init = _assignments(reader, "init", world, declared, True)
    missing = [declared.names[v] for v in range(len(declared.names)) if v not in init]
    if missing:
        raise reader.fail(("init",), f"no start value for {', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}"
                                     " (name each variable, or a whole family as name[*])")
    goal = _assignments(reader, "goal", world, declared, True)
    doc = reader.doc
    invariant = (expressions(reader, ("invariant",), doc.get("invariant"), world, Scope())
                 if doc.has("invariant") else ())
    picture = read_template(reader, ("show",), doc.get("show"), world, Scope()) if doc.has("show") else None
    start = tuple(declared.domains[v][init[v]] for v in range(len(declared.names)))
    frame = Frame({}, lambda v: start[v])
    for condition in invariant:
        try:
            holds = condition(frame)
        except ExprError as exc:
            raise reader.fail(condition.path, f"at the start (init): {exc}") from None
        except BudgetExceeded:
            raise reader.fail(condition.path, "runs too many loop steps at the start (init)") from None
        if not holds:
            raise reader.fail(condition.path, f"the start (init) breaks the invariant {quote(condition.text, 60)}")
    return Declarations(world, tuple(declared.names), tuple(init[v] for v in range(len(declared.names))),
                        tuple(sorted(goal.items())), invariant, picture)
