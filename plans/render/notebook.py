"""Pictures in Jupyter: what models, states and results show in a notebook.

    Picture   SVG text that a notebook shows as the picture (`_repr_svg_`); its repr is the
              state's text picture
    Page      an HTML page (text) that a notebook shows as the player, in an iframe of its own
              (`_repr_html_`), so several players on one notebook page never share ids or
              styles; its repr is one line
    picture(model, state=None) -> Picture       a state (default: the start beside the goal)
    animation(model, plan, seconds=0.6) -> Page the plan's HTML player (plans/render/html.py)
    model_svg(model), result_html(result)       what the reprs of models and results show,
                                                None when nothing can be drawn (the notebook
                                                then shows the text repr): never an error
"""
from __future__ import annotations

from html import escape
from typing import Any

IFRAME_EXTRA = 230     # pixels above and below the board in the player: title, caption, controls
IFRAME_MIN = 340       # the move list beside a small board needs about this much


class Picture(str):
    """SVG text shown as the picture in a notebook; `text` is the state's text picture."""

    text: str

    def __new__(cls, svg: str, text: str = "") -> "Picture":
        made = super().__new__(cls, svg)
        made.text = text
        return made

    def _repr_svg_(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return self.text or f"<Picture, {len(self):,} characters of SVG>"


class Page(str):
    """An HTML page shown as an embedded player in a notebook (in an iframe of `height` pixels)."""

    boards: int
    height: int

    def __new__(cls, html: str, boards: int = 0, height: int = IFRAME_MIN) -> "Page":
        made = super().__new__(cls, html)
        made.boards, made.height = boards, height
        return made

    def _repr_html_(self) -> str:
        return (f'<iframe srcdoc="{escape(str(self), quote=True)}" width="100%" height="{self.height}" '
                'style="border: 0" title="puzzleplan player"></iframe>')

    def __repr__(self) -> str:
        moves = self.boards - 1
        return f"<Page: an HTML player of {moves:,} move{'' if moves == 1 else 's'}, {len(self):,} characters>"


def picture(model: Any, state: Any = None) -> Picture:
    """The picture of `state`, or with no state the start (beside the goal where the family
    draws the goal as a state), as `puzzleplan.render(model)` draws it."""
    from puzzleplan.plans.render import render, svg
    from puzzleplan.plans.render.frames import drawer
    if state is None:
        return Picture(str(render(model, to="svg")), model.render(model.initial()))
    scene = drawer(model)(model, state)
    return Picture(svg.picture(scene, str(model.name or model.family)), model.render(state))


def animation(model: Any, plan: Any, seconds: float = 0.6) -> Page:
    """The plan's HTML player (plan: text, moves, a Plan or a Result; checked first: an invalid
    plan is a RenderError, a ValueError)."""
    from puzzleplan.plans.render import make
    from puzzleplan.plans.render.frames import drawer
    made = make(model, plan, "html", seconds=seconds)
    board = drawer(model)(model, model.initial())
    return Page(str(made.data), made.frames, max(IFRAME_MIN, round(board.height) + IFRAME_EXTRA))


def model_svg(model: Any) -> str | None:
    """The start's picture as SVG, None when it cannot be drawn."""
    try:
        return str(picture(model))
    except Exception:   # a repr must never raise: the notebook falls back to the text repr
        return None


def result_html(result: Any) -> str | None:
    """The player of the result's plan, None without a plan, a model, or a picture."""
    model = getattr(result, "model", None)
    if model is None or getattr(result, "plan", None) is None:
        return None
    try:
        return animation(model, result)._repr_html_()
    except Exception:   # a repr must never raise: the notebook falls back to the text repr
        return None
