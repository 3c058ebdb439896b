"""Naming a user's class: `python:FILE:Class`, `python:package.module:Class`, or an entry point
of the group `puzzleplan.models` naming a class. Each failure (a missing file, module, class)
is a `_SpecError` that the model module turns into one line naming the puzzle file and field.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from puzzleplan.models.base import ModelError, quote

# What user code may raise that is its own error: any Exception, and SystemExit (a hook's
# `sys.exit()` would otherwise end puzzleplan with the hook's exit code and no message).
# KeyboardInterrupt stays Ctrl-C: one raised by a hook cannot be told from a real one.
USER_ERRORS: tuple[type[BaseException], ...] = (Exception, SystemExit)

PREFIX = "python:"
ENTRY_POINT_GROUP = "puzzleplan.models"
REQUIRED = ("initial", "is_goal", "successors")   # the hooks every user class must have


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
    """The group's entry points (read once per sys.path, shared with the family registry)."""
    from puzzleplan.models.family import _entry_points as points
    try:
        return list(points().values())
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
        raise ModelError(f"puzzle {quote(spec)}: {exc}") from None
    return cls


def _resolve(spec: str, base_dir: Path) -> tuple[type, tuple[Any, ...]]:
    """(class, origin); the origin lets a worker process find the class again."""
    if spec.startswith(PREFIX):
        target = spec[len(PREFIX):]
        where, sep, attr = target.rpartition(":")
        if not sep or not where or not attr:
            raise _SpecError("expected python:MODULE:CLASS or python:./FILE.py:CLASS")
        if _looks_like_path(where):
            try:
                path = (base_dir / where).resolve()
            except (OSError, RuntimeError, ValueError) as exc:
                raise _SpecError(f"cannot use that path ({_os_reason(exc)})") from None
            module_name = _file_module_name(path)
            module = _import_file(path, module_name)
            origin: tuple[Any, ...] = ("file", str(path), module_name, attr)
        else:
            module = _import_module(where)
            origin = ("module", where, attr, getattr(module, "__file__", None))
        return _class_of(module, attr, where), origin
    matches = [ep for ep in _entry_points() if ep.name == spec]
    if not matches:
        raise _SpecError(f"no entry point {quote(spec)} in group {ENTRY_POINT_GROUP}")
    values = sorted({ep.value for ep in matches})
    if len(values) > 1:
        raise _SpecError(f"entry point {quote(spec)} is registered {len(values)} times "
                         f"({', '.join(quote(v) for v in values[:4])})")
    module_name, sep, attr = values[0].partition(":")
    if not sep or not module_name.strip() or not attr.strip():
        raise _SpecError(f"entry point {quote(spec)} = {quote(values[0])}: expected 'module:Class'")
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
    try:
        exists, is_file = path.exists(), path.is_file()
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        raise _SpecError(f"cannot use that path ({_os_reason(exc)})") from None
    if not exists:
        raise _SpecError(f"no such file {quote(str(path), 80)}")
    if not is_file:
        raise _SpecError(f"{quote(str(path), 80)} is not a file")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise _SpecError(f"cannot import {quote(str(path), 80)} as Python (expected a .py file)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    folder = str(path.resolve().parent)
    if folder not in sys.path:   # its own modules beside it import, as when the file is run as a script;
        sys.path.append(folder)  # last, so a file there named like a library module shadows nothing
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        sys.modules.pop(module_name, None)
        if not isinstance(exc, USER_ERRORS):
            raise
        raise _SpecError(f"importing {path.name} raised {_describe_exc(exc)}") from None
    return module


def _import_module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise _SpecError(f"no module named {quote(name)}") from None
        raise _SpecError(f"importing {name} raised {_describe_exc(exc)}") from None
    except USER_ERRORS as exc:
        raise _SpecError(f"importing {name} raised {_describe_exc(exc)}") from None


def _class_of(module: Any, attr: str, where: str) -> type:
    obj: Any = module
    for part in attr.split("."):
        if not part.isidentifier() or not hasattr(obj, part):
            raise _SpecError(f"{quote(where)} has no attribute {quote(attr)}")
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise _SpecError(f"{quote(where)}:{quote(attr)} is a {type(obj).__name__}, expected a class")
    missing = [m for m in REQUIRED if not callable(getattr(obj, m, None))]
    if missing:
        raise _SpecError(f"class {attr} lacks {', '.join(missing)}; a puzzle class needs "
                         f"{', '.join(REQUIRED)} (see puzzleplan.models.user.model)")
    return obj


def _os_reason(exc: BaseException) -> str:
    """Why a path could not be used, without repeating the path."""
    return getattr(exc, "strerror", None) or type(exc).__name__


def _describe_exc(exc: BaseException) -> str:
    """`Type: message`, one line, the message cut to 160 characters (it may quote user values)."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    text = " ".join(text[:2000].split())
    if len(text) > 160:
        text = text[:157] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# -- building the model -------------------------------------------------------------------------
