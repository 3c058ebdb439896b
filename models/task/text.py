"""A task written out: its size in one mapping, the whole task as text or as JSON data.

What `puzzleplan compile FILE [--dump] [--json]` prints. The text dump reads like a planner's
(variables with their values, the initial state, the goal, one line per action:
`name [cost]: pre -> eff`), the JSON is the same content as plain data (values by name).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from puzzleplan.models.task.ir import Task
from puzzleplan.plans.core.words import count


def summary(task: Task) -> dict[str, Any]:
    """The task's size: variables, domain sizes, actions, facts, costs."""
    sizes = task.sizes
    costs = Counter(a.cost for a in task.actions)
    return {
        "name": task.name, "family": task.family, "metric": task.metric,
        "variables": len(sizes), "domain_sizes": dict(sorted(Counter(sizes).items())),
        "facts": sum(sizes), "actions": len(task.actions),
        "distinct_move_names": len({a.name for a in task.actions}),
        "goal_facts": len(task.goal), "mutex_groups": len(task.mutexes),
        "unit_cost": task.unit_cost, "action_costs": {str(c): n for c, n in sorted(costs.items())},
        "largest_precondition": max((len(a.pre) for a in task.actions), default=0),
        "largest_effect": max((len(a.eff) for a in task.actions), default=0),
    }


def summary_text(task: Task) -> str:
    s = summary(task)
    domains = ", ".join(f"{n} of size {size}" for size, n in s["domain_sizes"].items())
    costs = ("every action costs 1" if s["unit_cost"] else
             "action costs " + ", ".join(f"{c}: {n}" for c, n in s["action_costs"].items()))
    return (f"task:       {task.name} ({task.family or 'task'}, metric {task.metric})\n"
            f"variables:  {s['variables']} ({domains}); {count(s['facts'], 'fact')}\n"
            f"actions:    {s['actions']} ({s['distinct_move_names']} move names; {costs})\n"
            f"            at most {s['largest_precondition']} preconditions and {s['largest_effect']} effects each\n"
            f"goal:       {count(s['goal_facts'], 'fact')}\n"
            f"mutexes:    {s['mutex_groups']} groups")


def _facts(task: Task, facts: Any) -> str:
    return ", ".join(task.fact_name(f) for f in facts) or "(none)"


def dump_text(task: Task) -> str:
    """The whole task, one line per variable and per action."""
    lines = [summary_text(task), "", "variables:"]
    for v in task.variables:
        lines.append(f"  {v.name}: {' '.join(v.values)}")
    lines += ["init:", "  " + _facts(task, enumerate(task.init)), "goal:", "  " + _facts(task, task.goal)]
    if task.mutexes:
        lines.append("mutexes:")
        lines += ["  " + _facts(task, group) for group in task.mutexes]
    lines.append("actions:")
    for a in task.actions:
        cost = "" if a.cost == 1 else f" [cost {a.cost}]"
        lines.append(f"  {a.name}{cost}: {_facts(task, a.pre)} -> {_facts(task, a.eff)}")
    return "\n".join(lines)


def dump_data(task: Task) -> dict[str, Any]:
    """The whole task as JSON-ready data (values by name)."""
    def facts(fs: Any) -> dict[str, str]:
        return {task.variables[v].name: task.variables[v].values[x] for v, x in fs}
    return {
        "summary": summary(task),
        "variables": [{"name": v.name, "values": list(v.values)} for v in task.variables],
        "init": facts(enumerate(task.init)),
        "goal": facts(task.goal),
        "mutexes": [[task.fact_name(f) for f in group] for group in task.mutexes],
        "actions": [{"name": a.name, "pre": facts(a.pre), "eff": facts(a.eff), "cost": a.cost} for a in task.actions],
    }
