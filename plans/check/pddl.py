"""The PDDL family's plan checker: unified-planning's plan validator on the lifted problem.

Why not the generic task checker: a PDDL model's task comes from the grounder (models/pddl/
ground.py: static atoms folded, only changing atoms kept, costs evaluated), which every engine
and encoding of the family works on, so a grounding mistake would replay cleanly on the task it
made. Here the domain and the problem are parsed again from their texts and each move
`(action object ...)` is checked on the lifted problem by unified-planning's
SequentialPlanValidator (a part of the library the grounder does not use): preconditions with
typing, negation and equality, effects, the goal, and the plan's cost under the problem's
`(:metric minimize (total-cost))` (1 a move without one). A validator is what the field uses to
check plans (VAL); writing another would be the hand-written copy of a library's work.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Sequence

from puzzleplan.plans.check.common import IllegalMove
from puzzleplan.plans.check.task import normal_name
from puzzleplan.plans.core.words import clip

_UNMET = re.compile(r"Preconditions \[(.*)\] of .* are not satisfied", re.DOTALL)


@lru_cache(maxsize=4)
def _problem(domain: str, problem: str) -> Any:
    from unified_planning.io import PDDLReader
    return PDDLReader().parse_problem_string(domain, problem)


def replay(model: Any, tokens: Sequence[str], notation: str | None = None) -> tuple[bool, int]:
    """Validate `tokens` on the model's PDDL: (goal reached, plan cost); IllegalMove on a bad move."""
    import unified_planning.plans as up_plans
    from unified_planning.engines import SequentialPlanValidator
    from unified_planning.engines.results import FailedValidationReason, ValidationResultStatus
    problem = _problem(*model.pddl_texts)
    without_goal = _as_checked(problem)   # applicability and cost first, whatever the goal
    without_goal.clear_goals()
    steps = [_instance(without_goal, i, token) for i, token in enumerate(tokens, 1)]
    validator = SequentialPlanValidator()
    # its problem-kind check refuses numeric fluents left undefined in :init (`length` of routes
    # no action sails), which the plans never read; a read of one would still fail below
    validator.skip_checks = True
    try:
        result = validator.validate(without_goal, up_plans.SequentialPlan(steps))
    except Exception as exc:   # unified-planning raises its own errors and plain ones alike
        raise IllegalMove(len(tokens), tokens[-1] if tokens else "", clip(f"the validator failed: {exc}", 160))
    if result.status is not ValidationResultStatus.VALID:
        if result.reason is FailedValidationReason.INAPPLICABLE_ACTION:
            index = next(i for i, step in enumerate(steps) if step is result.inapplicable_action)
            raise IllegalMove(index + 1, tokens[index], _why(result))
        raise IllegalMove(len(tokens), tokens[-1] if tokens else "", _why(result))
    cost = len(steps)
    if problem.quality_metrics:
        [value] = result.metric_evaluations.values()
        cost = int(value)
    with_goal = _as_checked(problem)
    moves = [_instance(with_goal, i, token) for i, token in enumerate(tokens, 1)]
    reached = validator.validate(with_goal, up_plans.SequentialPlan(moves)).status is ValidationResultStatus.VALID
    return reached, cost


def unmet(model: Any, tokens: Sequence[str]) -> str:
    """The goal atoms the moves leave unmet (words for `check`; the validator said which moves
    are legal, the grounded task only names what is missing)."""
    from puzzleplan.plans.check import task
    return task.unmet(model, tokens)


def _as_checked(problem: Any) -> Any:
    """A copy of the problem to validate on (the moves must name its own actions). Without
    `(:metric minimize (total-cost))` the cost counter means nothing (Fast Downward counts 1 a
    move): its increases go, so an undefined (total-cost) or cost function cannot fail a move."""
    copy = problem.clone()
    if problem.quality_metrics:
        return copy
    for action in copy.actions:
        kept = [e for e in action.effects if not (e.fluent.is_fluent_exp() and e.fluent.fluent().name == "total-cost")]
        if len(kept) != len(action.effects):
            action.clear_effects()
            for effect in kept:
                action._add_effect_instance(effect)   # unified-planning has no public call to re-add one
    return copy


def _instance(problem: Any, index: int, token: str) -> Any:
    """The action instance a move `(name object ...)` names (IllegalMove when it names none)."""
    import unified_planning.plans as up_plans
    text = normal_name(token, fold_case=True)
    if not (text.startswith("(") and text.endswith(")")) or len(text) < 3:
        raise IllegalMove(index, token, "expected a PDDL action: (name object ...)")
    name, *args = text[1:-1].split()
    actions = {a.name.lower(): a for a in problem.actions}
    action = actions.get(name)
    if action is None:
        raise IllegalMove(index, token, f"the domain has no action {name}")
    if len(args) != len(action.parameters):
        raise IllegalMove(index, token, f"{action.name} takes {len(action.parameters)} objects, got {len(args)}")
    objects = {o.name.lower(): o for o in problem.all_objects}
    chosen = []
    for arg, parameter in zip(args, action.parameters):
        obj = objects.get(arg)
        if obj is None:
            raise IllegalMove(index, token, f"the problem has no object {arg}")
        if not parameter.type.is_compatible(obj.type):   # an object of a subtype fits
            raise IllegalMove(index, token, f"{arg} is a {obj.type}, but ?{parameter.name} of {action.name} "
                                            f"takes a {parameter.type}")
        chosen.append(obj)
    return up_plans.ActionInstance(action, chosen)


def _why(result: Any) -> str:
    """The validator's reason in a line (it names an action's preconditions, not which fail)."""
    messages = [m.message for m in result.log_messages or []]
    for message in messages:
        unmet = _UNMET.search(message)
        if unmet:
            return clip(f"its preconditions ({unmet.group(1)}) do not all hold", 160)
    step = result.inapplicable_action
    if step is not None:   # a precondition on static facts or equality fails: the validator says only "invalid"
        return clip(f"its preconditions ({_preconditions(step)}) do not all hold", 160)
    return clip(messages[0] if messages else str(result.reason), 160)


def _preconditions(step: Any) -> str:
    """An action instance's preconditions, its objects put for the parameters' names."""
    names = {p.name: str(o) for p, o in zip(step.action.parameters, step.actual_parameters)}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b") if names else None
    text = ", ".join(str(c) for c in step.action.preconditions)
    return pattern.sub(lambda m: names[m.group(1)], text) if pattern else text
