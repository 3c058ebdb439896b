"""Batch specs: which instances, which engine configurations, which limits; the runs they make.

    name: Microban, A* under both metrics
    instances:
      - collection: data/microban.xsb     # paths are relative to the spec's folder
        levels: all                       # or 7, "1-30", [1, "5-9", 12]
      - files: ../examples/tiles/*.yaml   # a glob (or a list of them); `file:` names one
        metrics: [step]                   # an entry may override metrics, max_moves, any, limits
    metrics: [pushes, moves]              # default: each puzzle's own
    engines:
      - astar                             # a name, or a mapping:
      - engine: sat
        encodings: [tiles-moves]          # or `all`: every encoding of the instance's family
        solvers: [cadical195, glucose4]
        options: {no_reversal: true}      # engine options, as `solve` takes them; rules: "corrals=off, ..."
        limits: {time_limit: 30}
    options: {}                           # engine options for every engine
    limits: {time_limit: 60, memory_limit: 4G, max_states: 50000000}
    max_moves: 59                         # the cap (default: each puzzle's own)
    any: false                            # the first plan within the cap will do
    repeats: 1
    output: results/microban.parquet      # or .csv; `batch -o` overrides it

The runs are the cross product instances x metrics x engine configurations x repeats. A pair
that cannot run (a metric the family does not have, an encoding of another family or metric,
an engine that declares it cannot run the puzzle) is left out and counted in `skipped`; a name
that matches nothing anywhere is an error. Engine options are checked before anything runs, as
`solve` checks them (their types, a heuristic for an engine that reads none, rules), and a
configuration's name (its label, else engine/encoding/solver[options]) stands for one
configuration of each instance and metric. Every error is one line naming the spec, the line
and the field (ModelError: exit 2 on the command line).
"""
from __future__ import annotations

import glob
import itertools
import os
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

import yaml

from puzzleplan.models.base import MAX_CAP, ModelError, quote
from puzzleplan.models.document import compose, read_text, scalar_value
from puzzleplan.plans.batch.run import Run, config_name
from puzzleplan.plans.core import options as engine_options

TOP_KEYS = ("name", "description", "instances", "metrics", "engines", "options", "limits", "max_moves", "any",
            "repeats", "output")
INSTANCE_KEYS = ("file", "files", "collection", "levels", "metrics", "max_moves", "any", "limits")
ENGINE_KEYS = ("engine", "encodings", "solvers", "options", "limits", "label")
LIMIT_KEYS = ("time_limit", "memory_limit", "max_states")
MAX_RUNS = 1_000_000
MAX_GLOB_FILES = 10_000      # files one `files:` pattern may match


@dataclass(frozen=True)
class Limits:
    """Per-run limits as a spec states them (None: not stated here)."""

    time_limit: float | None = None
    memory_limit: int | None = None     # MiB; NO_LIMIT: none
    max_states: int | None = None

    def over(self, base: "Limits") -> "Limits":
        """These limits where stated, else `base`'s."""
        return Limits(*(mine if mine is not None else theirs for mine, theirs in
                        zip((self.time_limit, self.memory_limit, self.max_states),
                            (base.time_limit, base.memory_limit, base.max_states))))


NO_LIMIT = -1   # `memory_limit: none` (a stated "no limit", unlike a limit left out)


@dataclass
class Spec:
    """A validated spec: its runs, and what was left out."""

    source: str
    name: str
    runs: list[Run]
    output: Path | None
    skipped: Counter = field(default_factory=Counter)    # reason -> runs left out

    def with_memory_default(self, memory_mb: int | None) -> "Spec":
        """The runs with `memory_mb` where the spec stated no memory limit."""
        runs = [replace(r, memory_mb=memory_mb, memory_default=True) if r.memory_mb is None else
                replace(r, memory_mb=None) if r.memory_mb == NO_LIMIT else r for r in self.runs]
        return Spec(self.source, self.name, runs, self.output, self.skipped)


