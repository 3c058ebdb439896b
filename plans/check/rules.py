"""The rules family's plan checker: the file's rules run on whole states, never grounded.

Why not the generic task checker alone: a rules file's task comes from the grounder
(models/rules/ground.py: lazy reading of variables, leaves merged, names checked for clashes),
which every engine and encoding of the family works on, so a grounding mistake would replay
cleanly on the task it made. This replay shares only the file's reading (its compiled
expressions) and does, per move, the obvious thing: try every action and parameter assignment
on the current state (every variable known), keep those the move's name names whose
requirements hold, whose effects change the state and whose next state keeps the invariant.
Exactly one next state must remain. It also says which requirement (or the invariant) stops a
named move, in the file's own words.
"""
from __future__ import annotations

import itertools
from typing import Any, Sequence

from puzzleplan.models.rules.frames import ExprError, Frame, norm
from puzzleplan.plans.check.common import IllegalMove, unmet_words
from puzzleplan.plans.check.task import normal_name
from puzzleplan.plans.core.words import clip

Assignment = tuple[Any, dict[str, Any]]     # (schema, parameter values)


class _StateRead(Exception):
    """A move name that reads the state (it cannot be listed ahead of the replay)."""


def _no_state(index: int) -> Any:
    raise _StateRead()


def replay(model: Any, tokens: Sequence[str], notation: str | None = None) -> tuple[bool, int]:
    """Replay `tokens` on the model's rules file: (goal reached, plan cost); IllegalMove on a bad move."""
    rules = model.rules
    state, cost = _run(model, tokens)
    domains = rules.world.domains
    return all(norm(state[v]) == norm(domains[v][x]) for v, x in rules.goal), cost


def unmet(model: Any, tokens: Sequence[str]) -> str:
    """The goal's variables the moves (legal: replayed before) leave at other values, in words."""
    rules = model.rules
    state, _ = _run(model, tokens)
    domains = rules.world.domains
    return unmet_words([(rules.names[v], norm(domains[v][x]), norm(state[v]))
                        for v, x in rules.goal if norm(state[v]) != norm(domains[v][x])])


def _run(model: Any, tokens: Sequence[str]) -> tuple[list[Any], int]:
    """The state (values) the moves lead to and their cost; IllegalMove on a bad move."""
    rules = model.rules
    domains = rules.world.domains
    state = [domains[v][i] for v, i in enumerate(rules.init)]
    fixed, by_state = _names(rules)
    unit = model.metric == "step"
    cost = 0
    for i, token in enumerate(tokens, 1):
        wanted = normal_name(token)
        named = list(fixed.get(wanted, ()))
        named += [a for a in by_state if _name(a, Frame(dict(a[1]), state.__getitem__, a[0].lets)) == wanted]
        if not named:
            raise IllegalMove(i, token, "no action of the rules has this name here")
        outcomes: dict[tuple[str, ...], tuple[int, list[Any]]] = {}
        reasons: list[str] = []
        for schema, names in named:
            after, step_cost, why = _apply(rules, schema, names, state, unit)
            if after is None:
                reasons.append(why)
            else:
                outcomes[tuple(norm(v) for v in after)] = (step_cost, after)
        if not outcomes:
            raise IllegalMove(i, token, clip(reasons[0], 160))
        if len(outcomes) > 1:
            raise IllegalMove(i, token, "ambiguous: moves with different outcomes have this name here")
        [(step_cost, state)] = outcomes.values()
        cost += step_cost
    return state, cost


def _names(rules: Any) -> tuple[dict[str, list[Assignment]], list[Assignment]]:
    """Every action and parameter assignment, by its move name where the name reads no state
    variable; the others (named after the state, like Hanoi's `a>c`) in a list."""
    fixed: dict[str, list[Assignment]] = {}
    by_state: list[Assignment] = []
    for schema in rules.schemas:
        params = [p for p, _ in schema.params]
        for combo in itertools.product(*(values for _, values in schema.params)):
            names = dict(zip(params, combo))
            try:
                name = schema.move_name(Frame(dict(names), _no_state, schema.lets))
            except _StateRead:
                by_state.append((schema, names))
                continue
            except ExprError:
                continue        # a name that cannot be written names no move
            fixed.setdefault(normal_name(name), []).append((schema, names))
    return fixed, by_state


def _name(assignment: Assignment, frame: Frame) -> str | None:
    try:
        return normal_name(assignment[0].move_name(frame))
    except ExprError:
        return None


def _apply(rules: Any, schema: Any, names: dict[str, Any], state: list[Any], unit: bool
           ) -> tuple[list[Any] | None, int, str]:
    """(the next state, the move's cost, "") when the assignment applies; (None, 0, why) when not."""
    label = schema.name + (f" ({', '.join(f'{p}={norm(v)}' for p, v in names.items())})" if names else "")
    frame = Frame(dict(names), state.__getitem__, schema.lets)
    for condition in schema.requires:
        if not condition(frame):
            return None, 0, f"{label}: the requirement `{condition.text}` does not hold"
    after = list(state)
    written: set[int] = set()
    for effect in schema.effects:
        for *index, value in effect.fn(frame):
            var = effect.var if effect.family is None else effect.family.index[tuple(norm(x) for x in index)]
            if var in written:
                return None, 0, f"{label}: two effects set {rules.names[var]}"
            written.add(var)
            known = {norm(x): x for x in rules.world.domains[var]}
            if norm(value) not in known:
                return None, 0, f"{label}: it sets {rules.names[var]} to {norm(value)}, outside its domain"
            after[var] = known[norm(value)]
    if [norm(v) for v in after] == [norm(v) for v in state]:
        return None, 0, f"{label}: its effects change nothing"
    next_frame = Frame({}, after.__getitem__)
    for condition in rules.invariant:
        if not condition(next_frame):
            return None, 0, f"{label}: the state after it breaks the invariant `{condition.text}`"
    step_cost = 1 if unit or schema.cost is None else int(schema.cost(frame))
    return after, step_cost, ""

