"""Breadth-first search over a unit-cost task, layer by layer (goal test on generation).

Layer d holds the states first reached at depth d; the first goal generated is a shortest plan.
Under a cap, layer `cap` is still expanded, to learn whether any new state lies beyond it: if
one does, the answer is "no plan within the cap", else the space is exhausted (unsolvable).
"""
from __future__ import annotations

from typing import Any

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.types import Status
from puzzleplan.plans.search.common import POLL_EVERY
from puzzleplan.plans.task_search.space import Outcome, Space, path_to
from puzzleplan.plans.core.words import all_explored


def breadth_first(space: Space, cap: int | None, ctx: SearchContext) -> Outcome:
    """A shortest plan of a unit-cost task, or a proof that none exists (within the cap)."""
    start = space.start
    if space.is_goal(start):
        return Outcome(Status.OPTIMAL, (), 0)
    succ, gm, gv = space.successors, space.goal_mask, space.goal_value
    parents: dict[int, tuple[int, int] | None] = {start: None}
    stats = ctx.stats
    stats.states = 1
    layer, depth = [start], 0
    while layer:
        ctx.lower_bound = depth + 1            # no plan of `depth` moves or fewer
        stats.depth = depth
        if cap is not None and depth >= cap:
            if _leads_beyond(layer, parents, space, ctx):
                return Outcome(Status.NO_PLAN_WITHIN_CAP, lower_bound=cap + 1, message=f"no plan within cost {cap}")
            break
        following: list[int] = []
        for key in layer:
            stats.nodes += 1
            if stats.nodes % POLL_EVERY == 0:
                stats.states = len(parents)
                ctx.poll()
            for action, child in succ(key):
                stats.generated += 1
                if child in parents:
                    continue
                parents[child] = (key, action)
                if child & gm == gv:
                    stats.states = len(parents)
                    return Outcome(Status.OPTIMAL, path_to(parents, child), depth + 1)
                following.append(child)
        stats.states = len(parents)
        layer, depth = following, depth + 1
    return Outcome(Status.UNSOLVABLE, message=all_explored(len(parents)))


def _leads_beyond(layer: list[int], parents: dict[int, Any], space: Space, ctx: SearchContext) -> bool:
    """Whether a state of the last layer within the cap has a successor never reached."""
    stats = ctx.stats
    for key in layer:
        stats.nodes += 1
        if stats.nodes % POLL_EVERY == 0:
            ctx.poll()
        for _, child in space.successors(key):
            stats.generated += 1
            if child not in parents:
                return True
    return False