class _Reader:
    """Typed access to the spec's nodes; every error names the spec file and the node's line."""

    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, node: yaml.Node, field_name: str, expected: str) -> ModelError:
        return ModelError(f"{self.source}:{node.start_mark.line + 1}: field {quote(field_name)}: {expected}")

    def mapping(self, node: yaml.Node, field_name: str, allowed: tuple[str, ...]) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.error(node, field_name, f"expected a mapping with keys from {', '.join(allowed)}")
        out: dict[str, yaml.Node] = {}
        for key, value in node.value:
            name = str(scalar_value(key)) if isinstance(key, yaml.ScalarNode) else "?"
            if name not in allowed:
                raise self.error(key, f"{field_name}.{name}" if field_name else name,
                                 f"unknown key; expected one of {', '.join(allowed)}")
            out[name] = value
        return out

    def value(self, node: yaml.Node) -> Any:
        return scalar_value(node) if isinstance(node, yaml.ScalarNode) else None

    def text(self, node: yaml.Node, field_name: str) -> str:
        value = self.value(node)
        if not isinstance(node, yaml.ScalarNode) or value is None or isinstance(value, bool):
            raise self.error(node, field_name, "expected text")
        return node.value if not isinstance(value, str) else value

    def whole(self, node: yaml.Node, field_name: str, low: int, high: int | None = None) -> int:
        value = self.value(node)
        if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f">= {low}"
            raise self.error(node, field_name, f"expected a whole number {bound}, got {quote(getattr(node, 'value', '?'))}")
        return value

    def flag(self, node: yaml.Node, field_name: str) -> bool:
        value = self.value(node)
        if not isinstance(value, bool):
            raise self.error(node, field_name, "expected true or false")
        return value

    def _switch(self, node: yaml.Node, field_name: str) -> bool:
        """true/false, or the words `--rule` takes (on, off, ...)."""
        from puzzleplan.plans.core.engine_rules import OFF, ON
        value = self.value(node) if isinstance(node, yaml.ScalarNode) else None
        if isinstance(value, str) and value.lower() in ON + OFF:
            return value.lower() in ON
        if not isinstance(value, bool):
            raise self.error(node, field_name, "expected true or false (or on, off)")
        return value

    def texts(self, node: yaml.Node, field_name: str) -> list[str]:
        """A text or a list of texts."""
        items = node.value if isinstance(node, yaml.SequenceNode) else [node]
        if isinstance(node, yaml.SequenceNode) and not items:
            raise self.error(node, field_name, "expected at least one value")
        return [self.text(item, field_name) for item in items]

    def limits(self, node: yaml.Node, field_name: str) -> Limits:
        from puzzleplan.plans.core.memory import parse_memory_limit
        fields = self.mapping(node, field_name, LIMIT_KEYS)
        time_limit = memory = states = None
        if "time_limit" in fields:
            value = self.value(fields["time_limit"])
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e9:
                raise self.error(fields["time_limit"], f"{field_name}.time_limit", "expected a positive number of seconds")
            time_limit = float(value)
        if "memory_limit" in fields:
            text = str(getattr(fields["memory_limit"], "value", ""))
            try:
                parsed = parse_memory_limit(text)
            except ValueError:
                raise self.error(fields["memory_limit"], f"{field_name}.memory_limit",
                                 f"expected MiB (e.g. 2048), a size such as 4G, or none; got {quote(text)}") from None
            memory = NO_LIMIT if parsed is None else parsed
        if "max_states" in fields:
            states = self.whole(fields["max_states"], f"{field_name}.max_states", 1)
        return Limits(time_limit, memory, states)

    def options(self, node: yaml.Node, field_name: str) -> dict[str, Any]:
        from puzzleplan import ENGINE_OPTIONS
        allowed = tuple(sorted(ENGINE_OPTIONS - {"encoding", "solver"}))
        fields = self.mapping(node, field_name, allowed)
        return {key: self.option(value, f"{field_name}.{key}", key) for key, value in fields.items()}

    def option(self, node: yaml.Node, field_name: str, key: str) -> Any:
        """One engine option's value, of the option's type where it has one. `rules` may also be
        a mapping of rule names to true/false, as the Python API takes it (read as the text
        'name=on, name=off' the command line takes)."""
        if key == "rules" and isinstance(node, yaml.MappingNode):
            rules = {self.text(k, field_name): self._switch(v, f"{field_name}.{k.value}") for k, v in node.value}
            if not rules:
                raise self.error(node, field_name, "expected at least one rule")
            return ", ".join(f"{name}={'on' if on else 'off'}" for name, on in rules.items())
        if not isinstance(node, yaml.ScalarNode):
            raise self.error(node, field_name, "expected a single value" + (
                " or a mapping of rule names to true or false" if key == "rules" else ""))
        if key in engine_options.WHOLE:
            return self.whole(node, field_name, *engine_options.bounds(key))
        if key in engine_options.FLAGS:
            return self.flag(node, field_name)
        value = self.value(node)
        named = engine_options.choices(key)
        if named is not None and value not in named:
            raise self.error(node, field_name, f"expected one of {', '.join(named)}, got {quote(node.value)}")
        return value


