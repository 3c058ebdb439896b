"""Small helpers for what the program says: counted nouns and clipped quotes of user text."""
from __future__ import annotations


def count(n: int, singular: str, plural: str | None = None) -> str:
    """'1 move', '2 moves', '1,000 goal states'."""
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"


def all_explored(states: int) -> str:
    """What an exhaustive search that found no goal says, in one wording for every engine."""
    return f"all {states:,} reachable states explored, none is a goal"


def metric_count(metric: str, n: int) -> str:
    """n in the unit a metric counts: '34 pushes' under pushes, else '24 moves'."""
    return count(n, "push", "pushes") if metric == "pushes" else count(n, "move")


def bound_words(model: object, bound: int) -> str:
    """A proved lower bound in the model's metric: moves, pushes, or a plan cost."""
    if getattr(model, "metric", "moves") != "pushes" and getattr(model, "unit_cost", True) is False:
        return f"every plan costs at least {bound}"
    return f"every plan needs at least {metric_count(getattr(model, 'metric', 'moves'), bound)}"


def cap_words(model: object, cap: int) -> str:
    """A cap in the model's metric: '7 pushes', '24 moves', or 'a cost of 13' with action costs."""
    metric = getattr(model, "metric", "moves")
    if metric != "pushes" and getattr(model, "unit_cost", True) is False:
        return f"a cost of {cap}"
    return metric_count(metric, cap)


def clip(text: object, limit: int = 40) -> str:
    """At most `limit` characters of a user's text, for error messages (never echo whole values)."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def clip_path(path: object, limit: int = 80) -> str:
    """A file's path for an error message, at most `limit` characters. A long path loses its
    start, not its end, so the message still names the file ('.../runs/level.lurd')."""
    text = " ".join(str(path).split())
    return text if len(text) <= limit else "..." + text[len(text) - limit + 3:]
