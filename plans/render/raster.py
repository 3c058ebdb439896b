"""Scenes as pixels with Pillow: PNG pictures and GIF animations.

Pillow's ImageDraw does not smooth edges, so a scene is drawn at SUPERSAMPLE times its size and
scaled down by averaging each block of pixels (`Image.reduce`; Lanczos took three quarters of a
long animation's time for no visible gain), which gives the round corners and circles clean edges. Text uses DejaVu
when the system has it, else the scalable font Pillow ships (`ImageFont.load_default(size)`), so
nothing depends on fonts being installed.
"""
from __future__ import annotations

import io
from functools import lru_cache
from typing import Any, Sequence

from PIL import Image, ImageDraw, ImageFont

from puzzleplan.plans.render.scene import Circle, Polygon, Rect, Scene, Shape, Text

SUPERSAMPLE = 2
_FONTS = {(False, False): "DejaVuSans.ttf", (True, False): "DejaVuSans-Bold.ttf",
          (False, True): "DejaVuSansMono.ttf", (True, True): "DejaVuSansMono-Bold.ttf"}


@lru_cache(maxsize=64)
def _font(size: int, bold: bool, mono: bool) -> Any:
    try:
        return ImageFont.truetype(_FONTS[bold, mono], size)
    except OSError:
        return ImageFont.load_default(size)


def _dashes(draw: Any, x0: float, y0: float, x1: float, y1: float, colour: str, width: int, dash: float) -> None:
    """A dashed straight line (ImageDraw draws only solid ones)."""
    length = max(abs(x1 - x0), abs(y1 - y0))
    steps = max(1, int(length // (2 * dash)))
    for k in range(steps + 1):
        a, b = min(1.0, 2 * k * dash / length), min(1.0, (2 * k + 1) * dash / length)
        if a >= 1.0:
            break
        draw.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a), (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)],
                  fill=colour, width=width)


def _paint(draw: Any, shape: Shape, k: float) -> None:
    if isinstance(shape, Rect):
        box = [shape.x * k, shape.y * k, (shape.x + shape.w) * k, (shape.y + shape.h) * k]
        width = max(1, round(shape.stroke_width * k))
        if shape.dashed and shape.stroke:
            if shape.fill:
                draw.rectangle(box, fill=shape.fill)
            x0, y0, x1, y1 = box
            for a, b in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
                _dashes(draw, *a, *b, shape.stroke, width, 2 * shape.stroke_width * k)
        elif shape.r:
            draw.rounded_rectangle(box, radius=shape.r * k, fill=shape.fill, outline=shape.stroke,
                                   width=width if shape.stroke else 0)
        else:
            draw.rectangle(box, fill=shape.fill, outline=shape.stroke, width=width if shape.stroke else 0)
    elif isinstance(shape, Circle):
        box = [(shape.cx - shape.radius) * k, (shape.cy - shape.radius) * k,
               (shape.cx + shape.radius) * k, (shape.cy + shape.radius) * k]
        draw.ellipse(box, fill=shape.fill, outline=shape.stroke,
                     width=max(1, round(shape.stroke_width * k)) if shape.stroke else 0)
    elif isinstance(shape, Polygon):
        draw.polygon([(x * k, y * k) for x, y in shape.points], fill=shape.fill, outline=shape.stroke,
                     width=max(1, round(shape.stroke_width * k)) if shape.stroke else 0)
    elif isinstance(shape, Text):
        font = _font(max(1, round(shape.size * k)), shape.bold, shape.mono)
        draw.text((shape.x * k, shape.y * k), shape.text, fill=shape.fill, font=font, anchor="mm")
    else:
        raise TypeError(f"not a shape: {type(shape).__name__}")


def missing_glyphs(scenes: Sequence[Scene]) -> str:
    """The characters of the scenes' texts that their fonts have no glyph for (Pillow draws a
    box instead), sorted; "" when every one is covered or a font cannot be read."""
    wanted: dict[tuple[bool, bool], set[str]] = {}
    for scene in scenes:
        for shape in scene.shapes:
            if isinstance(shape, Text):
                wanted.setdefault((shape.bold, shape.mono), set()).update(ch for ch in shape.text if not ch.isspace())
    missing: list[str] = []
    for (bold, mono), chars in wanted.items():
        path = getattr(_font(12, bold, mono), "path", None)
        if path is None:
            continue
        try:
            covered = _coverage(str(path))
        except Exception:   # an unreadable font file: nothing to say about it
            continue
        missing += sorted(ch for ch in chars if ord(ch) not in covered and ch not in missing)
    return "".join(missing)


@lru_cache(maxsize=8)
def _coverage(path: str) -> frozenset[int]:
    from fontTools.ttLib import TTFont
    with TTFont(path, lazy=True) as font:
        return frozenset(font.getBestCmap() or ())


def image(scene: Scene, scale: float = 1.0) -> Any:
    """The scene as an RGB Pillow image, `scale` times its size (rounded up to whole pixels)."""
    import math
    width, height = math.ceil(scene.width * scale), math.ceil(scene.height * scale)
    k = SUPERSAMPLE * scale
    big = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), scene.background)
    draw = ImageDraw.Draw(big)
    for shape in scene.shapes:
        _paint(draw, shape, k)
    return big.reduce(SUPERSAMPLE)   # each pixel the mean of its block: a tenth of Lanczos's time


def png(scene: Scene, scale: float = 1.0) -> bytes:
    """The scene as PNG bytes: 256 colours at most (a third of the size, no visible loss on
    pictures of flat colours)."""
    picture = image(scene, scale).quantize(256, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=True)
    return out.getvalue()


def gif(frames: Sequence[Scene], seconds: Sequence[float], scale: float = 1.0) -> bytes:
    """Frames of one size as a looping GIF, frame i shown for seconds[i], `scale` times their size."""
    if not frames:
        raise ValueError("an animation needs at least one frame")
    # one palette for all frames, without dithering: the unchanged parts stay byte-identical
    # from frame to frame, which Pillow's GIF writer leaves out (about a tenth of the size)
    first = image(frames[0], scale).quantize(255, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    images = [first] + [image(scene, scale).quantize(palette=first, dither=Image.Dither.NONE) for scene in frames[1:]]
    out = io.BytesIO()
    images[0].save(out, format="GIF", save_all=True, append_images=images[1:], loop=0,
                   duration=[max(20, round(1000 * s)) for s in seconds], disposal=1, optimize=False)
    return out.getvalue()
