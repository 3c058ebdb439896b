"""A parsed PDDL problem, grounded by unified-planning, as a planning task of the IR.

What is read: STRIPS with typing, negative preconditions, equality and action costs
(`(increase (total-cost) N)`, N a number or a static function, under
`(:metric minimize (total-cost))`; without that metric every action costs 1, as in Fast
Downward). Anything else the problem uses (conditional effects, quantifiers, disjunctions,
numeric fluents, durative actions, other metrics) is refused naming the feature.

Grounding is unified-planning's own grounder (`up_grounder`: it enumerates the parameter tuples
per action, pruned by static facts, and folds static facts and cost functions away). On its
result, here:

- each ground atom an action can change becomes one binary variable (values false, true),
  named as the atom is written, `(at ball1 rooma)`; negative preconditions and goals are
  value-false facts;
- atoms no reachable action changes keep their initial value and are folded away; actions are
  kept only when a delete-relaxed reachability pass from the initial state can apply them (its
  negative preconditions count as satisfiable once the atom can be false);
- an action adds before it deletes, as PDDL says: an atom both added and deleted ends true;
- each action's name is its Fast Downward plan line, `(pick ball1 rooma left)`, lower case, so
  plans print, and read back, in that format.
"""
from __future__ import annotations

import warnings
from typing import Any, Iterable

from puzzleplan.models.base import ModelError
from puzzleplan.models.task.ir import Task, TaskError, Variable, action
from puzzleplan.models.pddl.source import stoppable
from puzzleplan.models.task.checkpoints import checkpoint

# parameter tuples the grounder may enumerate before its static pruning (about 0.1-1 ms each);
# within it the run's time and memory limits stop a grounding that takes long (checkpoints.polled)
MAX_GROUND_TUPLES = 1_000_000

# What unified-planning's problem kind may say for the fragment read here.
ALLOWED_FEATURES = frozenset({
    "ACTION_BASED", "FLAT_TYPING", "HIERARCHICAL_TYPING", "NEGATIVE_CONDITIONS", "EQUALITIES",
    "ACTIONS_COST", "PLAN_LENGTH", "INT_NUMBERS_IN_ACTIONS_COST", "REAL_NUMBERS_IN_ACTIONS_COST",
    "STATIC_FLUENTS_IN_ACTIONS_COST",
})
# Features that only a (total-cost) counter without a metric or static cost functions bring in.
COST_FEATURES = frozenset({"INCREASE_EFFECTS", "INT_FLUENTS", "REAL_FLUENTS", "SIMPLE_NUMERIC_PLANNING",
                           "GENERAL_NUMERIC_PLANNING", "FLUENTS_IN_NUMERIC_ASSIGNMENTS",
                           "UNDEFINED_INITIAL_NUMERIC"})
FEATURE_WORDS = {
    "CONDITIONAL_EFFECTS": "conditional effects (when)",
    "DISJUNCTIVE_CONDITIONS": "disjunctive preconditions (or, imply)",
    "EXISTENTIAL_CONDITIONS": "existential preconditions (exists)",
    "UNIVERSAL_CONDITIONS": "universal preconditions (forall)",
    "FORALL_EFFECTS": "universal effects (forall)",
    "CONTINUOUS_TIME": "durative actions",
    "DISCRETE_TIME": "durative actions",
    "SIMPLE_NUMERIC_PLANNING": "numeric fluents",
    "GENERAL_NUMERIC_PLANNING": "numeric fluents",
    "INT_FLUENTS": "numeric fluents",
    "REAL_FLUENTS": "numeric fluents",
    "OBJECT_FLUENTS": "object fluents",
    "FINAL_VALUE": "a metric other than minimize (total-cost)",
    "MAKESPAN": "a makespan metric",
}
TOTAL_COST = "total-cost"


