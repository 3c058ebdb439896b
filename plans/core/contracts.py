"""The contracts the engines are typed against: what a search needs of a model and its parts.

Small `typing.Protocol`s, checked by type checkers (and, being `runtime_checkable`, by
`isinstance` where a caller wants to): engines take a `Model`, the array search takes a
`PackedSpace`, IDA* and capped DFS take a `DepthFirstSearcher`. One signature per hook; the
optional hooks (`packed_space`, `native_searcher`, `plan_cost`, ...) are reached through the
helpers of the modules that use them, never by probing inside a search loop.

`puzzleplan.models.base.Model` is the family-facing statement of a model (with rendering and
the file's fields); `Model` here is the part of it a search reads. Any model of a family
satisfies both. This module imports nothing at run time beyond `typing`, so every layer may
import it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Hashable, Iterable, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from puzzleplan.plans.core.context import SearchContext

State = Hashable   # compact and hashable: ints, bytes, tuples of them (never dicts)
Action = Any       # whatever `successors` yields; only `plan_moves` reads it


@runtime_checkable
class Model(Protocol):
    """A puzzle instance as the engines see it: unit-cost moves under one metric."""

    family: str
    metric: str
    max_moves: int | None   # the file's move cap (None: none); `solve` takes it by default

    def initial(self) -> State:
        """The start state."""

    def is_goal(self, state: State) -> bool:
        """True when `state` satisfies the goal."""

    def successors(self, state: State) -> Iterable[tuple[Action, State]]:
        """(action, next state) for every legal move."""

    def h(self, state: State) -> int:
        """An admissible lower bound on the moves left (0 when none is known)."""

    def plan_moves(self, actions: Sequence[Action]) -> list[str]:
        """The move strings of an action path, in the notation `puzzleplan check` reads."""

    def unsolvable_reason(self) -> str | None:
        """A reason when the instance is decided unsolvable without search, else None."""

    def plan_parity(self) -> int | None:
        """The parity every plan length has (0 even, 1 odd), when the rules fix it."""


@runtime_checkable
class PackedSpace(Protocol):
    """A model's states packed into uint64 keys, with a vectorised move generator
    (`model.packed_space()`; searched a layer at a time by `plans.search.layered`)."""

    reversible: bool   # every move is undone by one move: duplicates lie in the last two layers

    def pack(self, state: State) -> int:
        """The key of a model state."""

    def expand(self, keys: "np.ndarray") -> tuple["np.ndarray", "np.ndarray", "np.ndarray"]:
        """(children, index of each child's parent in `keys`, move code of each child)."""

    def goal_mask(self, keys: "np.ndarray") -> "np.ndarray":
        """True where the key is a goal state."""

    def action(self, code: int) -> Action:
        """The model action of a move code (what `model.plan_moves` takes)."""


@runtime_checkable
class DepthFirstSearcher(Protocol):
    """A bounded depth-first searcher: the generic one (`plans.search.depth_first`) or a
    family's compiled one (`model.native_searcher()`, tiles)."""

    h0: int   # the heuristic of the start: IDA*'s first bound

    def bounded(self, bound: int, ctx: "SearchContext",
                ordered: bool = False) -> tuple[list[Action] | None, int | None]:
        """Every path with g + h <= bound, children best-h first when `ordered`. Returns
        (actions, None) for a plan, else (None, the smallest f above the bound, or None when
        nothing was cut: the space holds no plan)."""


NativeSearcher = DepthFirstSearcher   # the name a family's compiled searcher goes by


class Accelerated(Model, Protocol):
    """The optional hooks a family's model may add (`ModelBase` gives each a default), each
    with one signature; the engines reach them through `layered.packed_space`,
    `depth_first.searcher_for` and `common.finish` only."""

    default_engine: str   # what `solve` runs without an engine name

    def packed_space(self) -> PackedSpace | None:
        """The states packed into uint64 keys, or None when they do not fit."""

    def native_searcher(self, heuristic: str | None = None, progress: Any = None,
                        memory_limit_mb: float | None = None, **options: Any) -> DepthFirstSearcher | None:
        """A compiled searcher (options: e.g. partition=), or None to use the generic one."""

    def plan_cost(self, actions: Sequence[Action]) -> int:
        """The metric's cost of a plan when it is not its length (Sokoban pushes)."""

    def whole_space(self) -> Model:
        """The model with every legal move among its successors (pruning of dead positions off)."""


class Engine(Protocol):
    """An engine module: `run` beside `supports` (see `plans.core.engines`)."""

    def run(self, model: Model, request: Any, ctx: "SearchContext") -> Any:
        """Search `model` as `request` asks, within `ctx`'s limits; returns a Result."""

    def supports(self, model: Model) -> str | None:
        """None when this engine can run `model`, else the reason it cannot."""


__all__ = ["Accelerated", "Action", "DepthFirstSearcher", "Engine", "Model", "NativeSearcher", "PackedSpace", "State"]