def parse_levels(text: str, count: int) -> list[int]:
    """'all', '7', '1-30', '1-10, 20' -> 1-based level numbers (ValueError naming the problem)."""
    if text.strip().lower() == "all":
        return list(range(1, count + 1))
    if not text.strip():
        raise ValueError("expected 'all', a number, or ranges such as 1-30, got nothing")
    out: list[int] = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*([0-9]{1,9})\s*(?:-\s*([0-9]{1,9})\s*)?", part)
        if not m:
            raise ValueError(f"expected 'all', a number, or ranges such as 1-30, got {quote(part.strip())}")
        low, high = int(m.group(1)), int(m.group(2) or m.group(1))
        if low > high:
            raise ValueError(f"{part.strip()} runs backwards; write the smaller level first ({high}-{low})")
        if not 1 <= low <= high <= count:
            raise ValueError(f"{part.strip()} is outside the {count} levels (1-{count})")
        out.extend(range(low, high + 1))
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class _Instance:
    instance: str
    path: Path
    level: str | None
    metrics: list[str] | None
    max_moves: int | None
    any_plan: bool | None
    limits: Limits
    line: int = 0              # the spec's line listing it (1-based)


@dataclass(frozen=True)
class _EngineConfig:
    engine: str
    encodings: list[str] | None      # None: no encodings; ["all"]: every one that applies
    solvers: list[str | None]
    options: dict[str, Any]
    limits: Limits
    label: str | None
    line: int


def load_spec(path: str | Path) -> Spec:
    """Read and validate a batch spec file (ModelError: one line naming the file and line)."""
    return parse_spec(read_text(path, "a batch spec (YAML)"), str(path), Path(path).resolve().parent)


def parse_spec(text: str, source: str, base: Path) -> Spec:
    """A spec from YAML text; paths in it are relative to `base`."""
    r = _Reader(source)
    top = r.mapping(compose(text, source, "a YAML mapping with 'instances:' and 'engines:'"), "", TOP_KEYS)
    for required in ("instances", "engines"):
        if required not in top:
            raise ModelError(f"{source}:1: missing required field {quote(required)}")
    name = r.text(top["name"], "name") if "name" in top else Path(source).stem
    metrics = r.texts(top["metrics"], "metrics") if "metrics" in top else None
    options = r.options(top["options"], "options") if "options" in top else {}
    limits = r.limits(top["limits"], "limits") if "limits" in top else Limits()
    max_moves = r.whole(top["max_moves"], "max_moves", 0, MAX_CAP) if "max_moves" in top else None
    any_plan = r.flag(top["any"], "any") if "any" in top else False
    repeats = r.whole(top["repeats"], "repeats", 1, 1000) if "repeats" in top else 1
    output = base / r.text(top["output"], "output") if "output" in top else None
    if output is not None and output.suffix.lower() not in (".parquet", ".csv"):
        raise r.error(top["output"], "output", "expected a .parquet or .csv file")
    instances = list(_instances(r, top["instances"], base))
    configs = list(_engine_configs(r, top["engines"]))
    _check_labels(r, configs)
    for cfg in configs:
        _check_rules(r, top.get("options"), cfg.engine, options)
        _check_readers(r, top.get("options"), cfg.engine, options, "; give it in the options of the engines that do")
    runs, skipped = _cross(r, top, instances, configs, metrics, options, limits, max_moves, any_plan, repeats)
    if not runs:
        why = "; ".join(f"{reason} ({n})" for reason, n in skipped.most_common(3)) or "nothing listed"
        raise ModelError(f"{source}:1: the spec makes no runs: {why}")
    return Spec(source, name, runs, output, skipped)