def unsupported(problem: Any) -> list[str]:
    """The features the problem uses that puzzleplan does not read, in words (empty: fine)."""
    features = set(problem.kind.features) - ALLOWED_FEATURES
    numeric = [f for f in problem.fluents if not f.type.is_bool_type()]
    static = problem.get_static_fluents()
    if all(f.name == TOTAL_COST or f in static for f in numeric):
        features -= COST_FEATURES
    words = sorted({FEATURE_WORDS.get(f, f.lower().replace("_", " ")) for f in features})
    return words


def ground_size(problem: Any) -> int:
    """How many parameter tuples grounding enumerates before pruning (a bound on its work)."""
    from unified_planning.model.types import domain_size
    total = 0
    for act in problem.actions:
        size = 1
        for param in act.parameters:
            size *= domain_size(problem, param.type)
        total += size
    return total


def _atom(node: Any) -> str:
    args = " ".join(a.object().name if a.is_object_exp() else str(a) for a in node.args)
    return f"({node.fluent().name}{' ' + args if args else ''})".lower()


def _literals(nodes: Iterable[Any], what: str) -> dict[Any, bool] | None:
    """Ground conditions as {atom node: value}; None when one is false or two contradict."""
    out: dict[Any, bool] = {}
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if node.is_and():
            stack.extend(node.args)
            continue
        if node.is_bool_constant():
            if not node.bool_constant_value():
                return None
            continue
        value = True
        if node.is_not():
            node, value = node.arg(0), False
        if not (node.is_fluent_exp() and node.fluent().type.is_bool_type()):
            raise ModelError(f"{what}: the condition {str(node)[:80]} is not a (possibly negated) atom after grounding")
        if out.get(node, value) != value:
            return None
        out[node] = value
    return out


def _cost(metric: Any, ground: Any, where: str) -> int:
    if metric is None:
        return 1
    expr = metric.get_action_cost(ground)
    if expr is None:
        return 0
    if not (expr.is_int_constant() or expr.is_real_constant()):
        raise ModelError(f"{where}: the cost {str(expr)[:60]} is not a number after grounding")
    value = expr.constant_value()
    if value < 0 or value != int(value):
        raise ModelError(f"{where}: action costs must be whole numbers >= 0, got {value}")
    return int(value)


def ground_task(problem: Any, name: str, where: str, goal_where: str | None = None) -> Task:
    """The problem, within the fragment puzzleplan reads (`unsupported` is empty), as a Task
    (ModelError naming `where` for what cannot be grounded, and `goal_where`, the problem file,
    for its goal)."""
    size = ground_size(problem)
    if size > MAX_GROUND_TUPLES:
        raise ModelError(f"{where} grounding would enumerate {size:,} parameter tuples "
                         f"(at most {MAX_GROUND_TUPLES:,})")
    try:
        return _task(problem, name, _ground_actions(problem, where), _literals(problem.goals, f"{goal_where or where} goal"))
    except TaskError as exc:   # e.g. a cost beyond what the task allows: say which file it came from
        raise ModelError(f"{where} {exc}") from None


def _grounder(prune: bool) -> Any:
    from unified_planning.engines.compilers.grounder import Grounder
    grounder = Grounder(prune_actions=prune)
    grounder.skip_checks = True      # the kind was checked above, more narrowly than the grounder would
    return grounder


