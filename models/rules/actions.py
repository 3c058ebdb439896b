"""Reading the action schemas of a rules file (`actions:`), compiled but not yet grounded.

    actions:
      move:                          the schema's name (letters, digits, _ and -)
        params: {d: disc, to: peg}   each parameter ranges over a set, a list or a range a..b
        let: {top: ...}              named expressions, each may use the ones before it
        requires: [...]              conditions on the parameters and the current state
        effects:                     variable: new value, all computed in the current state;
          on[d]: to                  a key may be a comprehension over sets, as in
                                     `light[x, y] for x in row for y in col if ...`
        cost: 1                      optional, a whole number >= 0 (an expression)
        name: "{d}{to}"              the move's name: text with {expression} fields
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Mapping

from puzzleplan.models.base import ModelError, describe, quote
from puzzleplan.models.rules.expressions import Compiler, Expression, parse, parse_target
from puzzleplan.models.rules.frames import ExprError, Fn, Scope, Value, VarFamily, World, norm
from puzzleplan.models.rules.lines import Step
from puzzleplan.models.rules.schema import (Reader, Template, check_name, compile_at, expressions, read_template,
                                            read_values)

FIELDS = ("params", "let", "requires", "effects", "cost", "name")
_SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


@dataclass(frozen=True)
class Effect:
    """One entry of `effects:`: `fn(frame)` yields (index values..., new value) tuples."""

    family: VarFamily | None     # the family written to, or None for a scalar variable
    var: int | None              # the scalar variable written to
    fn: Fn
    path: tuple[Step, ...]


@dataclass(frozen=True)
class Schema:
    """One action schema, compiled."""

    name: str
    params: tuple[tuple[str, tuple[Value, ...]], ...]
    lets: Mapping[str, Expression]
    requires: tuple[Expression, ...]
    effects: tuple[Effect, ...]
    cost: Expression | None
    template: Template | None
    path: tuple[Step, ...]

    def move_name(self, frame: Any) -> str:
        """The move's name: the template, else `schema-value-value...`."""
        if self.template is not None:
            return self.template.render(frame)
        return "-".join([self.name] + [norm(frame.names[p]) for p, _ in self.params])


def read_actions(reader: Reader, world: World) -> tuple[Schema, ...]:
    doc = reader.doc
    if not doc.has("actions"):
        raise doc.error(None, "missing required field 'actions'")
    spec = doc.get("actions")
    if not isinstance(spec, dict) or not spec:
        raise reader.fail(("actions",), f"expected a mapping of action names to their rules, got {describe(spec)}")
    return tuple(_schema(reader, world, name, body) for name, body in spec.items())


def _schema(reader: Reader, world: World, name: Any, body: Any) -> Schema:
    path: tuple[Step, ...] = ("actions", str(name))
    if not isinstance(name, str) or not _SCHEMA_NAME.match(name):
        raise reader.fail(path, f"the action name {quote(name)} is not a name (letters, digits, _ and -)")
    if not isinstance(body, dict):
        raise reader.fail(path, f"expected a mapping with {', '.join(FIELDS)}, got {describe(body)}")
    for key in body:
        if key not in FIELDS:
            raise reader.fail(path + (str(key),), f"unknown field; expected one of {', '.join(FIELDS)}")
    params = _params(reader, world, path, body.get("params", {}))
    scope = Scope({p: frozenset(norm(v) for v in values) for p, values in params})
    lets: dict[str, Expression] = {}
    let_spec = body.get("let", {})
    if not isinstance(let_spec, dict):
        raise reader.fail(path + ("let",), f"expected a mapping of names to expressions, got {describe(let_spec)}")
    names = list(let_spec)
    for index, (let_name, text) in enumerate(let_spec.items()):
        where = path + ("let", str(let_name))
        _new_name(reader, where, let_name, world, scope, "the let name")
        try:
            lets[let_name] = compile_at(reader, where, text, world, scope)
        except ModelError as exc:   # lets are evaluated lazily, but each sees only those above it
            below = next((n for n in names[index + 1:] if f"unknown name {quote(str(n))}" in str(exc)), None)
            if below is None:
                raise
            raise reader.fail(where, f"{quote(str(below))} is a let below this one; a let uses only the lets "
                                     "above it: move it up") from None
        scope = Scope(scope.locals, scope.lets + (let_name,))
    requires = expressions(reader, path + ("requires",), body["requires"], world, scope) if "requires" in body else ()
    if "effects" not in body:
        raise reader.fail(path, "missing required field 'effects'")
    effects = _effects(reader, world, path + ("effects",), body["effects"], scope)
    cost = compile_at(reader, path + ("cost",), body["cost"], world, scope) if "cost" in body else None
    template = read_template(reader, path + ("name",), body["name"], world, scope) if "name" in body else None
    return Schema(name, params, lets, requires, effects, cost, template, path)


