"""One run of a batch: an instance, a metric, an engine configuration, limits and a repeat.

A run is plain data (it travels to worker processes and Dask workers as a dict) and carries a
`run_id`, a hash of everything that defines it except the memory limit (whose default depends
on the machine): `--resume` skips the runs whose ids the results table already holds (and, where
the spec states the memory limit, whose rows were run under it).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Run:
    """Everything a worker needs to run one engine on one instance, and the row's fixed columns."""

    index: int                     # place in the spec's cross product
    instance: str                  # as the table names it: the file relative to the spec, FILE#N for a level
    path: str                      # the file, absolute
    level: str | None              # the level of a collection (1-based number), None for a one-puzzle file
    family: str
    title: str
    metric: str
    engine: str
    encoding: str | None = None
    solver: str | None = None
    options: dict[str, Any] = field(default_factory=dict)   # other engine options
    config: str = ""               # the configuration's name (engine/encoding/solver[options] or a label)
    repeat: int = 1
    max_moves: int | None = None
    any_plan: bool = False
    time_limit: float | None = None
    memory_mb: int | None = None
    max_states: int | None = None
    memory_default: bool = False   # memory_mb is the machine's default, not the spec's

    @property
    def run_id(self) -> str:
        """16 hex digits identifying the run (not its index, title or memory limit)."""
        key = {k: v for k, v in asdict(self).items()
               if k not in ("index", "title", "memory_mb", "memory_default", "path", "family")}
        text = json.dumps(key, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def payload(self) -> dict[str, Any]:
        """The run as a JSON-ready dict (what worker processes receive)."""
        return asdict(self)

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> "Run":
        return cls(**data)

    def fixed_columns(self) -> dict[str, Any]:
        """The row's columns known before the run starts."""
        return {
            "run_id": self.run_id, "index": self.index, "instance": self.instance, "title": self.title,
            "family": self.family, "metric": self.metric, "config": self.config, "engine": self.engine,
            "encoding": self.encoding, "solver": self.solver,
            "options": json.dumps(self.options, sort_keys=True) if self.options else None,
            "repeat": self.repeat, "max_moves": self.max_moves, "any_plan": self.any_plan,
            "time_limit": self.time_limit, "memory_mb": self.memory_mb, "max_states": self.max_states,
        }


def config_name(engine: str, encoding: str | None, solver: str | None, options: dict[str, Any]) -> str:
    """engine[/encoding[/solver]][k=v,...]: what tables and plots call a configuration."""
    parts = [engine] + [p for p in (encoding, solver) if p]
    extra = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    return "/".join(parts) + (f"[{extra}]" if extra else "")


__all__ = ["Run", "config_name"]
