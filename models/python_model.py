"""User-defined puzzle families: a Python class named in the YAML file, no change to puzzleplan.

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
                                        (default: str(action)); `check` matches plans by these names
    render(state) -> str                a picture of the state (default: str(state))
    unsolvable_reason() -> str | None   a reason when the instance is known unsolvable
    plan_parity() -> int | None         the parity every plan length has, when the rules fix it
    metrics: tuple[str, ...]            the metrics it supports (default ("step",)); the chosen
                                        one arrives as `metric` in the data
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
class or method, becomes one line `FILE:LINE: field 'puzzle': ...` (a ModelError, exit 2).

Checking: a user family has no independent checker. `puzzleplan check` and the check that `solve`
runs on every plan replay the moves through the class's own `successors`, matched by move name
(`plans.check._replay_with_model`). That catches engine bugs but not bugs in the class's rules.

Parallel engines pickle the model: the class's instance must pickle (plain attributes do). A class
from a file is re-imported by path in the worker; when the instance does not pickle, the worker
rebuilds it from the YAML data instead.
"""
from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.util
import pickle
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Iterator, Sequence

from .base import ModelBase, ModelError
from .document import Document

PREFIX = "python:"
ENTRY_POINT_GROUP = "puzzleplan.models"
STANDARD_KEYS = ("puzzle", "name", "description", "metric", "max_moves", "expect")
REQUIRED = ("initial", "is_goal", "successors")
MAX_CAP = 100_000


class _SpecError(Exception):
    """Raised while resolving a spec; turned into a ModelError naming the file and the field."""


# -- resolving a family spec to a class ---------------------------------------------------------
def is_user_puzzle(puzzle: Any) -> bool:
    """True when `puzzle:` names a user family: a `python:` spec or an entry point's name."""
    if not isinstance(puzzle, str):
        return False
    return puzzle.startswith(PREFIX) or puzzle in entry_point_names()


def entry_point_names() -> list[str]:
    """Names registered in the `puzzleplan.models` entry-point group, sorted."""
    return sorted({ep.name for ep in _entry_points()})


