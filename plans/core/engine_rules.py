"""An engine's switchable rules: pruning rules and bounds a user turns on or off by name.

An engine module declares them as `RULES = {name: (default, what it does)}` (the push engine's
in models/sokoban/native.py); the engine reads each as a boolean option of the same name. The
command line's `--rule NAME=on|off`, the API's `rules=` and a batch file's `options: {rules:
...}` all pass through `checked`, so a misspelt rule is one clear error before any search, and
the request the engine sees holds plain options.
"""
from __future__ import annotations

import re
from typing import Any, Mapping

from puzzleplan.models.family import resolve
from puzzleplan.plans.core import engines

ON = ("on", "true", "yes", "1")
OFF = ("off", "false", "no", "0")


def declared(engine_name: str) -> dict[str, tuple[bool, str]]:
    """The rules engine `engine_name` declares (none: an empty dict)."""
    module = resolve(engines.spec(engine_name).run.partition(":")[0])
    return dict(getattr(module, "RULES", {}))


def parse(text: str) -> dict[str, bool]:
    """'corrals=off, pair_bound=on' -> {'corrals': False, 'pair_bound': True} (ValueError
    naming the part that is not NAME=on|off)."""
    out: dict[str, bool] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S+)", part)
        if not m or m.group(2).lower() not in ON + OFF:
            raise ValueError(f"expected NAME=on or NAME=off, got {part!r}")
        out[m.group(1)] = m.group(2).lower() in ON
    return out


def checked(engine_name: str, rules: str | Mapping[str, Any]) -> dict[str, bool]:
    """`rules` (text as `parse` reads it, or a mapping to booleans) checked against the rules
    `engine_name` declares; ValueError naming the wrong rule and the engine's rules."""
    wanted = parse(rules) if isinstance(rules, str) else dict(rules)
    known = declared(engine_name)
    for name, value in wanted.items():
        if not isinstance(value, bool):
            raise ValueError(f"rule {name!r}: expected on or off (a boolean), got {value!r}")
        if name not in known:
            if not known:
                raise ValueError(f"engine {engine_name} has no rules to switch (rule {name!r})")
            raise ValueError(f"engine {engine_name} has no rule {name!r}; its rules: {listing(known)}")
    return wanted


def listing(known: Mapping[str, tuple[bool, str]]) -> str:
    """'corrals (on), pair_bound (off), ...'."""
    return ", ".join(f"{name} ({'on' if default else 'off'})" for name, (default, _) in known.items())


def applied(engine_name: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` with its `rules` entry checked and spread into plain options."""
    out = {k: v for k, v in options.items() if k != "rules"}
    if "rules" in options and options["rules"] is not None:
        out.update(checked(engine_name, options["rules"]))
    return out
