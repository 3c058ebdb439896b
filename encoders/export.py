"""Export an instance at a horizon for outside tools, and decode an outside SAT model back.

- DIMACS CNF (`pysat.formula.CNF.to_file`) plus a JSON variable map: the encoding, horizon,
  options and each variable's readable key. `decode` rebuilds the same encoding (variables are
  allocated deterministically), checks the map matches, and turns an outside solver's model
  ("v 1 -2 3 ... 0" lines or plain integers) into a plan.
- The CP-SAT model proto (binary `.pb`, or text for any other suffix).
- PDDL domain and problem (STRIPS, step metric) for outside planners: see encoders/pddl.py.
"""
from __future__ import annotations

import errno
import json
import os
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Iterator

from pysat.formula import CNF

from puzzleplan.encoders.base import EncodingOptions, encoding_class, encodings_for, goal_reason
from puzzleplan.encoders.runner import stream
from puzzleplan.encoders.sat.base import UndecodableModel
from puzzleplan.models.base import shorten
from puzzleplan.plans.core.files import replaced


FORMULA_KINDS = ("dimacs", "cpsat")   # the exports of one horizon; the others (pddl, a family's own) have none


class ExportArgumentError(ValueError):
    """An export argument that does not fit, named by its parameter (`to`, `output`, `horizon`,
    `encoding`, `goal`): the command line says it as its flag."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(f"{name}: {why}")
        self.name, self.why = name, why


def export(model: Any, to: str, output: str | Path, horizon: int | None = None, encoding: str | None = None,
           goal: str | None = None, time_limit: float | None = None, memory_mb: int | None = None,
           budget: Callable[[], None] | None = None) -> list[Path]:
    """Write `model` for outside tools; the paths written, each whole or not at all.

    to: "pddl" (domain.pddl and problem.pddl in the folder `output`), a family's own export, or
    a formula at one `horizon`: "dimacs" (`output` and its variable map `output`.map.json, built
    in a solver process under `time_limit` and `memory_mb`) or "cpsat" (the model proto; its
    build calls `budget`, e.g. a SearchContext's poll). encoding: the SAT or CP-SAT encoding
    (default: the family's first); goal: the horizon semantics ("by", "exact"; default the
    proof's). ValueError (one line) for what does not fit; Deadline / LimitReached for a limit."""
    from puzzleplan.encoders.certify import proof_options, with_goal
    out = Path(output)
    if to not in FORMULA_KINDS:
        _check_kind(model, to)   # an unknown format is named before any other argument
        given = next((name for name, value in (("horizon", horizon), ("encoding", encoding), ("goal", goal))
                      if value is not None), None)
        if given is not None:
            raise ExportArgumentError(given, f"goes with the formula exports ({', '.join(FORMULA_KINDS)}); "
                                             f"a {to} export states the puzzle itself, at no horizon, in no encoding")
        return _export_declared(model, to, out)
    if horizon is None:
        raise ExportArgumentError("horizon", f"a {to} export encodes one horizon; give one")
    if out.name in ("", ".", "..") or str(output).endswith(("/", os.sep)) or out.is_dir():
        raise ExportArgumentError("output", f"{shorten(str(output), 60)} is a folder; a {to} export writes one "
                                            f"file: give its name ({'OUT.cnf' if to == 'dimacs' else 'OUT.pb'})")
    backend = "sat" if to == "dimacs" else "cpsat"
    known = encodings_for(model, backend)
    encoding = encoding or next(iter(known), None)
    if encoding not in known:
        raise ExportArgumentError("encoding", f"expected a {backend} encoding for {model.family} "
                                              f"({', '.join(known) or 'none'}), got {encoding!r}")
    unfit = goal_reason(encoding, goal)
    if unfit is not None:
        raise ExportArgumentError("goal", unfit)
    options = with_goal(proof_options(model)[0], goal)
    if to == "dimacs":
        return [out, export_dimacs(model, encoding, options, horizon, out, time_limit, memory_mb)]
    export_cpsat(model, encoding, options, horizon, out, budget)
    return [out]


def _check_kind(model: Any, kind: str) -> None:
    """ExportArgumentError naming the formats when `kind` is none of the model's."""
    from puzzleplan.encoders.pddl import GENERIC_EXPORTS, export_kinds
    from puzzleplan.models.family import family_of
    desc = family_of(model)   # None for a user's class: the generic exports only
    kinds = FORMULA_KINDS + (export_kinds(desc) if desc is not None else GENERIC_EXPORTS)
    if kind not in kinds:
        raise ExportArgumentError("to", f"expected one of {', '.join(dict.fromkeys(kinds))}, got {shorten(str(kind), 30)}")


def _export_declared(model: Any, kind: str, out: Path) -> list[Path]:
    """An exporter of `kind` (PDDL for every model with a planning-task form, or one the family
    declares) writes into the folder `out` (made when missing, in a folder that exists): a
    (domain, problem) pair as domain.pddl and problem.pddl, or a mapping of file names to
    texts; every file or none (a folder in the way of the second left the first written)."""
    from contextlib import ExitStack

    from puzzleplan.encoders.pddl import exporter, exporter_supports
    from puzzleplan.plans.core.files import replaced
    _check_kind(model, kind)
    reason = exporter_supports(model, kind)
    if reason is not None:
        raise ExportArgumentError("to", reason)
    if out.exists() and not out.is_dir():
        raise ExportArgumentError("output", f"{out} is a file; a {kind} export writes its files into a folder")
    written = exporter(model, kind)(model)
    files = written if isinstance(written, dict) else dict(zip(("domain.pddl", "problem.pddl"), written))
    made = not out.exists()
    if made and not out.resolve().parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(out.resolve().parent))
    out.mkdir(exist_ok=True)
    try:
        with ExitStack() as stack:   # every temporary file made first; renamed together at the end
            temporary = {name: stack.enter_context(replaced(out / name)) for name in files}
            for name, text in files.items():
                Path(temporary[name]).write_bytes(text.encode("utf-8"))   # OSError names the file
    except BaseException:
        if made and not any(out.iterdir()):
            out.rmdir()
        raise
    return [out / name for name in files]


def export_dimacs(model: Any, encoding: str, options: EncodingOptions, horizon: int, out: Path,
                  time_limit: float | None = None, memory_mb: int | None = None) -> Path:
    """Write OUT (DIMACS) and OUT.map.json, both or neither; returns the map's path. The formula
    is built and written by a solver process (encoders/runner.py) held to `time_limit` and, with
    this one, to `memory_mb`: Deadline (MemoryExceeded) when one passes first, Ctrl-C stops it."""
    map_path = out.with_name(out.name + ".map.json")
    with replaced(out) as cnf_tmp, replaced(map_path) as map_tmp:
        for _ in stream(_write_dimacs, (model, encoding, options, horizon, cnf_tmp, map_tmp, out.name),
                        time_limit, memory_mb):
            pass
    return map_path


def _write_dimacs(model: Any, encoding: str, options: EncodingOptions, horizon: int, cnf_path: str,
                  map_path: str, cnf_name: str) -> Iterator[None]:
    """export_dimacs's work, in the solver process: the CNF and its variable map."""
    enc = encoding_class(encoding)(model, options)
    cnf = CNF(from_clauses=enc.clauses(horizon))
    cnf.to_file(cnf_path, comments=[f"c puzzleplan {encoding} horizon {horizon} goal {options.goal}",
                                    f"c variable map: {cnf_name}.map.json"])
    mapping = {"encoding": encoding, "horizon": horizon, "options": asdict(options), "metric": model.metric,
               "variables": {str(v): name for v, name in enc.names().items()}}
    Path(map_path).write_text(json.dumps(mapping, indent=0), encoding="utf-8")
    yield None


def export_cpsat(model: Any, encoding: str, options: EncodingOptions, horizon: int, out: Path,
                 budget: Callable[[], None] | None = None) -> None:
    """Write the CP-SAT model proto to OUT, all or nothing; `budget` is called once a step of the
    build (a SearchContext's poll: LimitReached stops it)."""
    enc = encoding_class(encoding)(model, options)
    enc.budget = budget
    cp = enc.build(horizon)
    with replaced(out) as tmp:
        if not cp.ExportToFile(tmp):
            raise OSError(f"{out}: the CP-SAT model could not be written")


_NO_MODEL = "no model (expected DIMACS 'v' lines of literals ending in 0)"
_LITERAL = re.compile(r"-?\d{1,18}")   # a variable number fits 64 bits; longer is no literal
_STATUS = {"SATISFIABLE": "SATISFIABLE", "SAT": "SATISFIABLE", "UNSATISFIABLE": "UNSATISFIABLE",
           "UNSAT": "UNSATISFIABLE", "UNKNOWN": "UNKNOWN", "INDETERMINATE": "UNKNOWN", "INDET": "UNKNOWN"}


def read_model_literals(text: str) -> set[int]:
    """True variables of an outside solver's model: 'v ...' lines (after an optional 's' status
    line, as in the SAT competition format; MiniSat's bare SAT/UNSAT line too) or bare integers,
    ending at a 0. UndecodableModel when the solver found no model or the text holds none."""
    values: list[int] = []
    closed = False
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("c"):
            continue
        if words[0] == "s" or (len(words) == 1 and words[0] in _STATUS):   # MiniSat writes a bare SAT/UNSAT
            _check_status(" ".join(words[1:]) if words[0] == "s" else words[0], number)
            continue
        for word in words[1:] if words[0] == "v" else words:
            if not _LITERAL.fullmatch(word):
                raise UndecodableModel(f"line {number}: {shorten(word, 40)!r} is not a literal")
            if closed:
                raise UndecodableModel(f"line {number}: literal {word} after the model's closing 0")
            closed = word == "0"
            if not closed:
                values.append(int(word))
    if not values:
        raise UndecodableModel(_NO_MODEL)
    true = {v for v in values if v > 0}
    both = true.intersection(-v for v in values if v < 0)
    if both:
        raise UndecodableModel(f"variable {min(both)} is both true and false")
    return true


def _check_status(status: str, number: int) -> None:
    """A solver's status line: SATISFIABLE passes; UNSATISFIABLE and anything else hold no model."""
    word = _STATUS.get(status.upper())
    if word == "SATISFIABLE":
        return
    if word == "UNSATISFIABLE":
        raise UndecodableModel("the solver reported UNSATISFIABLE: there is no plan to decode")
    if word is not None:
        raise UndecodableModel(f"the solver reported {word}: there is no model to decode")
    raise UndecodableModel(f"line {number}: unknown solver status {shorten(status, 40)!r} "
                           "(expected SATISFIABLE or UNSATISFIABLE)")


def parsed_map(map_text: str) -> Any:
    """A variable map's JSON, parsed once (ValueError naming what was expected): a map of tens of
    millions of variables takes seconds, so decode reads its metric and its fields from one parse."""
    try:
        return json.loads(map_text)
    except json.JSONDecodeError:
        raise ValueError(f"expected the variable map's JSON (as export writes it beside the formula), "
                         f"got {shorten(map_text.strip(), 40)}") from None


def map_metric(mapping: Any) -> str | None:
    """The metric a parsed variable map says its export was made under (None: it does not say,
    or it is no map: decode_dimacs then names what is wrong)."""
    metric = mapping.get("metric") if isinstance(mapping, dict) else None
    return metric if isinstance(metric, str) else None


def _read_map(map_text: str | dict[str, Any]) -> tuple[dict[str, Any], str, int, EncodingOptions]:
    """The map's fields checked before anything is built from them (ValueError naming the field):
    a horizon beyond MAX_CAP would have the encoding build itself for hours."""
    from dataclasses import fields
    from puzzleplan.models.base import MAX_CAP
    mapping = map_text if isinstance(map_text, dict) else parsed_map(map_text)
    if not isinstance(mapping, dict) or not {"encoding", "horizon", "options", "variables"} <= set(mapping):
        raise ValueError("expected a JSON object with encoding, horizon, options and variables (as export writes)")
    encoding, horizon, given = mapping["encoding"], mapping["horizon"], mapping["options"]
    if not isinstance(encoding, str):
        raise ValueError("field 'encoding': expected an encoding's name")
    if isinstance(horizon, bool) or not isinstance(horizon, int) or not 0 <= horizon <= MAX_CAP:
        raise ValueError(f"field 'horizon': expected a whole number from 0 to {MAX_CAP:,}, got {shorten(str(horizon), 30)}")
    if not isinstance(mapping["variables"], dict):
        raise ValueError("field 'variables': expected an object of variable numbers and names")
    known = {f.name: type(f.default) for f in fields(EncodingOptions)}
    if not isinstance(given, dict) or any(k not in known or type(v) is not known[k] for k, v in given.items()):
        raise ValueError(f"field 'options': expected an object of encoding options ({', '.join(known)}) "
                         "with their types")
    return mapping, encoding, horizon, EncodingOptions(**given)


def decode_dimacs(model: Any, map_text: "str | os.PathLike[str] | dict[str, Any]",
                  solution_text: "str | os.PathLike[str]") -> list[str]:
    """Rebuild the encoding named in the map and decode the outside model into moves.
    UndecodableModel for a solution holding no usable model; other errors concern the map.
    `map_text` and `solution_text` may be paths (os.PathLike) of the files holding them; the map
    may also be given parsed (`parsed_map`)."""
    map_text, solution_text = (Path(t).read_text() if isinstance(t, os.PathLike) else t for t in (map_text, solution_text))
    true = read_model_literals(solution_text)
    mapping, encoding, horizon, options = _read_map(map_text)
    metric = mapping.get("metric")   # maps written before 2026-11-25 do not say
    if metric is not None and metric != model.metric:
        raise ValueError(f"it was exported under the metric {shorten(str(metric), 20)!r}, and the puzzle is read "
                         f"under {model.metric!r}: decode under the export's metric (--metric {shorten(str(metric), 20)})")
    if encoding not in encodings_for(model):   # e.g. a map exported from another family's file
        raise ValueError(f"its encoding {encoding!r} is not one of {model.family} under {model.metric} "
                         "(exported from another file?)")
    enc = encoding_class(encoding)(model, options)
    clauses = enc.clauses(horizon)
    names = {str(v): name for v, name in enc.names().items()}
    if names != mapping["variables"]:
        raise ValueError("the variable map does not match this puzzle and encoding (was it exported from another file?)")
    falsified = next((i for i, clause in enumerate(clauses, 1)
                      if not any((abs(lit) in true) == (lit > 0) for lit in clause)), None)
    try:
        moves = enc.decode(true, horizon)
    except UndecodableModel:
        raise
    except Exception:
        if falsified is None:
            raise   # a model of the formula that does not decode: a bug, not bad input
    if falsified is not None:   # whatever it decodes to, a non-model is no answer of this export
        raise UndecodableModel(f"the model falsifies clause {falsified} of the formula "
                               "(was it solved from another export?)")
    return moves
