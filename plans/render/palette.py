"""Colours the pictures share: a qualitative palette, the goal colour, and readable text on them."""
from __future__ import annotations

# Distinct, print-friendly hues (Tableau 20's strong and light halves, interleaved); red is left
# out of the cycle because it marks what the goal is about (the Rush Hour primary, Klotski's block).
PALETTE: tuple[str, ...] = (
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#9c755f", "#ff9da7",
    "#a0cbe8", "#ffbe7d", "#8cd17d", "#d4a6c8", "#f1ce63", "#86bcb6", "#d7b5a6", "#bab0ac",
    "#499894", "#79706e", "#b6992d", "#d37295",
)
GOAL = "#d62728"          # the piece the goal names
BOARD = "#f4efe6"         # the board's floor
GRID = "#d9d0c1"          # cell lines on the floor
WALL = "#5b4a3a"          # walls
INK = "#222222"           # text and outlines


def colour(index: int) -> str:
    """The palette's colour number `index` (cycling)."""
    return PALETTE[index % len(PALETTE)]


def ink_on(fill: str) -> str:
    """Black or white, whichever reads better on `fill` ('#rrggbb')."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"
