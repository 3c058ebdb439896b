"""Core value types shared by every engine: statuses, plans, statistics, limits and results."""
from __future__ import annotations

import enum
import importlib
import numbers
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from puzzleplan.plans.core.memory import default_memory_limit_mb

if TYPE_CHECKING:
    from puzzleplan.plans.render.notebook import Page

# What a result shows in Jupyter, imported by name when shown: the pictures sit above these types.
NOTEBOOK = "puzzleplan.plans.render.notebook"


class Status(str, enum.Enum):
    """How a search ended. The value is the word printed in text and JSON output."""

    OPTIMAL = "optimal"                        # a plan, proved shortest
    SOLVED = "solved"                          # a plan within the cap, not proved shortest
    UNSOLVABLE = "unsolvable"                  # proved: no plan of any length
    NO_PLAN_WITHIN_CAP = "no_plan_within_cap"  # proved: no plan of length <= cap
    LIMIT_REACHED = "limit_reached"            # gave up (time, states, memory, Ctrl-C)
    UNSUPPORTED = "unsupported"                # this engine cannot handle this instance

    @property
    def exit_code(self) -> int:
        """The CLI exit code: 0 a plan, 1 a negative answer, 2 unusable, 3 a limit first."""
        return {
            Status.OPTIMAL: 0,
            Status.SOLVED: 0,
            Status.UNSOLVABLE: 1,
            Status.NO_PLAN_WITHIN_CAP: 1,
            Status.LIMIT_REACHED: 3,
            Status.UNSUPPORTED: 2,
        }[self]

    @property
    def has_plan(self) -> bool:
        return self in (Status.OPTIMAL, Status.SOLVED)


@dataclass(frozen=True)
class Plan:
    """A plan as the move strings `puzzleplan check` accepts, plus its cost under the metric.

    `cost` equals `len(moves)` for unit-cost metrics; families whose metric counts only some
    moves (e.g. Sokoban pushes) report the metric's count there.
    """

    moves: tuple[str, ...]
    cost: int
    spaced: bool = field(default=False, compare=False)   # always space-separated: the model's plan
                                                         # reader cannot split runs (see check.reads_runs)

    @classmethod
    def of(cls, moves: list[str] | tuple[str, ...], cost: int | None = None) -> "Plan":
        moves = tuple(moves)
        return cls(moves, len(moves) if cost is None else cost)

    @property
    def length(self) -> int:
        return len(self.moves)

    def text(self) -> str:
        """Compact text: single-character moves run together (unless `spaced`), longer ones
        space-separated."""
        if not self.spaced and all(len(m) == 1 for m in self.moves):
            return "".join(self.moves)
        return " ".join(self.moves)

    def __repr__(self) -> str:
        """E.g. <Plan 24 moves: 3 0 1 2 ...>; the moves cut to about 40 characters."""
        text = self.text()
        text = text if len(text) <= 40 else text[:37] + "..."
        cost = "" if self.cost == self.length else f" (cost {self.cost})"
        return f"<Plan {_moves(self.length)}{cost}: {text}>" if text else f"<Plan {_moves(self.length)}{cost}>"


@dataclass
class Stats:
    """Counters an engine keeps while it runs; honest by construction (incremented in the loop).

    nodes:  states expanded (successors generated from them)
    generated: successor states generated
    states: distinct states stored (visited set / table size); 0 for memory-less searches
    """

    nodes: int = 0
    generated: int = 0
    states: int = 0
    seconds: float = 0.0
    depth: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "nodes": self.nodes,
            "generated": self.generated,
            "states": self.states,
            "seconds": round(self.seconds, 6),
            "depth": self.depth,
        }
        out.update(self.extra)
        return out

    def __repr__(self) -> str:
        """E.g. <Stats 1,234 nodes, 5,678 generated, 910 states, depth 24, 0.012 s>."""
        return (f"<Stats {self.nodes:,} nodes, {self.generated:,} generated, {self.states:,} states, "
                f"depth {self.depth}, {self.seconds:.3f} s>")


