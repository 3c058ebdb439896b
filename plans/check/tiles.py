"""Tiles replay on a grid of face strings: find the blank, swap it with a neighbour, compare.

Moves: U D L R (the blank's direction, either case), the seed's digits 0 1 2 3 (up right down
left), or the face of the tile that slides into the blank. A plan is read in one notation
throughout: the one notation in which every token is a move (directions, digits 0-3, or faces
of this board, matched exactly). When the plan fits several (faces `d`, `1` or `U` on the
board), the one reading that is a plan is taken (legal and reaching the goal, else legal), or
any of several that make the same moves; when several differ, it is refused with a message naming `--notation`, never guessed; `notation` ("blank",
"digits", "tiles", or "printed" for the engines' own U D L R) forces one. Text without
separators is one move per character, but under `notation="tiles"` on a board whose faces have
several characters (`15`) it is split into faces: the one split whose moves are legal
(`regrouped`; several, and one reaching the goal; else refused, asking for separators).
"""
from __future__ import annotations

from typing import Any

from puzzleplan.plans.check.common import IllegalMove, PlanNotationError, has_separators, split_plan
from puzzleplan.plans.core.words import clip

_STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
_DIGITS = {"0": "U", "1": "R", "2": "D", "3": "L"}
_DIRECTION = {step: name for name, step in _STEPS.items()}
_WORDS = {"U": "up", "D": "down", "L": "left", "R": "right"}
# what a bad token should have been, by the notation asked for (None: any of them)
_EXPECTED = {"blank": "U D L R (--notation blank)", "digits": "digits 0-3 (--notation digits)",
             "printed": "U D L R", None: "U D L R (or digits 0-3 / a tile face)"}


def tokens(text: str) -> list[str]:
    """Separated tokens, or one move per character."""
    return split_plan(text) if has_separators(text) else list(text.strip())


def _notation(model: Any, tokens: list[str]) -> str:
    """The one notation every token fits; when none fits, the one that reads the longest prefix
    (so the replay names the first token that is no move)."""
    if not tokens:
        return "blank"
    faces = {face for row in model.start_grid for face in row if face != "_"}
    tests = {"blank": lambda t: t.upper() in _STEPS, "digits": lambda t: t in _DIGITS,
             "tiles": lambda t: t in faces}
    fits = [name for name, ok in tests.items() if all(ok(t) for t in tokens)]
    if len(fits) > 1:   # the one reading that is a plan (legal, reaching the goal; else legal) is no
        played: dict[str, tuple[bool, list[str]]] = {}   # guess, nor are readings that make the same moves
        for name in fits:
            try:
                played[name] = _play(model, tokens, name)
            except IllegalMove:
                pass
        for kept in ([name for name in played if played[name][0]], list(played)):
            if len(kept) == 1 or (kept and all(played[k][1] == played[kept[0]][1] for k in kept)):
                return kept[0]
        raise PlanNotationError(f"the plan {clip(' '.join(tokens))!r} reads both as {' and as '.join(fits)} moves "
                                f"on this board; give --notation {'|'.join(fits)}")
    if fits:
        return fits[0]

    def prefix(ok: Any) -> int:
        return next((i for i, t in enumerate(tokens) if not ok(t)), len(tokens))
    return max(tests, key=lambda name: prefix(tests[name]))


def replay(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, int]:
    return _play(model, tokens, notation)[0], len(tokens)


def printed(model: Any, tokens: list[str], notation: str | None = None) -> list[str]:
    """The moves as the engines print them (the blank's U D L R), from the notation the plan is
    read in (`notation`, else the one `replay` finds: for pictures of a plan of digits or faces);
    IllegalMove as the replay raises it."""
    return _play(model, tokens, notation)[1]


MAX_SPLITS = 256   # ways to split a run of faces tried before asking for separators


