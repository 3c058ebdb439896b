"""User-defined puzzle families: a Python class named in the YAML file, no change to puzzleplan.
(Naming and importing the class is `spec.py`; this module builds and guards it. It runs a little
over 400 lines because every hook the engines call gets its own guard, in one place.)

Three ways to name the class in the `puzzle:` field:

    puzzle: python:./hanoi.py:Hanoi          a Python file, relative to the YAML file's folder
    puzzle: python:mypkg.puzzles:Hanoi       an importable module (dotted name, usual sys.path)
    puzzle: hanoi                            a name in the entry-point group `puzzleplan.models`,
                                             e.g. in the user's pyproject.toml:
                                               [project.entry-points."puzzleplan.models"]
                                               hanoi = "mypkg.puzzles:Hanoi"

The contract for the class
--------------------------
Required methods (the model protocol of `puzzleplan.models.base.Model`):

    initial() -> state                  a hashable value: int, bytes, str, or tuples of these
    is_goal(state) -> bool
    successors(state) -> iterable of (action, next_state)    every move costs 1

Optional (a default is used when absent):

    h(state) -> int                     an admissible lower bound on the moves left (default 0)
    plan_moves(actions) -> list[str]    move names, one token each, no spaces or commas
                                        (default: str(action), each run of spaces, commas and
                                        semicolons made one "_": (0, 1) -> (0_1)); `check`
                                        matches plans by these names
    render(state) -> str                a picture of the state (default: str(state))
    unsolvable_reason() -> str | None   a reason when the instance is known unsolvable
    plan_parity() -> int | None         the parity every plan length has, when the rules fix it
    metrics: tuple[str, ...]            the metrics it supports (default ("step",)); the chosen
                                        one (the file's, --metric's, else the first) arrives as
                                        the keyword `metric` when the constructor names it (or
                                        takes **kwargs and the class declares `metrics`);
                                        from_yaml and from_document read the `metric:` field
    family: str                         the family's name in output (default: the class name; the
                                        entry-point name for entry points); not a built-in name
    default_engine: str                 engine used by `solve` without --engine (default "bfs")
    name, metric, max_moves, expect     when the instance sets them they win over the YAML fields

Construction: the first of these the class has is called with the YAML mapping minus `puzzle`:

    from_document(doc)   classmethod; `doc` is a `puzzleplan.models.document.Document` (line-aware
                         validating accessors: doc.integer("discs", low=1), doc.error(...))
    from_yaml(data)      classmethod; `data` a plain dict (standard fields included)
    Class(**params)      otherwise: keyword arguments, the standard fields left out

The standard fields `name`, `description`, `metric`, `max_moves` and `expect` are validated and kept
by puzzleplan itself. Anything the class raises while being built, any missing module, file,
class or method, a `metrics` that is not a tuple of names, a `default_engine` that names no
engine, becomes one line `FILE:LINE: field 'puzzle': ...` (a ModelError, exit 2).

During a search the engines call the class's hooks through the adapter (`UserModel`): an exception
raised by `initial`, `is_goal`, `successors`, `h`, `plan_moves`, `render`, `unsolvable_reason` or
`plan_parity`, or a value of the wrong kind (`successors` yielding something other than
(action, next_state) pairs or an unhashable state, `is_goal` not True or False, `h` not a number,
`plan_parity` not 0, 1 or None), becomes a `UserHookError` (a ModelError): one line `FILE: Class.hook() raised ...`, exit 2.
MemoryError and KeyboardInterrupt pass through (the engines turn them into limits).

Checking: a user family has no independent checker. `puzzleplan check` and the check that `solve`
runs on every plan replay the moves through the class's own `successors`, matched by move name
(`plans.check._replay_with_model`). That catches engine bugs but not bugs in the class's rules.

Parallel engines pickle the model: the class's instance must pickle (plain attributes do). A class
from a file is re-imported by path in the worker; when the instance does not pickle, the worker
rebuilds it from the YAML data instead.
"""
from __future__ import annotations

import copy
import math
import numbers
import pickle
import re
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

from puzzleplan.models.base import ModelBase, ModelError, quote, shorten
from puzzleplan.models.document import Document
from puzzleplan.models.user.spec import (REQUIRED, USER_ERRORS, _class_of, _describe_exc, _entry_points, _import_file,
                                         _import_module, _resolve, _SpecError)

_SEPARATORS = re.compile(r"[\s,;]+")   # what plan text splits moves on