@dataclass(frozen=True)
class Limits:
    """Resource limits every search honours. None means unlimited.

    The memory limit is on by default (`default_memory_limit_mb`); pass `memory_mb=None` to
    lift it.
    """

    time_limit: float | None = None     # wall-clock seconds (0: already out of time)
    max_states: int | None = None       # stored states (visited set, open list)
    memory_mb: int | None = field(default_factory=default_memory_limit_mb)  # resident MiB of the process

    def __post_init__(self) -> None:
        """ValueError naming the field for a limit that is not a number in its range."""
        if self.time_limit is not None:
            if not _is_number(self.time_limit) or not self.time_limit >= 0:
                raise ValueError(f"time_limit: expected seconds >= 0 or None, got {self.time_limit!r}")
        for name, value in (("max_states", self.max_states), ("memory_mb", self.memory_mb)):
            if value is not None and not (_is_whole(value) and value >= 1):
                raise ValueError(f"{name}: expected a whole number >= 1 or None, got {value!r}")


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_whole(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_cap(value: Any) -> None:
    """ValueError unless `value` is a move cap: None or a whole number >= 0."""
    if value is not None and not (_is_whole(value) and value >= 0):
        raise ValueError(f"max_moves: expected a whole number >= 0 or None, got {value!r}")


@dataclass(frozen=True)
class Request:
    """What the user asked of an engine."""

    max_moves: int | None = None        # the cap: plans longer than this do not count
    any_plan: bool = False              # True: the first plan within the cap will do
    limits: Limits = field(default_factory=Limits)
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_cap(self.max_moves)


def plan_moves(plan: Any) -> Any:
    """A Plan's moves (a Result's plan's; ValueError naming its status when it holds none), or
    `plan` itself (text, a list of moves) as given: what the API's plan arguments take."""
    if isinstance(plan, Result):
        if plan.plan is None:
            raise ValueError(f"the result holds no plan ({plan.status.value})")
        plan = plan.plan
    return [str(m) for m in plan.moves] if isinstance(plan, Plan) else plan


@dataclass(frozen=True)
class Result:
    """The outcome of one engine on one instance."""

    status: Status
    engine: str
    plan: Plan | None = None
    lower_bound: int | None = None      # proved: no plan is shorter than this
    stats: Stats = field(default_factory=Stats)
    message: str = ""                   # why (unsolvable reason, limit hit, ...)
    # the model solved, set by `solve()` so a notebook can draw the plan; not part of as_dict()
    model: Any = field(default=None, repr=False, compare=False)

    @property
    def length(self) -> int | None:
        """The plan's move count (None without a plan), as the JSON's top-level `length`."""
        return None if self.plan is None else self.plan.length

    @property
    def cost(self) -> int | None:
        """The plan's cost under the metric (None without a plan), as the JSON's `cost`."""
        return None if self.plan is None else self.plan.cost

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "length": self.length,
            "cost": self.cost,
            "plan": None if self.plan is None else list(self.plan.moves),
            "engine": self.engine,
            "lower_bound": self.lower_bound,
            "message": self.message,
            "stats": self.stats.as_dict(),
        }

    def __repr__(self) -> str:
        """E.g. <Result optimal 24 moves by idastar>, <Result unsolvable by bfs: tile parity ...>."""
        if self.plan is not None:
            cost = "" if self.plan.cost == self.plan.length else f" (cost {self.plan.cost})"
            return f"<Result {self.status.value} {_moves(self.plan.length)}{cost} by {self.engine}>"
        why = " ".join(self.message.split())
        why = why if len(why) <= 60 else why[:57] + "..."
        return f"<Result {self.status.value} by {self.engine}{': ' + why if why else ''}>"

    def animate(self, seconds: float = 0.6) -> "Page":
        """The plan's HTML player: the page's text (a `str`), which a notebook shows as the
        player. ValueError (one line) without a plan, or without the model (set by solve())."""
        if self.plan is None:
            raise ValueError(f"the result holds no plan ({self.status.value}): nothing to animate")
        if self.model is None:
            raise ValueError("the result does not hold its model (solve() sets it); "
                             "use puzzleplan.render(model, result, to='html')")
        animation = importlib.import_module(NOTEBOOK).animation
        return animation(self.model, self, seconds)

    def _repr_html_(self) -> str | None:
        """In a notebook: the plan's player; None (the text repr) when there is nothing to draw."""
        try:
            result_html = importlib.import_module(NOTEBOOK).result_html
        except Exception:   # a repr must never raise
            return None
        return result_html(self)


def _moves(n: int) -> str:
    return f"{n:,} move" if n == 1 else f"{n:,} moves"
