"""The model protocol every puzzle family implements, and the error raised on bad input.

A model is an immutable instance: it owns the state encoding, move generation, goal test,
admissible heuristic and rendering for one puzzle. Engines only see this protocol.
"""
from __future__ import annotations

import importlib
import reprlib
from typing import Any, ClassVar, Hashable, Iterator, Protocol, Sequence, TypeVar, runtime_checkable

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")

QUOTE_LIMIT = 40          # characters of a user's value an error message may quote
MESSAGE_LIMIT = 600       # characters of a whole error message (a safety net behind `quote`)


MAX_CAP = 100_000  # the largest move cap a file or --max-moves may ask for


class ModelError(ValueError):
    """Bad input: the message is one line naming the file, field or line and what was expected.

    Whatever the caller passes, the message is made one line (line breaks become spaces) and at
    most MESSAGE_LIMIT characters: a user's value must never flood the terminal. Values are
    quoted through `quote`, which keeps far less."""

    def __init__(self, message: object = "") -> None:
        text = message if isinstance(message, str) else str(message)
        if len(text) > 4 * MESSAGE_LIMIT:
            text = text[:4 * MESSAGE_LIMIT]
        if "\n" in text or "\r" in text:
            text = " ".join(text.split())
        if len(text) > MESSAGE_LIMIT:
            text = text[:MESSAGE_LIMIT - 3] + "..."
        super().__init__(text)


