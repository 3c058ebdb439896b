"""The planning-task IR: a puzzle as a finite-domain (SAS+) planning task.

Every family compiles to this form (its package's `task` module, named by `Family.task`), and
the generic machinery works on it alone: native search (`plans/task_search`), the generic SAT and
CP-SAT encodings (`encoders/sat/sas.py`, `encoders/cpsat/sas.py`), PDDL export, and the
independent task checker (`plans/check/task.py`, written apart from all of them).

The parts, all immutable and hashable:

    Variable(name, values)          a state variable; its domain is range(len(values)) and
                                    `values` names each value (for dumps, PDDL and errors)
    Action(name, pre, eff, cost)    a grounded action: `pre` and `eff` are sorted tuples of
                                    (variable index, value); `name` is the move string in the
                                    family's own notation (tiles `U`, Rush Hour `A+2`, Sokoban
                                    `l`/`L`), so plans read and check exactly as the family's
                                    do. Names may repeat (the tiles move `U` is one action per
                                    face that can slide), but the actions applicable in one state
                                    never share a name.
    Task(name, variables, init, goal, actions, mutexes, metric, family)
                                    `init` a full assignment (one value per variable), `goal` a
                                    sorted partial assignment, `mutexes` optional groups of facts
                                    (var, value) of which at most one holds in any reachable
                                    state (a hint for encodings; never needed for correctness).

Semantics (SAS+ with costs): an action applies in state s when s[v] = x for every (v, x) in
`pre`; applying it sets s[v] = x for every (v, x) in `eff`. A plan is a sequence of actions,
each applicable in the state the previous ones left, ending in a state that satisfies `goal`;
its cost is the sum of the action costs (non-negative integers; 0 is allowed, e.g. Sokoban
walks under the pushes metric).

Worked example: one disc moved between two pegs, a peg of two cells.

    >>> disc = Variable("disc", ("left", "right"))
    >>> move = Action("L>R", pre=((0, 0),), eff=((0, 1),))
    >>> back = Action("R>L", pre=((0, 1),), eff=((0, 0),))
    >>> task = Task("one disc", (disc,), init=(0,), goal=((0, 1),), actions=(move, back))
    >>> [a.name for a in task.applicable(task.init)]
    ['L>R']
    >>> task.is_goal(task.apply(task.init, move))
    True

Why SAS+ and not STRIPS facts: the puzzles' natural state is finite-domain (a cell holds one
face; a car sits at one offset), and multi-valued variables give the compact encodings (one
integer per variable per step in CP-SAT, exactly-one groups in SAT) and the projections the
pattern databases abstract over. A STRIPS view is one fact per (variable, value), which is what
the PDDL export writes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from puzzleplan.models.base import ModelError

Fact = tuple[int, int]          # (variable index, value)
State = tuple[int, ...]         # one value per variable


# The largest action cost: plan costs stay far below the engines' 2^62 "dead end" and the numpy
# int64 tables of the pattern databases whatever the plan's length.
MAX_ACTION_COST = 1_000_000


class TaskError(ModelError):
    """A malformed task: the message says which part and what was expected (a ModelError, so
    a rules or PDDL file that grounds into one is the user's input error: one line, exit 2)."""


class NotCompilable(ValueError):
    """A model has no planning-task form (the message says why)."""


@dataclass(frozen=True)
class Variable:
    """A state variable with a finite domain; `values` names each value 0..n-1."""

    name: str
    values: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.values)


@dataclass(frozen=True)
class Action:
    """A grounded action: preconditions, effects (sorted (var, value) pairs), a cost, a move name."""

    name: str
    pre: tuple[Fact, ...]
    eff: tuple[Fact, ...]
    cost: int = 1

    def applies(self, state: Sequence[int]) -> bool:
        return all(state[v] == x for v, x in self.pre)

    def apply(self, state: Sequence[int]) -> State:
        out = list(state)
        for v, x in self.eff:
            out[v] = x
        return tuple(out)


