"""Rush Hour as a planning task: each vehicle's offset, and whether each cell is free.

Variables: one per vehicle (its offset along its line) and one per cell some vehicle can cover
(`free` / `taken`: the occupancy SAS+ needs, since preconditions cannot quantify over the other
vehicles; walls are simply never free cells and get no variable). Actions: vehicle v from offset
o to o+d (d = +-1 under `step`, any distance under `slide`): pre offset = o and every cell it
crosses free; eff offset = o+d, the crossed cells taken, the cells it leaves free. Named as the
family's plans are (`A+2`). Goal: the primary at its exit offset. Mutexes: one offset per vehicle
(domains), and per cell, "taken" excludes every other vehicle covering it (given as groups).
"""
from __future__ import annotations

from typing import Any

from puzzleplan.models.rush_hour.board import crossed, move_name, offset_moves
from puzzleplan.models.task.ir import Compiled, Task, Variable, action

FREE, TAKEN = 0, 1


def compile_task(model: Any) -> Compiled:
    board = model.board
    vehicles = board.vehicles
    cols = board.cols
    walls = {board.index(r, c) for r, c in board.walls}
    cells = sorted({cell for line in board.line_cells for cell in line} - walls)
    cell_var = {cell: len(vehicles) + i for i, cell in enumerate(cells)}
    variables = [Variable(f"{v.name}", tuple(str(o) for o in range(len(board.masks[i]))))
                 for i, v in enumerate(vehicles)]
    variables += [Variable(f"cell-{c // cols + 1}-{c % cols + 1}", ("free", "taken")) for c in cells]
    slide = model.metric == "slide"
    actions = []
    for i, v in enumerate(vehicles):
        line = board.line_cells[i]
        if any(cell in walls for cell in line):
            lo, hi = _free_stretch(i, board, walls)
        else:
            lo, hi = 0, len(board.masks[i]) - 1
        for o, to in offset_moves(lo, hi, slide):
            entering = [line[p] for p in crossed(o, to, v.length)]
            leaving = [line[p] for p in crossed(to, o, v.length)]
            pre = {i: o, **{cell_var[c]: FREE for c in entering}}
            eff = {i: to, **{cell_var[c]: TAKEN for c in entering}, **{cell_var[c]: FREE for c in leaving}}
            actions.append(action(move_name(v.name, to - o), pre, eff))
    start = board.start()
    occupied = board.occupancy(start)
    init = tuple(start) + tuple(TAKEN if occupied >> c & 1 else FREE for c in cells)
    mutexes = tuple(tuple((i, o) for i in range(len(vehicles)) for o in _covering(board, i, c)) 
                    for c in cells)
    task = Task(model.name or "rush hour", tuple(variables), init, ((model.primary, board.goal_offset),),
                tuple(actions), mutexes=tuple(m for m in mutexes if len(m) > 1), metric=model.metric,
                family=model.family)
    nveh = len(vehicles)

    def encode(state: bytes) -> tuple[int, ...]:
        occ = board.occupancy(state)
        return tuple(state) + tuple(TAKEN if occ >> c & 1 else FREE for c in cells)

    return Compiled(task, encode, lambda values: bytes(values[:nveh]))


def _free_stretch(i: int, board: Any, walls: set[int]) -> tuple[int, int]:
    """The offsets vehicle i can ever take: the stretch of its line between walls around it."""
    line, length = board.line_cells[i], board.vehicles[i].length
    start = board.vehicles[i].offset
    lo = start
    while lo > 0 and line[lo - 1] not in walls:
        lo -= 1
    hi = start
    while hi + length < len(line) and line[hi + length] not in walls:
        hi += 1
    return lo, hi


def _covering(board: Any, i: int, cell: int) -> list[int]:
    line, length = board.line_cells[i], board.vehicles[i].length
    if cell not in line:
        return []
    p = line.index(cell)
    return [o for o in range(max(0, p - length + 1), min(p, len(board.masks[i]) - 1) + 1)]