_REPR = reprlib.Repr()
_REPR.maxstring = QUOTE_LIMIT
_REPR.maxother = QUOTE_LIMIT
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = 4
_REPR.maxlevel = 2


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """A short, one-line quotation of a user's value for an error message: its repr, cut to at
    most `limit` characters (a cut ends with '...'). Never builds the whole repr of a large
    string or container, so it is cheap on any input."""
    try:
        if isinstance(value, str):
            text = repr(value[:limit + 1])
        else:
            text = _REPR.repr(value)
    except Exception:  # a user's __repr__ that raises, an int too long to print
        text = f"<{type(value).__name__}>"
    if "\n" in text or "\r" in text:
        text = text.replace("\r", " ").replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A user's text without quotes, on one line, cut to at most `limit` characters ('...' ends a cut)."""
    text = " ".join(str(text)[:limit + 1].split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def describe(value: Any) -> str:
    """What a YAML value is, in words: 'a list', 'a mapping', 'text', 'a number', 'nothing'."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'} (a boolean)"
    if isinstance(value, str):
        return f"the text {quote(value)}"
    if isinstance(value, (int, float)):
        return f"the number {quote(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def bits(mask: int) -> list[int]:
    """The set bit positions of a bitset (cells of a mask), lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@runtime_checkable
class Model(Protocol):
    """A puzzle instance under a metric (unit-cost moves in that metric)."""

    family: ClassVar[str]
    name: str
    metric: str
    max_moves: int | None
    expect: dict[str, Any]

    def initial(self) -> Any:
        """The start state: compact and hashable (ints/bytes, never dicts)."""

    def is_goal(self, state: Any) -> bool:
        """True when `state` satisfies the goal."""

    def successors(self, state: Any) -> Iterator[tuple[Any, Any]]:
        """Yield (action, next_state) for every legal move."""

    def h(self, state: Any) -> int:
        """An admissible lower bound on the moves left (0 when none is known)."""

    def plan_moves(self, actions: Sequence[Any]) -> list[str]:
        """The move strings of an action path, in the notation `puzzleplan check` reads."""

    def render(self, state: Any) -> str:
        """A human-readable picture of `state`."""

    def unsolvable_reason(self) -> str | None:
        """A reason when the instance is decided unsolvable without search, else None."""


class ModelBase:
    """Defaults shared by the built-in families; a family overrides what it knows better."""

    family: ClassVar[str] = ""
    metrics: ClassVar[tuple[str, ...]] = ("step",)
    name: str = ""
    metric: str = "step"
    max_moves: int | None = None
    expect: dict[str, Any] = {}
    description: str = ""

    # Models are immutable once built: `load` seals them, a change is a new model
    # (`with_changes`), and caches live in resource objects of the family, never on the model.
    def __setattr__(self, key: str, value: Any) -> None:
        if self.__dict__.get("_sealed"):
            raise AttributeError(f"{type(self).__name__} is immutable; use model.with_changes({key}=...)")
        object.__setattr__(self, key, value)

    def seal(self) -> "ModelBase":
        """Make this model immutable (done by `load`); returns it."""
        object.__setattr__(self, "_sealed", True)
        return self

    @classmethod
    def checked_metric(cls, metric: Any) -> str:
        """`metric` when the family has it, else ValueError naming the family's metrics."""
        if metric not in cls.metrics:
            raise ValueError(f"metric: expected one of {', '.join(cls.metrics)} for {cls.family or cls.__name__}, "
                             f"got {metric!r}")
        return str(metric)

    def with_changes(self, **changes: Any) -> "ModelBase":
        """A new model with some fields replaced (e.g. `max_moves` from the command line); a
        family that builds its model per metric (`with_metric`) gets its metric that way."""
        import copy
        rebuild = getattr(self, "with_metric", None)
        if "metric" in changes and rebuild is not None:
            self = rebuild(self.checked_metric(changes.pop("metric")))
            if not changes:
                return self
        twin = copy.copy(self)
        object.__setattr__(twin, "_sealed", False)
        for key, value in changes.items():
            if not hasattr(self, key):
                raise AttributeError(f"{type(self).__name__} has no field {key!r}")
            if key == "max_moves":
                from puzzleplan.plans.core.types import check_cap
                check_cap(value)
            if key == "metric":
                self.checked_metric(value)
            setattr(twin, key, value)
        return twin.seal()

    def __repr__(self) -> str:
        """E.g. <TilesPuzzle 'malok safe': tiles 4x4, metric step, cap 59>."""
        rows, cols = self.__dict__.get("rows"), self.__dict__.get("cols")
        size = f" {rows}x{cols}" if isinstance(rows, int) and isinstance(cols, int) else ""
        cap = "" if self.max_moves is None else f", cap {self.max_moves}"
        name = f" {quote(self.name)}" if self.name else ""
        return f"<{type(self).__name__}{name}: {self.family}{size}, metric {self.metric}{cap}>"

    def _repr_svg_(self) -> str | None:
        """In a notebook: the start's picture (beside the goal where the family draws it as a
        state); None, so the text repr shows, when it cannot be drawn."""
        try:   # by name, as Family specs are: the pictures sit above the models
            model_svg = importlib.import_module("puzzleplan.plans.render.notebook").model_svg
        except Exception:   # a repr must never raise
            return None
        return model_svg(self)

    def h(self, state: Any) -> int:
        return 0

    def plan_moves(self, actions: Sequence[Any]) -> list[str]:
        return [str(a) for a in actions]

    def unsolvable_reason(self) -> str | None:
        return None

    def native_searcher(self, heuristic: str | None = None, progress: Any = None,
                        memory_limit_mb: float | None = None) -> Any:
        """A compiled depth-first searcher for IDA*/DFS, or None to use the generic one.

        heuristic: a family-specific choice (tiles: "manhattan" or "pdb"); progress(done, total)
        is called while large tables are built (the engine polls its limits there);
        memory_limit_mb: what its tables may take (larger ones are refused before allocating)."""
        return None

    def plan_parity(self) -> int | None:
        """The parity every plan length has (0 even, 1 odd), when the rules fix it."""
        return None

    def whole_space(self) -> "ModelBase":
        """This puzzle with every legal move among its successors (what `explore` counts):
        itself, unless the family leaves out moves into dead positions (Sokoban's pruning)."""
        return self
