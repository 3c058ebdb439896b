"""What the commands print: results as text or one JSON object, boards along a plan."""
from __future__ import annotations

import json
import sys
from typing import Any, Callable, Sequence

from puzzleplan.plans.cli.common import describe
from puzzleplan.plans.core.types import Result, Status
from puzzleplan.plans.core.words import bound_words, count, metric_count


def print_json(payload: Any) -> None:
    """One JSON value on stdout (one line)."""
    print(json.dumps(payload))


def states_along(model: Any, moves: Sequence[str]) -> list[Any]:
    """The boards of a checked plan, for --show (a family whose actions are not single moves,
    such as Sokoban's pushes, replays them itself)."""
    if hasattr(model, "states_along"):
        return model.states_along(moves)
    from puzzleplan.plans.check import states_by_move_names
    return states_by_move_names(model, moves)


def print_result(model: Any, result: Result, show: bool, colour: str = "auto") -> None:
    """`solve`'s text: the puzzle, engine, status, plan, statistics (and boards with --show).

    colour: "auto" paints the boards in their pictures' colours only when stdout is a terminal,
    NO_COLOR is unset and TERM is not dumb; "always", "never" (plans/render/terminal.py)."""
    print(f"puzzle:  {describe(model)}")
    print(f"engine:  {result.engine}")
    status = result.status
    if result.plan is not None:
        proof = "proved optimal" if status is Status.OPTIMAL else "not proved optimal"
        cap = "" if model.max_moves is None else f", within the cap of {model.max_moves}"
        why = f" ({result.message})" if status is Status.SOLVED and result.message else ""
        print(f"status:  {status.value}: {plan_counts(model, result)}{cap}, {proof}{why}")
        print(f"plan:    {result.plan.text()}")
    else:
        print(f"status:  {status.value}" + (f": {result.message}" if result.message else ""))
        if result.lower_bound is not None:
            print(f"bound:   {bound_words(model, result.lower_bound)}")
    s = result.stats
    timing = f"{s.seconds:.3f} s"
    if "setup_seconds" in s.extra and "search_seconds" in s.extra:
        timing += f" ({s.extra['setup_seconds']:.3f} s tables and kernels, {s.extra['search_seconds']:.4f} s search)"
    print(f"stats:   {s.nodes:,} nodes, {s.generated:,} generated, {s.states:,} states stored, {timing}")
    if show and result.plan is not None:
        states = states_along(model, result.plan.moves)
        paint = painter(model, colour)
        legend = getattr(model, "legend", None)   # boards that draw pieces by other names than the moves'
        if legend is not None and legend():
            print(f"legend:  {legend()}")
        for i, state in enumerate(states):
            label = "start" if i == 0 else f"move {i}: {result.plan.moves[i - 1]}"
            print(f"\n{label}\n{paint(state)}")


def plan_counts(model: Any, result: Result) -> str:
    """The plan's size: '24 moves', '12 moves (30 cost)' when the metric counts otherwise; under pushes
    '97 pushes, 230 moves', saying whether the moves are the fewest among push-optimal plans;
    Sokoban under moves '78 moves, 18 pushes (pushes not minimised)'."""
    plan = result.plan
    assert plan is not None
    if model.metric == "pushes":
        text = f"{count(plan.cost, 'push', 'pushes')}, {count(plan.length, 'move')}"
        # only the push engine's second search minimises the moves; any other engine says so
        if result.stats.extra.get("fewest_moves") is True and result.status is Status.OPTIMAL:
            text += " (the fewest moves of any plan with that many pushes)"
        else:
            text += " (moves not minimised)"
        return text
    if model.metric == "moves" and model.family == "sokoban":   # the pushes too, which a moves search leaves as found
        pushes = sum(1 for m in plan.moves if str(m).isupper())
        return f"{count(plan.length, 'move')}, {count(pushes, 'push', 'pushes')} (pushes not minimised)"
    cost = "" if plan.cost == plan.length else f" ({plan.cost} {model.metric})"
    return f"{count(plan.length, 'move')}{cost}"


def painter(model: Any, colour: str = "auto") -> Callable[[Any], str]:
    """A state's text picture for the terminal: `model.render`, in colour when `colour` asks
    for it (see `print_result`). A picture that cannot be painted is printed plain."""
    from puzzleplan.plans.render import terminal
    if not terminal.wanted(colour, sys.stdout):
        return model.render
    system = terminal.colour_system()

    def paint(state: Any) -> str:
        text = model.render(state)
        try:
            return terminal.paint(model, state, text, system)
        except Exception:   # a picture that fails must not cost the user the plan's boards
            return text
    return paint


def print_exploration(model: Any, out: Any) -> None:
    """`explore`'s text: reachable states, depth, nearest goal, the count per depth."""
    print(f"puzzle:        {describe(model)}")
    if not out.complete:
        print(f"status:        limit_reached: {out.message} (counts below are partial)")
    print(f"reachable:     {count(out.reachable, 'state')}")
    print(f"max depth:     {out.max_depth}")
    if out.goal_distance is not None:
        nearest = metric_count(getattr(model, "metric", "step"), out.goal_distance)
    else:   # only a complete sweep proves that no goal can be reached
        nearest = "no goal is reachable" if out.complete else "none found before the exploration stopped"
    found = count(out.goals, 'goal state') + (" in all" if out.complete else " found")
    print(f"nearest goal:  {nearest}" + (f" ({found})" if out.goals or not out.complete else ""))
    print("per depth:     " + " ".join(str(n) for n in out.per_depth))
    print(f"stats:         {out.stats.generated:,} generated, {out.stats.seconds:.3f} s")


def print_verification(model: Any, found: Any) -> None:
    """`verify`'s text: the certificate table and the verdict (plans.verify.Verification)."""
    print(f"puzzle:  {describe(model)}")
    native = found.native
    if found.optimal is None:
        if native is None or native.status.value != found.status:   # stopped after the native search, or before it
            print(found.summary())
        else:
            print(f"native {native.engine}: {native.status.value}: {native.message}")
        if native is not None and native.lower_bound is not None:   # what the search proved before it stopped
            print(f"bound:   {bound_words(model, native.lower_bound)}")
        return
    rows = found.certificates
    method, claim, result = (max([len(head)] + [len(getattr(r, head)) for r in rows])
                             for head in ("method", "claim", "result"))
    print(f"{'method':{method}}  {'claim':{claim}}  {'result':{result}}  seconds")
    for r in rows:
        print(f"{r.method:{method}}  {r.claim:{claim}}  {r.result:{result}}  {r.seconds:.3f}")
    if found.status != "disagreement":
        print(found.summary())
        return
    print("DISAGREEMENT:")
    for r in found.conflicting:
        plan = f": {' '.join(r.plan)}" if r.plan is not None else ""
        print(f"  {r.method} ({r.claim}): {r.result}{plan}")
    print(f"  {native.engine} (optimum {found.optimal}): {' '.join(native.plan.moves)}")
