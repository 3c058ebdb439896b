"""What a batch's table says at a glance: a summary per configuration, and the disagreements.

A disagreement is something that cannot all be true, found by comparing runs of one instance
under one metric: a checked plan cheaper than another run's proved lower bound (which covers
two runs proving different optima), a plan where another run proved there is none, or a plan
the independent checker rejected. Any one is a bug in an engine, an encoding or the checker,
and `puzzleplan batch` exits 1 when there is one.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable

ANSWERED = ("optimal", "solved", "unsolvable", "no_plan_within_cap")   # the run decided the question it was asked
PROVED = ("optimal", "unsolvable", "no_plan_within_cap")                # ... and proved its answer


@dataclass(frozen=True)
class ConfigSummary:
    """One configuration under one metric, over every instance and repeat."""

    metric: str
    config: str
    runs: int
    answered: int          # optimal, solved, unsolvable or no plan within the cap
    optimal: int           # a plan proved optimal
    proved_none: int       # proved unsolvable, or no plan within the cap
    limit: int
    unsupported: int
    errors: int
    median_seconds: float | None    # over answered runs (total_seconds)
    total_seconds: float            # over every run

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def label(metric: str, config: str, metrics: int) -> str:
    """How plots and tables name a configuration: with its metric when the table has several."""
    return f"{config} ({metric})" if metrics > 1 else config


def summarize(rows: Iterable[dict[str, Any]]) -> list[ConfigSummary]:
    """One line per (metric, configuration), in the order they first appear."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["metric"] or "", row["config"] or "")].append(row)
    out = []
    for (metric, config), group in groups.items():
        statuses = [r["status"] for r in group]
        answered_times = [r["total_seconds"] for r in group if r["status"] in ANSWERED and r["total_seconds"] is not None]
        out.append(ConfigSummary(
            metric, config, len(group),
            answered=sum(s in ANSWERED for s in statuses),
            optimal=statuses.count("optimal"),
            proved_none=statuses.count("unsolvable") + statuses.count("no_plan_within_cap"),
            limit=statuses.count("limit_reached"),
            unsupported=statuses.count("unsupported"),
            errors=statuses.count("error"),
            median_seconds=statistics.median(answered_times) if answered_times else None,
            total_seconds=sum(r["total_seconds"] or 0.0 for r in group)))
    return out


def disagreements(rows: Iterable[dict[str, Any]]) -> list[str]:
    """Every contradiction between runs of one instance under one metric, one line each."""
    found: list[str] = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row["plan_checked"] is False:
            found.append(f"{row['instance']} ({row['metric']}): the checker rejects the plan of {row['config']}"
                         f"{': ' + row['error'] if row['error'] else ''}")
        groups[(row["instance"], row["metric"])].append(row)
    for (instance, metric), group in groups.items():
        plans = [r for r in group if r["status"] in ("optimal", "solved") and r["cost"] is not None
                 and r["plan_checked"] is not False]
        bounds = [r for r in group if r["lower_bound"] is not None and r["status"] != "error"]
        none = [r for r in group if r["status"] == "unsolvable"]
        if plans and bounds:
            cheapest = min(plans, key=lambda r: r["cost"])
            highest = max(bounds, key=lambda r: r["lower_bound"])
            if highest["lower_bound"] > cheapest["cost"]:
                found.append(f"{instance} ({metric}): {cheapest['config']} has a checked plan of cost "
                             f"{cheapest['cost']}, but {highest['config']} proved none costs less than "
                             f"{highest['lower_bound']}")
        optima = {r["cost"] for r in group if r["status"] == "optimal"}
        if len(optima) > 1:
            who = ", ".join(f"{r['config']} {r['cost']}" for r in group if r["status"] == "optimal")
            found.append(f"{instance} ({metric}): the proved optima differ: {who}")
        if plans and none:
            found.append(f"{instance} ({metric}): {none[0]['config']} proved it unsolvable, but "
                         f"{plans[0]['config']} has a checked plan of cost {plans[0]['cost']}")
    return list(dict.fromkeys(found))


def summary_text(summaries: list[ConfigSummary]) -> str:
    """The summary as an aligned text table (what `batch` prints and `plot --kind table` writes
    as text)."""
    metrics = len({s.metric for s in summaries})
    head = ["configuration", "runs", "answered", "optimal", "proved none", "limit", "unsupported", "error",
            "median s", "total s"]
    body = [[label(s.metric, s.config, metrics), str(s.runs), str(s.answered), str(s.optimal), str(s.proved_none),
             str(s.limit), str(s.unsupported), str(s.errors),
             "-" if s.median_seconds is None else f"{s.median_seconds:.2f}", f"{s.total_seconds:.1f}"]
            for s in summaries]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in [head, *body]]
    return "\n".join(line.rstrip() for line in lines)


__all__ = ["ANSWERED", "PROVED", "ConfigSummary", "disagreements", "label", "summarize", "summary_text"]
