"""The successor generator over packed states.

Each action is filed under one of its preconditions (v, x), the most selective one: the
fewest actions per value of v, so a state looks at few candidates. For a state, only the
candidates filed under the value each watched variable holds are tested; actions without
preconditions are always candidates. A candidate is a precomputed tuple

    (rest_mask, rest_value, keep, add, action index)

tested by `key & rest_mask == rest_value` (the preconditions other than the one it is filed
under) and applied by `key & keep | add` (keep = ~effect mask, a negative Python int, which
`&` treats as infinitely many 1 bits). Sokoban files every action under the player's cell
(one variable read, about 8 tests a state), Rush Hour under the vehicle's offset, tiles under
the face a neighbour of the blank holds.
"""
from __future__ import annotations

from collections import Counter

from puzzleplan.models.task.ir import Task
from puzzleplan.plans.task_search.packing import Packing

Candidate = tuple[int, int, int, int, int]


class Successors:
    """`successors(key)` -> [(action index, child key)] for the task's actions."""

    def __init__(self, task: Task, packing: Packing) -> None:
        self.task = task
        self.packing = packing
        self.costs: tuple[int, ...] = tuple(a.cost for a in task.actions)
        sizes = packing.sizes
        counts = Counter(f for a in task.actions for f in a.pre)
        by_fact: dict[tuple[int, int], list[Candidate]] = {}
        always: list[Candidate] = []
        for i, a in enumerate(task.actions):
            emask, evalue = packing.partial(a.eff)
            if not a.pre:
                always.append((0, 0, ~emask, evalue, i))
                continue
            chosen = min(a.pre, key=lambda f: (counts[f] / sizes[f[0]], f))
            rmask, rvalue = packing.partial(f for f in a.pre if f != chosen)
            by_fact.setdefault(chosen, []).append((rmask, rvalue, ~emask, evalue, i))
        self.always = tuple(always)
        watched = sorted({v for v, _ in by_fact})
        self.watched: tuple[tuple[int, int, tuple[tuple[Candidate, ...], ...]], ...] = tuple(
            (packing.shifts[v], packing.masks[v],
             tuple(tuple(by_fact.get((v, x), ())) for x in range(packing.masks[v] + 1)))
            for v in watched)

    def __call__(self, key: int) -> list[tuple[int, int]]:
        out = [(i, key & keep | add) for _, _, keep, add, i in self.always]
        for shift, mask, table in self.watched:
            for rmask, rvalue, keep, add, i in table[key >> shift & mask]:
                if key & rmask == rvalue:
                    out.append((i, key & keep | add))
        return out
