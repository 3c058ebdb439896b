"""Reading a whole `puzzle: rules` file: the declarations (schema.py), then the action schemas
(actions.py) over them, then the fields every puzzle file shares."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from puzzleplan.models.base import ModelError
from puzzleplan.models.document import CommonFields, Document
from puzzleplan.models.rules.actions import Schema, read_actions
from puzzleplan.models.rules.expressions import Expression
from puzzleplan.models.rules.frames import World
from puzzleplan.models.rules.schema import EXPECT_KEYS, KEYS, METRICS, Reader, Template, read_declarations


@dataclass(frozen=True)
class Rules:
    """A rules file read and checked, ready to ground."""

    world: World
    names: tuple[str, ...]                 # variable names, e.g. "on[1]"
    init: tuple[int, ...]                  # value index of each variable
    goal: tuple[tuple[int, int], ...]
    invariant: tuple[Expression, ...]
    schemas: tuple[Schema, ...]
    show: Template | None
    common: CommonFields
    costed: bool                           # some action states a cost
    fail: Callable[..., ModelError]        # (path, message) -> the error naming FILE:LINE and field


def read(doc: Document) -> Rules:
    """The rules of a `puzzle: rules` document, checked (actions compiled, not yet grounded)."""
    doc.check_keys(KEYS)
    reader = Reader(doc)
    declared = read_declarations(reader)
    schemas = read_actions(reader, declared.world)
    costed = any(s.cost is not None for s in schemas)
    common = doc.common(("cost", "step") if costed else METRICS, EXPECT_KEYS)
    return Rules(declared.world, declared.names, declared.init, declared.goal, declared.invariant, schemas,
                 declared.show, common, costed, reader.fail)


__all__ = ["Rules", "read"]
