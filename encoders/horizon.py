"""Horizon strategies shared by the SAT and CP-SAT engines: fixed, increasing, binary.

`solve_at(T)` answers "is there a plan for horizon T" under the encoding's semantics. T counts
moves, or the unit an encoding counts its own steps in (sok-push: pushes; `Outcome.steps`);
"length" below means that unit. What an UNSAT answer proves depends on the semantics (see
encoders/base.py):
- "by": UNSAT at T proves no plan of length <= T.
- "padded": exact T without shortest-plan cuts, in a family whose plans can always be made 2
  longer and whose plan-length parity is fixed (tiles): UNSAT at T (right parity) proves <= T.
- "sweep": any other exact-T setting: only UNSAT at *every* length from a lower bound up
  proves anything (the shortest plan satisfies the shortest-plan cuts at its exact length).

A parallel encoding (sas-exists) proves the same by UNSAT, but its SAT answer at T may hold more
than T moves; so a plan is called optimal only when its length is at most the first
satisfiable horizon (the UNSAT answers below prove nothing shorter exists), and binary search
narrows on the satisfiable horizon, keeping the shortest plan seen.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

from puzzleplan.encoders.base import Answer, EncodingOptions, HorizonResult, plan_steps

STRATEGIES = ("increasing", "binary", "fixed")


def proof_mode(options: EncodingOptions, parity: int | None) -> str:
    if options.goal == "by":
        return "by"
    if parity is not None and not options.cuts_need_shortest():
        return "padded"
    return "sweep"


@dataclass
class Outcome:
    """Where a strategy ended: a plan (optimal or not), a proof, or nothing yet."""

    moves: list[str] | None = None
    optimal: bool = False
    no_plan_up_to: int | None = None     # proved: no plan of length <= this
    calls: list[HorizonResult] = field(default_factory=list)
    horizon: int | None = None           # the horizon whose answer gave `moves`
    steps: int | None = None             # the horizon steps `moves` uses (base.plan_steps: its
                                         # length, or pushes for sok-push), the unit of caps and proofs
    cost: int | None = None              # the plan's cost (cost phase only)
    cost_horizon: int | None = None      # the step horizon the cost was minimised within
    cost_proved: bool = False            # proved: no plan within cost_horizon steps is cheaper
    cost_global: bool = False            # proved: no plan at all is cheaper


def _aligned(t: int, mode: str, parity: int | None) -> int:
    """The largest horizon <= t worth asking in this mode (right parity for exact-T modes)."""
    if mode != "by" and parity is not None and t % 2 != parity:
        return t - 1
    return t


def _raised(t: int, mode: str, parity: int | None) -> int:
    """The smallest horizon >= t worth asking in this mode (right parity for exact-T modes)."""
    return t + 1 if _aligned(t, mode, parity) != t else t


def run(solve_at: Callable[[int], HorizonResult], strategy: str, lower: int, cap: int, mode: str,
        parity: int | None) -> Iterator[HorizonResult | Outcome]:
    """Yield every HorizonResult as it comes, then the final Outcome.

    `lower` is an admissible lower bound (no plan is shorter), `cap` the largest horizon asked.
    """
    out = Outcome(no_plan_up_to=lower - 1)
    step = 2 if mode != "by" and parity is not None else 1

    def ask(t: int) -> HorizonResult:
        result = solve_at(t)
        out.calls.append(result)
        return result

    def take(result: HorizonResult, t: int) -> None:
        assert result.moves is not None
        out.moves, out.horizon, out.steps = result.moves, t, plan_steps(result)

    def proved(result: HorizonResult) -> HorizonResult:
        result.extra["no_plan_up_to"] = out.no_plan_up_to
        return result

    if strategy == "fixed":
        t = _aligned(cap, mode, parity)
        if t >= 0:
            result = ask(t)
            if result.answer is Answer.SAT:
                take(result, t)
            elif result.answer is Answer.UNSAT and mode != "sweep":
                out.no_plan_up_to = cap
            yield proved(result)
        else:
            out.no_plan_up_to = cap
        yield out
        return

    if strategy == "increasing":
        t = _raised(lower, mode, parity)
        while t <= cap:
            result = ask(t)
            if result.answer is Answer.UNSAT:
                out.no_plan_up_to = t + (1 if step == 2 else 0)
            yield proved(result)
            if result.answer is Answer.SAT:
                take(result, t)
                out.optimal = plan_steps(result) <= t    # a parallel plan may hold more moves than steps
                break
            if result.answer is Answer.UNKNOWN:
                break
            t += step
        else:
            out.no_plan_up_to = cap
        yield out
        return

    # binary search for the least horizon: needs UNSAT answers that are proofs. It gallops up
    # from the lower bound (lower, +1, +2, +4, ... steps) before it bisects: a formula grows with
    # its horizon, so asking the cap first (200 without one) would pay for the largest formula of
    # the run when the optimum usually lies a few steps above an admissible bound.
    assert mode != "sweep", "binary search needs the 'by' or 'padded' semantics"
    lo, hi = lower - 1, _aligned(cap, mode, parity)   # no plan <= lo; is there one <= hi?
    if hi < 0:   # no horizon within the cap has the plans' parity: none fits, as `fixed` says
        out.no_plan_up_to = cap
        yield out
        return
    kept: HorizonResult | None = None                 # the shortest plan seen, found at kept_at
    kept_at = hi
    t, jump = _raised(lower, mode, parity), step
    while True:
        if kept is None:          # galloping up, the cap last
            t = min(t, hi)
        else:                     # bisecting between the last UNSAT and the shortest plan
            if hi - lo <= (step if mode != "by" else 1):
                break
            t = _aligned((lo + hi) // 2, mode, parity)
            if t <= lo:
                break
        result = ask(t)
        if result.answer is Answer.UNSAT:
            lo = t + (1 if step == 2 else 0)
            out.no_plan_up_to = cap if kept is None and t == hi else lo
        yield proved(result)
        if result.answer is Answer.UNKNOWN or (result.answer is Answer.UNSAT and kept is None and t == hi):
            if kept is not None:
                take(kept, kept_at)
            yield out
            return
        if result.answer is Answer.SAT:
            if kept is None or plan_steps(result) < plan_steps(kept):
                kept, kept_at = result, t
            hi = min(t, plan_steps(result))   # a plan of L moves is also one of L steps
        elif kept is None:
            t, jump = t + jump, jump * 2
    take(kept, kept_at)
    out.optimal = plan_steps(kept) <= hi
    out.no_plan_up_to = hi - 1
    yield out
