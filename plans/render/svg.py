"""Scenes as SVG, written with drawsvg: one picture, or an animation of frames shown in turn.

The animation is plain SMIL: every frame is a group whose `visibility` an `<animate>` with
discrete key times switches on for its slot of one looping timeline. Browsers play it with no
script, and a viewer without SMIL still shows the first frame (the others start hidden).
"""
from __future__ import annotations

from typing import Any, Sequence

import drawsvg as dw

from puzzleplan.plans.render.scene import Circle, Polygon, Rect, Scene, Shape, Text, common_prefix

SANS = "DejaVu Sans, Verdana, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"


def _n(value: float) -> float | int:
    """A coordinate as written: whole numbers bare, else two decimals (pictures need no more)."""
    value = round(value, 2)
    return int(value) if value == int(value) else value


def _element(shape: Shape) -> Any:
    if isinstance(shape, Rect):
        extra: dict[str, Any] = {"rx": _n(shape.r), "ry": _n(shape.r)} if shape.r else {}
        if shape.dashed:
            extra["stroke_dasharray"] = f"{2 * shape.stroke_width:g} {2 * shape.stroke_width:g}"
        return dw.Rectangle(_n(shape.x), _n(shape.y), _n(shape.w), _n(shape.h), fill=shape.fill or "none",
                            stroke=shape.stroke or "none", stroke_width=_n(shape.stroke_width), **extra)
    if isinstance(shape, Circle):
        return dw.Circle(_n(shape.cx), _n(shape.cy), _n(shape.radius), fill=shape.fill or "none",
                         stroke=shape.stroke or "none", stroke_width=_n(shape.stroke_width))
    if isinstance(shape, Polygon):
        flat = [_n(v) for point in shape.points for v in point]
        return dw.Lines(*flat, close=True, fill=shape.fill or "none", stroke=shape.stroke or "none",
                        stroke_width=_n(shape.stroke_width))
    if isinstance(shape, Text):
        return dw.Text(shape.text, _n(shape.size), _n(shape.x), _n(shape.y), fill=shape.fill, text_anchor="middle",
                       dominant_baseline="central", font_family=MONO if shape.mono else SANS,
                       font_weight="bold" if shape.bold else "normal",
                       **({"style": "white-space: pre"} if shape.mono else {}))
    raise TypeError(f"not a shape: {type(shape).__name__}")


def _group(scene: Scene, shapes: Sequence[Shape] | None = None, background: bool = True, **attrs: Any) -> Any:
    group = dw.Group(**attrs)
    if background:
        group.append(dw.Rectangle(0, 0, scene.width, scene.height, fill=scene.background))
    for shape in scene.shapes if shapes is None else shapes:
        group.append(_element(shape))
    return group


def _drawing(width: float, height: float, title: str) -> Any:
    drawing = dw.Drawing(width, height)
    if title:
        drawing.append(dw.Title(title))
    return drawing


def picture(scene: Scene, title: str = "", header: bool = True, background: bool = True) -> str:
    """One scene as an SVG document (`header`: with the XML declaration, which inline SVG in
    HTML goes without; `background`: paint the scene's background, else leave it clear)."""
    drawing = _drawing(scene.width, scene.height, title)
    drawing.append(_group(scene, background=background))
    return str(drawing.as_svg(header='<?xml version="1.0" encoding="UTF-8"?>\n' if header else ""))


def animation(frames: Sequence[Scene], seconds: Sequence[float], title: str = "") -> str:
    """Frames of one size shown in turn, frame i for seconds[i], looping for ever. The shapes
    all frames begin with (`common_prefix`) are drawn once, under the frames."""
    if not frames:
        raise ValueError("an animation needs at least one frame")
    total = float(sum(seconds))
    starts = [sum(seconds[:i]) / total for i in range(len(frames) + 1)]
    shared = common_prefix(list(frames))
    drawing = _drawing(frames[0].width, frames[0].height, title)
    drawing.append(_group(frames[0], frames[0].shapes[:shared], class_="board"))
    for i, scene in enumerate(frames):
        group = _group(scene, scene.shapes[shared:], background=False, id=f"frame-{i}", class_="frame",
                       visibility="visible" if i == 0 else "hidden")
        if len(frames) > 1:
            values, times = _switch(starts[i], starts[i + 1])
            group.append_anim(dw.Animate("visibility", f"{total:g}s", values=values, keyTimes=times,
                                         calcMode="discrete", repeatCount="indefinite"))
        drawing.append(group)
    return str(drawing.as_svg())


def _switch(start: float, end: float) -> tuple[str, str]:
    """`values` and `keyTimes` that show a frame from `start` to `end` (fractions of the loop)."""
    at = lambda t: f"{t:.6f}".rstrip("0").rstrip(".") or "0"  # noqa: E731
    if start == 0:
        return "visible;hidden", f"0;{at(end)}"
    if end >= 1:
        return "hidden;visible", f"0;{at(start)}"
    return "hidden;visible;hidden", f"0;{at(start)};{at(end)}"
