"""Pictures of puzzles and animations of plans: SVG, PNG, GIF and a self-contained HTML player.

    render(model, plan=None, to="svg", frame=None, seconds=0.6, scale=1.0, notation=None) -> str | bytes
    render_file(model, path, plan=None, to=None, ...) -> Rendering   (format from the suffix)

Without a plan: the start (beside the goal, where the family draws the goal as a state). With
a plan (text, a list of moves, a Plan or a Result): "svg" an animated SVG, "gif" a GIF, "html"
a page with play/pause/step controls and the move list; "png" and "svg" with `frame=k` draw the
board after k moves. The plan is checked by the independent checker first (RenderError, a
ValueError, when it is invalid).

Modules: `scene` (the shapes every family draws into), `palette`, `board` (grid geometry the
family pictures share), `generic` (the text-grid view of families without a picture),
`frames` (the plan's replay and the family's picture function), and one module per backend:
`svg` (drawsvg), `raster` (Pillow), `html`.
"""
from __future__ import annotations

import numbers
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from puzzleplan.plans.render.frames import RenderError, Replay, drawer, goal_state, replay
from puzzleplan.plans.render.scene import Scene, side_by_side, uniform, with_caption

FORMATS = ("svg", "png", "gif", "html")
SUFFIXES = {".svg": "svg", ".png": "png", ".gif": "gif", ".html": "html", ".htm": "html"}
HOLD = 3          # the start and the last board stay this many moves' time in a looping animation

__all__ = ["FORMATS", "RenderError", "Rendering", "format_of", "make", "render", "render_file"]


@dataclass(frozen=True)
class Rendering:
    """What was made: the format, the number of boards drawn, the file's content."""

    format: str
    frames: int
    data: str | bytes
    notes: tuple[str, ...] = ()   # what the user should know of it (faces a raster font cannot draw)


def format_of(path: str | os.PathLike[str], to: str | None = None) -> str:
    """The format asked for: `to`, else the file's suffix (RenderError naming the choices)."""
    if to is not None:
        if to not in FORMATS:
            raise RenderError(f"unknown picture format {to!r}; expected one of {', '.join(FORMATS)}")
        return to
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise RenderError(f"{Path(path).name}: cannot tell the picture format from the suffix "
                          f"{suffix or '(none)'!r}; name the file .svg, .png, .gif or .html")
    return SUFFIXES[suffix]


def _title(model: Any) -> str:
    return str(model.name or model.family)


def _about(model: Any, moves: int) -> str:
    plural = "move" if moves == 1 else "moves"
    return f"{model.family}, metric {model.metric}, {moves} {plural}"


def make(model: Any, plan: Any = None, to: str = "svg", frame: int | None = None, seconds: float = 0.6,
         scale: float = 1.0, notation: str | None = None) -> Rendering:
    """The picture or animation (see the module docstring) with what it holds, and a note when
    a PNG or GIF holds text its fonts cannot draw (SVG and HTML leave fonts to the viewer).
    `notation`: how a tiles plan's text is read (blank, digits or tiles), as `check --notation`."""
    if to not in FORMATS:
        raise RenderError(f"unknown picture format {to!r}; expected one of {', '.join(FORMATS)}")
    for name, value in (("seconds", seconds), ("scale", scale)):
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise RenderError(f"{name}: expected a number, got {value!r}")
    if frame is not None and (not isinstance(frame, numbers.Integral) or isinstance(frame, bool)):
        raise RenderError(f"frame: expected a whole number (the board after that many moves), got {frame!r}")
    if not 0.05 <= seconds <= 60:
        raise RenderError(f"seconds: expected 0.05 to 60 seconds per move, got {seconds:g}")
    if not 0.1 <= scale <= 10:
        raise RenderError(f"scale: expected 0.1 to 10, got {scale:g}")
    if frame is not None and to not in ("svg", "png"):
        raise RenderError(f"frame: a single board is drawn as svg or png, not {to}")
    from puzzleplan.plans.check import check_notation
    try:
        check_notation(model, notation)
    except ValueError as exc:
        raise RenderError(str(exc)) from None
    if to == "png" and plan is not None and frame is None:
        raise RenderError("png is one picture: leave out the plan, pick a board with frame (--frame K), "
                          "or make an animation (gif, svg, html)")
    draw = drawer(model)
    played = replay(model, plan, notation) if plan is not None else Replay((), (model.initial(),))
    n = len(played.moves)
    if frame is not None:
        if not 0 <= frame <= n:
            raise RenderError(f"frame: expected 0 to {n} (the boards after 0 to {n} moves), got {frame}")
        return _still(draw(model, played.states[frame]), to, scale, _title(model))
    if to in ("svg", "png") and plan is None:
        return _still(_start(model, draw), to, scale, _title(model))
    scenes = uniform([draw(model, state) for state in played.states])
    if to == "html":
        from puzzleplan.plans.render import html
        boards = [model.render(state) for state in played.states]
        page = html.page(scenes, boards, played.moves, _title(model), _about(model, n), seconds)
        return Rendering("html", n + 1, page)
    captioned = [with_caption(scene, "start" if i == 0 else f"{i}/{n}  {played.moves[i - 1]}")
                 for i, scene in enumerate(scenes)]
    times = [seconds * (HOLD if i in (0, n) else 1) for i in range(n + 1)]
    if to == "gif":
        from puzzleplan.plans.render import raster
        return Rendering("gif", n + 1, raster.gif(captioned, times, scale), _glyph_notes(captioned))
    from puzzleplan.plans.render import svg
    return Rendering("svg", n + 1, svg.animation(captioned, times, _title(model)))


def _glyph_notes(scenes: list[Scene]) -> tuple[str, ...]:
    from puzzleplan.plans.render import raster
    missing = raster.missing_glyphs(scenes)
    if not missing:
        return ()
    return (f"the fonts found have no glyph for {' '.join(missing[:12])}{' ...' if len(missing) > 12 else ''}, "
            "drawn as boxes; svg and html keep the text for the viewer's fonts",)


def _start(model: Any, draw: Any) -> Scene:
    """The start, beside the goal where the family gives the goal as a state."""
    start = draw(model, model.initial())
    goal = goal_state(model)
    if goal is None:
        return start
    return side_by_side([start, draw(model, goal)], ["start", "goal"])


def _still(scene: Scene, to: str, scale: float, title: str) -> Rendering:
    if to == "png":
        from puzzleplan.plans.render import raster
        return Rendering("png", 1, raster.png(scene, scale), _glyph_notes([scene]))
    from puzzleplan.plans.render import svg
    return Rendering("svg", 1, svg.picture(scene, title))


def render(model: Any, plan: Any = None, to: str = "svg", frame: int | None = None, seconds: float = 0.6,
           scale: float = 1.0, notation: str | None = None) -> str | bytes:
    """The picture (svg, html: text; png, gif: bytes); see the module docstring."""
    return make(model, plan, to, frame, seconds, scale, notation).data


def render_file(model: Any, path: str | os.PathLike[str], plan: Any = None, to: str | None = None,
                frame: int | None = None, seconds: float = 0.6, scale: float = 1.0,
                notation: str | None = None) -> Rendering:
    """Write the picture to `path` (format from `to` or the suffix), all or nothing: it is made
    in full first, then written beside the target and renamed onto it. OSError when the file
    cannot be written."""
    from puzzleplan.plans.core.files import write_bytes
    made = make(model, plan, format_of(path, to), frame, seconds, scale, notation)
    write_bytes(path, made.data.encode("utf-8") if isinstance(made.data, str) else made.data)
    return made
