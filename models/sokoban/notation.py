"""Sokoban notations: reading XSB levels (from YAML or from collection files) and writing them.

Readers return data (a `SokobanSpec` around level.py's `Level`), never a model: model.py builds
the model (`Sokoban.from_spec`, and `load_collection` over `collection_level` here). The writers
take a built model, typed under TYPE_CHECKING only: this module never imports it.

Every reader validates strictly and raises one-line ModelErrors naming the file line:
an unknown character, no player or two players, boxes and goals that do not pair up (or none
at all), a player who could walk off the map (the walls must enclose it).

Boxes and goals outside the player's walled area (the cells the player could reach if no box were
in the way) never change: a box on a goal there (`*` sealed in a wall pocket, as in Microban 155)
is simply kept, the level's other boxes and goals are played as usual; a box off a goal or an
empty goal out there makes the level unsolvable (`Sokoban.unsolvable_reason`), not invalid.

Collection files (`.xsb`, `.sok`, `.txt`, standard input) hold many levels: a level is a run of
board lines (`_board_rows`: rows holding a wall, run-length rows expanded); anything else is
metadata, whose titles `read_collection` gives to the level they belong to. `Key: value` lines
(Author:, Comment:, ...) other than Title: are never titles.

YAML files may also state a level in seed 004's letters (`notation: seed-004`: W worker, B box,
S storage, * floor, # wall, spaces between cells) with its goal as a `target:` map: the boxes'
end cells are the goals, the worker's end cell the player's goal.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from puzzleplan.models.base import MAX_CAP, ModelError, describe, quote
from puzzleplan.models.document import MAX_COLLECTION_BYTES, Document, read_text, fact_lines
from puzzleplan.models.sokoban.level import (BOX, BOX_ON_GOAL, DELTAS, FLOORS, GOAL, MAX_SIDE, METRICS, PLAYER,
                                             PLAYER_ON_GOAL, WALL, XSB_CHARS, Level)

if TYPE_CHECKING:
    from puzzleplan.models.sokoban.model import Sokoban

EXPECT_KEYS = ("optimal_moves", "optimal_pushes", "solvable", "valid_plans")
KEYS = ("puzzle", "name", "description", "notation", "level", "target", "player_goal", "metric", "max_moves",
        "expect")
# seed 004's letters: W the worker, B a box, S a storage cell (a goal), * floor, # wall; its maps
# put a space between cells, which carry no meaning here (its floor is '*')
SEED_004 = {"W": PLAYER, "B": BOX, "S": GOAL, "*": " ", WALL: WALL}

Fail = Callable[[str, "int | None"], ModelError]


@dataclass(frozen=True)
class SokobanSpec:
    """A validated level and the fields around it: what the readers return (never a model)."""

    level: Level
    player_goal: tuple[int, int] | None = None
    metric: str = METRICS[0]
    name: str = ""
    description: str = ""
    max_moves: int | None = None
    expect: dict[str, Any] = field(default_factory=dict)


def _default_fail(message: str, row: int | None) -> ModelError:
    where = "" if row is None else f"level row {row + 1}: "
    return ModelError(f"{where}{message}")


def split_rows(text: str) -> tuple[list[str], int]:
    """Rows of a level text without the blank rows around it, and the index of the first kept row."""
    rows = [r.rstrip() for r in text.replace("\r\n", "\n").split("\n")]
    first = 0
    while first < len(rows) and not rows[first].strip():
        first += 1
    last = len(rows)
    while last > first and not rows[last - 1].strip():
        last -= 1
    return rows[first:last], first


def parse_level(rows: Sequence[str], fail: Fail = _default_fail) -> Level:
    """Validate XSB rows (ragged rows are padded with floor) and return the Level.

    `fail(message, row_index)` builds the error for a row (None: the level as a whole).
    """
    rows = [r.rstrip() for r in rows]
    if not rows or not any(r.strip() for r in rows):
        raise fail("empty level; expected rows of XSB characters (# wall, $ box, . goal, @ player)", None)
    height, width = len(rows), max(len(r) for r in rows)
    if height > MAX_SIDE or width > MAX_SIDE:
        raise fail(f"the level is {height}x{width}; at most {MAX_SIDE}x{MAX_SIDE} is supported", None)
    grid: list[str] = []
    player: tuple[int, int] | None = None
    boxes: list[tuple[int, int]] = []
    goals: list[tuple[int, int]] = []
    for r, row in enumerate(rows):
        out = []
        for c, ch in enumerate(row):
            if ch not in XSB_CHARS:
                raise fail(f"unknown character {quote(ch)} at row {r + 1}, column {c + 1}; expected one of "
                           "'#' wall, ' ' '-' '_' floor, '$' box, '.' goal, '*' box on goal, "
                           "'@' player, '+' player on goal", r)
            if ch in PLAYER + PLAYER_ON_GOAL:
                if player is not None:
                    raise fail(f"a second player at row {r + 1}, column {c + 1} (the first is at row "
                               f"{player[0] + 1}, column {player[1] + 1}); expected exactly one '@' or '+'", r)
                player = (r, c)
            if ch in BOX + BOX_ON_GOAL:
                boxes.append((r, c))
            if ch in GOAL + BOX_ON_GOAL + PLAYER_ON_GOAL:
                goals.append((r, c))
            out.append(WALL if ch == WALL else " " if ch in FLOORS else ch)
        grid.append("".join(out).ljust(width))
    if player is None:
        raise fail("no player; expected exactly one '@' (or '+' on a goal)", None)
    if not boxes:
        raise fail("no boxes; expected at least one '$' or '*'", None)
    if len(boxes) != len(goals):
        have = f"{len(boxes)} box{'es' if len(boxes) != 1 else ''} but {len(goals)} goal{'s' if len(goals) != 1 else ''}"
        raise fail(f"{have}; expected as many goals as boxes", None)
    # flood fill from the player through every non-wall cell: it must stay on the map
    seen = {player}
    stack = [player]
    while stack:
        r, c = stack.pop()
        for dr, dc in DELTAS:
            rr, cc = r + dr, c + dc
            if not (0 <= rr < height and 0 <= cc < width):
                raise fail(f"the level is open: the player can walk off the map from row {r + 1}, "
                           f"column {c + 1}; expected walls all around the player", r)
            if grid[rr][cc] != WALL and (rr, cc) not in seen:
                seen.add((rr, cc))
                stack.append((rr, cc))
    goal_set, box_set = set(goals), set(boxes)
    sealed = tuple(b for b in boxes if b not in seen and b in goal_set)
    stray = tuple(sorted([("box", b) for b in boxes if b not in seen and b not in goal_set]
                         + [("goal", g) for g in goals if g not in seen and g not in box_set],
                         key=lambda item: item[1]))
    inside_boxes = tuple(b for b in boxes if b in seen)
    inside_goals = tuple(g for g in goals if g in seen)
    if not inside_boxes and not stray:
        raise fail("every box is already on a goal out of the player's reach; expected at least one box "
                   "to move", None)
    return Level(tuple(grid), height, width, player, inside_boxes, inside_goals, tuple(sorted(seen)),
                 sealed, stray)


# -- YAML ----------------------------------------------------------------------------------------
def read_document(doc: Document) -> SokobanSpec:
    """The spec of a YAML document (`level: |` and the XSB rows, or with `notation: seed-004`
    seed 004's letters and its `target:` map)."""
    doc.check_keys(KEYS)
    seed = doc.choice("notation", ("xsb", "seed-004"), "xsb") == "seed-004"
    if doc.has("target") and not seed:
        raise doc.error("target", "only used with notation: seed-004 (XSB levels give player_goal:)")
    rows, first = _level_rows(doc, "level")

    def fail(message: str, row: int | None) -> ModelError:
        line = doc.value_line("level", first + row) if row is not None else doc.line("level")
        return doc.error("level", message, line=line)

    target = None
    if seed:
        rows = _from_seed_004(doc, "level", rows, first)
        if doc.has("target"):
            target = _from_seed_004(doc, "target", *_level_rows(doc, "target"))
            rows = _with_target_goals(doc, rows, target)
    level = parse_level(rows, fail)
    player_goal = _player_goal(doc, level) if target is None else _target_worker(doc, level, target)
    common = doc.common(METRICS, EXPECT_KEYS)
    return SokobanSpec(level, player_goal, common.metric, common.name, common.description, common.max_moves,
                       common.expect)


def _level_rows(doc: Document, key: str) -> tuple[list[str], int]:
    text = doc.get(key)
    if not isinstance(text, str):
        raise doc.error(key, f"expected the level as rows of XSB characters (write `{key}: |` and the rows "
                             "below it, indented)")
    cut = [(line, row) for line, row in doc.lines_read_as_comments(key) if set(row.strip()) <= set(_XSB_ROW)]
    if cut:
        lines = f"line {cut[0][0]}" if len(cut) == 1 else f"lines {cut[0][0]}-{cut[-1][0]}"
        raise doc.error(key, f"the rows on {lines} are indented less than the level's first row, so YAML read "
                             f"them as comments; indent every row at least as far as the first (or write "
                             f"`{key}: |2` for rows indented by 2)", line=cut[0][0])
    return split_rows(text)


_XSB_ROW = "#$.@+* -_"   # what a board row may hold (`#` rows indented less read as comments)


def _from_seed_004(doc: Document, key: str, rows: list[str], first: int) -> list[str]:
    """Seed 004's rows (`# W B # * #`) as XSB rows; an unknown letter named with its line."""
    out = []
    for r, row in enumerate(rows):
        cells = row.replace(" ", "")
        bad = next((ch for ch in cells if ch not in SEED_004), None)
        if bad is not None:
            raise doc.error(key, f"unknown character {quote(bad)} at row {r + 1}; seed 004's notation has W worker, "
                                 "B box, S storage, * floor, # wall", line=doc.value_line(key, first + r))
        out.append("".join(SEED_004[ch] for ch in cells))
    return out


def _with_target_goals(doc: Document, rows: list[str], target: list[str]) -> list[str]:
    """The level's rows with its goals where the target map's boxes stand (seed 004 states its
    goal as a whole target state); its storage cells, when it marks any, must be those."""
    shape = [len(r) for r in rows]
    if [len(r) for r in target] != shape or any(
            (a == WALL) != (b == WALL) for row, aim in zip(rows, target) for a, b in zip(row, aim)):
        raise doc.error("target", "expected the level's map with the worker and the boxes where they must end "
                                  "(the same walls)")
    goals = {(r, c) for r, row in enumerate(target) for c, ch in enumerate(row) if ch == BOX}
    marked = {(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == GOAL}
    if marked and marked != goals:
        raise doc.error("target", "its boxes stand elsewhere than the level's storage cells (S)")
    return ["".join((GOAL if ch == " " else ch) if (r, c) in goals else ch for c, ch in enumerate(row))
            for r, row in enumerate(rows)]


def _target_worker(doc: Document, level: Level, target: list[str]) -> tuple[int, int] | None:
    """The worker's cell in the target map (the player's goal); no W: anywhere."""
    if doc.has("player_goal"):
        raise doc.error("player_goal", "the target map gives the worker's end cell already")
    found = [(r, c) for r, row in enumerate(target) for c, ch in enumerate(row) if ch == PLAYER]
    if len(found) > 1:
        raise doc.error("target", "more than one worker (W)")
    if found and found[0] not in set(level.region):
        raise doc.error("target", "the worker ends outside the walls around it")
    return found[0] if found else None


def _player_goal(doc: Document, level: Level) -> tuple[int, int] | None:
    value = doc.get("player_goal", None)
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise doc.error("player_goal", f"expected [row, col] (0-based), got {describe(value)}")
    r, c = value
    if not (0 <= r < level.height and 0 <= c < level.width):
        r, c = quote(r, 12), quote(c, 12)
        raise doc.error("player_goal", f"[{r}, {c}] is off the {level.height}x{level.width} level (0-based row, col)")
    if level.grid[r][c] == WALL:
        raise doc.error("player_goal", f"[{r}, {c}] is a wall (0-based row, col)")
    if (r, c) not in set(level.region):
        raise doc.error("player_goal", f"[{r}, {c}] is outside the walls around the player (0-based row, col)")
    return (r, c)


# -- collections ---------------------------------------------------------------------------------
_KEY_VALUE = re.compile(r"^\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.*)$")
_RLE_CELL = "#@$.*+_\\-pPbB"                       # an RLE row's cells: XSB's, and p P b B for @ + $ *
_RLE_LINE = re.compile(rf"(?:[0-9]+[{_RLE_CELL}]|[{_RLE_CELL} ]|\|)+\Z")   # a count runs a cell, never a space
_RUN = re.compile(rf"([0-9]+)([{_RLE_CELL}])")
_RLE_LETTERS = str.maketrans("pPbB", "@+$*")
MAX_RUN = 1_000                                   # one RLE run: far beyond any level's width
MAX_STRAY = 2                                     # characters outside XSB a row with a mistake may hold


def _board_rows(line: str) -> list[str] | None:
    """The level rows a file line holds, None for a line of metadata (titles, comments).

    A row is a line holding a wall whose characters are all XSB; or one framed by walls with at
    most MAX_STRAY other characters among mostly XSB ones (a row with a mistake belongs to its
    level, whose reader names the character, rather than passing for a comment; a banner such
    as `#### Microban ####` stays metadata). A run-length line (`4#|#p$.#|5#`, as collections
    compress levels: a count repeats the cell after it, `|` breaks the row, p P b B are
    @ + $ *) is expanded; `#1` or `-- #5 --` are titles, not runs."""
    text = line.rstrip()
    body = text.strip()
    if not body or body.startswith(";") or WALL not in body:
        return None
    if any(ch.isdigit() or ch == "|" for ch in body) and _RLE_LINE.match(body):
        expanded = _RUN.sub(lambda m: m.group(2) * min(int(m.group(1)), MAX_RUN), body).translate(_RLE_LETTERS)
        return [row.rstrip() for row in expanded.split("|")]
    stray = sum(ch not in XSB_CHARS for ch in text)
    if stray == 0 or (body[0] == WALL and body[-1] == WALL and _mostly_xsb(body, stray)):
        return [text]
    return None


def _mostly_xsb(body: str, stray: int) -> bool:
    return stray <= MAX_STRAY and 4 * stray <= len(body) and not _KEY_VALUE.match(body)


def _row_under_a_row(line: str) -> bool:
    """Whether a line right under a level's row that `_board_rows` leaves out is a row of it with a
    mistake at one end (`#@$.#x`, a last row `#####x`): it starts or ends with a wall and is
    mostly XSB, so the level's reader names the character instead of taking it for a title."""
    body = line.strip()
    if not body or body.startswith(";") or (body[0] != WALL and body[-1] != WALL):
        return False
    return _mostly_xsb(body, sum(ch not in XSB_CHARS for ch in line.rstrip()))


def _title_of(line: str) -> tuple[str, str] | None:
    """('title', X) for `Title: X`, ('comment', X) for `; X` or free text, None for other lines."""
    text = line.strip()
    if not text:
        return None
    if text.startswith(";"):
        body = text.lstrip(";").strip()
        return ("comment", body) if body and not body.startswith("player_goal:") else None
    m = _KEY_VALUE.match(text)
    if m:
        return ("title", m.group(2).strip()) if m.group(1).lower() in ("title", "name") else None
    return ("comment", text)


@dataclass
class _Entry:
    start: int                     # 1-based file line of the first board row
    rows: list[str]
    title: str = ""


@dataclass
class _Paragraph:
    """Lines of metadata between blank lines, and whether a board touches it (no blank line)."""

    items: list[tuple[str, str]]
    after_board: bool              # the line before it is a board row
    before_board: bool = False     # the line after it is a board row


def read_collection(text: str) -> list[_Entry]:
    """Every level of a collection file, with titles.

    Which metadata names which level: a `Title:` line after a level names it (.sok); otherwise
    a comment paragraph touching a level (no blank line between) names it, the one above first
    (its comment nearest the board: `; Level A` under a collection's header); otherwise the file's
    layout decides for all of them: titles above the levels when something stands before the
    first one, unless the file also has something after the last and numbered titles fit the
    other reading better (a trailing `; end` or copyright line then shifts nothing)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    entries: list[_Entry] = []
    # gaps[i]: the paragraphs before entry i (the last gap trails the last entry)
    gaps: list[list[_Paragraph]] = [[]]
    current: _Entry | None = None
    last = "blank"                 # what the line before was: board, meta or blank
    for number, line in enumerate(lines, 1):
        rows = _board_rows(line)
        if rows is None and last == "board" and _row_under_a_row(line):
            rows = [line.rstrip()]
        if rows is not None:
            if current is None:
                current = _Entry(number, [])
                entries.append(current)
                if last == "meta":
                    gaps[-1][-1].before_board = True
            current.rows.extend(rows)
            last = "board"
            continue
        if current is not None:
            current = None
            gaps.append([])
        if not line.strip():
            last = "blank"
            continue
        if last != "meta":
            gaps[-1].append(_Paragraph([], after_board=last == "board"))
        found = _title_of(line)
        if found is not None:
            gaps[-1][-1].items.append(found)
        last = "meta"
    while len(gaps) <= len(entries):
        gaps.append([])
    n = len(entries)
    # a paragraph touching two levels goes to the one below, unless the file's ends say titles
    # sit under their levels: its last level touches one below it, its first none above it
    down = not (gaps[n] and gaps[n][0].after_board and not (gaps[0] and gaps[0][-1].before_board))
    assigned = [_explicit(gaps[i + 1]) or _touching(gaps[i], gaps[i + 1], down) for i in range(n)]
    before = _titles_above(gaps, n)
    for i, entry in enumerate(entries):
        entry.title = assigned[i] or _by_layout(gaps, i, before)
    return entries


def _comments(paragraph: _Paragraph) -> list[str]:
    return [t for kind, t in paragraph.items if kind == "comment"]


def _explicit(after: list[_Paragraph]) -> str:
    """A `Title:` line after the level (.sok's convention), not one of a paragraph that touches
    only the next level (that one names the level it stands on)."""
    return next((t for p in after if p.after_board or not p.before_board
                 for kind, t in p.items if kind == "title"), "")


def _touching(above: list[_Paragraph], below: list[_Paragraph], down: bool) -> str:
    """The title of a paragraph the level touches: the one just above it (a `Title:` line, else
    its last comment, nearest the board) before the one just below (its first comment); one
    touching levels on both sides belongs to the level below when `down`, else above."""
    if above and above[-1].before_board and (down or not above[-1].after_board):
        named = [t for kind, t in above[-1].items if kind == "title"] or _comments(above[-1])[-1:]
        if named:
            return named[0]
    if below and below[0].after_board and (not down or not below[0].before_board) and _comments(below[0]):
        return _comments(below[0])[0]
    return ""


def _titles_above(gaps: list[list[_Paragraph]], n: int) -> bool:
    """Whether, where nothing touches, a level's title stands above it: so when the file opens
    with text and does not end with any; when it does both, as numbered titles fit better, else
    above when its last words are a footer (`; end`, a copyright line), below when its first
    are a header (a collection's name, author, copyright) standing alone."""
    head, tail = bool(gaps[0]), bool(gaps[n])
    if head != tail:
        return head
    fits = [sum(_by_layout(gaps, i, above).strip() == str(i + 1) for i in range(n)) for above in (True, False)]
    if fits[0] != fits[1] or not head:
        return fits[0] > fits[1]
    last = [t for p in gaps[n] for t in _comments(p)]
    if last and _FOOTER.match(last[-1]):
        return True
    first = [t for p in gaps[0] for t in _comments(p)]
    return not (len(gaps[0]) == 1 and first and _HEADER.search(first[0]))


_FOOTER = re.compile(r"(the\s+)?end\b|copyright\b|\(c\)|©", re.IGNORECASE)
_HEADER = re.compile(r"\b(collection|copyright|author|levels|set)\b|\(c\)|©", re.IGNORECASE)


def _by_layout(gaps: list[list[_Paragraph]], i: int, above: bool) -> str:
    """The first comment of the last paragraph above level i, or of the first one below it,
    leaving out paragraphs that touch another level (theirs)."""
    if above:
        paragraphs = [p for p in gaps[i] if not p.after_board]
    else:
        paragraphs = [p for p in gaps[i + 1] if not p.before_board]
    if not paragraphs:
        return ""
    comments = _comments(paragraphs[-1] if above else paragraphs[0])
    return comments[0] if comments else ""


def collection_level(path: str | Path, level: str | int | None = None,
                     overrides: dict[str, Any] | None = None, text: str | None = None) -> SokobanSpec:
    """The spec of one level of an XSB/SOK collection file, chosen by 1-based number or by title.

    `level` None picks the only level of a one-level file. `overrides` may set `metric` and
    `max_moves` (as the CLI does for YAML files). `text`: the collection itself (standard
    input, `loads`), `path` then only naming it in errors.
    """
    path = Path(path)
    if text is None:
        text = read_text(path, "a level collection", limit=MAX_COLLECTION_BYTES)
    entries = read_collection(text)
    if not entries:
        raise ModelError(f"{path}:1: no level found; expected rows of XSB characters (# wall, $ box, . goal, @ player)")
    index = _pick(path, entries, level)
    entry = entries[index]

    def fail(message: str, row: int | None) -> ModelError:
        return ModelError(f"{path}:{entry.start + (row or 0)}: level {index + 1}: {message}")

    parsed = parse_level(entry.rows, fail)
    overrides = dict(overrides or {})
    metric = overrides.pop("metric", None) or METRICS[0]
    if metric not in METRICS:
        raise ModelError(f"{path}: metric: expected one of {', '.join(METRICS)}, got {quote(metric)}")
    max_moves = overrides.pop("max_moves", None)
    if max_moves is not None and (isinstance(max_moves, bool) or not isinstance(max_moves, int)
                                  or not 0 <= max_moves <= MAX_CAP):
        raise ModelError(f"{path}: max_moves: expected a whole number from 0 to {MAX_CAP}, got {quote(max_moves)}")
    if overrides:
        raise ModelError(f"{path}: cannot set {', '.join(sorted(overrides))} for a collection level")
    name = entry.title or f"{path.stem} #{index + 1}"
    return SokobanSpec(parsed, metric=metric, name=name, max_moves=max_moves)


def _pick(path: Path, entries: list[_Entry], level: str | int | None) -> int:
    count = len(entries)
    if level is None:
        if count == 1:
            return 0
        titles = ", ".join(quote(e.title, 24) for e in entries[:8] if e.title)
        more = f" (titles: {titles}{', ...' if count > 8 else ''})" if titles else ""
        raise ModelError(f"{path}: holds {count} levels; choose one by number (1-{count}) or title{more}")
    text = str(level).strip()
    if re.fullmatch(r"[0-9]+", text):
        number = int(text) if len(text) <= 12 else 0
        if not 1 <= number <= count:
            raise ModelError(f"{path}: level {quote(text, 16)}: expected a number from 1 to {count}")
        return number - 1
    matching = [i for i, entry in enumerate(entries) if entry.title.strip().lower() == text.lower()]
    if len(matching) > 1:
        numbers = ", ".join(str(i + 1) for i in matching[:8]) + (", ..." if len(matching) > 8 else "")
        raise ModelError(f"{path}: the title {quote(text)} names levels {numbers}; choose one by number")
    if matching:
        return matching[0]
    titles = ", ".join(quote(e.title, 24) for e in entries[:8] if e.title) or "none"
    raise ModelError(f"{path}: no level titled {quote(text)}; titles: {titles}{', ...' if count > 8 else ''}")


# -- writers -------------------------------------------------------------------------------------
def to_xsb(model: "Sokoban") -> str:
    lines = []
    if model.name:
        lines.append(f"; {model.name}")
    lines += [row.rstrip() for row in model.render(model.start_state()).split("\n")]
    if model.player_goal is not None:
        r, c = model.player_goal
        lines.append(f"; player_goal: [{r}, {c}] (0-based row, col; not part of XSB)")
    return "\n".join(lines) + "\n"


def to_yaml(model: "Sokoban") -> str:
    rows = [row.rstrip() for row in model.render(model.start_state()).split("\n")]
    lines = ["puzzle: sokoban"]
    if model.name:
        lines.append(f"name: {json.dumps(model.name)}")
    indicator = "|2" if any(row[:1] == " " for row in rows) else "|"
    lines.append(f"level: {indicator}")
    lines += [f"  {row}" if row else "" for row in rows]
    if model.player_goal is not None:
        lines.append(f"player_goal: [{model.player_goal[0]}, {model.player_goal[1]}]")
    lines.append(f"metric: {model.metric}")
    if model.max_moves is not None:
        lines.append(f"max_moves: {model.max_moves}")
    return "\n".join(lines + fact_lines(model)) + "\n"
