"""Every optimal plan, or only how many there are: breadth-first layers with path counts.

Like seed 004, which lets its threads collect every goal state before choosing the cheapest, this
does not stop at the first goal it meets: it finishes the first layer that holds a goal, so all
goal states at the optimal depth d are known. Along the way each state keeps the number of
shortest paths reaching it (the sum of its parents' counts over the edges from the previous
layer), so the number of optimal plans is the sum of the goal states' counts. To list the plans,
a backward pass marks the states of each layer that lead to a goal at depth d, and a depth-first
walk over that layered DAG yields every plan once.

A plan is a sequence of moves: two different moves between the same two states make two plans.
Plans end at the first goal they reach (a plan through a goal at depth d would be longer than d).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.core.contracts import Action, Model, State
from puzzleplan.plans.check import reads_runs
from puzzleplan.plans.core.types import Plan, Stats, Status
from puzzleplan.plans.core.words import all_explored, count as counted, metric_count
from puzzleplan.plans.search.breadth_first import CAPPED, EXHAUSTED, sweep
from puzzleplan.plans.search.common import POLL_EVERY


@dataclass
class OptimalPlans:
    """The optimal plans of one instance (or their count)."""

    status: Status                      # optimal, unsolvable, no_plan_within_cap, limit_reached or unsupported
    length: int | None = None           # the optimal length
    count: int = 0                      # how many distinct optimal plans there are (exact)
    plans: list[list[str]] | None = None  # the plans found (None with count_only)
    goal_states: int = 0                # goal states at the optimal depth
    complete: bool = True               # False when `limit` (or a search limit) cut the listing
    message: str = ""
    stats: Stats = field(default_factory=Stats)
    cut_short: bool = False             # a search limit or Ctrl-C ended the listing (not `limit`)
    metric: str = "step"                # the model's: `length` counts pushes under "pushes"
    spaced: bool = False                # plans always space-separated (check.reads_runs: Plan.spaced)

    @property
    def exit_code(self) -> int:
        """The status's exit code; 3 (a limit) when a search limit cut the listing short."""
        return Status.LIMIT_REACHED.exit_code if self.cut_short and not self.complete else self.status.exit_code

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "length": self.length,
            "unit": "pushes" if self.metric == "pushes" else "moves",
            "count": self.count,
            "goal_states": self.goal_states,
            "plans": self.plans,
            "complete": self.complete,
            "message": self.message,
            "stats": self.stats.as_dict(),
        }

    def text(self) -> str:
        """Lines for the command line."""
        if self.status is not Status.OPTIMAL:
            return f"status:  {self.status.value}" + (f": {self.message}" if self.message else "")
        what = "push-optimal push sequence" if self.metric == "pushes" else "optimal plan"   # each walked shortest
        lines = [f"status:  optimal: {counted(self.count, what)} of {metric_count(self.metric, self.length)}, "
                 f"ending in {counted(self.goal_states, 'goal state')}"]
        if self.plans is not None:
            shown = len(self.plans)
            if shown < self.count:
                lines.append(f"listed:  the first {shown:,} ({self.message})" if self.message
                             else f"listed:  the first {shown:,}")
            for moves in self.plans:
                lines.append("plan:    " + Plan(tuple(moves), len(moves), spaced=self.spaced).text())
        s = self.stats
        lines.append(f"stats:   {s.nodes:,} nodes, {s.generated:,} generated, {s.states:,} states stored, "
                     f"{s.seconds:.3f} s")
        return "\n".join(lines)


def all_optimal_plans(model: Model, ctx: SearchContext | None = None, count_only: bool = False,
                      limit: int | None = None, accept: Callable[[list[str]], None] | None = None) -> OptimalPlans:
    """Count (and unless `count_only`, list up to `limit`) the optimal plans of `model`.

    Honours the model's cap (`max_moves`) and the context's limits; a limit hit while counting
    gives status limit_reached, one hit while listing keeps the exact count and the plans so far.
    A puzzle whose actions cost other than 1 gets `unsupported`: layers count moves, not cost,
    and with actions of cost 0 the cheapest plans can be infinitely many.
    """
    ctx = ctx or SearchContext()
    stats = ctx.stats
    ctx.phase = "all-optimal"
    if getattr(model, "unit_cost", True) is False:
        return OptimalPlans(Status.UNSUPPORTED, stats=ctx.finish(), message=(
            "--all-optimal counts plans by moves, and this puzzle's actions have costs other than 1"
            + (" (--metric step counts moves)" if "step" in getattr(type(model), "metrics", ()) else "")))
    reason = model.unsolvable_reason()
    if reason is not None:
        return OptimalPlans(Status.UNSOLVABLE, message=reason, stats=ctx.finish())
    try:
        found = _count(model, ctx)
    except (LimitReached, KeyboardInterrupt, MemoryError) as exc:
        why = "interrupted (Ctrl-C)" if isinstance(exc, KeyboardInterrupt) else str(exc) or "out of memory"
        return OptimalPlans(Status.LIMIT_REACHED, message=why, stats=ctx.finish())
    if isinstance(found, OptimalPlans):
        found.stats = ctx.finish()
        return found
    layers, depth_of, goals, count = found
    length = len(layers) - 1
    result = OptimalPlans(Status.OPTIMAL, length, count, None, len(goals), metric=getattr(model, "metric", "step"),
                          spaced=not reads_runs(model))
    if not count_only:
        result.plans = []
        try:
            _enumerate(model, ctx, layers, depth_of, goals, limit, result.plans, accept)
        except (LimitReached, KeyboardInterrupt, MemoryError) as exc:
            result.message = "interrupted (Ctrl-C)" if isinstance(exc, KeyboardInterrupt) else str(exc) or "out of memory"
            result.cut_short = True
        result.complete = len(result.plans) == count
        if not result.complete and not result.message:
            result.message = f"listing limited to {limit} plans" if limit is not None else ""
    stats.states = len(depth_of)
    result.stats = ctx.finish()
    return result


