"""Where a nested field of a rules file stands, so an error can name its own line.

`Document` records the line of each top-level key; a rules file nests most of what it says
(`actions: move: requires: - ...`). The YAML tree the document was parsed from (`Document.node`,
kept whether the text came from a file, standard input or `loads`) maps each path of keys and
list positions to its line. It used to be composed again from the file, so text without one
(standard input) fell back to the top-level key's line. A document built from data alone has no
tree and falls back the same way.
"""
from __future__ import annotations

from typing import Union

import yaml

from puzzleplan.models.document import Document

Step = Union[str, int]


class Lines:
    """Lines of nested fields: `line(("actions", "move", "requires", 1))`."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.lines: dict[tuple[Step, ...], int] = {}
        root = doc.node   # what was parsed: a file, standard input or a string given to `loads`
        if isinstance(root, yaml.MappingNode):
            self._walk(root, ())

    def _walk(self, node: yaml.Node, path: tuple[Step, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    here = path + (key.value,)
                    self.lines[here] = key.start_mark.line + 1
                    self._walk(value, here)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                here = path + (i,)
                self.lines[here] = item.start_mark.line + 1
                self._walk(item, here)

    def line(self, path: tuple[Step, ...]) -> int:
        """The line of `path`, else of its longest known prefix, else of its top-level key."""
        path = tuple(str(p) if not isinstance(p, int) else p for p in path)
        for end in range(len(path), 1, -1):
            found = self.lines.get(path[:end])
            if found is not None:
                return found
        return self.doc.line(str(path[0])) if path else 1


def field_name(path: tuple[Step, ...]) -> str:
    """A path as an error names its field: `actions.move.requires[2]` (list positions 1-based)."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step + 1}]"
        else:
            out += ("." if out else "") + str(step)
    return out
