"""Sokoban as a planning task: where the player is, and whether each cell holds a box.

Variables: `player` (one value per floor cell of the player's area) and one `box-R-C` per cell
(`empty` / `box`). Actions, for each cell p and direction d with a floor cell q beyond:
    walk (`u d l r`): pre player = p, box at q empty; eff player = q
    push (`U D L R`): pre player = p, box at q, r = the cell beyond q empty; eff player = q,
                      q empty, box at r
Costs: under `moves` every action costs 1; under `pushes` walks cost 0 and pushes 1, so a
cost-optimal plan minimises pushes (the family's pushes-metric plans are such step-by-step
LURD strings too). Goal: a box on every goal (and, where box and goal counts differ, no box
elsewhere), the player on its goal cell if the level names one. No pruning is compiled in (dead
squares, freeze tests): the task states the rules, nothing more. A level the model finds
unsolvable for boxes outside the player's area gets a goal no action can reach.
"""
from __future__ import annotations

from typing import Any

from puzzleplan.models.sokoban.level import DELTAS, PUSH, WALK
from puzzleplan.models.task.ir import Compiled, Task, Variable, action

EMPTY, BOX = 0, 1


def compile_task(model: Any) -> Compiled:
    cells, nbr, n = model.cells, model.nbr, model.ncells
    walk_cost = 0 if model.metric == "pushes" else 1
    player = Variable("player", tuple(f"{r + 1}-{c + 1}" for r, c in cells))
    boxes = tuple(Variable(f"box-{r + 1}-{c + 1}", ("empty", "box")) for r, c in cells)
    variables = [player, *boxes]
    actions = []
    for p in range(n):
        for d in range(len(DELTAS)):
            q = nbr[p][d]
            if q < 0:
                continue
            actions.append(action(WALK[d], {0: p, 1 + q: EMPTY}, {0: q}, walk_cost))
            r = nbr[q][d]
            if r >= 0:
                actions.append(action(PUSH[d], {0: p, 1 + q: BOX, 1 + r: EMPTY},
                                      {0: q, 1 + q: EMPTY, 1 + r: BOX}, 1))
    goal = {1 + g: BOX for g in model.goal_cells}
    if len(model.level.boxes) != len(model.goal_cells):
        goal.update({1 + c: EMPTY for c in range(n) if c not in model.goal_cells})
    if model.pg is not None:
        goal[0] = model.pg
    if model.level.stray:   # the model proves it unsolvable; the task says so with a goal never reached
        variables.append(Variable("outside-area-solved", ("no", "yes")))
        goal[len(variables) - 1] = 1
    start = model.start_state()
    task = Task(model.name or "sokoban", tuple(variables), _values(model, start, len(variables)),
                tuple(sorted(goal.items())), tuple(actions), metric=model.metric, family=model.family)
    pbits = model.pbits
    pushes = model.metric == "pushes"

    def decode(values: tuple[int, ...]) -> int:
        box_bits = sum(1 << c for c in range(n) if values[1 + c] == BOX)
        p = model._normal(values[0], box_bits) if pushes else values[0]
        return box_bits << pbits | p

    return Compiled(task, lambda state: _values(model, state, len(variables)), decode)


def _values(model: Any, state: int, width: int) -> tuple[int, ...]:
    p, box_bits = state & model.pmask, state >> model.pbits
    out = [p] + [box_bits >> c & 1 for c in range(model.ncells)]
    return tuple(out + [0] * (width - len(out)))