def _instances(r: _Reader, node: yaml.Node, base: Path) -> Iterator[_Instance]:
    from puzzleplan.models import level_count
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise r.error(node, "instances", "expected a list of files, globs or collections")
    for item in node.value:
        fields = {"files": item} if isinstance(item, yaml.ScalarNode) else r.mapping(item, "instances", INSTANCE_KEYS)
        kinds = [k for k in ("file", "files", "collection") if k in fields]
        if len(kinds) != 1:
            raise r.error(item, "instances", "expected one of file:, files: or collection: in each entry")
        kind = kinds[0]
        if "levels" in fields and kind != "collection":
            raise r.error(fields["levels"], "levels", "goes with collection:")
        extra = dict(
            metrics=r.texts(fields["metrics"], "metrics") if "metrics" in fields else None,
            max_moves=r.whole(fields["max_moves"], "max_moves", 0, MAX_CAP) if "max_moves" in fields else None,
            any_plan=r.flag(fields["any"], "any") if "any" in fields else None,
            limits=r.limits(fields["limits"], "limits") if "limits" in fields else Limits(),
            line=item.start_mark.line + 1)
        if kind == "collection":
            written = r.text(fields["collection"], "collection")
            path = (base / written).resolve()
            try:
                count = level_count(path)
            except ModelError as exc:
                raise r.error(fields["collection"], "collection", str(exc)) from None
            if count is None:
                raise r.error(fields["collection"], "collection",
                              f"{written} is not a level collection (a family's collection suffix, e.g. .xsb, .txt)")
            levels_node = fields.get("levels")
            try:
                levels = parse_levels(_levels_text(r, levels_node) if levels_node is not None else "all", count)
            except ValueError as exc:
                raise r.error(levels_node or fields["collection"], "levels", str(exc)) from None
            for level in levels:
                yield _Instance(f"{os.path.normpath(written)}#{level}", path, str(level), **extra)
            continue
        patterns = r.texts(fields[kind], kind)
        spec = Path(r.source).resolve()
        for pattern in patterns:
            if kind == "files":   # lazily, up to a cap: `/**/*.yaml` would walk the whole disk first
                found = list(itertools.islice((f for f in glob.iglob(str(base / pattern), recursive=True)
                                               if Path(f).is_file()), MAX_GLOB_FILES + 1))
                if len(found) > MAX_GLOB_FILES:
                    raise r.error(fields[kind], kind, f"{quote(pattern)} matches more than {MAX_GLOB_FILES:,} files; "
                                                      "narrow it")
                others = sorted(f for f in found if Path(f).resolve() != spec)   # `*.yaml` beside the spec
                besides = " besides the spec itself" if len(others) < len(found) else ""
                found = others
            else:
                found, besides = [f for f in [str(base / pattern)] if Path(f).is_file()], ""
            if not found:
                raise r.error(fields[kind], kind, f"{quote(pattern)} matches no file{besides} (relative to {base})")
            for file in found:
                shown = Path(file).resolve()
                try:
                    name = str(Path(file).relative_to(base)) if not Path(pattern).is_absolute() else file
                except ValueError:
                    name = file
                name = os.path.normpath(name)   # one file, one name: `sub/../a.yaml` is `a.yaml`
                yield _Instance(name, shown, None, **extra)


