"""A PDDL domain and problem as a puzzle: the `puzzle: pddl` family's model.

The YAML wrapper names the two (inline text or files, models/pddl/source.py) with the usual
fields (name, description, max_moves, expect); unified-planning parses them, its grounder grounds
them, and the result is a planning task (models/pddl/ground.py) that every generic engine,
encoding and the PDDL export work on. Move names are Fast Downward plan lines, `(move a b)`,
and plans in that format read back through `check`, whose checker (plans/check/pddl.py)
validates them on the lifted problem read again from `pddl_texts`, never on this task.
"""
from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from puzzleplan.models.base import ModelError
from puzzleplan.models.document import Document
from puzzleplan.models.pddl.ground import ground_task, unsupported
from puzzleplan.models.pddl.source import FRAGMENT, construct_refused, counter_from_zero, parse, source_of
from puzzleplan.models.task.ir import State
from puzzleplan.models.task.model import TaskModel

KEYS = ("puzzle", "name", "description", "metric", "max_moves", "expect", "domain", "problem")
METRICS = ("cost",)   # the cost the PDDL states: total-cost under its metric, else 1 per action
EXPECT_KEYS = ("optimal", "optimal_cost", "solvable", "reachable", "max_depth", "valid_plans")


class PddlModel(TaskModel):
    """A grounded PDDL problem (immutable once built)."""

    family: ClassVar[str] = "pddl"
    metrics: ClassVar[tuple[str, ...]] = METRICS
    pddl_texts: tuple[str, str] = ("", "")     # the domain and the problem as read (for the checker)

    @classmethod
    def from_document(cls, doc: Document) -> "PddlModel":
        doc.check_keys(KEYS)
        common = doc.common(METRICS, EXPECT_KEYS)
        doc.text("domain"), doc.text("problem")      # both named before either file is read
        domain, problem = source_of(doc, "domain"), source_of(doc, "problem")
        problem = replace(problem, text=counter_from_zero(problem.text))
        parsed = parse(domain, problem)
        if unsupported(parsed):
            raise construct_refused(domain, problem) or ModelError(
                f"{domain.at(None)} unsupported PDDL: {', '.join(unsupported(parsed))}; {FRAGMENT}")
        task = ground_task(parsed, common.name or parsed.name, domain.at(None), problem.at(None))
        model = cls(task, common.name or parsed.name, common.metric, common.max_moves, common.expect,
                    common.description)
        model.pddl_texts = (domain.text, problem.text)
        return model

    def render(self, state: State) -> str:
        """The atoms that hold, one a line (all others are false)."""
        true = [v.name for v, x in zip(self.task.variables, state) if x == 1]
        return "\n".join(true) if true else "(no atom holds)"