def regrouped(model: Any, text: str, tokens: list[str], notation: str | None) -> list[str]:
    """The moves of plan `text` read under `notation`: `tokens` (one per character without
    separators), except text without separators under "tiles" on a board with faces of several
    characters, which is split into faces: the one split that is legal (of several, the one
    reaching the goal). PlanNotationError when several such splits remain, or too many to try."""
    faces = {face for row in model.start_grid for face in row if face != "_"}
    if notation != "tiles" or has_separators(text) or all(len(face) == 1 for face in faces):
        return tokens
    splits = _splits(text.strip(), faces)
    if splits is None:
        raise PlanNotationError(f"the plan {clip(text.strip())!r} splits into this board's faces more than "
                                f"{MAX_SPLITS} ways; separate its moves with spaces or commas")
    played = {}
    for split in splits:
        try:
            played[tuple(split)] = _play(model, split, "tiles")[0]
        except IllegalMove:
            pass
    for kept in ([s for s, goal in played.items() if goal], list(played)):
        if len(kept) == 1:
            return list(kept[0])
    if len(played) > 1:
        raise PlanNotationError(f"the plan {clip(text.strip())!r} splits into this board's faces in "
                                f"{len(played)} legal ways; separate its moves with spaces or commas")
    return splits[0] if splits else tokens   # no legal split: the replay names the first bad move


def _splits(text: str, faces: set[str]) -> list[list[str]] | None:
    """Every way to write `text` as faces in a row (None: more than MAX_SPLITS)."""
    longest = max(len(face) for face in faces)
    sizes = [[size for size in range(1, min(longest, i) + 1) if text[i - size:i] in faces]
             for i in range(len(text) + 1)]   # sizes[i]: the faces text[:i] may end with
    ways = [1] + [0] * len(text)
    for i in range(1, len(text) + 1):
        ways[i] = min(sum(ways[i - size] for size in sizes[i]), MAX_SPLITS + 1)
    if ways[-1] > MAX_SPLITS:
        return None
    out = []
    stack: list[tuple[int, list[str]]] = [(len(text), [])]   # from the end: (where, the faces after it, reversed)
    while stack:
        i, after = stack.pop()
        if i == 0:
            out.append(after[::-1])
            continue
        stack += [(i - size, after + [text[i - size:i]]) for size in sizes[i] if ways[i - size]]
    return out


def _play(model: Any, tokens: list[str], notation: str | None) -> tuple[bool, list[str]]:
    """Whether the moves reach the goal, and each as the blank's direction."""
    grid = [list(row) for row in model.start_grid]
    goal = [list(row) for row in model.goal_grid]
    rows, cols = len(grid), len(grid[0])
    br, bc = next((r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "_")
    expected = _EXPECTED.get(notation, _EXPECTED[None])
    notation = "blank" if notation == "printed" else notation or _notation(model, tokens)
    directions: list[str] = []
    for i, token in enumerate(tokens, 1):
        if notation == "tiles":
            near = [(r, c) for r, c in ((br - 1, bc), (br + 1, bc), (br, bc - 1), (br, bc + 1))
                    if 0 <= r < rows and 0 <= c < cols and grid[r][c] == token]
            if not near:
                raise IllegalMove(i, token, f"no tile {clip(token)!r} is next to the blank (row {br + 1}, column {bc + 1})")
            if len(near) > 1:
                raise IllegalMove(i, token, f"ambiguous: {len(near)} tiles {clip(token)!r} are next to the blank")
            r, c = near[0]
        else:
            direction = _DIGITS.get(token) if notation == "digits" else token.upper()
            if direction not in _STEPS:
                raise IllegalMove(i, token, f"not a move; expected {expected}")
            dr, dc = _STEPS[direction]
            r, c = br + dr, bc + dc
            if not (0 <= r < rows and 0 <= c < cols):
                raise IllegalMove(i, token, f"the blank at row {br + 1}, column {bc + 1} cannot move "
                                            f"{_WORDS[direction]} (board edge)")
        grid[br][bc], grid[r][c] = grid[r][c], "_"
        directions.append(_DIRECTION[(r - br, c - bc)])
        br, bc = r, c
    return grid == goal, directions