def _ground_actions(problem: Any, where: str) -> list[tuple[str, dict, dict, int]]:
    """(move name, preconditions, effects, cost) of each ground action unified-planning keeps."""
    from unified_planning.engines import CompilationKind
    from unified_planning.plans import ActionInstance
    from puzzleplan.plans.core.context import LimitReached
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            try:
                result = stoppable(lambda: _grounder(prune=True).compile(problem, CompilationKind.GROUNDING))
            except ValueError:
                # unified-planning 1.3's pruning by static facts removes an object twice when a
                # parameter appears in two static preconditions and the object satisfies neither
                # (list.remove fails): ground every tuple instead (bounded by MAX_GROUND_TUPLES);
                # the actions a false static fact rules out are dropped below all the same
                result = stoppable(lambda: _grounder(prune=False).compile(problem, CompilationKind.GROUNDING))
        except LimitReached:
            raise
        except Exception as exc:  # e.g. a cost function without a value for some tuple
            raise ModelError(f"{where} grounding failed: {type(exc).__name__}: {str(exc)[:160]}") from None
    metrics = [m for m in result.problem.quality_metrics if m.is_minimize_action_costs()]
    metric = metrics[0] if metrics else None
    checkpoint()
    raw = []
    for ground in result.problem.actions:
        checkpoint()
        lifted = result.map_back_action_instance(ActionInstance(ground))
        args = " ".join(p.object().name for p in lifted.actual_parameters)
        move = f"({lifted.action.name}{' ' + args if args else ''})".lower()
        pre = _literals(ground.preconditions, f"{where} action {move}")
        if pre is None:
            continue
        eff: dict[Any, bool] = {}
        for e in ground.effects:
            if e.is_conditional():
                raise ModelError(f"{where} action {move}: conditional effects are not supported")
            if not e.fluent.fluent().type.is_bool_type():
                if e.fluent.fluent().name == TOTAL_COST:
                    continue   # a cost counter without a metric: every action costs 1
                raise ModelError(f"{where} action {move}: numeric effects are not supported")
            eff[e.fluent] = eff.get(e.fluent, False) or e.value.bool_constant_value()   # adds win
        if eff:
            raw.append((move, pre, eff, _cost(metric, ground, f"{where} action {move}")))
    return raw


def _task(problem: Any, name: str, raw: list[tuple[str, dict, dict, int]], goal: dict[Any, bool] | None) -> Task:
    """Reachable actions over binary variables for the atoms they change; constants folded."""
    init_cache: dict[Any, bool] = {}

    def initially(atom: Any) -> bool:
        if atom not in init_cache:
            init_cache[atom] = problem.initial_value(atom).bool_constant_value()
        return init_cache[atom]
    can = {(atom, value) for _, pre, eff, _ in raw for atom, value in (*pre.items(), *eff.items())}
    reached = {fact for fact in can if initially(fact[0]) == fact[1]}
    live = [False] * len(raw)
    changed = True
    while changed:                  # delete-relaxed reachability
        changed = False
        for i, (_, pre, eff, _) in enumerate(raw):
            if not live[i] and all(fact in reached for fact in pre.items()):
                live[i] = changed = True
                reached.update(eff.items())
    kept = [r for r, ok in zip(raw, live) if ok]
    moving = {atom for _, _, eff, _ in kept for atom, value in eff.items() if value != initially(atom)}
    names = {atom: _atom(atom) for atom in moving}
    for atom, value in (goal or {}).items():   # a goal no action reaches stays: the task stays unsolvable
        if atom not in moving and initially(atom) != value:
            names[atom] = _atom(atom)
    order = sorted(names, key=names.__getitem__)
    index = {atom: i for i, atom in enumerate(order)}
    variables = [Variable(names[a], ("false", "true")) for a in order]
    init = [int(initially(a)) for a in order]
    actions = [action(move, {index[a]: int(v) for a, v in pre.items() if a in index},
                      {index[a]: int(v) for a, v in eff.items() if a in index}, cost)
               for move, pre, eff, cost in kept]
    if goal is None:                # the goal contradicts itself: one variable no action sets
        variables.append(Variable("(contradictory goal)", ("false", "true")))
        init.append(0)
        goal_facts: tuple[tuple[int, int], ...] = ((len(variables) - 1, 1),)
    else:
        goal_facts = tuple(sorted((index[a], int(v)) for a, v in goal.items() if a in index))
    return Task(name, tuple(variables), tuple(init), goal_facts, tuple(a for a in actions if a.eff),
                metric="cost", family="pddl")
