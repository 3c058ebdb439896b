"""What every bounded-horizon encoding shares: options, answers, the registry, soundness rules.

An encoding turns (model, horizon T) into a SAT formula or a CP-SAT model whose solutions are
plans, and decodes a solution back into the model's move strings (which the independent checker
then replays). Two horizon semantics:

- `by` (default): an idle action is allowed at every step, so a solution is a plan of length
  <= T, and UNSAT proves "no plan of length <= T". Cuts that hold for some shortest plan
  (no immediate reversal, idling only after the goal) stay sound here, because a shortest plan
  padded with idle steps satisfies them. Distance-to-goal and parity cuts hold for every plan.
- `exact`: no idle action; a solution is a plan of exactly T moves. UNSAT proves only "no plan
  of exactly T" — and only without the shortest-plan cuts (a reversal pair can lengthen a plan
  by 2 but is cut away). With a family parity rule (tiles) and no cuts, UNSAT at T also proves
  "none of length T-2, T-4, ...", because any plan can be lengthened by 2.
`proves_no_plan_up_to` says what an UNSAT answer proves under the chosen options; `verify`
only accepts certificates that prove "no plan of length <= L-1".

Two kinds of encodings share this registry: each family's hand-tuned ones (declared in its
descriptor, `Family.encodings`) and the generic ones (`GENERIC_ENCODINGS`: sas-seq, sas-exists,
cp-sas), which read the model's planning task (models/task) and so apply to every model that
compiles, under every metric (action costs come from the task). Listings put a family's own
first, so defaults stay hand-tuned where they exist. The parallel encoding (sas-exists) counts
T in parallel steps: its UNSAT proves the same "no plan of <= T moves" (every sequential plan
is a parallel one, one action per step), but its SAT answer may hold more than T moves
(encoders/sat/sas_exists.py; `parallel=False` makes it one action per step).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

CARD_ENCODINGS = ("pairwise", "seqcounter", "sortnetwrk", "cardnetwrk", "bitwise", "ladder",
                  "totalizer", "mtotalizer", "kmtotalizer")

class Answer(str, enum.Enum):
    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"   # time limit or interrupt


@dataclass(frozen=True)
class EncodingOptions:
    """Options every encoding accepts (an encoding ignores what does not apply, and says so)."""

    goal: str = "by"              # "by": plan length <= T (idle steps); "exact": exactly T moves
    no_reversal: bool = True      # forbid undoing the previous move at once (shortest-plan cut)
    idle_at_end: bool = True      # idle steps only after the last move (symmetry cut, "by" only)
    parity: bool = True           # use the family's plan-length parity (tiles) where it prunes
    distance_cuts: bool = True    # a piece at step t must be within T - t of its goal (admissible)
    card: str = "seqcounter"      # pysat CardEnc encoding for at-most-one / exactly-one
    parallel: bool = True         # parallel encodings (sas-exists): several moves per step;
                                  # False: at most one, so horizon T bounds the moves

    def with_(self, **changes: Any) -> "EncodingOptions":
        return replace(self, **changes)

    def cuts_need_shortest(self) -> bool:
        """True when a cut holds only for shortest plans (distance and parity cuts hold for all)."""
        return self.no_reversal or (self.goal == "by" and self.idle_at_end)


def padded_parity(model: Any) -> int | None:
    """The parity every plan's length has, where the model also promises that any plan extends
    by two moves (`pads_plans`: the tiles' blank there and back), so that "no plan of exactly T
    moves" rules out T - 2, T - 4, ... too; else None. A user class's `plan_parity` promises the
    parity alone: on a one-way graph whose plans are all even, a plan of 2 has no 4-move twin."""
    return model.plan_parity() if getattr(model, "pads_plans", False) else None


def proves_no_plan_up_to(options: EncodingOptions, horizon: int, parity: int | None) -> int | None:
    """The largest L such that UNSAT at `horizon` proves there is no plan of length <= L."""
    if options.goal == "by":
        return horizon
    if options.cuts_need_shortest():
        return None            # "no cut-respecting plan of exactly T" proves nothing shorter
    if parity is not None and options.parity and horizon % 2 == parity:
        return horizon         # exact T, parity fixed: T-2, T-4 ... are ruled out as well
    return None


@dataclass
class HorizonResult:
    """One solver call at one horizon."""

    horizon: int
    answer: Answer
    moves: list[str] | None = None
    variables: int = 0
    constraints: int = 0
    build_seconds: float = 0.0
    solve_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    steps: int | None = None    # the plan's size in the horizon's unit (steps_of: its moves, or the
                                # encoding's own count, sok-push's pushes); set with `moves`


def counts_own_steps(encoding: Any) -> bool:
    """True for an encoding (class or object) whose horizon counts something other than moves:
    it has a `step_count(moves)` (sok-push and cp-sok-push: one push a step, their LURD plans
    holding the free walks too). Its UNSAT at T proves "no plan of <= T" in that unit, and a
    plan it finds is sized in that unit (caps, binary search, verify's claims)."""
    return callable(getattr(encoding, "step_count", None))


def steps_of(encoding: Any, moves: Sequence[str]) -> int:
    """The size of plan `moves` in the unit `encoding`'s horizon counts (class or object): its
    length (a parallel encoding's plan may hold more moves than its steps), or the encoding's
    own `step_count`."""
    return encoding.step_count(list(moves)) if counts_own_steps(encoding) else len(moves)


def plan_steps(result: "HorizonResult") -> int:
    """The size of a SAT answer's plan in its horizon's unit (`HorizonResult.steps`, else its length)."""
    return result.steps if result.steps is not None else len(result.moves or ())


# The generic encodings: they read the model's planning task (models/task), so they apply to
# every model that compiles, listed after each family's own (hand-tuned) encodings.
GENERIC_ENCODINGS: dict[str, str] = {
    "sas-seq": "puzzleplan.encoders.sat.sas:SasSequential",
    "sas-exists": "puzzleplan.encoders.sat.sas_exists:SasExists",
    "cp-sas": "puzzleplan.encoders.cpsat.sas:CpSas",
}


def all_encodings(outside: bool = True) -> dict[str, str]:
    """Every encoding name -> "module:Class": the family descriptors' declarations, then the
    generic ones."""
    from puzzleplan.models.family import families
    out: dict[str, str] = {}
    for desc in families(outside).values():
        out.update(desc.encodings)
    out.update(GENERIC_ENCODINGS)
    return out


def encoding_class(name: str) -> Any:
    """The class of encoding `name` (KeyError naming the choices when there is none)."""
    from puzzleplan.models.family import resolve
    if name in GENERIC_ENCODINGS:
        return resolve(GENERIC_ENCODINGS[name])
    known = all_encodings(outside=False)
    if name not in known:
        known = all_encodings()
    if name not in known:
        raise KeyError(f"no encoding {name!r}; expected one of {', '.join(known)}")
    return resolve(known[name])


def is_generic(cls: Any) -> bool:
    """True for an encoding of the planning task (any family), False for a family's own."""
    return bool(getattr(cls, "generic", False))


def supports(cls: Any, model: Any) -> str | None:
    """None when encoding class `cls` can encode `model`, else the reason (its family, its
    metrics; for a generic encoding, whether the model compiles to a planning task)."""
    if is_generic(cls):
        reason = generic_reason(model)
        return None if reason is None else f"{cls.__name__} encodes planning tasks: {reason}"
    if getattr(model, "family", None) != cls.family:
        return f"{cls.__name__} encodes {cls.family}, not {getattr(model, 'family', '?')}"
    metrics = getattr(cls, "metrics", None)
    if metrics is not None and model.metric not in metrics:
        return f"{cls.__name__} encodes the {', '.join(metrics)} metric, not {model.metric}"
    return None


def fitting_goal(names: list[str], goal: str | None, named: bool) -> tuple[list[str], list[str]]:
    """The encodings among `names` that encode `goal`, and why each other one does not;
    ValueError when one of them was `named` by the user (leaving it out would hide the ask)."""
    unfit = [reason for name in names if (reason := goal_reason(name, goal)) is not None]
    if unfit and named:
        raise ValueError(unfit[0])
    return [name for name in names if goal_reason(name, goal) is None], unfit


def goal_reason(name: str, goal: str | None) -> str | None:
    """None when encoding `name` encodes the horizon semantics `goal` (None: its default), else
    why not (an encoding declares `goals`, the ones it encodes; all of them by default)."""
    goals = getattr(encoding_class(name), "goals", None)
    if goal is None or goals is None or goal in goals:
        return None
    return f"{name} encodes goal {' or '.join(repr(g) for g in goals)} only, not {goal!r}"


def encodings_for(target: Any, backend: str | None = None, metric: str | None = None) -> list[str]:
    """Names of the encodings for `target` (for a backend, a metric): the family's declared
    ones in declaration order, then the generic ones.

    `target` is a model (preferred: generic encodings are listed when it compiles to a planning
    task, and `metric` defaults to the model's) or a family name (generic encodings are listed
    when the family declares a planning-task compiler or its model class is a task). A family
    encoding class may restrict its metrics with a `metrics` attribute (Sokoban: moves)."""
    from puzzleplan.models.family import family
    model = None if isinstance(target, str) else target
    names = family_encodings(target, backend, metric)
    if not _compiles(model, family(target if model is None else getattr(model, "family", ""))):
        return names
    return names + generic_encodings(backend)


def generic_encodings(backend: str | None = None) -> list[str]:
    """The generic encodings' names (of one backend), whatever model they would be asked for."""
    from puzzleplan.models.family import resolve
    return [name for name, spec in GENERIC_ENCODINGS.items() if backend is None or resolve(spec).backend == backend]


def family_encodings(target: Any, backend: str | None = None, metric: str | None = None) -> list[str]:
    """The family's own encodings of `encodings_for`, without the generic ones (so without
    compiling the model's planning task, which takes seconds on a large one)."""
    from puzzleplan.models.family import family, resolve
    model = None if isinstance(target, str) else target
    if model is not None and metric is None:
        metric = getattr(model, "metric", None)
    desc = family(target if model is None else getattr(model, "family", ""))
    names = []
    for name, spec in (desc.encodings.items() if desc is not None else ()):
        try:
            cls = resolve(spec)
        except ImportError:
            continue
        if backend is not None and cls.backend != backend:
            continue
        if metric is not None and metric not in (getattr(cls, "metrics", None) or (metric,)):
            continue
        names.append(name)
    return names


MAX_UNARY_COST = 1_000   # the generic encodings count an action's cost in unary literals


def generic_reason(model: Any) -> str | None:
    """None when the generic encodings can encode `model`: it compiles to a planning task whose
    action costs are small enough to count in unary; else the reason."""
    from puzzleplan.models.task.compile import NotCompilable, compiled
    try:
        task = compiled(model).task
    except NotCompilable as exc:
        return str(exc)
    top = max((a.cost for a in task.actions), default=0)
    if top > MAX_UNARY_COST:
        return f"an action costs {top:,}; the generic encodings count costs in unary, up to {MAX_UNARY_COST:,}"
    return None


def _compiles(model: Any, desc: Any) -> bool:
    """Whether the generic encodings apply: the model compiles (a model given), or the family
    declares a task compiler or its model class compiles itself (a family name given)."""
    if model is not None:
        return generic_reason(model) is None
    if desc is None:
        return False
    if getattr(desc, "task", None):
        return True
    try:
        return callable(getattr(desc.model_class(), "compiled_task", None))
    except (ImportError, AttributeError):
        return False
