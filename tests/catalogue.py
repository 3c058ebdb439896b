"""The one shared catalogue of cases every engine is run against.

Each case is an example file under examples/ with the facts it states in `expect:`. The
catalogue also says which engines can handle it in test time (blind search on a 15-puzzle
cannot), so a skip is always explicit and explained.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from puzzleplan.models import load

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class Case:
    path: Path
    family: str
    metric: str
    optimal: int | None
    solvable: bool | None
    cap: int | None
    blind_ok: bool                 # small enough for blind / pure-Python engines
    expect: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.family}/{self.path.stem}/{self.metric}"

    def model(self) -> Any:
        return load(self.path, {"metric": self.metric})


def _blind_ok(model: Any) -> bool:
    if model.family == "tiles":
        return model.rows * model.cols <= 9
    return True


def load_cases() -> list[Case]:
    """One case per example and metric; `optimal_<metric>` facts give per-metric optima."""
    cases = []
    for path in sorted(EXAMPLES.glob("*/*.yaml")):
        model = load(path)
        expect = dict(model.expect)
        for metric in type(model).metrics:
            optimal = expect.get(f"optimal_{metric}", expect.get("optimal"))
            solvable = expect.get("solvable", True if optimal is not None else None)
            cases.append(Case(path, model.family, metric, optimal, solvable, model.max_moves,
                              _blind_ok(model), expect))
    return cases


CASES = load_cases()


def large_blocks(case: Case) -> bool:
    """A classic sliding-block space (Klotski, Century: up to 81,340 configurations, 59-307 moves)."""
    return case.family == "blocks" and ((case.optimal or 0) > 60 or case.expect.get("reachable", 0) > 30_000)


def heavy_blocks_task(case: Case) -> bool:
    """A sliding-block planning task too large for per-example walks and planners in test time:
    deep or unsolvable, or a class of more than three look-alikes (grounded per tuple of places)."""
    return case.family == "blocks" and (case.optimal is None or case.optimal > 12
                                        or max(len(g) for g in case.model().board.classes) > 3)


def feasible(engine: str, case: Case) -> str | None:
    """None when `engine` should run on `case` in test time, else the reason to skip.

    What an engine can run is its own declaration (`supports`); the rules below only keep the
    suite within test time (blind search of a 15-puzzle, deep horizon sweeps)."""
    from puzzleplan.plans.core import engines
    if engine not in ("bfs", "explore") and large_blocks(case):
        return ("a classic sliding-block space (Klotski, Century, Quzzle: up to 81,340 configurations, 59-307 moves) "
                "runs bfs and explore here; test_blocks, its encoding tests and benchmarks/blocks.py cover the rest")
    if engine != "explore":
        reason = engines.supports(engine, case.model())
        if reason is not None:
            return reason
    if engine in ("sat", "cpsat"):
        if case.optimal is None and case.solvable is not False:
            return "no known optimum to bound the horizon sweep"
        if case.solvable is False and case.cap is None and case.model().plan_parity() is None:
            return "proving unsolvability by horizon sweep needs a cap"
        if case.optimal is not None and case.optimal > 31:
            return "deep instances are for the encoding benchmark, not unit tests"
    if engine in ("bfs", "pbfs", "explore") and not case.blind_ok:
        return "blind breadth-first search of a 15-puzzle space does not fit in test time"
    if engine == "dfs" and case.cap is None and not case.blind_ok:
        return "uncapped graph DFS of a 15-puzzle space does not fit in test time"
    if engine == "idastar" and case.family in ("rush-hour", "sokoban") and (
            case.optimal is None and case.solvable is not False or (case.optimal or 0) > 40):
        return "IDA* on seed 000 (93 moves) or the dungeon (282) takes seconds each; test_idastar_table covers one"
    if engine in ("astar", "greedy") and not case.blind_ok and (case.optimal is None or case.optimal > 30):
        return "pure-Python best-first search on a deep 15-puzzle instance is too slow for a unit test"
    if engine.startswith("task-") and not case.blind_ok and (
            engine == "task-bfs" or case.optimal is None or case.optimal > 30):
        return "generic task search on a 15-puzzle (blind, or cell-projection PDBs on a deep instance) is too slow for a unit test"
    if engine in ("task-idastar", "dfs", "sat", "cpsat", "task-bfs", "pbfs") and case.family == "blocks" and (
            case.optimal is None and case.expect.get("reachable", 10**9) > 100 or (case.optimal or 0) > 12):
        return "deep or unsolvable sliding-block instances: generic IDA* re-expands transpositions, encodings are deep; test_blocks covers Klotski"
    if engine.startswith("task-") and case.family == "blocks" and (
            case.optimal is None and case.expect.get("reachable", 10**9) > 100 or (case.optimal or 0) > 30):
        return "the generic task engines on Klotski take 8-16 s each; the family's bfs and astar cover it here"
    if engine == "task-idastar" and case.family in ("rush-hour", "sokoban") and (case.optimal or 0) > 60:
        return "generic IDA* re-expands the long Rush Hour / Sokoban instances (seconds each); test_task_search covers them"
    return None
