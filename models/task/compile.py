"""Compile any model to the planning-task IR, through its family's descriptor.

`compiled(model)` returns a `Compiled` (task + state maps) or raises `NotCompilable` naming why.
A family names its compiler as `Family.task` ("module:function", `function(model) -> Compiled`);
a model that already is a task (`TaskModel`: rules and PDDL files) is its own compilation; a
user family's Python class is compiled by enumerating its reachable states (models/user/task.py),
which works for small state spaces only and says so otherwise.

Compilations are remembered per model object (models are immutable), so `verify` and `compare`
compile once for all their generic methods.
"""
from __future__ import annotations

import weakref
from typing import Any

from puzzleplan.models.task.ir import Compiled, NotCompilable, Task

__all__ = ["NotCompilable", "compiled", "supports", "task_of"]

_memo: "weakref.WeakKeyDictionary[Any, Compiled | NotCompilable]" = weakref.WeakKeyDictionary()


def _compiler(model: Any) -> Any:
    from puzzleplan.models.family import family_of, resolve
    own = getattr(model, "compiled_task", None)
    if callable(own):
        return own
    desc = family_of(model)
    if desc is not None and getattr(desc, "task", None):
        return resolve(desc.task)
    from puzzleplan.models.user.model import UserModel
    if isinstance(model, UserModel):
        from puzzleplan.models.user.task import enumerate_task
        return enumerate_task
    return None


def compiled(model: Any) -> Compiled:
    """The model's task and state maps (NotCompilable when its family has no task form; that
    answer is remembered too, so a class too large to enumerate is tried once)."""
    try:
        found = _memo[model]
    except (KeyError, TypeError):
        found = _compile(model)
        try:
            _memo[model] = found
        except TypeError:
            pass
    if isinstance(found, NotCompilable):
        raise NotCompilable(str(found))
    return found


def _compile(model: Any) -> "Compiled | NotCompilable":
    compiler = _compiler(model)
    if compiler is None:
        return NotCompilable(f"the {getattr(model, 'family', '?')} family has no planning-task form")
    try:
        return compiler(model)
    except NotCompilable as exc:
        return exc


def task_of(model: Any) -> Task:
    return compiled(model).task


def supports(model: Any) -> str | None:
    """None when `model` compiles to a task, else the reason it does not."""
    try:
        compiled(model)
    except NotCompilable as exc:
        return str(exc)
    return None
