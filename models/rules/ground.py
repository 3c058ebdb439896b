"""Grounding a rules file into the planning-task IR (models/task/ir.py).

For each schema and each assignment of its parameters, the schema's parts (requires, then the
effects, the invariant on the state after, the cost and the name) are evaluated against a state
read lazily: reading a variable not yet fixed raises `NeedVar`, and the evaluation restarts once
per value of it. So the state variables an action depends on are discovered by running it, a
failing requirement cuts its branch at once, and each leaf of the search is one grounded action:
`pre` = the variables read on the way, `eff` = the variables whose value changes. The leaves of
one parameter assignment are disjoint, so they may share a move name.

Simplification (exact): leaves that differ only in one variable's value, and together cover its
whole domain with the same effect, cost and name, are merged into one action without that
variable in `pre`.

An effect outside its variable's domain where the requirements hold is an error (the rules miss
a requirement), as are two actions of different schemas with one name, and two actions of one
schema with one name that could apply in the same state with different effects.
"""
from __future__ import annotations

import itertools
import re
from typing import Any, Callable

from puzzleplan.models.base import ModelError, quote
from puzzleplan.models.rules.actions import Schema
from puzzleplan.models.rules.expressions import truth
from puzzleplan.models.rules.frames import (LOOP_STEPS, Budget, BudgetExceeded, ExprError, Frame, NeedVar, Value, norm,
                                            show)
from puzzleplan.models.rules.file import Rules
from puzzleplan.models.task.ir import MAX_ACTION_COST, Action, Task, Variable, action

MAX_ASSIGNMENTS = 200_000      # parameter assignments of one schema
MAX_EVALUATIONS = 200_000      # evaluations of schema parts in one grounding
MAX_ACTIONS = 200_000          # grounded actions
MAX_SAME_NAME = 5_000          # grounded actions of one schema sharing one move name
_TOKEN = re.compile(r"[^\s,;]+\Z")

Leaf = tuple[dict[int, Value], dict[int, Value], int, str]   # (read values, changed values, cost, name)


class _EffectError(Exception):
    """An effect's mistake, with the path of that effect in the file."""

    def __init__(self, message: str, path: tuple[Any, ...]) -> None:
        super().__init__(message)
        self.path = path


