"""The scene every picture is drawn into: a board size and a list of plain shapes.

Families draw a state as a `Scene` (models/<family>/picture.py); the backends turn scenes into
SVG (svg.py), PNG and GIF (raster.py) and an HTML player (html.py). Keeping this model small
(rectangles, circles, polygons, text; colours as '#rrggbb'; pixels, y downwards) is what lets
one drawing serve every backend: a family never knows which file it ends up in.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Union


@dataclass(frozen=True)
class Rect:
    """A rectangle at (x, y), top-left, `w` x `h`; rounded corners of radius `r`."""

    x: float
    y: float
    w: float
    h: float
    fill: str | None = None
    stroke: str | None = None
    stroke_width: float = 1.0
    r: float = 0.0
    dashed: bool = False


@dataclass(frozen=True)
class Circle:
    """A circle centred at (cx, cy)."""

    cx: float
    cy: float
    radius: float
    fill: str | None = None
    stroke: str | None = None
    stroke_width: float = 1.0


@dataclass(frozen=True)
class Polygon:
    """A closed polygon through `points`."""

    points: tuple[tuple[float, float], ...]
    fill: str | None = None
    stroke: str | None = None
    stroke_width: float = 1.0


@dataclass(frozen=True)
class Text:
    """Text centred at (x, y) (both axes), `size` pixels high; monospace when `mono`."""

    x: float
    y: float
    text: str
    size: float
    fill: str = "#222222"
    bold: bool = False
    mono: bool = False


Shape = Union[Rect, Circle, Polygon, Text]


@dataclass
class Scene:
    """A picture: `width` x `height` pixels on `background`, shapes painted in order."""

    width: float
    height: float
    background: str = "#ffffff"
    shapes: list[Shape] = field(default_factory=list)

    def add(self, *shapes: Shape) -> "Scene":
        self.shapes.extend(shapes)
        return self

    def shifted(self, dx: float, dy: float) -> list[Shape]:
        """The shapes moved by (dx, dy): for laying scenes side by side or under a caption."""
        out: list[Shape] = []
        for s in self.shapes:
            if isinstance(s, Polygon):
                out.append(replace(s, points=tuple((x + dx, y + dy) for x, y in s.points)))
            elif isinstance(s, Circle):
                out.append(replace(s, cx=s.cx + dx, cy=s.cy + dy))
            else:
                out.append(replace(s, x=s.x + dx, y=s.y + dy))
        return out


CAPTION = 28     # the height of the band under a board that names the move shown
GAP = 24         # between boards laid side by side


def with_caption(scene: Scene, caption: str) -> Scene:
    """The scene with a line of text under it (the move an animation frame shows)."""
    out = Scene(scene.width, scene.height + CAPTION, scene.background, list(scene.shapes))
    out.add(Text(scene.width / 2, scene.height + CAPTION / 2, caption, 15))
    return out


def side_by_side(scenes: list[Scene], labels: list[str]) -> Scene:
    """Scenes in a row, each with a label under it (the start and the goal of a puzzle)."""
    width = sum(s.width for s in scenes) + GAP * (len(scenes) - 1)
    height = max(s.height for s in scenes) + CAPTION
    out = Scene(width, height, scenes[0].background)
    x = 0.0
    for scene, label in zip(scenes, labels):
        out.add(Rect(x, 0, scene.width, scene.height, fill=scene.background))
        out.shapes.extend(scene.shifted(x, 0))
        out.add(Text(x + scene.width / 2, height - CAPTION / 2, label, 15))
        x += scene.width + GAP
    return out


def common_prefix(scenes: list[Scene]) -> int:
    """How many leading shapes every scene shares (the floor, frame and walls a picture draws
    first): an animation draws them once, under frames that hold only the rest."""
    if not scenes:
        return 0
    first = scenes[0].shapes
    n = min(len(s.shapes) for s in scenes)
    for i in range(n):
        if any(s.shapes[i] != first[i] for s in scenes[1:]):
            return i
    return n


def uniform(scenes: list[Scene]) -> list[Scene]:
    """Scenes padded to one size (the largest): every frame of an animation has the same size."""
    width = max(s.width for s in scenes)
    height = max(s.height for s in scenes)
    return [s if (s.width, s.height) == (width, height) else Scene(width, height, s.background, list(s.shapes))
            for s in scenes]
