"""The restricted expressions of rules files: parsed by `ast`, compiled to closures, never `eval`ed.

What an expression may hold (anything else is an `ExprError` naming the construct):

    names        parameters, `let:` names, comprehension variables, scalar state variables,
                 constants, sets (as a tuple of their elements) and the text values of domains
                 written bare (`boat == left`)
    constants    whole numbers, text ('a' or "a"), True/False
    operators    + - * // % (whole numbers only), == != < <= > >= (numbers with numbers, text with
                 text), in / not in (a set, a tuple, or a family of variables: `(r, c) in peg`
                 says whether peg[r, c] exists), and / or / not, `x if c else y`
    subscripts   a state variable of a family by its indices (`on[d]`, `light[r + 1, c]`), a
                 constant table by its key (`capacity[j]`)
    calls        all, any, sum, min, max, abs, len, over generator expressions over sets
                 (`all(on[e] != to for e in disc if e < d)`), tuples, or (min/max) several values

Compiled expressions are closures `fn(frame) -> value`. A frame holds the local names and a
`read(variable index)` function: the grounder reads state lazily and learns which variables an
expression needs by the `NeedVar` a read of an unknown one raises. Loops over generators spend
a shared `Budget`, so no expression can run unboundedly long.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from puzzleplan.models.base import describe, quote, shorten
from puzzleplan.models.rules.frames import ExprError, Fn, Frame, Scope, Value, World, norm

MAX_EXPRESSION = 2_000          # characters of one expression
MAX_DEPTH = 60                  # nesting of one expression's syntax tree
FUNCTIONS = ("all", "any", "sum", "min", "max", "abs", "len")
_MISSING = object()


@dataclass(frozen=True)
class Expression:
    """A compiled expression: its source text, AST, closure, and where the file states it."""

    text: str
    tree: ast.expr
    fn: Fn
    path: tuple[Any, ...] = ()

    def __call__(self, frame: Frame) -> Value:
        return self.fn(frame)


def parse(text: Any) -> ast.expr:
    """The AST of one expression (a YAML number or boolean is a constant)."""
    if isinstance(text, bool) or isinstance(text, int):
        return ast.Constant(text)
    if not isinstance(text, str):
        raise ExprError(f"expected an expression (text or a whole number), got {describe(text)}")
    if len(text) > MAX_EXPRESSION:
        raise ExprError(f"an expression of {len(text):,} characters; at most {MAX_EXPRESSION:,}")
    if not text.strip():
        raise ExprError("an empty expression")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        where = f" at column {exc.offset}" if exc.offset else ""
        raise ExprError(f"not a valid expression{where}: {shorten(exc.msg, 80)}") from None
    except (ValueError, RecursionError, MemoryError):
        raise ExprError("not a valid expression (nested too deeply, or a null character)") from None
    _check_depth(tree)
    return tree


def _check_depth(tree: ast.AST) -> None:
    """Refuse expressions nested deeper than MAX_DEPTH (the compiler and the closures recurse)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ExprError(f"an expression nested more than {MAX_DEPTH} deep; split it with let:")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def parse_target(text: str) -> tuple[ast.expr, list[ast.comprehension] | None]:
    """A declared or assigned variable: `name`, `name[i, ...]`, or a comprehension over sets
    `name[i, j] for i in set for j in set if ...` (its element and its loops)."""
    try:
        tree = parse(text)
    except ExprError:
        tree = None
    if isinstance(tree, (ast.Name, ast.Subscript)):
        return tree, None
    listed = parse(f"[{text}]") if tree is None else None
    if not isinstance(listed, ast.ListComp):
        raise ExprError("expected name, name[index, ...] or `name[i, j] for i in set for j in set if ...`")
    return listed.elt, listed.generators


def compile_expression(text: Any, world: World, scope: Scope) -> Expression:
    """Parse and compile `text` over `world`'s names and the `scope`'s locals (ExprError if bad)."""
    tree = parse(text)
    return Expression(text if isinstance(text, str) else str(text), tree, Compiler(world).expr(tree, scope))


