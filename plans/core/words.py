"""Small helpers for what the program says: counted nouns and clipped quotes of user text."""
from __future__ import annotations


def count(n: int, singular: str, plural: str | None = None) -> str:
    """'1 move', '2 moves', '1,000 goal states'."""
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"


def clip(text: object, limit: int = 40) -> str:
    """At most `limit` characters of a user's text, for error messages (never echo whole values)."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."