def _count(model: Model, ctx: SearchContext) -> Any:
    """BFS to the first layer with a goal, counting shortest paths. Or an OptimalPlans verdict."""
    start = model.initial()
    cap = model.max_moves
    depth_of: dict[State, int] = {start: 0}
    paths: dict[State, int] = {start: 1}
    layers: list[list[State]] = []
    goals: list[State] = []
    is_goal = model.is_goal
    ways = 0   # shortest paths to the state being expanded
    ctx.stats.states = 1

    def on_layer(layer: list[State], depth: int) -> bool:
        layers.append(layer)
        goals.extend(s for s in layer if is_goal(s))
        return bool(goals)   # the first layer holding a goal is the last one

    def on_state(state: State, depth: int) -> None:
        nonlocal ways
        ways = paths[state]

    def visit(state: State, action: Action, child: State, depth: int) -> bool:
        d = depth_of.get(child)
        if d is None:
            depth_of[child] = depth
            paths[child] = ways
            return True
        if d == depth:
            paths[child] += ways
        return False

    end = sweep(model, ctx, [start], visit, cap=cap, table=depth_of, on_state=on_state, on_layer=on_layer)
    if end.ended == CAPPED:
        assert cap is not None
        unit = metric_count(getattr(model, "metric", "step"), cap)
        return OptimalPlans(Status.NO_PLAN_WITHIN_CAP, message=f"no plan within {unit}")
    if end.ended == EXHAUSTED:
        return OptimalPlans(Status.UNSOLVABLE,
                            message=all_explored(len(depth_of)))
    count = sum(paths[g] for g in goals)
    return layers, depth_of, goals, count


def _enumerate(model: Model, ctx: SearchContext, layers: list[list[Any]], depth_of: dict[Any, int],
               goals: list[Any], limit: int | None, out: list[list[str]],
               accept: Callable[[list[str]], None] | None = None) -> None:
    """Append every optimal plan (at most `limit`) to `out`, in successor order; `accept` (the
    plan checker) sees each plan first, within the same limits."""
    stats = ctx.stats
    length = len(layers) - 1
    # useful[k]: states at depth k with a path of shortest edges to a goal at depth `length`
    useful: list[set[Any]] = [set() for _ in range(length + 1)]
    useful[length] = set(goals)
    for k in range(length - 1, -1, -1):
        ahead = useful[k + 1]
        for state in layers[k]:
            stats.nodes += 1
            if stats.nodes % POLL_EVERY == 0:
                ctx.poll()
            for _, child in model.successors(state):
                stats.generated += 1
                if child in ahead:
                    useful[k].add(state)
                    break
    if limit is not None and limit <= 0:
        return
    start = layers[0][0]
    if length == 0:
        if accept is not None:
            accept([])
        out.append([])
        return

    def steps(state: Any, k: int) -> list[tuple[Any, Any]]:
        """The moves on from `state` (at depth k) along optimal plans; counted as an expansion."""
        stats.nodes += 1
        if stats.nodes % POLL_EVERY == 0:
            ctx.poll()
        ahead = useful[k + 1]
        children = list(model.successors(state))
        stats.generated += len(children)
        return [(a, c) for a, c in children if c in ahead and depth_of.get(c) == k + 1]

    actions: list[Any] = []
    stack = [iter(steps(start, 0))]
    while stack:
        step = next(stack[-1], None)
        if step is None:
            stack.pop()
            if actions:
                actions.pop()
            continue
        action, child = step
        if len(stack) == length:  # child is a goal at the optimal depth
            plan = model.plan_moves(actions + [action])
            if accept is not None:
                accept(plan)
            out.append(plan)
            if limit is not None and len(out) >= limit:
                return
            continue
        actions.append(action)
        stack.append(iter(steps(child, len(stack))))
