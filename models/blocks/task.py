"""Sliding-block puzzles as a planning task: each slot's anchor, and whether each cell is free.

Variables: one per slot (the anchor of the piece in that slot, see board.py) and one per cell a
piece can cover (`free` / `taken`; walls get none). A piece of a class of one moves from anchor p
to q: pre slot = p and the cells it crosses free; eff slot = q, the cells it enters taken, those
it leaves free. Look-alike classes keep their anchors sorted, so their actions are grounded per
sorted tuple of the class's anchors (pre: the whole tuple; eff: the slots whose anchor changes),
which keeps the task's states the model's canonical ones; this is exponential in the class size
and refused (NotCompilable) beyond MAX_ACTIONS.

`piece` macro moves: one action per (slot, start, destination, minimal set of cells some route
must find free), all named by the destination as the model names them; actions that share a
name in a state share their effect too, which the task checker accepts. Routes are simple paths
of anchors, enumerated up to MAX_ROUTES per start.
"""
from __future__ import annotations

from typing import Any

from puzzleplan.models.blocks.board import Board, move_name
from puzzleplan.models.task.checkpoints import checkpoint
from puzzleplan.models.task.ir import Compiled, NotCompilable, Task, Variable, action

FREE, TAKEN = 0, 1
MAX_ACTIONS = 200_000
MAX_ROUTES = 20_000


def compile_task(model: Any) -> Compiled:
    board: Board = model.board
    nslots = len(board.slot_letter)
    anchors = [sorted(board.masks(s)) for s in range(nslots)]
    value = [{a: i for i, a in enumerate(anchors[s])} for s in range(nslots)]
    covered = 0
    for s in range(nslots):
        for m in board.masks(s).values():
            covered |= m
    cells = [c for c in range(board.rows * board.cols) if covered >> c & 1]
    cell_var = {c: nslots + i for i, c in enumerate(cells)}
    variables = [Variable(f"{board.slot_letter[s]}", tuple(_at(board, a) for a in anchors[s])) for s in range(nslots)]
    variables += [Variable(f"cell-{_at(board, c)}", ("free", "taken")) for c in cells]
    # The leaving piece is out at any of several anchors: a variable says whether it is, so the
    # goal stays one value (a task's goal is a conjunction).
    out_var = len(variables) if model.exit_goal is not None else None
    leaving, outside = model.exit_goal if model.exit_goal is not None else (None, frozenset())
    if out_var is not None:
        variables.append(Variable("left", ("no", "yes")))
    moves = {s: {a: _moves(board, s, a, model.metric) for a in anchors[s]} for s in range(nslots)}
    actions = []
    for k, (lo, hi) in enumerate(board.class_span):
        for group in _tuples(board, lo, hi):
            for i, p in enumerate(group):
                slot = lo + i
                masks = board.masks(slot)
                siblings = 0
                for j, a in enumerate(group):
                    if j != i:
                        siblings |= masks[a]
                for q, need, path in moves[slot][p]:
                    if need & siblings:
                        continue
                    after = sorted(group[:i] + (q,) + group[i + 1:])
                    pre = {lo + j: value[lo + j][a] for j, a in enumerate(group)}
                    pre.update({cell_var[c]: FREE for c in _bits(need)})
                    eff = {lo + j: value[lo + j][a] for j, a in enumerate(after) if a != group[j]}
                    eff.update({cell_var[c]: TAKEN for c in _bits(masks[q] & ~masks[p])})
                    eff.update({cell_var[c]: FREE for c in _bits(masks[p] & ~masks[q])})
                    if slot == leaving and (p in outside) != (q in outside):
                        eff[out_var] = int(q in outside)
                    actions.append(action(move_name(board.slot_letter[slot], path), pre, eff))
                    if len(actions) % 4096 == 0:
                        checkpoint()
                    if len(actions) > MAX_ACTIONS:
                        raise NotCompilable(f"more than {MAX_ACTIONS:,} grounded actions (look-alike pieces are "
                                            "grounded per tuple of their places)")
    start = board.start()

    def encode(state: tuple[int, ...]) -> tuple[int, ...]:
        occ = board.occupancy(state)
        left = () if out_var is None else (int(state[leaving] in outside),)
        return (tuple(value[s][a] for s, a in enumerate(state)) + tuple(TAKEN if occ >> c & 1 else FREE for c in cells)
                + left)

    def decode(values: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(anchors[s][values[s]] for s in range(nslots))

    goal = tuple((lo + j, value[lo + j][a]) for k, target in model.goal
                 for lo in (board.class_span[k][0],) for j, a in enumerate(target))
    if out_var is not None:
        goal += ((out_var, 1),)
    task = Task(model.name or "blocks", tuple(variables), encode(start), tuple(sorted(goal)), tuple(actions),
                metric=model.metric, family=model.family)
    return Compiled(task, encode, decode)


def _at(board: Board, index: int) -> str:
    r, c = board.cell(index)
    return f"{r + 1}-{c + 1}"


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _tuples(board: Board, lo: int, hi: int) -> list[tuple[int, ...]]:
    """Every sorted tuple of anchors the class [lo, hi) can take without its pieces overlapping,
    by backtracking (an overlap prunes every tuple that extends it); more than MAX_ACTIONS of
    them is NotCompilable before they fill memory (nine 1x1 look-alikes on a 6x6 board:
    C(36, 9), about 94 million)."""
    masks = board.masks(lo)
    anchors = sorted(masks)
    size = hi - lo
    out: list[tuple[int, ...]] = []
    chosen: list[int] = []

    def extend(start: int, taken: int) -> None:
        if len(chosen) == size:
            out.append(tuple(chosen))
            if len(out) % 4096 == 0:
                checkpoint()
            if len(out) > MAX_ACTIONS:
                raise NotCompilable(f"more than {MAX_ACTIONS:,} placements of {size} look-alike pieces "
                                    "(they are grounded per tuple of their places)")
            return
        for k in range(start, len(anchors) - (size - len(chosen)) + 1):
            mask = masks[anchors[k]]
            if mask & taken:
                continue
            chosen.append(anchors[k])
            extend(k + 1, taken | mask)
            chosen.pop()

    extend(0, 0)
    return out


def _moves(board: Board, slot: int, p: int, metric: str) -> list[tuple[int, int, str]]:
    """(destination, cells that must be free, name path) of the moves from anchor p, walls only."""
    masks = board.masks(slot)
    if metric != "piece":
        out = []
        for q, path in board.destinations(slot, p, 0, metric):
            need, a = 0, p
            for d in path:
                a = board.step(slot, a, d)
                need |= masks[a]
            out.append((q, need & ~masks[p], path))
        return out
    found: dict[int, list[int]] = {}
    routes = 0
    stack: list[tuple[int, int, frozenset[int]]] = [(p, 0, frozenset((p,)))]
    while stack:
        a, need, seen = stack.pop()
        routes += 1
        if routes % 1024 == 0:
            checkpoint()
        if routes > MAX_ROUTES:
            raise NotCompilable(f"more than {MAX_ROUTES:,} routes of one piece to ground the piece metric")
        for d in "UDLR":
            b = board.step(slot, a, d)
            if b is None or b in seen:
                continue
            more = need | (masks[b] & ~masks[p])
            sets = found.setdefault(b, [])
            if any(s & more == s for s in sets):
                continue                    # a route needing a subset of these cells is known
            sets[:] = [s for s in sets if s & more != more] + [more]
            stack.append((b, more, seen | {b}))
    return [(q, need, board.displacement(p, q)) for q, sets in found.items() for need in sets]