STANDARD_KEYS = ("puzzle", "name", "description", "metric", "max_moves", "expect")
EXPECT_FACTS = ("optimal", "solvable", "reachable", "max_depth", "valid_plans")  # what tests may check
HASH_CHECKS = 64          # successors() calls whose next states are tested for hashability


class UserHookError(ModelError):
    """A user class's hook raised, or returned a value of the wrong kind, during a search or a check.

    One line naming the puzzle file, the class and the hook: `FILE: Class.successors() raised
    ZeroDivisionError: division by zero`. The CLI prints it as any ModelError (exit 2)."""


# not turned into a UserHookError: already one, or what the engines handle themselves
_PASS = (UserHookError, MemoryError)


def user_model_from_document(doc: Document, base_dir: Path | str | None = None) -> "UserModel":
    """Build the model of a YAML document whose `puzzle:` names a user class.

    `base_dir` is the folder of the YAML file (paths in `python:./x.py:C` are relative to it);
    the current directory when None.
    """
    spec = doc.get("puzzle")
    if not isinstance(spec, str):
        raise doc.error("puzzle", f"expected a family name or python:MODULE:CLASS, got {quote(spec)}")
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    try:
        cls, origin = _resolve(spec, base)
    except _SpecError as exc:
        raise doc.error("puzzle", f"{shorten(spec, 60)}: {exc}") from None
    return _build(cls, origin, doc, shorten(spec, 60))


def _family_name(cls: type, origin: tuple[Any, ...]) -> str:
    if origin[0] == "entry":
        return origin[1]
    family = getattr(cls, "family", None)
    return family if isinstance(family, str) and family else cls.__name__


def _build(cls: type, origin: tuple[Any, ...], doc: Document, spec: str) -> "UserModel":
    from puzzleplan.models.family import family as registered_family
    family = _family_name(cls, origin)
    if registered_family(family) is not None:
        raise doc.error("puzzle", f"{spec}: the class calls its family {quote(family)}, a built-in family; "
                                  "choose another `family` name")
    metrics = _class_metrics(cls, doc, spec)
    _check_default_engine(cls, doc, spec)
    common = doc.common(metrics, EXPECT_FACTS + tuple(f"optimal_{m}" for m in metrics))
    name, metric, max_moves, expect = common.name, common.metric, common.max_moves, common.expect
    data = {k: v for k, v in doc.data.items() if k != "puzzle"}
    try:
        inner, how = _construct(cls, data, doc, metric)
    except ModelError as exc:
        if str(exc).startswith(f"{doc.source}:"):
            raise ModelError(" ".join(str(exc).split())) from None
        raise doc.error("puzzle", f"{spec}: {_describe_exc(exc)}") from None
    except USER_ERRORS as exc:
        raise doc.error("puzzle", f"{spec}: {cls.__name__}{how_of(cls)}(...) raised {_describe_exc(exc)}") from None
    if inner is None or any(not callable(getattr(inner, m, None)) for m in REQUIRED):
        raise doc.error("puzzle", f"{spec}: {cls.__name__}{how} did not return an instance with "
                                  f"{', '.join(REQUIRED)}")
    try:
        start = inner.initial()
    except USER_ERRORS as exc:
        raise doc.error("puzzle", f"{spec}: {cls.__name__}.initial() raised {_describe_exc(exc)}") from None
    try:
        hash(start)
    except USER_ERRORS as exc:
        raise doc.error("puzzle", f"{spec}: {cls.__name__}.initial() must return a hashable state, got "
                                  f"{type(start).__name__} ({_describe_exc(exc)})") from None
    attrs = {
        "name": _own(inner, "name", str, name),
        "metric": _own(inner, "metric", str, metric),
        "max_moves": _own(inner, "max_moves", int, max_moves),
        "expect": dict(_own(inner, "expect", dict, expect)),
    }
    return wrapper_class(cls, family, metrics)(inner, origin, data, doc.source, attrs)


def _class_metrics(cls: type, doc: Document, spec: str) -> tuple[str, ...]:
    """The class's `metrics`: a non-empty tuple (or list) of distinct metric names."""
    metrics = getattr(cls, "metrics", ("step",))
    ok = isinstance(metrics, (tuple, list)) and 0 < len(metrics) <= 32 and \
        all(isinstance(m, str) and m and m.isprintable() and len(m) <= 40 for m in metrics) and \
        len(set(metrics)) == len(metrics)
    if not ok:
        raise doc.error("puzzle", f"{spec}: {cls.__name__}.metrics: expected a tuple of distinct metric names "
                                  f"such as ('step',), got {quote(metrics)}")
    return tuple(metrics)


