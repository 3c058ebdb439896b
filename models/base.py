"""The model protocol every puzzle family implements, and the error raised on bad input.

A model is an immutable instance: it owns the state encoding, move generation, goal test,
admissible heuristic and rendering for one puzzle. Engines only see this protocol.
"""
from __future__ import annotations

from typing import Any, ClassVar, Hashable, Iterator, Protocol, Sequence, TypeVar, runtime_checkable

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")


class ModelError(ValueError):
    """Bad input: the message is one line naming the file, field or line and what was expected."""


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

    def h(self, state: Any) -> int:
        return 0

    def plan_moves(self, actions: Sequence[Any]) -> list[str]:
        return [str(a) for a in actions]

    def unsolvable_reason(self) -> str | None:
        return None

    def native_searcher(self, heuristic: str | None = None, progress: Any = None) -> Any:
        """A compiled depth-first searcher for IDA*/DFS, or None to use the generic one.

        heuristic: a family-specific choice (tiles: "manhattan" or "pdb"); progress(done, total)
        is called while large tables are built (the engine polls its limits there)."""
        return None

    def plan_parity(self) -> int | None:
        """The parity every plan length has (0 even, 1 odd), when the rules fix it."""
        return None
