"""Where a nested field of a rules file stands, so an error can name its own line.

`Document` records the line of each top-level key only; a rules file nests most of what it says
(`actions: move: requires: - ...`). When the document came from a file, that file is composed
once more here into YAML nodes (no values are constructed; the strict reader has already
accepted it, so it holds no aliases and is within the size limits) and each path of keys and
list positions is mapped to its line. Text read without a file (`loads`) falls back to the line
of the top-level key.
"""
from __future__ import annotations

from pathlib import Path
from typing import Union

import yaml

from puzzleplan.models.document import MAX_FILE_BYTES, Document

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

Step = Union[str, int]


class Lines:
    """Lines of nested fields: `line(("actions", "move", "requires", 1))`."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.lines: dict[tuple[Step, ...], int] = {}
        root = _compose(doc.source)
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


def _compose(source: str) -> yaml.Node | None:
    """The file's node tree, or None when `source` is no readable file of a puzzle's size."""
    if not source or source.startswith("<"):
        return None
    path = Path(source)
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        return yaml.compose(path.read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, UnicodeError, yaml.YAMLError):
        return None


def field_name(path: tuple[Step, ...]) -> str:
    """A path as an error names its field: `actions.move.requires[2]` (list positions 1-based)."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step + 1}]"
        else:
            out += ("." if out else "") + str(step)
    return out