def _check_default_engine(cls: type, doc: Document, spec: str) -> None:
    """The class's `default_engine`, when it sets one, must name an engine."""
    if "default_engine" not in dir(cls):
        return
    engine = getattr(cls, "default_engine")
    try:  # the generic engines: engines of one family (Rush Hour's `plan`) cannot run a user's class
        from puzzleplan.plans.core.engines import GENERIC
        names: tuple[str, ...] = tuple(GENERIC)
    except ImportError:  # pragma: no cover - models used without the engines
        names = ("bfs", "astar", "idastar", "dfs", "greedy", "pbfs")
    if not isinstance(engine, str) or engine not in names:
        raise doc.error("puzzle", f"{spec}: {cls.__name__}.default_engine: expected one of {', '.join(names)}, "
                                  f"got {quote(engine)}")


def how_of(cls: type) -> str:
    """How the class is constructed, for messages: '.from_document', '.from_yaml' or ''."""
    for method in ("from_document", "from_yaml"):
        if callable(getattr(cls, method, None)):
            return f".{method}"
    return ""


def _construct(cls: type, data: dict[str, Any], doc: Document | None, metric: str) -> tuple[Any, str]:
    """The instance, from the data (the YAML's fields): `from_document` or `from_yaml` get them
    as written; keyword construction gets the other fields and the chosen `metric` when the
    constructor takes it (`_takes_metric`)."""
    how = how_of(cls)
    if how == ".from_document":
        if doc is None:  # rebuilt in a worker from the data alone
            doc = Document("<worker>", {"puzzle": "", **data}, {}, {})
        user_doc = copy.copy(doc)
        user_doc.data = dict(data)
        return cls.from_document(user_doc), how
    if how == ".from_yaml":
        return cls.from_yaml(dict(data)), how
    params = {k: v for k, v in data.items() if k not in STANDARD_KEYS}
    if _takes_metric(cls):   # the one standard key a class is told: it may change the rules
        params["metric"] = metric
    return cls(**params), how


def _takes_metric(cls: type) -> bool:
    """Whether keyword construction passes `metric`: the constructor names it, or takes any
    keyword and the class declares its `metrics`."""
    import inspect
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "metric" and p.kind is not p.VAR_POSITIONAL for p in parameters) or (
        "metrics" in vars(cls) and any(p.kind is p.VAR_KEYWORD for p in parameters))


def _own(inner: Any, attr: str, kind: type, default: Any) -> Any:
    """The instance's own value of a standard attribute when it sets one (not a class default)."""
    value = getattr(inner, "__dict__", {}).get(attr)
    if kind is int and value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        return default
    if value is None or not isinstance(value, kind):
        return default
    return value


