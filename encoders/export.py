"""Export an instance at a horizon for outside tools, and decode an outside SAT model back.

- DIMACS CNF (`pysat.formula.CNF.to_file`) plus a JSON variable map: the encoding, horizon,
  options and each variable's readable key. `decode` rebuilds the same encoding (variables are
  allocated deterministically), checks the map matches, and turns an outside solver's model
  ("v 1 -2 3 ... 0" lines or plain integers) into a plan.
- The CP-SAT model proto (binary `.pb`, or text for any other suffix).
- PDDL domain and problem (STRIPS, step metric) for outside planners: see encoders/pddl.py.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pysat.formula import CNF

from puzzleplan.encoders.base import EncodingOptions, encoding_class


def export_dimacs(model: Any, encoding: str, options: EncodingOptions, horizon: int, out: Path) -> Path:
    """Write OUT (DIMACS) and OUT.map.json; returns the map's path."""
    enc = encoding_class(encoding)(model, options)
    cnf = CNF(from_clauses=enc.clauses(horizon))
    cnf.to_file(str(out), comments=[f"c puzzleplan {encoding} horizon {horizon} goal {options.goal}",
                                    f"c variable map: {out.name}.map.json"])
    mapping = {"encoding": encoding, "horizon": horizon, "options": asdict(options),
               "variables": {str(v): name for v, name in enc.names().items()}}
    map_path = out.with_name(out.name + ".map.json")
    map_path.write_text(json.dumps(mapping, indent=0), encoding="utf-8")
    return map_path


def export_cpsat(model: Any, encoding: str, options: EncodingOptions, horizon: int, out: Path) -> None:
    enc = encoding_class(encoding)(model, options)
    cp = enc.build(horizon)
    if not cp.ExportToFile(str(out)):
        raise OSError(f"{out}: the CP-SAT model could not be written")


def read_model_literals(text: str) -> set[int]:
    """True variables of an outside solver's model: 'v ...' lines, or bare integers."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith(("c", "s"))]
    values = []
    for line in lines:
        line = line[1:] if line.startswith("v") else line
        values += [int(tok) for tok in re.findall(r"-?\d+", line)]
    return {v for v in values if v > 0}


def decode_dimacs(model: Any, map_text: str, solution_text: str) -> list[str]:
    """Rebuild the encoding named in the map and decode the outside model into moves."""
    mapping = json.loads(map_text)
    options = EncodingOptions(**mapping["options"])
    encoding = mapping["encoding"]
    horizon = int(mapping["horizon"])
    enc = encoding_class(encoding)(model, options)
    enc.clauses(horizon)
    names = {str(v): name for v, name in enc.names().items()}
    if names != mapping["variables"]:
        raise ValueError("the variable map does not match this puzzle and encoding (was it exported from another file?)")
    return enc.decode(read_model_literals(solution_text), horizon)
