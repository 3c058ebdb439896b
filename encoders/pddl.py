"""PDDL (STRIPS) domain and problem for outside planners, step metric.

Tiles: objects are cells and faces (repeated faces are one object, so identical tiles stay
interchangeable); (at ?f ?c), (blank ?c), and one action per blank direction over static
(up ?from ?to) ... facts. An outside plan's action names map back to U R D L.
Rush Hour: objects are cells and vehicles; (rear ?v ?c), (front ?v ?c), (free ?c), static
(right-of ?a ?b) / (below ?a ?b) and (horizontal ?v) / (vertical ?v); four actions move a
vehicle one cell. Vehicle lengths need no arithmetic: a move shifts rear and front together.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

DIRS = (("up", -1, 0), ("right", 0, 1), ("down", 1, 0), ("left", 0, -1))


def _cell(r: int, c: int) -> str:
    return f"c{r}_{c}"


def tiles_pddl(model: Any) -> tuple[str, str]:
    rows, cols = model.rows, model.cols
    actions = []
    for name, _, _ in DIRS:
        actions.append(f"""  (:action blank-{name}
    :parameters (?b ?c - cell ?f - face)
    :precondition (and (blank ?b) ({name} ?b ?c) (at ?f ?c))
    :effect (and (blank ?c) (not (blank ?b)) (at ?f ?b) (not (at ?f ?c))))""")
    domain = ("(define (domain sliding-tiles)\n  (:requirements :strips :typing)\n  (:types cell face)\n"
              "  (:predicates (at ?f - face ?c - cell) (blank ?c - cell) (up ?a ?b - cell) (right ?a ?b - cell)\n"
              "               (down ?a ?b - cell) (left ?a ?b - cell))\n" + "\n".join(actions) + ")\n")
    faces = {f: f"f{i}" for i, f in enumerate(model.faces) if i}
    cells = [_cell(r, c) for r in range(rows) for c in range(cols)]
    static = []
    for r in range(rows):
        for c in range(cols):
            for name, dr, dc in DIRS:
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    static.append(f"({name} {_cell(r, c)} {_cell(r + dr, c + dc)})")

    def layout(grid: Any) -> list[str]:
        return [f"(blank {_cell(r, c)})" if f == "_" else f"(at {faces[f]} {_cell(r, c)})"
                for r, row in enumerate(grid) for c, f in enumerate(row)]
    comment = "; faces: " + ", ".join(f"{v} = {k}" for k, v in faces.items())
    problem = (f"{comment}\n(define (problem {_slug(model.name) or 'tiles'})\n  (:domain sliding-tiles)\n"
               f"  (:objects {' '.join(cells)} - cell {' '.join(faces.values())} - face)\n"
               f"  (:init {' '.join(static + layout(model.start_grid))})\n"
               f"  (:goal (and {' '.join(layout(model.goal_grid))})))\n")
    return domain, problem


def rush_hour_pddl(model: Any) -> tuple[str, str]:
    from puzzleplan.models.rush_hour.board import FORWARD_EXITS   # the family's vocabulary
    if model.metric != "step":
        raise ValueError("PDDL export supports the step metric (one cell per move)")
    moves = []
    for name, rel, orient, fwd in (("right", "right-of", "horizontal", True), ("left", "right-of", "horizontal", False),
                                   ("down", "below", "vertical", True), ("up", "below", "vertical", False)):
        if fwd:  # front moves onto ?n beyond it, rear advances to ?r2
            pre = f"({rel} ?n ?f) ({rel} ?r2 ?r)"
        else:    # rear moves onto ?n before it, front retreats to ?r2
            pre = f"({rel} ?r ?n) ({rel} ?f ?r2)"
        lead, trail, new_trail = ("?f", "?r", "?r2") if fwd else ("?r", "?f", "?r2")
        moves.append(f"""  (:action move-{name}
    :parameters (?v - vehicle ?r ?f ?n ?r2 - cell)
    :precondition (and ({orient} ?v) (rear ?v ?r) (front ?v ?f) {pre} (free ?n))
    :effect (and (not (free ?n)) (free {trail})
                 ({'front' if fwd else 'rear'} ?v ?n) (not ({'front' if fwd else 'rear'} ?v {lead}))
                 ({'rear' if fwd else 'front'} ?v {new_trail}) (not ({'rear' if fwd else 'front'} ?v {trail}))))""")
    domain = ("(define (domain rush-hour)\n  (:requirements :strips :typing)\n  (:types cell vehicle)\n"
              "  (:predicates (rear ?v - vehicle ?c - cell) (front ?v - vehicle ?c - cell) (free ?c - cell)\n"
              "               (right-of ?a ?b - cell) (below ?a ?b - cell) (horizontal ?v - vehicle)\n"
              "               (vertical ?v - vehicle))\n" + "\n".join(moves) + ")\n")
    rows, cols = model.rows, model.cols
    cells = [_cell(r, c) for r in range(rows) for c in range(cols)]
    init = [f"(right-of {_cell(r, c + 1)} {_cell(r, c)})" for r in range(rows) for c in range(cols - 1)]
    init += [f"(below {_cell(r + 1, c)} {_cell(r, c)})" for r in range(rows - 1) for c in range(cols)]
    taken = set(model.walls)
    names = {}
    for i, v in enumerate(model.vehicles):
        obj = f"v{i}"
        names[obj] = v.name
        cs = v.cells()
        taken.update(cs)
        init += [f"({'horizontal' if v.horizontal else 'vertical'} {obj})",
                 f"(rear {obj} {_cell(*cs[0])})", f"(front {obj} {_cell(*cs[-1])})"]
    init += [f"(free {_cell(r, c)})" for r in range(rows) for c in range(cols) if (r, c) not in taken]
    p = model.vehicles[model.primary]
    target = p.cells(model.goal_offset)
    which = "front" if model.exit in FORWARD_EXITS else "rear"   # the end of the primary at its exit
    goal = f"({which} v{model.primary} {_cell(*(target[-1] if which == 'front' else target[0]))})"
    comment = "; vehicles: " + ", ".join(f"{k} = {v}" for k, v in names.items())
    problem = (f"{comment}\n(define (problem {_slug(model.name) or 'rush-hour'})\n  (:domain rush-hour)\n"
               f"  (:objects {' '.join(cells)} - cell {' '.join(names)} - vehicle)\n"
               f"  (:init {' '.join(init)})\n  (:goal {goal}))\n")
    return domain, problem


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")


@dataclass(frozen=True)
class PddlExporter:
    """A family's PDDL writer with its declared capability (the metrics its domain models)."""

    write: Callable[[Any], tuple[str, str]]
    metrics: tuple[str, ...] = ("step",)

    def supports(self, model: Any) -> str | None:
        if model.metric not in self.metrics:
            return f"the PDDL domain models the {', '.join(self.metrics)} metric, not {model.metric}"
        return None

    def __call__(self, model: Any) -> tuple[str, str]:
        reason = self.supports(model)
        if reason is not None:
            raise ValueError(f"no PDDL export: {reason}")
        return self.write(model)


TILES = PddlExporter(tiles_pddl)
RUSH_HOUR = PddlExporter(rush_hour_pddl)


def exporter_supports(model: Any, kind: str) -> str | None:
    """None when the family declares an exporter of `kind` that takes this model, else why not."""
    from puzzleplan.models.family import part
    writer = part(model, "exports", kind)
    if writer is None:
        return f"{model.family} declares no {kind} export"
    check = getattr(writer, "supports", None)
    return check(model) if callable(check) else None


def pddl_for(model: Any) -> tuple[str, str]:
    """Domain and problem text from the family's declared PDDL exporter (ValueError if none)."""
    from puzzleplan.models.family import part
    reason = exporter_supports(model, "pddl")
    if reason is not None:
        raise ValueError(f"no PDDL export: {reason}")
    return part(model, "exports", "pddl")(model)
