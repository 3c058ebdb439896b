"""The rules family's model: a rules file read (schema.py), grounded (ground.py), as a TaskModel.

Everything generic runs on it through its task: the native engines (unit-cost files), the task
engines, the SAT and CP-SAT encodings of the task, the PDDL export and the generic checker.
What it adds is the file's own picture of a state (`show:`) and the file written back
(`notation("yaml")`).
"""
from __future__ import annotations

import copy
from typing import Any, ClassVar

import yaml

from puzzleplan.models.base import ModelError, quote
from puzzleplan.models.document import Document
from puzzleplan.models.rules.frames import BudgetExceeded, ExprError, Frame
from puzzleplan.models.rules.ground import ground, state_reader
from puzzleplan.models.rules.file import Rules, read
from puzzleplan.models.rules.schema import METRICS
from puzzleplan.models.task.ir import State
from puzzleplan.models.task.model import TaskModel


class RulesModel(TaskModel):
    """A puzzle stated as rules in YAML (immutable once built)."""

    family: ClassVar[str] = "rules"
    # A file's actions may state costs (`cost:`), so both metrics belong to the family (a batch
    # spec or --metric names either); a file without costs counts 1 per action under `cost`.
    metrics: ClassVar[tuple[str, ...]] = METRICS
    notations: ClassVar[tuple[str, ...]] = ("yaml",)

    def __init__(self, rules: Rules, data: dict[str, Any]) -> None:
        common = rules.common
        super().__init__(ground(rules), name=common.name, metric=common.metric, max_moves=common.max_moves,
                         expect=common.expect, description=common.description)
        self._rules: Rules | None = rules
        self.data = data
        self._show_where = rules.show.where if rules.show is not None else ""   # kept by a worker's copy

    @property
    def rules(self) -> Rules:
        """The file's rules, compiled (read again from `data` after unpickling)."""
        if self._rules is None:
            object.__setattr__(self, "_rules", read(Document("<rules>", copy.deepcopy(self.data), {}, {})))
        assert self._rules is not None
        return self._rules

    # Compiled expressions are closures, which do not pickle; worker processes (pbfs, the SAT
    # solver process) get the task and the file's data, and compile the rules again if they
    # ever need them (to draw a state).
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_rules"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    @classmethod
    def from_document(cls, doc: Document) -> "RulesModel":
        return cls(read(doc), copy.deepcopy(doc.data))

    @property
    def default_engine(self) -> str:  # type: ignore[override]
        return "bfs" if self.unit_cost else "task-astar"

    def render(self, state: State) -> str:
        """The file's `show:` picture of the state, else one `variable = value` line each."""
        picture = self.rules.show
        if picture is None:
            return super().render(state)
        try:
            text = picture.render(Frame({}, state_reader(self.rules, tuple(state))))
        except ExprError as exc:
            raise ModelError(f"{self._show_where or 'show:'} {exc}") from None
        except BudgetExceeded:
            raise ModelError(f"{self._show_where or 'show:'} the picture runs too many loop steps") from None
        return "\n".join(line.rstrip() for line in text.rstrip("\n").splitlines())

    def notation(self, kind: str) -> str:
        """The puzzle as a rules file (`yaml`), with this model's name, metric, cap and facts."""
        if kind != "yaml":
            raise ValueError(f"unknown notation {quote(kind)}; expected one of {', '.join(self.notations)}")
        data = copy.deepcopy(self.data)
        data["puzzle"] = "rules"
        for key, value in (("name", self.name), ("description", self.description), ("max_moves", self.max_moves),
                           ("expect", self.expect or None)):
            if value:
                data[key] = value
            else:
                data.pop(key, None)
        default = "cost" if self.rules.costed else "step"
        if self.metric != default:
            data["metric"] = self.metric
        else:
            data.pop("metric", None)
        ordered = {"puzzle": data.pop("puzzle"), **data}
        return yaml.dump(ordered, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


class _Dumper(yaml.SafeDumper):
    """Safe YAML with multi-line text (the show picture) as a literal block."""


def _text(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _text)
