"""The capability matrix: family x metric x (engines, encodings, exports, checker).

Computed from the declarations only (each engine's, encoding's and exporter's `supports`),
on each family's sample puzzle under each of its metrics; `puzzleplan families` prints it and
a test runs every cell it claims.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from puzzleplan.models.family import Family, families


@dataclass(frozen=True)
class Capabilities:
    """What runs on one family under one metric."""

    family: str
    metric: str
    summary: str
    engines: tuple[str, ...]
    encodings: tuple[str, ...]
    exports: tuple[str, ...]
    checker: str            # "independent" (a replay of its own) or "model" (the family's successors)
    notations: tuple[str, ...]
    unit_cost_engines: tuple[str, ...] = ()   # also run where every action costs 1 (a cost row's sample has costs)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def sample_model(desc: Family, metric: str, plain: bool = False) -> Any:
    """The family's sample puzzle under `metric`: the metric's own sample where the family has
    one, unless `plain` (None when the family has no sample)."""
    from puzzleplan.models import loads
    text = desc.sample_text(None if plain else metric)
    if text is None:
        return None
    model = loads(text, f"<{desc.name} sample>")
    if model.metric != metric:
        model = loads(text + f"metric: {metric}\n", f"<{desc.name} sample>")
    return model


def capabilities(desc: Family, metric: str, model: Any | None = None) -> Capabilities:
    """The matrix row of one family and metric, from `supports` on `model` (default: the sample)."""
    from puzzleplan.encoders.base import encoding_class, encodings_for, supports as encoding_supports
    from puzzleplan.encoders.pddl import export_kinds, exporter_supports
    from puzzleplan.plans.core import engines
    model = model if model is not None else sample_model(desc, metric)
    if model is None:
        raise ValueError(f"family {desc.name} has no sample puzzle to compute its capabilities on")
    runs = tuple(n for n in engines.names() if engines.supports(n, model) is None)
    encodings = []
    backends = set()
    for name in encodings_for(model):   # the family's own, then the generic ones where it compiles
        cls = encoding_class(name)
        if encoding_supports(cls, model) is None:
            encodings.append(name)
            backends.add(cls.backend)
    exports = [kind for kind in export_kinds(desc) if exporter_supports(model, kind) is None]
    exports += [kind for kind, backend in (("dimacs", "sat"), ("cpsat", "cpsat")) if backend in backends]
    unit = ()
    if metric in desc.samples and desc.sample is not None:
        plain = sample_model(desc, metric, plain=True)
        unit = tuple(n for n in engines.names() if n not in runs and engines.supports(n, plain) is None)
    return Capabilities(desc.name, metric, desc.summary, runs, tuple(encodings), tuple(exports),
                        "independent" if desc.checker else "model", desc.notations, unit)


def matrix() -> list[Capabilities]:
    """Every family with a descriptor and a sample puzzle, every metric it declares (a family
    without a sample has nothing to compute its capabilities on and is left out)."""
    return [capabilities(desc, metric) for desc in families().values() if desc.sample is not None
            for metric in desc.metrics]