def _several_levels(path: Path) -> bool:
    """Whether `path` is a collection of more than one level (Sokoban's, Rush Hour's database,
    Korf's lines), told by the file, not by the words of the error its loading raised."""
    from puzzleplan.models import level_count
    try:
        return (level_count(path) or 0) > 1
    except ModelError:
        return False


def _levels_text(r: _Reader, node: yaml.Node) -> str:
    if isinstance(node, yaml.SequenceNode):
        return ",".join(str(getattr(item, "value", "")) for item in node.value) or "?"
    return str(getattr(node, "value", ""))


def _engine_configs(r: _Reader, node: yaml.Node) -> Iterator[_EngineConfig]:
    from puzzleplan.encoders.base import all_encodings
    from puzzleplan.plans.core import engines
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise r.error(node, "engines", "expected a list of engine names or mappings with engine:")
    known_encodings = all_encodings()
    for item in node.value:
        fields = {"engine": item} if isinstance(item, yaml.ScalarNode) else r.mapping(item, "engines", ENGINE_KEYS)
        if "engine" not in fields:
            raise r.error(item, "engines", "each entry names its engine (engine: NAME)")
        name = r.text(fields["engine"], "engine")
        try:
            engines.spec(name)
        except (KeyError, ValueError) as exc:
            raise r.error(fields["engine"], "engine", str(exc).strip("'\"")) from None
        encodings = r.texts(fields["encodings"], "encodings") if "encodings" in fields else None
        if encodings is not None:
            if name not in ("sat", "cpsat"):
                raise r.error(fields["encodings"], "encodings", f"go with the sat and cpsat engines, not {name}")
            for enc in encodings:
                if enc != "all" and enc not in known_encodings:
                    raise r.error(fields["encodings"], "encodings",
                                  f"no encoding {quote(enc)}; expected all or one of {', '.join(known_encodings)}")
        solvers: list[str | None] = [None]
        if "solvers" in fields:
            if name != "sat":
                raise r.error(fields["solvers"], "solvers", f"go with the sat engine (python-sat), not {name}")
            solvers = list(r.texts(fields["solvers"], "solvers"))
            for solver in solvers:
                _check_solver(r, fields["solvers"], solver)
        options = r.options(fields["options"], "options") if "options" in fields else {}
        _check_rules(r, fields.get("options"), name, options)
        _check_readers(r, fields.get("options"), name, options)
        yield _EngineConfig(name, encodings, solvers, options,
                            r.limits(fields["limits"], "limits") if "limits" in fields else Limits(),
                            r.text(fields["label"], "label") if "label" in fields else None,
                            item.start_mark.line + 1)


def _check_rules(r: _Reader, node: yaml.Node | None, engine: str, options: dict[str, Any]) -> None:
    """options.rules ('corrals=off, pair_bound=on') against the rules `engine` declares."""
    if node is None or "rules" not in options:
        return
    from puzzleplan.plans.core import engine_rules
    try:
        engine_rules.checked(engine, str(options["rules"]))
    except ValueError as exc:
        raise r.error(node, "options.rules", str(exc)) from None


def _check_readers(r: _Reader, node: yaml.Node | None, engine: str, given: dict[str, Any], hint: str = "") -> None:
    """The options of `node`, refused for an engine that does not read them (as `solve` refuses
    them: plans.core.options)."""
    if node is None:
        return
    for key, value in given.items():
        try:
            if value is not None:
                engine_options.check_reader(key, engine)
        except ValueError as exc:
            raise r.error(node, f"options.{key}", str(exc).split(": ", 1)[1] + hint) from None


def _check_heuristic_name(r: _Reader, cfg: _EngineConfig, model: Any, given: dict[str, Any]) -> None:
    """A heuristic the engine reads must be one it knows for the instance's family."""
    if given.get("heuristic") is None:
        return
    try:
        engine_options.check_heuristic(model, cfg.engine, given["heuristic"])
    except ValueError as exc:
        raise ModelError(f"{r.source}:{cfg.line}: field 'options.heuristic': {str(exc).split(': ', 1)[1]}") from None