# -- compiling --------------------------------------------------------------------------------------
MAX_MAGNITUDE = 10 ** 18   # what arithmetic may give (Python's integers would grow without bound)
_OPERATORS: dict[type, tuple[str, Callable[[int, int], int]]] = {
    ast.Add: ("+", lambda a, b: a + b), ast.Sub: ("-", lambda a, b: a - b), ast.Mult: ("*", lambda a, b: a * b),
    ast.FloorDiv: ("//", lambda a, b: a // b), ast.Mod: ("%", lambda a, b: a % b),
}
_COMPARE: dict[type, tuple[str, Callable[[Any, Any], bool]]] = {
    ast.Eq: ("==", lambda a, b: a == b), ast.NotEq: ("!=", lambda a, b: a != b),
    ast.Lt: ("<", lambda a, b: a < b), ast.LtE: ("<=", lambda a, b: a <= b),
    ast.Gt: (">", lambda a, b: a > b), ast.GtE: (">=", lambda a, b: a >= b),
}
_REFUSED = {
    ast.Attribute: "attribute access (a.b)", ast.Lambda: "lambda", ast.NamedExpr: "assignment (:=)",
    ast.Dict: "a mapping", ast.Set: "a set literal", ast.DictComp: "a mapping comprehension",
    ast.SetComp: "a set comprehension", ast.Starred: "*unpacking", ast.JoinedStr: "an f-string",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield", ast.Slice: "a slice",
}


def _number(value: Any, op: str) -> int:
    if isinstance(value, int):
        return value
    raise ExprError(f"{op} needs whole numbers, got {_what(value)}")


def _what(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {quote(value)}"
    if isinstance(value, tuple):
        return "a tuple"
    return "a sequence" if isinstance(value, Iterator) else type(value).__name__


def _ordered(op: str, a: Any, b: Any) -> None:
    if not ((isinstance(a, int) and isinstance(b, int)) or (isinstance(a, str) and isinstance(b, str))):
        raise ExprError(f"{op} compares numbers with numbers or text with text, got {_what(a)} and {_what(b)}")


class Compiler:
    """AST -> closure, resolving every name when compiling (unknown names fail here)."""

    def __init__(self, world: World) -> None:
        self.world = world

    def expr(self, node: ast.expr, scope: Scope) -> Fn:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            what = _REFUSED.get(type(node), type(node).__name__)
            raise ExprError(f"{what} is not allowed in a rules expression")
        return method(node, scope)

    # -- leaves -----------------------------------------------------------------------------------
    def _Constant(self, node: ast.Constant, scope: Scope) -> Fn:
        value = node.value
        if not isinstance(value, (int, str)):
            raise ExprError(f"the constant {quote(value)}: only whole numbers, text and True/False are allowed")
        return lambda f: value

    def _Name(self, node: ast.Name, scope: Scope) -> Fn:
        name = node.id
        if name in scope.locals:
            return lambda f: f.names[name]
        if name in scope.lets:
            def let(f: Frame) -> Any:
                root = f.root
                value = root.names.get(name, _MISSING)
                if value is _MISSING:
                    value = root.lets[name](root)
                    root.names[name] = value
                return value
            return let
        world = self.world
        if name in world.scalars:
            index = world.scalars[name]
            return lambda f: f.read(index)
        for table in (world.constants, world.sets, world.symbols):
            if name in table:
                value = table[name]
                return lambda f: value
        if name in world.families:
            raise ExprError(f"{quote(name)} is a family of variables; name one by its indices, as in {name}[...]")
        if name in world.tables:
            raise ExprError(f"{quote(name)} is a table; look a value up by its key, as in {name}[...]")
        if name in FUNCTIONS:
            raise ExprError(f"{quote(name)} is a function; call it, as in {name}(...)")
        known = sorted(set(scope.locals) | set(scope.lets) | set(world.scalars) | set(world.families)
                       | set(world.sets) | set(world.constants) | set(world.tables))
        words = sorted(set(world.symbols) - set(known))
        raise ExprError(f"unknown name {quote(name)}; known names: {shorten(', '.join(known), 160) or 'none'}"
                        + (f"; the domains' words: {shorten(', '.join(words), 120)}" if words else ""))

    def _Tuple(self, node: ast.Tuple, scope: Scope) -> Fn:
        parts = [self.expr(e, scope) for e in node.elts]
        return lambda f: tuple(p(f) for p in parts)

    _List = _Tuple

    # -- subscripts -------------------------------------------------------------------------------
    def _Subscript(self, node: ast.Subscript, scope: Scope) -> Fn:
        base = node.value
        if not isinstance(base, ast.Name) or base.id in scope.locals:
            raise ExprError("only families of variables and tables can be indexed, as in on[d]")
        name = base.id
        index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        parts = [self.expr(e, scope) for e in index]
        family = self.world.families.get(name)
        if family is not None:
            if len(parts) != family.arity:
                raise ExprError(f"{name}[...] takes {family.arity} ind{'ex' if family.arity == 1 else 'ices'}, "
                                f"got {len(parts)}")
            table = family.index

            def read(f: Frame) -> Any:
                key = tuple(norm(p(f)) for p in parts)
                var = table.get(key)
                if var is None:
                    raise ExprError(f"{name}[{', '.join(key)}] is no variable (guard it with "
                                    f"`({', '.join(key)}) in {name}`)" if len(key) > 1 else
                                    f"{name}[{key[0]}] is no variable (guard it with `{key[0]} in {name}`)")
                return f.read(var)
            return read
        lookup = self.world.tables.get(name)
        if lookup is not None:
            arity = len(next(iter(lookup)))
            if len(parts) != arity:
                raise ExprError(f"the table {name} takes {arity} key{'s' if arity > 1 else ''}, got {len(parts)}")

            def look(f: Frame) -> Any:
                key = tuple(norm(p(f)) for p in parts)
                if key not in lookup:
                    raise ExprError(f"the table {name} has no key {quote(', '.join(key))}")
                return lookup[key]
            return look
        kind = self.world.kind(name)
        what = f"it is a {kind}" if kind else "it is no family of variables and no table"
        raise ExprError(f"{quote(name)} cannot be indexed: {what}")

    # -- operators --------------------------------------------------------------------------------
    def _BoolOp(self, node: ast.BoolOp, scope: Scope) -> Fn:
        parts = [self.expr(e, scope) for e in node.values]
        if isinstance(node.op, ast.And):
            def conj(f: Frame) -> Any:
                value: Any = True
                for p in parts:
                    value = p(f)
                    if not value:
                        return value
                return value
            return conj

        def disj(f: Frame) -> Any:
            value: Any = False
            for p in parts:
                value = p(f)
                if value:
                    return value
            return value
        return disj

    def _UnaryOp(self, node: ast.UnaryOp, scope: Scope) -> Fn:
        inner = self.expr(node.operand, scope)
        if isinstance(node.op, ast.Not):
            return lambda f: not inner(f)
        if isinstance(node.op, ast.USub):
            return lambda f: -_number(inner(f), "-")
        if isinstance(node.op, ast.UAdd):
            return lambda f: _number(inner(f), "+")
        raise ExprError("the operator ~ is not allowed in a rules expression")

    def _BinOp(self, node: ast.BinOp, scope: Scope) -> Fn:
        found = _OPERATORS.get(type(node.op))
        if found is None:
            hint = "; use // for whole-number division" if isinstance(node.op, ast.Div) else ""
            raise ExprError(f"the operator {_symbol(node.op)} is not allowed in a rules expression{hint}")
        sign, op = found
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)

        def binary(f: Frame) -> int:
            a, b = _number(left(f), sign), _number(right(f), sign)
            if b == 0 and sign in ("//", "%"):
                raise ExprError(f"{sign} by zero")
            value = op(a, b)
            if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:   # `a * a` thirty times over has no end
                raise ExprError(f"{sign} gives a number beyond +-{MAX_MAGNITUDE:.0e}; whole numbers in rules "
                                "stay within that")
            return value
        return binary

    def _Compare(self, node: ast.Compare, scope: Scope) -> Fn:
        operands = [node.left, *node.comparators]
        steps: list[Callable[[Frame, Any], tuple[bool, Any]]] = []
        for i, op in enumerate(node.ops):
            right_node = operands[i + 1]
            if isinstance(op, (ast.In, ast.NotIn)):
                steps.append(self._membership(right_node, scope, isinstance(op, ast.NotIn)))
                continue
            found = _COMPARE.get(type(op))
            if found is None:
                raise ExprError(f"the operator {_symbol(op)} is not allowed; compare with == or !=")
            self._check_overlap(operands[i], right_node, scope, found[0])
            steps.append(self._comparison(found, self.expr(right_node, scope)))
        first = self.expr(node.left, scope)

        def compare(f: Frame) -> bool:
            value = first(f)
            for step in steps:
                ok, value = step(f, value)
                if not ok:
                    return False
            return True
        return compare

    @staticmethod
    def _comparison(found: tuple[str, Callable[[Any, Any], bool]], right: Fn
                    ) -> Callable[[Frame, Any], tuple[bool, Any]]:
        sign, op = found

        def step(f: Frame, a: Any) -> tuple[bool, Any]:
            b = right(f)
            if sign not in ("==", "!="):
                _ordered(sign, a, b)
            elif isinstance(a, tuple) != isinstance(b, tuple):   # never equal: a value spelt as a set's name?
                raise ExprError(f"{sign} compares a value with a value, got {_what(a)} and {_what(b)}; a name that "
                                "is a set's stands for the whole set, so a value spelt the same cannot be written "
                                "bare: rename one of them")
            return op(a, b), b
        return step

    def _membership(self, node: ast.expr, scope: Scope, negate: bool) -> Callable[[Frame, Any], tuple[bool, Any]]:
        if isinstance(node, ast.Name) and node.id in self.world.families and node.id not in scope.locals:
            family = self.world.families[node.id]

            def exists(f: Frame, a: Any) -> tuple[bool, Any]:
                key = a if isinstance(a, tuple) else (a,)
                if len(key) != family.arity:
                    raise ExprError(f"`in {family.name}` needs {family.arity} "
                                    f"ind{'ex' if family.arity == 1 else 'ices'}, got {len(key)}")
                return (tuple(norm(k) for k in key) in family.index) != negate, None
            return exists
        if isinstance(node, ast.Name) and node.id in self.world.tables and node.id not in scope.locals:
            name, lookup = node.id, self.world.tables[node.id]
            arity = len(next(iter(lookup)))

            def has_key(f: Frame, a: Any) -> tuple[bool, Any]:   # `(x, y) in road`: a key of the table
                key = a if isinstance(a, tuple) else (a,)
                if len(key) != arity:
                    raise ExprError(f"`in {name}` needs {arity} key{'s' if arity > 1 else ''}, got {len(key)}")
                return (tuple(norm(k) for k in key) in lookup) != negate, None
            return has_key
        container = self.expr(node, scope)

        def member(f: Frame, a: Any) -> tuple[bool, Any]:
            values = container(f)
            if isinstance(values, (str, int)):
                raise ExprError(f"`in` needs a set, a tuple or a family of variables on its right, got {_what(values)}")
            return (a in tuple(values)) != negate, values
        return member

    def _check_overlap(self, left: ast.expr, right: ast.expr, scope: Scope, sign: str) -> None:
        """A state variable compared by ==/!= with values it can never take is a mistake (a set
        used as a value of the wrong domain, or a misspelt value)."""
        if sign not in ("==", "!="):
            return
        for var_node, other in ((left, right), (right, left)):
            domain = self.domain_of(var_node, scope)
            values = self.values_of(other, scope)
            if domain is not None and values is not None and values and not (domain & values):
                raise ExprError(f"{ast.unparse(var_node)} takes the values {_listing(domain)}, never "
                                f"{ast.unparse(other)} ({_listing(values)})")

    def domain_of(self, node: ast.expr, scope: Scope) -> frozenset[str] | None:
        """The text values of the state variable `node` names (None when it names none)."""
        world = self.world
        if isinstance(node, ast.Name) and node.id in world.scalars and node.id not in scope.locals:
            return frozenset(norm(v) for v in world.domains[world.scalars[node.id]])
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in world.families:
            return frozenset(norm(v) for v in world.families[node.value.id].domain)
        return None

    def values_of(self, node: ast.expr, scope: Scope) -> frozenset[str] | None:
        """The text values `node` can take, when known without running it (a parameter's set,
        a constant, a bare value, another state variable), else None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)):
            return frozenset({norm(node.value)})
        if isinstance(node, ast.Name):
            if node.id in scope.locals:
                return scope.locals[node.id]
            if node.id in scope.lets:
                return None
            if node.id in self.world.symbols:
                return frozenset({node.id})
            if node.id in self.world.constants:
                return frozenset({norm(self.world.constants[node.id])})
        if isinstance(node, ast.IfExp):
            a, b = self.values_of(node.body, scope), self.values_of(node.orelse, scope)
            return None if a is None or b is None else a | b
        return self.domain_of(node, scope)

    def _IfExp(self, node: ast.IfExp, scope: Scope) -> Fn:
        test, body, orelse = (self.expr(n, scope) for n in (node.test, node.body, node.orelse))
        return lambda f: body(f) if test(f) else orelse(f)

    # -- calls and generators ---------------------------------------------------------------------
    def _Call(self, node: ast.Call, scope: Scope) -> Fn:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.func.id in scope.locals:
            called = ast.unparse(node.func)
            raise ExprError(f"the call {shorten(called, 30)}(...): only {', '.join(FUNCTIONS)} may be called")
        name = node.func.id
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExprError(f"{name}(...) takes plain arguments only")
        args = [self.expr(a, scope) for a in node.args]
        if name in ("min", "max") and len(args) >= 2:
            pick = min if name == "min" else max

            def extreme(f: Frame) -> Any:
                values = [a(f) for a in args]
                for v in values[1:]:
                    _ordered(f"{name}(...)", values[0], v)
                return pick(values)
            return extreme
        if len(args) != 1:
            raise ExprError(f"{name}(...) takes one argument, got {len(args)}")
        arg = args[0]
        if name == "abs":
            return lambda f: abs(_number(arg(f), "abs"))
        return _aggregate(name, arg)

    def _GeneratorExp(self, node: ast.GeneratorExp, scope: Scope) -> Fn:
        loops: list[tuple[str, Fn, list[Fn]]] = []
        inner = scope
        for gen in node.generators:
            if gen.is_async or not isinstance(gen.target, ast.Name):
                raise ExprError("a generator takes one plain name per `for`, as in `for e in disc`")
            target = gen.target.id
            self._check_new_name(target, inner)
            source = self.expr(gen.iter, inner)
            values = self._set_values(gen.iter, inner)
            inner = inner.with_local(target, values)
            loops.append((target, source, [self.expr(c, inner) for c in gen.ifs]))
        element = self.expr(node.elt, inner)

        def generate(f: Frame) -> Iterator[Any]:
            def walk(frame: Frame, depth: int) -> Iterator[Any]:
                if depth == len(loops):
                    yield element(frame)
                    return
                target, source, conditions = loops[depth]
                values = source(frame)
                if isinstance(values, (str, int)):
                    raise ExprError(f"`for {target} in ...` needs a set or a tuple, got {_what(values)}")
                for value in tuple(values):
                    frame.budget.spend()
                    child = frame.child(target, value)
                    if all(c(child) for c in conditions):
                        yield from walk(child, depth + 1)
            return walk(f, 0)
        return generate

    _ListComp = _GeneratorExp

    def _set_values(self, node: ast.expr, scope: Scope) -> frozenset[str] | None:
        if isinstance(node, ast.Name) and node.id in self.world.sets and node.id not in scope.locals:
            return frozenset(norm(v) for v in self.world.sets[node.id])
        return None

    def _check_new_name(self, name: str, scope: Scope) -> None:
        kind = self.world.kind(name)
        if kind is not None:
            raise ExprError(f"the loop name {quote(name)} is already a {kind}; choose another name")
        if name in scope.locals or name in scope.lets or name in FUNCTIONS:
            raise ExprError(f"the loop name {quote(name)} is already in use here; choose another name")


def _aggregate(name: str, arg: Fn) -> Fn:
    def items(f: Frame) -> Iterable[Any]:
        values = arg(f)
        if isinstance(values, (str, int)):
            raise ExprError(f"{name}(...) needs a set, a tuple or a generator, got {_what(values)}")
        return values

    if name == "all":
        return lambda f: all(items(f))
    if name == "any":
        return lambda f: any(items(f))
    if name == "len":
        return lambda f: sum(1 for _ in items(f))
    if name == "sum":
        return lambda f: sum(_number(v, "sum") for v in items(f))
    pick = min if name == "min" else max

    def extreme(f: Frame) -> Any:
        values = list(items(f))
        if not values:
            raise ExprError(f"{name}(...) of nothing")
        for v in values[1:]:
            _ordered(f"{name}(...)", values[0], v)
        return pick(values)
    return extreme


def _symbol(op: ast.AST) -> str:
    return {ast.Div: "/", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitAnd: "&",
            ast.BitXor: "^", ast.MatMult: "@", ast.Is: "is", ast.IsNot: "is not"}.get(type(op), type(op).__name__)


def _listing(values: Iterable[str], limit: int = 6) -> str:
    items = sorted(values, key=lambda v: (len(v), v))
    shown = ", ".join(items[:limit])
    return shown + (", ..." if len(items) > limit else "")


def truth(value: Any, what: str) -> bool:
    """A condition's value, which must be True or False: a number is refused as text is, since
    a count or a sum standing for "not zero" is more often a slip (a comparison left out) than
    meant, and the slip would quietly change which moves are legal."""
    if isinstance(value, bool):
        return value
    hint = " (write the comparison, e.g. `... > 0` or `... == 1`)" if isinstance(value, int) else ""
    raise ExprError(f"{what} must be true or false, got {_what(value)}{hint}")
