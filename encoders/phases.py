"""The phases of the `sat` and `cpsat` engines after the horizon strategy (encoders/horizon.py).

1. length: the horizon strategy over the chosen encoding (the first satisfiable horizon).
2. fewest moves, for a parallel encoding (sas-exists) whose first plan may hold more moves
   than steps: the same encoding with one action per step (`parallel` off), asked from the
   first satisfiable horizon P up to the plan's length M - 1 (the UNSAT answers of phase 1
   already prove that no plan has fewer than P moves). Its first plan is move-optimal; if
   none comes, the phase-1 plan was.
3. cost, for a task with action costs (generic encodings only): the cheapest plan within a
   step horizon H (encoders/sat/cost.py for SAT; a CP-SAT objective). When every action costs
   at least 1, H is what makes the proof global (a plan cheaper than the first plan's cost C
   has at most (C-1) // min-cost steps), capped by the user's `max_horizon` (or its default
   limit). So does the number of the task's states less one when it is within the limit: a
   cheapest plan need not visit a state twice (cutting a loop never raises the cost), so one
   exists within that many steps, free actions or not. Otherwise, with free actions, H is the
   user's `max_horizon`, else COST_HORIZON_FACTOR x the horizon of the first plan. What is
   proved, exactly: "no plan of at most H steps costs less than C", which is a global optimum
   only when every cheaper plan would fit in H steps or C equals the admissible cost bound
   `floor` (CostAsk.global_proof).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generator, Iterable, Iterator, Sequence

from puzzleplan.encoders import horizon as strategies
from puzzleplan.encoders.base import Answer, HorizonResult, plan_steps
from puzzleplan.encoders.horizon import Outcome
from puzzleplan.models.task.ir import Action, Task

COST_HORIZON_FACTOR = 2

Item = HorizonResult | Outcome


def drain(items: Iterable[Item]) -> Generator[HorizonResult, None, Outcome]:
    """Pass a strategy's HorizonResults on; return its final Outcome."""
    outcome = None
    for item in items:
        if isinstance(item, Outcome):
            outcome = item
        else:
            yield item
    assert outcome is not None
    return outcome