def _check_labels(r: _Reader, configs: list[_EngineConfig]) -> None:
    """Each label names one engine configuration (a summary line, a plot's series)."""
    first: dict[str, int] = {}
    for cfg in configs:
        if cfg.label is None:
            continue
        if cfg.label in first:
            raise ModelError(f"{r.source}:{cfg.line}: field 'label': {quote(cfg.label)} already labels the engine "
                             f"on line {first[cfg.label]}; give each configuration a label of its own")
        first[cfg.label] = cfg.line


def _check_solver(r: _Reader, node: yaml.Node, solver: str) -> None:
    from pysat.solvers import SolverNames
    names = sorted({n for group in vars(SolverNames).values() if isinstance(group, tuple) for n in group})
    if solver not in names:
        raise r.error(node, "solvers", f"no python-sat solver {quote(solver)}; expected one of {', '.join(names)}")


def _cross(r: _Reader, top: dict[str, yaml.Node], instances: list[_Instance], configs: list[_EngineConfig],
           metrics: list[str] | None, options: dict[str, Any], limits: Limits, max_moves: int | None,
           any_plan: bool, repeats: int) -> tuple[list[Run], Counter]:
    from puzzleplan.encoders.base import encodings_for
    from puzzleplan.models import load
    from puzzleplan.plans.core import engines
    runs: list[Run] = []
    skipped: Counter = Counter()
    named_metrics: set[str] = set()
    all_metrics: set[str] = set()
    named: dict[tuple[str, str, str], tuple[_EngineConfig, tuple[Any, ...], _Instance]] = {}
    for inst in instances:   # an instance may be listed again with other metrics, caps or limits
        try:
            model = load(inst.path, level=inst.level)
        except ModelError as exc:
            hint = (" (a file of several levels is listed as `collection: FILE` with `levels:`)"
                    if inst.level is None and _several_levels(inst.path) else "")
            said = str(exc) if str(exc).startswith(str(inst.path)) else f"{inst.instance}: {exc}"   # names the file once
            raise ModelError(f"{r.source}:{inst.line}: field 'instances': {said}{hint}") from None
        family_metrics = tuple(type(model).metrics)
        all_metrics.update(family_metrics)
        wanted = inst.metrics or metrics or [model.metric]
        named_metrics.update(wanted)
        for metric in wanted:
            if metric not in family_metrics:
                skipped[f"{model.family} has no metric {metric}"] += len(configs) * repeats
                continue
            m = model if metric == model.metric else load(inst.path, {"metric": metric}, level=inst.level)
            user = _runs_user_code(m)
            for cfg in configs:
                # a user class's planning task is built by running its code over its whole space:
                # that belongs in the run's own process, where a class that aborts, hangs or grows
                # without end costs one row; a run it does not fit says so in its row
                reason = None if user and _needs_task(cfg.engine) else engines.supports(cfg.engine, m)
                if reason is not None:
                    skipped[f"{cfg.engine}: {_gist(reason)}"] += repeats
                    continue
                for encoding in _encodings(cfg, m, _listed_encodings if user else encodings_for):
                    if encoding is _SKIP:
                        skipped[f"{cfg.engine}: encodings that do not apply to {m.family}/{metric}"] += repeats
                        continue
                    for solver in cfg.solvers:
                        opts = {**options, **cfg.options}
                        _check_heuristic_name(r, cfg, m, opts)
                        name = cfg.label or config_name(cfg.engine, encoding, solver, opts)
                        lim = cfg.limits.over(inst.limits.over(limits))
                        cap = inst.max_moves if inst.max_moves is not None else max_moves
                        anyone = inst.any_plan if inst.any_plan is not None else any_plan
                        twice = _named(r, named, (inst.instance, metric, name), cfg, inst,
                                       (cfg.engine, encoding, solver, opts, lim, cap, anyone))
                        if twice is not None:
                            skipped[f"{twice} listed twice"] += repeats
                            continue
                        for repeat in range(1, repeats + 1):
                            runs.append(Run(
                                index=len(runs), instance=inst.instance, path=str(inst.path), level=inst.level,
                                family=m.family, title=m.name or inst.instance, metric=metric, engine=cfg.engine,
                                encoding=encoding, solver=solver, options=opts, config=name, repeat=repeat,
                                max_moves=cap, any_plan=anyone,
                                time_limit=lim.time_limit, memory_mb=lim.memory_limit, max_states=lim.max_states))
                            if len(runs) > MAX_RUNS:
                                raise ModelError(f"{r.source}:1: more than {MAX_RUNS:,} runs; split the spec")
    unknown = sorted(named_metrics - all_metrics)
    if unknown:
        node = top.get("metrics")
        where = f"{r.source}:{node.start_mark.line + 1}" if node is not None else r.source
        raise ModelError(f"{where}: metric {quote(unknown[0])} belongs to no instance's family "
                         f"(they have {', '.join(sorted(all_metrics))})")
    return runs, skipped