def _new_name(reader: Reader, path: tuple[Step, ...], name: Any, world: World, scope: Scope, what: str) -> str:
    check_name(reader, path, name, what)
    kind = world.kind(name)
    if kind is not None and kind != "value":
        raise reader.fail(path, f"{what} {quote(name)} is already a {kind}; choose another name")
    if name in scope.locals or name in scope.lets:
        raise reader.fail(path, f"{what} {quote(name)} is already used in this action")
    return name


def _params(reader: Reader, world: World, path: tuple[Step, ...], spec: Any
            ) -> tuple[tuple[str, tuple[Value, ...]], ...]:
    if not isinstance(spec, dict):
        raise reader.fail(path + ("params",), f"expected a mapping of names to sets, got {describe(spec)}")
    out = []
    scope = Scope()
    for name, values in spec.items():
        where = path + ("params", str(name))
        _new_name(reader, where, name, world, scope, "the parameter")
        scope = scope.with_local(name, None)
        out.append((name, read_values(reader, where, values, dict(world.sets))))
    return tuple(out)


def _effects(reader: Reader, world: World, path: tuple[Step, ...], spec: Any, scope: Scope) -> tuple[Effect, ...]:
    if not isinstance(spec, dict) or not spec:
        raise reader.fail(path, f"expected a mapping of variables to new values, got {describe(spec)}")
    return tuple(_effect(reader, world, path + (str(key),), key, value, scope) for key, value in spec.items())


def _effect(reader: Reader, world: World, path: tuple[Step, ...], key: Any, value: Any, scope: Scope) -> Effect:
    """`var: value`, `fam[i, j]: value` or `fam[i, j] for i in set ... if ...: value`."""
    try:
        if not isinstance(key, str):
            raise ExprError(f"expected a variable, got {describe(key)}")
        target, loops = parse_target(key)
        new = parse(value)
        compiler = Compiler(world)
        if isinstance(target, ast.Name) and loops is None:
            if target.id not in world.scalars:
                raise ExprError(f"{quote(target.id)} is no state variable"
                                + (f" (it is a family: write {target.id}[...])" if target.id in world.families else ""))
            _check_domain(compiler, new, world.domains[world.scalars[target.id]], target.id, scope)
            fn = compiler.expr(ast.Tuple(elts=[new], ctx=ast.Load()), scope)
            return Effect(None, world.scalars[target.id], lambda f: (fn(f),), path)
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                and target.value.id in world.families):
            shown = ast.unparse(target.value if isinstance(target, ast.Subscript) else target)
            raise ExprError(f"{quote(shown)} is no family of state variables")
        family = world.families[target.value.id]
        index = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        if len(index) != family.arity:
            raise ExprError(f"{family.name}[...] takes {family.arity} ind{'ex' if family.arity == 1 else 'ices'}, "
                            f"got {len(index)}")
        if loops is None:
            _check_domain(compiler, new, family.domain, f"{family.name}[...]", scope)
        row = ast.Tuple(elts=[*index, new], ctx=ast.Load())
        if loops is None:
            fn = compiler.expr(row, scope)
            return Effect(family, None, lambda f: (fn(f),), path)
        return Effect(family, None, compiler.expr(ast.GeneratorExp(elt=row, generators=loops), scope), path)
    except ExprError as exc:
        raise reader.fail(path, str(exc)) from None


def _check_domain(compiler: Compiler, node: ast.expr, domain: tuple[Value, ...], target: str, scope: Scope) -> None:
    """A value whose every possibility lies outside the target's domain is a mistake, found here
    rather than at grounding (e.g. a parameter over discs written to a variable over pegs)."""
    values = compiler.values_of(node, scope)
    texts = {norm(v) for v in domain}
    if values is not None and values and not (values & texts):
        shown = ", ".join(sorted(values)[:6])
        raise ExprError(f"{target} takes the values {', '.join(sorted(texts)[:6])}{', ...' if len(texts) > 6 else ''}; "
                        f"{ast.unparse(node)} is never one of them ({shown})")
