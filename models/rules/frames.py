"""What rules expressions run against: the names a file declares (`World`), the local names at
one point of it (`Scope`), the frames a compiled expression reads (`Frame`: local values and a
`read(variable index)` of the state), the loop budget, and how values are matched (`norm`).

Kept apart from the compiler (expressions.py) so the readers and the grounder can build worlds
and frames without the compiler's internals.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping

Value = Any                     # int or str (True/False count as 1/0)
LOOP_STEPS = 1_000_000          # generator iterations one evaluation (or one grounding) may run
Fn = Callable[["Frame"], Any]


class ExprError(ValueError):
    """A bad expression (at compile time) or a bad value met while evaluating one."""


class NeedVar(Exception):
    """A lazily read state variable is not known yet (its index is `args[0]`)."""


class BudgetExceeded(Exception):
    """The evaluation budget shared by a whole grounding is spent."""


def norm(value: Value) -> str:
    """The text form by which indices, init/goal values and domains are matched (True is 1)."""
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


def show(value: Value) -> str:
    """A value as templates and messages write it (a tuple or generator: its items, space apart)."""
    if isinstance(value, (tuple, list, Iterator)):
        return " ".join(show(v) for v in value)
    return norm(value)


@dataclass(frozen=True)
class VarFamily:
    """Indexed state variables (`on[disc]`): index text forms -> variable index, one domain."""

    name: str
    arity: int
    index: Mapping[tuple[str, ...], int]
    domain: tuple[Value, ...]


@dataclass(frozen=True)
class World:
    """The names every expression of a file may use (built by the schema reader)."""

    sets: Mapping[str, tuple[Value, ...]] = field(default_factory=dict)
    constants: Mapping[str, Value] = field(default_factory=dict)
    tables: Mapping[str, Mapping[tuple[str, ...], Value]] = field(default_factory=dict)   # keys -> value
    scalars: Mapping[str, int] = field(default_factory=dict)
    families: Mapping[str, VarFamily] = field(default_factory=dict)
    symbols: Mapping[str, str] = field(default_factory=dict)
    domains: tuple[tuple[Value, ...], ...] = ()

    def kind(self, name: str) -> str | None:
        """What a global name is ('set', 'variable', ...), None when it is no global name."""
        for kind, table in (("set", self.sets), ("constant", self.constants), ("table", self.tables),
                            ("variable", self.scalars), ("family of variables", self.families),
                            ("value", self.symbols)):
            if name in table:
                return kind
        return None


class Budget:
    """Loop iterations left for a whole grounding (shared by every frame)."""

    __slots__ = ("left",)

    def __init__(self, steps: int) -> None:
        self.left = steps

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise BudgetExceeded()


class Frame:
    """Local names, lazily evaluated lets, the state reader and the budget of one evaluation."""

    __slots__ = ("names", "read", "lets", "budget", "root")

    def __init__(self, names: dict[str, Value], read: Callable[[int], Value], lets: Mapping[str, Fn] | None = None,
                 budget: Budget | None = None, root: "Frame | None" = None) -> None:
        self.names = names
        self.read = read
        self.lets = lets or {}
        self.budget = budget if budget is not None else Budget(LOOP_STEPS)
        self.root = root if root is not None else self

    def child(self, name: str, value: Value) -> "Frame":
        names = dict(self.names)
        names[name] = value
        return Frame(names, self.read, self.lets, self.budget, self.root)


def no_state(index: int) -> Value:
    raise ExprError("reads a state variable where only fixed values may be used")


@dataclass(frozen=True)
class Scope:
    """The local names at one point of a file: name -> the values it ranges over (None: unknown),
    and the `let:` names defined so far."""

    locals: Mapping[str, frozenset[str] | None] = field(default_factory=dict)
    lets: tuple[str, ...] = ()

    def with_local(self, name: str, values: frozenset[str] | None) -> "Scope":
        return Scope({**self.locals, name: values}, self.lets)