class _Grounding:
    """The state of one grounding: limits spent so far and the lookups every leaf needs."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.domains = rules.world.domains
        self.value_index = [{norm(v): i for i, v in enumerate(d)} for d in self.domains]
        self.budget = Budget(LOOP_STEPS)
        self.evaluations = 0
        self.unit = rules.common.metric == "step"

    def fail(self, schema: Schema, field: str, message: str) -> ModelError:
        return self.rules.fail(schema.path + ((field,) if field else ()), message)

    # -- one leaf ---------------------------------------------------------------------------------
    def outcome(self, schema: Schema, names: dict[str, Value], known: dict[int, Value]
                ) -> tuple[dict[int, Value], int, str] | None:
        """(new values, cost, name) when the action applies under `known`, None when it does not;
        NeedVar when it needs a variable `known` does not fix."""
        def read(var: int) -> Value:
            if var in known:
                return known[var]
            raise NeedVar(var)

        frame = Frame(dict(names), read, schema.lets, self.budget)
        where: tuple[Any, ...] = schema.path
        try:
            for condition in schema.requires:
                where = condition.path
                if not truth(condition(frame), "a requirement"):
                    return None
            new = self._effects(schema, frame)
            for var in new:      # a move must change the state: read what it sets
                read(var)
            if self.rules.invariant:
                after = Frame({}, lambda v: new[v] if v in new else read(v), {}, self.budget)
                for condition in self.rules.invariant:
                    where = condition.path
                    if not truth(condition(after), "the invariant"):
                        return None
            where = schema.path + ("cost",)
            cost = 1 if self.unit or schema.cost is None else schema.cost(frame)
            if isinstance(cost, bool) or not isinstance(cost, int) or not 0 <= cost <= MAX_ACTION_COST:
                raise ExprError(f"the cost must be a whole number from 0 to {MAX_ACTION_COST:,}, got {quote(cost)}")
            where = schema.path + ("name",)
            name = schema.move_name(frame)
        except _EffectError as exc:
            raise self.rules.fail(exc.path, f"{self.describe(schema, names, known)}: {exc.args[0]}") from None
        except ExprError as exc:
            raise self.rules.fail(where, f"{self.describe(schema, names, known)}: {exc}") from None
        return new, cost, name

    def _effects(self, schema: Schema, frame: Frame) -> dict[int, Value]:
        new: dict[int, Value] = {}
        for effect in schema.effects:
            try:
                self._effect(effect, frame, new)
            except ExprError as exc:
                raise _EffectError(str(exc), effect.path) from None
        return new

    def _effect(self, effect: Any, frame: Frame, new: dict[int, Value]) -> None:
        """Apply one `effects:` entry into `new` (checking the variable and its domain)."""
        for row in effect.fn(frame):
            *index, value = row
            if effect.family is None:
                var = effect.var
            else:
                key = tuple(norm(v) for v in index)
                var = effect.family.index.get(key)
                if var is None:
                    raise ExprError(f"sets {effect.family.name}[{', '.join(key)}], which is no variable")
            assert var is not None
            if var in new:
                raise ExprError(f"two effects set {self.rules.names[var]}")
            if isinstance(value, bool):
                value = int(value)
            if not isinstance(value, (int, str)) or norm(value) not in self.value_index[var]:
                shown = (str(value) if isinstance(value, int) else
                         quote(show(value)) if isinstance(value, (str, tuple)) else type(value).__name__)
                raise ExprError(f"sets {self.rules.names[var]} to {shown}, outside its domain "
                                "(add a requirement)")
            new[var] = self.domains[var][self.value_index[var][norm(value)]]

    def describe(self, schema: Schema, names: dict[str, Value], known: dict[int, Value]) -> str:
        """`move (d=1, to=c) when on[1]=a` for error messages."""
        params = ", ".join(f"{p}={norm(names[p])}" for p, _ in schema.params)
        text = f"action {schema.name}" + (f" ({params})" if params else "")
        if known:
            state = ", ".join(f"{self.rules.names[v]}={norm(x)}" for v, x in sorted(known.items())[:6])
            text += f" when {state}{', ...' if len(known) > 6 else ''}"
        return text

    # -- one parameter assignment -----------------------------------------------------------------
    def leaves(self, schema: Schema, names: dict[str, Value]) -> list[Leaf]:
        """Every way the action applies, found by fixing the variables it reads one at a time."""
        out: list[Leaf] = []
        stack: list[dict[int, Value]] = [{}]
        while stack:
            known = stack.pop()
            self.evaluations += 1
            if self.evaluations > MAX_EVALUATIONS:
                raise self.fail(schema, "", f"grounding needs more than {MAX_EVALUATIONS:,} evaluations; the "
                                            "actions read too many state variables at once")
            try:
                found = self.outcome(schema, names, known)
            except NeedVar as need:
                var = need.args[0]
                for value in reversed(self.domains[var]):
                    stack.append({**known, var: value})
                continue
            except BudgetExceeded:
                raise self.fail(schema, "", f"grounding runs more than {LOOP_STEPS:,} loop steps in "
                                            "generator expressions; the sets are too large for these rules") from None
            if found is None:
                continue
            new, cost, name = found
            changed = {v: x for v, x in new.items() if known[v] != x}
            if changed:
                out.append((known, changed, cost, name))
        return _merged(out, self.domains)


def _merged(leaves: list[Leaf], domains: tuple[tuple[Value, ...], ...]) -> list[Leaf]:
    """Merge leaves that differ only in one variable whose every value gives the same outcome."""
    changed = True
    while changed and len(leaves) > 1:
        changed = False
        variables = sorted({v for known, *_ in leaves for v in known})
        for var in variables:
            groups: dict[Any, list[int]] = {}
            for i, (known, eff, cost, name) in enumerate(leaves):
                if var in known and var not in eff:
                    rest = tuple(sorted((v, norm(x)) for v, x in known.items() if v != var))
                    key = (rest, tuple(sorted((v, norm(x)) for v, x in eff.items())), cost, name)
                    groups.setdefault(key, []).append(i)
            drop: set[int] = set()
            merged: list[tuple[int, Leaf]] = []
            for members in groups.values():
                if len({norm(leaves[i][0][var]) for i in members}) == len(domains[var]):
                    known, eff, cost, name = leaves[members[0]]
                    merged.append((members[0], ({v: x for v, x in known.items() if v != var}, eff, cost, name)))
                    drop.update(members)
            if merged:
                replacement = dict(merged)
                leaves = [replacement.get(i, leaf) for i, leaf in enumerate(leaves)
                          if i not in drop or i in replacement]
                changed = True
    return leaves


def _compatible(a: Action, b: Action) -> bool:
    pre = dict(a.pre)
    return all(pre.get(v, x) == x for v, x in b.pre)


def ground(rules: Rules) -> Task:
    """The task of `rules` (ModelError naming the schema and parameters on a mistake or a blow-up)."""
    g = _Grounding(rules)
    actions: list[Action] = []
    owner: dict[str, str] = {}
    for schema in rules.schemas:
        total = 1
        for _, values in schema.params:
            total *= len(values)
        if total > MAX_ASSIGNMENTS:
            raise g.fail(schema, "params", f"{total:,} parameter assignments; at most {MAX_ASSIGNMENTS:,} per action")
        by_name: dict[str, list[tuple[int, Action]]] = {}
        params = [p for p, _ in schema.params]
        for serial, combo in enumerate(itertools.product(*(values for _, values in schema.params))):
            names = dict(zip(params, combo))
            for known, eff, cost, move in g.leaves(schema, names):
                if not _TOKEN.match(move):
                    raise g.fail(schema, "name", f"{g.describe(schema, names, {})} is named {quote(move)}; a move "
                                                 "name must be one word, without spaces, commas or semicolons")
                other = owner.setdefault(move, schema.name)
                if other != schema.name:
                    raise g.fail(schema, "name", f"the move name {quote(move)} is also a move of action {other}; "
                                                 "names must differ across actions")
                index = g.value_index
                grounded = action(move, ((v, index[v][norm(x)]) for v, x in known.items()),
                                  ((v, index[v][norm(x)]) for v, x in eff.items()), cost)
                _check_name_clash(g, schema, by_name.setdefault(move, []), serial, grounded)
                actions.append(grounded)
                if len(actions) > MAX_ACTIONS:
                    raise g.fail(schema, "", f"more than {MAX_ACTIONS:,} grounded actions")
    variables = tuple(Variable(n, tuple(show(v) for v in d)) for n, d in zip(rules.names, rules.world.domains))
    return Task(rules.common.name or "rules", variables, rules.init, rules.goal, tuple(_unique(actions)),
                metric=rules.common.metric, family="rules")


def _check_name_clash(g: _Grounding, schema: Schema, same: list[tuple[int, Action]], serial: int,
                      grounded: Action) -> None:
    """Two actions of different parameter assignments with one name must never both apply with
    different outcomes (a plan names its moves, so the name must say which)."""
    if len(same) >= MAX_SAME_NAME:
        raise g.fail(schema, "name", f"the move name {quote(grounded.name)} is given to more than {MAX_SAME_NAME:,} "
                                     "grounded actions; name the moves by their parameters")
    for other_serial, other in same:
        if other_serial != serial and (other.eff, other.cost) != (grounded.eff, grounded.cost) \
                and _compatible(other, grounded):
            raise g.fail(schema, "name", f"the move name {quote(grounded.name)} is given to different moves "
                                         "that can apply in one state; add the parameters that tell them apart")
    same.append((serial, grounded))


def _unique(actions: list[Action]) -> list[Action]:
    seen: set[Action] = set()
    out = []
    for a in actions:
        if a not in seen:
            seen.add(a)
            out.append(a)
    return out


def state_reader(rules: Rules, state: tuple[int, ...]) -> Callable[[int], Value]:
    """A `read` for frames over a task state (value indices)."""
    domains = rules.world.domains
    return lambda v: domains[v][state[v]]