# -- the wrapper every engine sees ----------------------------------------------------------------
class UserModel(ModelBase):
    """A user's instance behind the full model protocol, with defaults for what it lacks.

    One subclass per user class (see `wrapper_class`) carries `family`, `metrics` and
    `default_engine` as class attributes, as the built-in families do.
    """

    family = "user"
    metrics: tuple[str, ...] = ("step",)
    default_engine = "bfs"
    notations: tuple[str, ...] = ()

    def __init__(self, inner: Any, origin: tuple[Any, ...], data: dict[str, Any], source: str,
                 attrs: dict[str, Any]) -> None:
        self.inner = inner
        self.origin = origin
        self.data = data
        self.source = source
        self.name = attrs["name"]
        self.metric = attrs["metric"]
        self.max_moves = attrs["max_moves"]
        self.expect = attrs["expect"]
        # the hooks, guarded, stored on the instance: one thin call layer in the engines' inner loops
        self.initial = self._guard_initial(inner.initial)
        self.is_goal = self._guard_is_goal(inner.is_goal)
        self.successors = self._guard_successors(inner.successors)
        if callable(getattr(inner, "h", None)):
            self.h = self._guard_h(inner.h)

    # -- the user's hooks behind one-line errors ----------------------------------------------------
    def _hook_error(self, hook: str, problem: str) -> UserHookError:
        return UserHookError(f"{self.source}: {type(self.inner).__name__}.{hook}() {problem}")

    def _raised(self, hook: str, exc: BaseException) -> UserHookError:
        return self._hook_error(hook, f"raised {_describe_exc(exc)}")

    def _call(self, hook: str, *args: Any) -> Any:
        """Call an optional hook of the user's instance (None when it has none)."""
        own = getattr(self.inner, hook, None)
        if not callable(own):
            return None
        try:
            return own(*args)
        except _PASS:
            raise
        except USER_ERRORS as exc:
            raise self._raised(hook, exc) from None

    def _guard_initial(self, inner: Any) -> Any:
        def initial() -> Any:
            try:
                state = inner()
                hash(state)
            except _PASS:
                raise
            except TypeError as exc:
                raise self._hook_error("initial", f"must return a hashable state ({_describe_exc(exc)})") from None
            except USER_ERRORS as exc:
                raise self._raised("initial", exc) from None
            return state
        return initial

    def _guard_is_goal(self, inner: Any) -> Any:
        def is_goal(state: Any) -> bool:
            try:
                value = inner(state)
            except _PASS:
                raise
            except USER_ERRORS as exc:
                raise self._raised("is_goal", exc) from None
            # True/False, numpy's bools and 0/1; anything else (None from a missing return, a
            # text) is a slip that would quietly make every state a goal, or none
            numpy_bool = type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool")
            if isinstance(value, bool) or numpy_bool or (isinstance(value, numbers.Integral) and value in (0, 1)):
                return bool(value)
            raise self._hook_error("is_goal", f"returned {quote(value)}; expected True or False")
        return is_goal

    def _guard_successors(self, inner: Any) -> Any:
        checked = [0]  # calls whose next states were tested for hashability (the first HASH_CHECKS)

        def successors(state: Any) -> list[tuple[Any, Any]]:
            try:
                items = list(inner(state))
            except _PASS:
                raise
            except USER_ERRORS as exc:
                raise self._raised("successors", exc) from None
            for item in items:
                if type(item) is not tuple or len(item) != 2:
                    self._check_pair(item)
            if checked[0] < HASH_CHECKS:
                checked[0] += 1
                for _, child in items:
                    try:
                        hash(child)
                    except USER_ERRORS as exc:
                        raise self._hook_error("successors", f"yielded an unhashable next state of type "
                                                             f"{type(child).__name__} ({_describe_exc(exc)})") from None
                self._check_distinct_names(items)
            return items
        return successors

    def _check_distinct_names(self, items: list[tuple[Any, Any]]) -> None:
        """Plans are read back by move name, so the legal moves of one state need distinct names."""
        names = self.plan_moves([action for action, _ in items])
        seen: dict[str, Any] = {}
        for name, (action, _) in zip(names, items):
            if name in seen:
                if callable(getattr(self.inner, "plan_moves", None)):
                    raise self._hook_error("plan_moves", f"gives two legal moves of one state the name {quote(name)}; "
                                                         "plans are read back by move name, so each needs its own")
                raise self._hook_error("successors", f"yields the actions {repr(str(seen[name]))[:40]} and "
                                                     f"{repr(str(action))[:40]} from one state, both named "
                                                     f"{quote(name)} (str(action), each run of spaces, commas and "
                                                     "semicolons made one _); plans are read back by move name: "
                                                     "give them distinct names, or define plan_moves")
            seen[name] = action

    def _check_pair(self, item: Any) -> None:
        try:
            ok = isinstance(item, (tuple, list)) and len(item) == 2
        except Exception:
            ok = False
        if not ok:
            raise self._hook_error("successors", f"yielded {quote(item)}; expected (action, next_state) pairs")

    def _guard_h(self, inner: Any) -> Any:
        def h(state: Any) -> Any:
            try:
                value = inner(state)
            except _PASS:
                raise
            except USER_ERRORS as exc:
                raise self._raised("h", exc) from None
            if type(value) is int:
                return value
            if isinstance(value, numbers.Integral) and not isinstance(value, bool):
                return int(value)
            if isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isnan(value):
                return value
            raise self._hook_error("h", f"returned {quote(value)}; expected a number (a lower bound on the moves left)")
        return h

    def plan_moves(self, actions: Sequence[Any]) -> list[str]:
        own = getattr(self.inner, "plan_moves", None)
        if not callable(own):
            return [self._default_name(a) for a in actions]
        moves = self._call("plan_moves", list(actions))
        try:
            names = [str(m) for m in moves]
        except USER_ERRORS as exc:
            raise self._hook_error("plan_moves", f"returned {quote(moves)}; expected a list of move names "
                                                 f"({_describe_exc(exc)})") from None
        if len(names) != len(actions):
            raise self._hook_error("plan_moves", f"returned {len(names)} names for {len(actions)} actions; "
                                                 "expected one move name per action")
        for name in names:
            if not name or any(c.isspace() or c in ",;" for c in name):   # the separators plan text splits on
                raise self._hook_error("plan_moves", f"returned the move name {quote(name)}; a move name is one "
                                                     "token: not empty, no spaces, commas or semicolons")
        return names

    def _default_name(self, action: Any) -> str:
        """str(action) as one token (plan text splits on spaces, commas and semicolons): a tuple
        action (0, 1) is named (0_1), so every printed plan reads back."""
        try:
            text = str(action)
        except USER_ERRORS as exc:
            raise self._hook_error("successors", f"yielded an action whose str() fails ({_describe_exc(exc)}); "
                                                 "give the class a plan_moves") from None
        name = "_".join(part for part in _SEPARATORS.split(text) if part)
        if not name:
            raise self._hook_error("successors", f"yielded the action {quote(action)}, which names no move; "
                                                 "give the class a plan_moves")
        return name

    def render(self, state: Any) -> str:
        if not callable(getattr(self.inner, "render", None)):
            return str(state)
        picture = self._call("render", state)
        try:
            return str(picture)
        except USER_ERRORS as exc:
            raise self._raised("render", exc) from None

    def unsolvable_reason(self) -> str | None:
        reason = self._call("unsolvable_reason")
        if reason is None or isinstance(reason, str):
            return reason
        raise self._hook_error("unsolvable_reason", f"returned {quote(reason)}; expected text or None")

    def plan_parity(self) -> int | None:
        parity = self._call("plan_parity")
        if parity is None or (parity in (0, 1) and not isinstance(parity, bool)):
            return None if parity is None else int(parity)
        raise self._hook_error("plan_parity", f"returned {quote(parity)}; expected 0, 1 or None")

    def native_searcher(self, *args: Any, **kwargs: Any) -> Any:
        return None

    def __repr__(self) -> str:
        return f"<{self.family} model {self.name or ''} from {self.source}>"

    # -- pickling for worker processes ------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, ...]:
        try:
            payload: tuple[str, Any] = ("instance", pickle.dumps(self.inner, protocol=pickle.HIGHEST_PROTOCOL))
        except Exception:
            payload = ("data", self.data)
        attrs = {"name": self.name, "metric": self.metric, "max_moves": self.max_moves, "expect": self.expect}
        return (_rebuild, (self.origin, payload, self.data, self.source, attrs))


