"""PDDL out of the planning-task IR, for every family and metric, and outside plans read back.

`task_pddl(model)` writes a STRIPS domain and problem from `compiled(model).task`, so tiles, Rush
Hour (step, slide), Sokoban (moves, pushes), user, rules and PDDL models all export the same way.
`moves_from_planner_plan(model, text)` reads an outside planner's plan (Fast Downward's format:
one `(action)` per line, `;` comments) back into the family's move names, for `puzzleplan check`.

The form: one predicate `(is ?variable ?value)`, the task's variables and value names as
constants (`(is cell-1-2 blank)`: variable cell-1-2 has value blank), and one action without
parameters per IR action, named `<move>_<index>` with its move name in a comment above it.

Why grounded actions and not lifted schemas: the IR is already grounded and keeps no family
knowledge (which variables are cells, which values are faces). A generic lifting would group
actions of one shape under parameters constrained by a static table listing every ground
instance: no shorter, no easier to read, and planners ground it straight back (pyperplan's
grounder multiplies parameter domains, which explodes on such tables). Grounded actions are
linear in the task, exact for every metric and cost (walks that cost 0 under Sokoban's pushes
metric included), read by every STRIPS planner, and map back by action name alone.
Why one `is` predicate and not a nullary atom per fact or a predicate per variable: Fast
Downward's translator finds the variables back from it in milliseconds (its invariant search
took 6.4 s on the nullary atoms of Rush Hour seed 000 under slide, 9 s on a predicate per
variable for the Sokoban level `dungeon`, 0.1 s with `is`), and it is SAS+ written plainly.

The SAS+ to STRIPS step: an action adds (is v x) for each effect and deletes the value v had:
the precondition's value where it names v, otherwise every other value of v (deleting an atom
that is false changes nothing, and exactly one value of v holds in every state). Action costs
appear (`:action-costs`, `(total-cost)`, a metric) only where some action does not cost 1.
"""
from __future__ import annotations

import re
from typing import Any, Callable

from puzzleplan.models.base import ModelError, quote
from puzzleplan.models.task.ir import Task

GENERIC_EXPORTS = ("pddl",)          # what every model with a planning-task form exports
_SPECIAL = {"+": "-plus-", ">": "-to-", "<": "-from-", "=": "-is-", "*": "-star-", "/": "-slash-"}


def _slug(text: str) -> str:
    """A valid PDDL name part: lower case letters, digits and hyphens."""
    out = "".join(ch if ch.isalnum() and ch.isascii() else _SPECIAL.get(ch, "-") for ch in text.lower())
    out = re.sub(r"-{2,}", "-", out).strip("-")
    return out or "x"


_RESERVED = {"and", "or", "not", "imply", "exists", "forall", "when", "either", "at", "over", "object",
             "number", "total-cost", "increase", "decrease", "assign", "define", "domain", "problem", "is"}


def _name(text: str) -> str:
    """A PDDL name (starts with a letter, no keyword)."""
    slug = _slug(text)
    return slug if slug[0].isalpha() and slug not in _RESERVED else f"v-{slug}"


def constant_names(task: Task) -> tuple[list[str], list[list[str]]]:
    """The constant of each variable, and of each value of each variable. Names are slugs of
    the task's names; equal value texts share one constant; any collision gets a suffix."""
    taken: set[str] = set()

    def fresh(text: str) -> str:
        name, n = _name(text), 1
        while name in taken:
            n += 1
            name = f"{_name(text)}-{n}"
        taken.add(name)
        return name
    variables = [fresh(v.name) for v in task.variables]
    by_text: dict[str, str] = {}
    for v in task.variables:
        for x in v.values:
            if x not in by_text:
                by_text[x] = fresh(x)
    return variables, [[by_text[x] for x in v.values] for v in task.variables]


def _comment(text: str) -> str:
    """Text for a `;` comment: on one line."""
    return " ".join(text.split())


def action_names(task: Task) -> list[str]:
    """The PDDL name of each IR action: its move name as a slug, then `_` and its index."""
    return [f"{_name(a.name)}_{i}" for i, a in enumerate(task.actions)]


def _effects(action: Any, sizes: tuple[int, ...], fact: Callable[[int, int], str]) -> list[str]:
    pre = dict(action.pre)
    out = []
    for v, x in action.eff:
        if pre.get(v) == x:
            continue
        out.append(fact(v, x))
        gone = [pre[v]] if v in pre else [y for y in range(sizes[v]) if y != x]
        out += [f"(not {fact(v, y)})" for y in gone]
    return out