def _gist(reason: str, limit: int = 100) -> str:
    """An engine's reason for refusing, on one line and cut at a word (runs refused alike are
    counted together by it in the header)."""
    words = " ".join(reason.split())
    if len(words) <= limit:
        return words
    cut = words.rfind(" ", 0, limit - 3)
    return words[:cut if cut > 0 else limit - 3] + "..."


def _named(r: _Reader, named: dict[tuple[str, str, str], tuple[_EngineConfig, tuple[Any, ...], _Instance]],
           key: tuple[str, str, str], cfg: _EngineConfig, inst: _Instance, what: tuple[Any, ...]) -> str | None:
    """Record configuration `what` of `cfg` under its name for one instance and metric (key),
    from the instance listing `inst`: None when new; "instances" or "configurations" when that
    configuration is there already (listed twice: the same runs); a ModelError when another one
    has the name, as summaries and plots go by name."""
    if key not in named:
        named[key] = (cfg, what, inst)
        return None
    first_cfg, first, first_inst = named[key]
    if first == what:
        return "instances" if first_inst is not inst else "configurations"
    instance, metric, name = key
    if first_inst is not inst:
        raise ModelError(f"{r.source}:{inst.line}: field 'instances': {instance} is listed again (first on line "
                         f"{first_inst.line}) with another cap or limit under {metric}, and the runs of both would "
                         f"be named {quote(name)}; list it once, or put the other settings in a spec of their own")
    where = (f"the encodings or solvers of the engine on line {cfg.line}" if first_cfg is cfg else
             f"the engines on lines {first_cfg.line} and {cfg.line}" if first_cfg.line != cfg.line else
             f"two engines on line {cfg.line}")
    raise ModelError(f"{r.source}:{cfg.line}: field 'engines': two configurations of {instance} ({metric}) would be "
                     f"named {quote(name)} ({where}); label each configuration apart")


_SKIP: Any = object()


def _runs_user_code(model: Any) -> bool:
    """True for a `python:` family: compiling its task runs the user's class."""
    from puzzleplan.models.user.model import UserModel
    return isinstance(model, UserModel)


def _needs_task(engine: str) -> bool:
    """Engines whose `supports` compiles the model's planning task."""
    return engine in ("sat", "cpsat") or engine.startswith("task-")


def _listed_encodings(model: Any, backend: str | None = None) -> list[str]:
    """`encodings_for` without compiling the task: the family's own encodings, then every
    generic one of the backend (a run whose task does not compile reports it in its row)."""
    from puzzleplan.encoders.base import family_encodings, generic_encodings
    return family_encodings(model, backend) + generic_encodings(backend)


def _encodings(cfg: _EngineConfig, model: Any, encodings_for: Callable[..., list[str]]) -> Iterator[Any]:
    """The encodings of `cfg` for `model` (None: the engine's default); _SKIP for each that does not apply."""
    if cfg.encodings is None:
        yield None
        return
    applicable = encodings_for(model, backend=cfg.engine)
    for enc in cfg.encodings:
        if enc == "all":
            yield from applicable or [_SKIP]
        elif enc in applicable:
            yield enc
        else:
            yield _SKIP


__all__ = ["Limits", "NO_LIMIT", "Spec", "load_spec", "parse_levels", "parse_spec"]