def _entry_points() -> list[Any]:
    try:
        return list(metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception:  # a broken installed distribution must not break built-in families
        return []


def resolve_family(spec: str, base_dir: Path) -> type:
    """The class named by `spec` (`python:FILE_OR_MODULE:CLASS` or an entry-point name).

    Raises ModelError (message without file prefix) on any failure; `user_model_from_document`
    adds the file and field.
    """
    try:
        cls, _ = _resolve(spec, Path(base_dir))
    except _SpecError as exc:
        raise ModelError(f"puzzle {spec!r}: {exc}") from None
    return cls


def _resolve(spec: str, base_dir: Path) -> tuple[type, tuple[Any, ...]]:
    """(class, origin); the origin lets a worker process find the class again."""
    if spec.startswith(PREFIX):
        target = spec[len(PREFIX):]
        where, sep, attr = target.rpartition(":")
        if not sep or not where or not attr:
            raise _SpecError("expected python:MODULE:CLASS or python:./FILE.py:CLASS")
        if _looks_like_path(where):
            path = (base_dir / where).resolve()
            module_name = _file_module_name(path)
            module = _import_file(path, module_name)
            origin: tuple[Any, ...] = ("file", str(path), module_name, attr)
        else:
            module = _import_module(where)
            origin = ("module", where, attr, getattr(module, "__file__", None))
        return _class_of(module, attr, where), origin
    matches = [ep for ep in _entry_points() if ep.name == spec]
    if not matches:
        raise _SpecError(f"no entry point {spec!r} in group {ENTRY_POINT_GROUP}")
    values = sorted({ep.value for ep in matches})
    if len(values) > 1:
        raise _SpecError(f"entry point {spec!r} is registered {len(values)} times ({', '.join(values)})")
    module_name, sep, attr = values[0].partition(":")
    if not sep or not module_name.strip() or not attr.strip():
        raise _SpecError(f"entry point {spec!r} = {values[0]!r}: expected 'module:Class'")
    module_name, attr = module_name.strip(), attr.strip()
    module = _import_module(module_name)
    origin = ("entry", spec, module_name, attr, getattr(module, "__file__", None))
    return _class_of(module, attr, module_name), origin


def _looks_like_path(where: str) -> bool:
    return where.endswith(".py") or "/" in where or "\\" in where


def _file_module_name(path: Path) -> str:
    digest = hashlib.sha1(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    stem = "".join(ch if ch.isalnum() else "_" for ch in path.stem)
    return f"puzzleplan_user_{stem}_{digest}"


def _import_file(path: Path, module_name: str) -> Any:
    module = sys.modules.get(module_name)
    if module is not None:
        return module
    if not path.exists():
        raise _SpecError(f"no such file {str(path)!r}")
    if not path.is_file():
        raise _SpecError(f"{str(path)!r} is not a file")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise _SpecError(f"cannot import {str(path)!r} as Python (expected a .py file)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        sys.modules.pop(module_name, None)
        if not isinstance(exc, Exception):
            raise
        raise _SpecError(f"importing {path.name} raised {_describe_exc(exc)}") from None
    return module


def _import_module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise _SpecError(f"no module named {name!r}") from None
        raise _SpecError(f"importing {name} raised {_describe_exc(exc)}") from None
    except Exception as exc:
        raise _SpecError(f"importing {name} raised {_describe_exc(exc)}") from None


def _class_of(module: Any, attr: str, where: str) -> type:
    obj: Any = module
    for part in attr.split("."):
        if not part.isidentifier() or not hasattr(obj, part):
            raise _SpecError(f"{where} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise _SpecError(f"{where}:{attr} is a {type(obj).__name__}, expected a class")
    missing = [m for m in REQUIRED if not callable(getattr(obj, m, None))]
    if missing:
        raise _SpecError(f"class {attr} lacks {', '.join(missing)}; a puzzle class needs "
                         f"{', '.join(REQUIRED)} (see puzzleplan.models.python_model)")
    return obj


def _describe_exc(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# -- building the model -------------------------------------------------------------------------
def user_model_from_document(doc: Document, base_dir: Path | str | None = None) -> "UserModel":
    """Build the model of a YAML document whose `puzzle:` names a user class.

    `base_dir` is the folder of the YAML file (paths in `python:./x.py:C` are relative to it);
    the current directory when None.
    """
    spec = doc.get("puzzle")
    if not isinstance(spec, str):
        raise doc.error("puzzle", f"expected a family name or python:MODULE:CLASS, got {spec!r}")
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    try:
        cls, origin = _resolve(spec, base)
    except _SpecError as exc:
        raise doc.error("puzzle", f"{spec}: {exc}") from None
    return _build(cls, origin, doc, spec)


def _family_name(cls: type, origin: tuple[Any, ...]) -> str:
    if origin[0] == "entry":
        return origin[1]
    family = getattr(cls, "family", None)
    return family if isinstance(family, str) and family else cls.__name__


def _build(cls: type, origin: tuple[Any, ...], doc: Document, spec: str) -> "UserModel":
    from . import FAMILIES  # late: this module is imported from the package's own loader
    family = _family_name(cls, origin)
    if family in FAMILIES:
        raise doc.error("puzzle", f"{spec}: the class calls its family {family!r}, a built-in family; "
                                  "choose another `family` name")
    metrics = getattr(cls, "metrics", ("step",))
    if isinstance(metrics, str) or not metrics or not all(isinstance(m, str) for m in metrics):
        raise doc.error("puzzle", f"{spec}: {cls.__name__}.metrics must be a tuple of names, got {metrics!r}")
    metrics = tuple(metrics)
    name = doc.text("name", "")
    doc.text("description", "")
    metric = doc.choice("metric", metrics, metrics[0])
    max_moves = doc.integer("max_moves", None, low=0, high=MAX_CAP)
    expect = doc.mapping("expect", {})
    data = {k: v for k, v in doc.data.items() if k != "puzzle"}
    try:
        inner, how = _construct(cls, data, doc)
    except ModelError as exc:
        if str(exc).startswith(f"{doc.source}:"):
            raise ModelError(" ".join(str(exc).split())) from None
        raise doc.error("puzzle", f"{spec}: {_describe_exc(exc)}") from None
    except Exception as exc:
        raise doc.error("puzzle", f"{spec}: {cls.__name__}{how_of(cls)}(...) raised {_describe_exc(exc)}") from None
    if inner is None or any(not callable(getattr(inner, m, None)) for m in REQUIRED):
        raise doc.error("puzzle", f"{spec}: {cls.__name__}{how} did not return an instance with "
                                  f"{', '.join(REQUIRED)}")
    try:
        start = inner.initial()
        hash(start)
    except TypeError as exc:
        raise doc.error("puzzle", f"{spec}: initial() must return a hashable state ({_describe_exc(exc)})") from None
    except Exception as exc:
        raise doc.error("puzzle", f"{spec}: initial() raised {_describe_exc(exc)}") from None
    attrs = {
        "name": _own(inner, "name", str, name),
        "metric": _own(inner, "metric", str, metric),
        "max_moves": _own(inner, "max_moves", int, max_moves),
        "expect": dict(_own(inner, "expect", dict, expect)),
    }
    return wrapper_class(cls, family, metrics)(inner, origin, data, doc.source, attrs)


def how_of(cls: type) -> str:
    """How the class is constructed, for messages: '.from_document', '.from_yaml' or ''."""
    for method in ("from_document", "from_yaml"):
        if callable(getattr(cls, method, None)):
            return f".{method}"
    return ""


def _construct(cls: type, data: dict[str, Any], doc: Document | None) -> tuple[Any, str]:
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
    return cls(**params), how


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
        # bound methods stored on the instance: no extra call layer in the engines' inner loops
        self.initial = inner.initial
        self.is_goal = inner.is_goal
        self.successors = inner.successors
        if callable(getattr(inner, "h", None)):
            self.h = inner.h

    def plan_moves(self, actions: Sequence[Any]) -> list[str]:
        own = getattr(self.inner, "plan_moves", None)
        if callable(own):
            return [str(m) for m in own(list(actions))]
        return [str(a) for a in actions]

    def render(self, state: Any) -> str:
        own = getattr(self.inner, "render", None)
        return str(own(state)) if callable(own) else str(state)

    def unsolvable_reason(self) -> str | None:
        own = getattr(self.inner, "unsolvable_reason", None)
        return own() if callable(own) else None

    def plan_parity(self) -> int | None:
        own = getattr(self.inner, "plan_parity", None)
        return own() if callable(own) else None

    def native_searcher(self) -> Any:
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
        inner, _ = _construct(cls, data, None)
    metrics = tuple(getattr(cls, "metrics", ("step",)))
    return wrapper_class(cls, _family_name(cls, origin), metrics)(inner, origin, data, source, attrs)


def iter_user_families() -> Iterator[tuple[str, str]]:
    """(name, "module:Class") for every registered entry point (for listings)."""
    for ep in sorted(_entry_points(), key=lambda e: e.name):
        yield ep.name, ep.value


__all__ = ["PREFIX", "ENTRY_POINT_GROUP", "STANDARD_KEYS", "UserModel", "entry_point_names", "is_user_puzzle",
           "iter_user_families", "resolve_family", "user_model_from_document", "wrapper_class"]