@dataclass(frozen=True)
class Task:
    """A finite-domain planning task (see the module docstring)."""

    name: str
    variables: tuple[Variable, ...]
    init: State
    goal: tuple[Fact, ...]
    actions: tuple[Action, ...]
    mutexes: tuple[tuple[Fact, ...], ...] = ()
    metric: str = "step"
    family: str = ""
    _index: dict = field(default=None, init=False, repr=False, compare=False, hash=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        validate(self)

    # -- reading the task -----------------------------------------------------------------------
    @property
    def unit_cost(self) -> bool:
        """True when every action costs 1 (plan length = plan cost)."""
        return all(a.cost == 1 for a in self.actions)

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(v.size for v in self.variables)

    def is_goal(self, state: Sequence[int]) -> bool:
        return all(state[v] == x for v, x in self.goal)

    def apply(self, state: Sequence[int], action: Action) -> State:
        return action.apply(state)

    def applicable(self, state: Sequence[int]) -> Iterator[Action]:
        """The actions applicable in `state`, in the task's action order."""
        index = self._successor_index()
        for i in index.candidates(state):
            action = self.actions[i]
            if action.applies(state):
                yield action

    def successors(self, state: Sequence[int]) -> Iterator[tuple[Action, State]]:
        for action in self.applicable(state):
            yield action, action.apply(state)

    def plan_cost(self, actions: Iterable[Action]) -> int:
        return sum(a.cost for a in actions)

    def fact_name(self, fact: Fact) -> str:
        var = self.variables[fact[0]]
        return f"{var.name}={var.values[fact[1]]}"

    def _successor_index(self) -> "_SuccessorIndex":
        if self._index is None:
            object.__setattr__(self, "_index", _SuccessorIndex(self))
        return self._index  # type: ignore[return-value]

    def __hash__(self) -> int:
        return hash((self.name, self.variables, self.init, self.goal, len(self.actions)))


class _SuccessorIndex:
    """Actions grouped by one precondition each (the most selective), so a state looks only at
    the actions whose chosen precondition it satisfies; actions without preconditions always."""

    def __init__(self, task: Task) -> None:
        sizes = task.sizes
        self.by_fact: list[list[list[int]]] = [[[] for _ in range(n)] for n in sizes]
        self.always: list[int] = []
        counts = [[0] * n for n in sizes]
        for a in task.actions:
            for v, x in a.pre:
                counts[v][x] += 1
        for i, a in enumerate(task.actions):
            if not a.pre:
                self.always.append(i)
                continue
            v, x = min(a.pre, key=lambda f: (counts[f[0]][f[1]] * sizes[f[0]] ** -1, f))
            self.by_fact[v][x].append(i)
        self.watched = [v for v, lists in enumerate(self.by_fact) if any(lists)]

    def candidates(self, state: Sequence[int]) -> list[int]:
        out = list(self.always)
        for v in self.watched:
            out += self.by_fact[v][state[v]]
        out.sort()
        return out


def _facts(where: str, facts: tuple[Fact, ...], sizes: tuple[int, ...]) -> None:
    seen: set[int] = set()
    for fact in facts:
        if not (isinstance(fact, tuple) and len(fact) == 2):
            raise TaskError(f"{where}: expected (variable, value) pairs, got {fact!r}")
        v, x = fact
        if not (0 <= v < len(sizes)):
            raise TaskError(f"{where}: variable {v} is not one of 0..{len(sizes) - 1}")
        if not (0 <= x < sizes[v]):
            raise TaskError(f"{where}: value {x} is outside the domain 0..{sizes[v] - 1} of variable {v}")
        if v in seen:
            raise TaskError(f"{where}: variable {v} is named twice")
        seen.add(v)
    if list(facts) != sorted(facts):
        raise TaskError(f"{where}: facts must be sorted by variable")


def validate(task: Task) -> None:
    """TaskError when the task is malformed (domains, facts out of range, unsorted parts)."""
    sizes = task.sizes
    if any(n < 1 for n in sizes):
        raise TaskError(f"task {task.name!r}: every variable needs at least one value")
    if len(task.init) != len(sizes):
        raise TaskError(f"task {task.name!r}: init has {len(task.init)} values for {len(sizes)} variables")
    for v, x in enumerate(task.init):
        if not (0 <= x < sizes[v]):
            raise TaskError(f"task {task.name!r}: init value {x} of {task.variables[v].name} is outside its domain")
    _facts(f"task {task.name!r}: goal", task.goal, sizes)
    for a in task.actions:
        _facts(f"action {a.name!r}: pre", a.pre, sizes)
        _facts(f"action {a.name!r}: eff", a.eff, sizes)
        if not a.eff:
            raise TaskError(f"action {a.name!r}: has no effect")
        if not (isinstance(a.cost, int) and 0 <= a.cost <= MAX_ACTION_COST):
            raise TaskError(f"action {a.name!r}: cost must be a whole number from 0 to {MAX_ACTION_COST:,}, "
                            f"got {a.cost!r}")
    for group in task.mutexes:
        for v, x in group:
            if not (0 <= v < len(sizes) and 0 <= x < sizes[v]):
                raise TaskError(f"task {task.name!r}: mutex fact ({v}, {x}) is out of range")


def action(name: str, pre: Iterable[Fact], eff: Iterable[Fact], cost: int = 1) -> Action:
    """An Action from unsorted facts (sorted here; effects that repeat a precondition's value
    are kept, since they are harmless and some readers expect them)."""
    return Action(name, tuple(sorted(dict(pre).items())), tuple(sorted(dict(eff).items())), cost)


@dataclass(frozen=True)
class Compiled:
    """A model compiled to a task, with the maps between the two state spaces.

    encode(model_state) -> task state; decode(task state) -> model state. The IR test checks
    the model's successors against the task's through these maps."""

    task: Task
    encode: object
    decode: object

    def encode_state(self, state: object) -> State:
        return self.encode(state)  # type: ignore[operator]

    def decode_state(self, state: Sequence[int]) -> object:
        return self.decode(tuple(state))  # type: ignore[operator]