def task_pddl(model: Any) -> tuple[str, str]:
    """The (domain, problem) text of the model's planning task (NotCompilable when it has none)."""
    from puzzleplan.models.task.compile import compiled
    task = compiled(model).task
    variables, values = constant_names(task)

    def fact(v: int, x: int) -> str:
        return f"(is {variables[v]} {values[v][x]})"
    costs = not task.unit_cost
    domain_name = _name(f"{task.family or getattr(model, 'family', '')}-{getattr(model, 'metric', task.metric)}")
    actions = []
    for name, action in zip(action_names(task), task.actions):
        eff = _effects(action, task.sizes, fact)
        if costs and action.cost:
            eff.append(f"(increase (total-cost) {action.cost})")
        actions.append(f"  ; {_comment(action.name)}\n  (:action {name}\n    :parameters ()\n"
                       f"    :precondition (and {' '.join(fact(v, x) for v, x in action.pre)})\n"
                       f"    :effect (and {' '.join(eff)}))")
    value_constants = sorted(set(c for row in values for c in row))
    typed = [f"{' '.join(names)} - {kind}" for names, kind in ((variables, "variable"), (value_constants, "value"))
             if names]   # a typed list needs a name before its `- type` (a task may have no variables)
    constants = "  (:constants" + "".join("\n    " + t for t in typed) + ")\n" if typed else ""
    domain = (f"; {_comment(task.name)}: {len(task.variables)} variables, {len(task.actions)} actions; "
              "(is V X): variable V has value X; action <move>_<index>, its move name in the comment above it\n"
              f"(define (domain {domain_name})\n"
              f"  (:requirements :strips :typing{' :action-costs' if costs else ''})\n"
              "  (:types variable value)\n"
              + constants +
              "  (:predicates (is ?v - variable ?x - value))\n"
              + ("  (:functions (total-cost) - number)\n" if costs else "")
              + "\n".join(actions) + ")\n")
    init = [fact(v, x) for v, x in enumerate(task.init)]
    if costs:
        init.append("(= (total-cost) 0)")
    problem = (f"(define (problem {_name(task.name or getattr(model, 'name', '') or 'puzzle')})\n"
               f"  (:domain {domain_name})\n"
               f"  (:init {' '.join(init)})\n"
               f"  (:goal (and {' '.join(fact(v, x) for v, x in task.goal)}))"
               + ("\n  (:metric minimize (total-cost))" if costs else "") + ")\n")
    return domain, problem


_GROUP = re.compile(r"\(([^()]*)\)")


def moves_from_planner_plan(model: Any, text: str) -> list[str]:
    """The move names of an outside planner's plan for `task_pddl(model)`'s PDDL: one `(action)`
    per group in Fast Downward's format (VAL's time stamps and durations dropped), `;` comments ignored, names matched case-insensitively.
    ModelError naming the line of an action the export does not have."""
    from puzzleplan.models.pddl.plan import unstamped
    from puzzleplan.models.task.compile import compiled
    task = compiled(model).task
    index = {name: i for i, name in enumerate(action_names(task))}
    moves = []
    for number, line in enumerate(text.splitlines(), 1):
        body = unstamped(line.split(";", 1)[0])
        rest = _GROUP.sub(" ", body).strip()
        if rest:
            raise ModelError(f"plan line {number}: expected (action) groups, got {quote(rest)}")
        for group in _GROUP.findall(body):
            words = group.split()
            if len(words) != 1 or words[0].lower() not in index:
                raise ModelError(f"plan line {number}: {quote('(' + group.strip() + ')')} is no action "
                                 "of this puzzle's exported PDDL")
            moves.append(task.actions[index[words[0].lower()]].name)
    return moves


# -- exporters: the generic ones, then those a family declares ------------------------------------
def export_kinds(desc: Any) -> tuple[str, ...]:
    """The export formats to offer for a family: the generic ones, then its declared ones."""
    return GENERIC_EXPORTS + tuple(k for k in desc.exports if k not in GENERIC_EXPORTS)


def exporter_supports(model: Any, kind: str) -> str | None:
    """None when an exporter of `kind` takes this model, else why not. PDDL: whenever the model
    compiles to a planning task; other kinds: the family's declared exporter."""
    if kind in GENERIC_EXPORTS:
        from puzzleplan.models.task.compile import supports
        reason = supports(model)
        return None if reason is None else f"no PDDL export: {reason}"
    from puzzleplan.models.family import part
    writer = part(model, "exports", kind)
    if writer is None:
        return f"{model.family} declares no {kind} export"
    check = getattr(writer, "supports", None)
    return check(model) if callable(check) else None


def exporter(model: Any, kind: str) -> Callable[[Any], Any]:
    """The writer of `kind` for this model (ValueError naming why there is none)."""
    reason = exporter_supports(model, kind)
    if reason is not None:
        raise ValueError(reason)
    if kind == "pddl":
        return task_pddl
    from puzzleplan.models.family import part
    return part(model, "exports", kind)


def pddl_for(model: Any) -> tuple[str, str]:
    """Domain and problem text of the model (ValueError when it has no planning-task form)."""
    return exporter(model, "pddl")(model)