_WRAPPERS: dict[tuple[type, str, tuple[str, ...]], type] = {}


def wrapper_class(cls: type, family: str, metrics: tuple[str, ...]) -> type:
    """The UserModel subclass for one user class (cached)."""
    key = (cls, family, metrics)
    wrapper = _WRAPPERS.get(key)
    if wrapper is None:
        engine = getattr(cls, "default_engine", "bfs")
        wrapper = type(f"{cls.__name__}Model", (UserModel,), {
            "family": family, "metrics": metrics, "__module__": __name__,
            "default_engine": engine if isinstance(engine, str) and engine else "bfs",
            "__doc__": f"User family {family!r}: {cls.__module__}.{cls.__qualname__} behind the model protocol."})
        _WRAPPERS[key] = wrapper
    return wrapper


def _class_from_origin(origin: tuple[Any, ...]) -> type:
    kind = origin[0]
    if kind == "file":
        _, path, module_name, attr = origin
        return _class_of(_import_file(Path(path), module_name), attr, path)
    if kind == "module":
        _, module_name, attr, path = origin
    else:
        _, _, module_name, attr, path = origin
    try:
        module = _import_module(module_name)
    except _SpecError:
        # importable in the parent only through a sys.path change made after start-up: load the
        # same file under the same name (a package's relative imports will not work that way)
        if not path or module_name in sys.modules:
            raise
        module = _import_file(Path(path), module_name)
    return _class_of(module, attr, module_name)


def _rebuild(origin: tuple[Any, ...], payload: tuple[str, Any], data: dict[str, Any], source: str,
             attrs: dict[str, Any]) -> UserModel:
    """Unpickle a UserModel: import the class again (by path for files), then the instance."""
    cls = _class_from_origin(origin)
    kind, value = payload
    if kind == "instance":
        inner = pickle.loads(value)
    else:
        inner, _ = _construct(cls, data, None, attrs["metric"])
    metrics = tuple(getattr(cls, "metrics", ("step",)))
    return wrapper_class(cls, _family_name(cls, origin), metrics)(inner, origin, data, source, attrs)


def iter_user_families() -> Iterator[tuple[str, str]]:
    """(name, "module:Class") for every registered entry point (for listings)."""
    for ep in sorted(_entry_points(), key=lambda e: e.name):
        yield ep.name, ep.value


__all__ = ["STANDARD_KEYS", "UserHookError", "UserModel", "iter_user_families", "user_model_from_document",
           "wrapper_class"]  # naming and importing the class: puzzleplan.models.user.spec