@dataclass(frozen=True)
class CostAsk:
    """What the cost phase is asked (all costs in the task's units, horizons in steps)."""

    limit: int               # the largest horizon asked at all (max_horizon or its default)
    horizon: int | None      # the user's max_horizon: minimise within it
    cap: int | None          # a cost cap (--max-moves under a cost metric)
    floor: int               # an admissible lower bound on the cost
    min_cost: int            # the cheapest action's cost (0: a step bound never bounds the cost)
    any_plan: bool
    longest: int | None = None  # the task's states less one, when within `limit` (loop-free plans)

    def horizon_for(self, found_at: int, cost: int) -> int:
        """The step horizon to minimise within, given the first plan's horizon and cost: the
        horizon that makes the proof global, by the cost when every action costs at least 1 or
        by the number of states (no longer than the user's max_horizon, or the limit), else the
        user's max_horizon or COST_HORIZON_FACTOR x the first plan's horizon (within the limit)."""
        within = self.horizon if self.horizon is not None else self.limit
        proving = [n for n in ((cost - 1) // self.min_cost if self.min_cost >= 1 else None, self.longest)
                   if n is not None]
        if proving:
            chosen = min(within, *proving)
        else:
            chosen = within if self.horizon is not None else min(self.limit, COST_HORIZON_FACTOR * max(found_at, 1))
        return max(chosen, found_at)

    def global_proof(self, horizon: int, bound: int) -> bool:
        """Whether "no plan of <= horizon steps costs <= bound" rules out every plan of cost
        <= bound: the bound is below the admissible floor, or such plans cannot be longer (by
        the cost, or by the number of states)."""
        return (bound < self.floor or (self.min_cost >= 1 and bound // self.min_cost <= horizon)
                or (self.longest is not None and self.longest <= horizon))


def plan_actions(task: Task, moves: Sequence[str]) -> list[Action]:
    """The task actions of a plan given by move names (the applicable one of each name)."""
    state = list(task.init)
    out = []
    for name in moves:
        action = next(a for a in task.applicable(state) if a.name == name)
        state = list(action.apply(state))
        out.append(action)
    return out


def fewest_moves(outcome: Outcome, solve_at: Callable[[int], HorizonResult], mode: str, parity: int | None,
                 cap: int | None) -> Iterator[Item]:
    """Phase 2: a plan with the fewest moves after a parallel plan (see the module docstring).
    With `cap` (an any-plan request), one horizon only: a plan of at most `cap` moves."""
    assert outcome.moves is not None
    if outcome.no_plan_up_to is None or mode == "sweep":
        yield outcome                          # no proof to start from: the phase cannot help
        return
    assert outcome.steps == len(outcome.moves), "only a move-counting parallel encoding has this phase"
    longest = len(outcome.moves) - 1 if cap is None else min(cap, len(outcome.moves) - 1)
    strategy = "increasing" if cap is None else "fixed"
    inner = yield from drain(strategies.run(solve_at, strategy, outcome.no_plan_up_to + 1, longest, mode, parity))
    calls = outcome.calls + inner.calls
    if inner.moves is not None:
        inner.calls = calls
        yield inner
        return
    proved = max(outcome.no_plan_up_to, inner.no_plan_up_to if inner.no_plan_up_to is not None else -1)
    outcome.calls, outcome.no_plan_up_to = calls, proved
    outcome.optimal = proved >= len(outcome.moves) - 1
    yield outcome


def cheapest(outcome: Outcome, ask: CostAsk, task: Task,
             minimise: Callable[[int, int], Iterable[HorizonResult]]) -> Iterator[Item]:
    """Phase 3: the cheapest plan within a step horizon (see the module docstring).

    `minimise(H, upper)` yields the answers for "a plan of cost <= upper within H steps" and
    then cheaper bounds: SAT results carry extra["cost"] (and "cost_optimal" when the solver
    proved that cost minimal within H); UNSAT results extra["cost_bound"]."""
    assert outcome.moves is not None
    cost = sum(a.cost for a in plan_actions(task, outcome.moves))
    found_at = outcome.horizon if outcome.horizon is not None else len(outcome.moves)
    outcome.cost, outcome.cost_horizon = cost, found_at
    if cost <= ask.floor:
        outcome.cost_proved = outcome.cost_global = True
        yield outcome
        return
    if ask.any_plan and (ask.cap is None or cost <= ask.cap):
        yield outcome
        return
    upper = cost - 1 if ask.cap is None else min(cost - 1, ask.cap)
    H = ask.horizon_for(found_at, cost)
    outcome.cost_horizon = H
    if upper < ask.floor:                      # nothing cheaper can exist at all
        outcome.cost_proved = outcome.cost_global = True
        yield outcome
        return
    for result in minimise(H, upper):
        outcome.calls.append(result)
        yield result
        if result.answer is Answer.SAT:
            assert result.moves is not None
            outcome.moves, outcome.cost, outcome.horizon = result.moves, int(result.extra["cost"]), H
            outcome.steps = plan_steps(result)
            if outcome.cost <= ask.floor:          # the admissible bound: nothing is cheaper at all
                outcome.cost_proved = outcome.cost_global = True
            elif result.extra.get("cost_optimal"):
                outcome.cost_proved = True
                outcome.cost_global = ask.global_proof(H, outcome.cost - 1)
            if ask.any_plan:
                break
        elif result.answer is Answer.UNSAT:
            outcome.cost_proved = True
            outcome.cost_global = ask.global_proof(H, int(result.extra["cost_bound"]))
    yield outcome


def cost_proof(outcome: Outcome, ask: CostAsk) -> str:
    """What the cost phase proved, in one sentence (stats.extra["cost_proof"], verify)."""
    if outcome.cost is None:
        return "none: no plan"
    H, cost = outcome.cost_horizon, outcome.cost
    if ask.cap is not None and cost > ask.cap:
        if outcome.cost_global:
            return f"no plan costs <= {ask.cap}"
        if outcome.cost_proved:
            return f"no plan of at most {H} steps costs <= {ask.cap} (longer ones not ruled out)"
        return f"none: no plan of cost <= {ask.cap} found within {H} steps"
    if outcome.cost_global:
        return f"no plan costs less than {cost}"
    if outcome.cost_proved:
        return f"no plan of at most {H} steps costs less than {cost} (longer ones not ruled out)"
    return f"none: a plan of cost {cost}, not proved cheapest within {H} steps"


def cost_results(results: Iterable[HorizonResult], task: Task, bound: int | None) -> Iterator[HorizonResult]:
    """Tag results with extra["cost"] (decoded plans) and extra["cost_bound"]."""
    for result in results:
        result.extra.setdefault("cost_bound", bound)
        if result.moves is not None:
            result.extra["cost"] = sum(a.cost for a in plan_actions(task, result.moves))
        yield result

