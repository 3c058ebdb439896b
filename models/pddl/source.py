"""Reading a PDDL domain and problem with unified-planning, every failure one ModelError line.

The YAML wrapper's `domain:` and `problem:` each hold PDDL text (it starts with `(` or `;`) or a
file path relative to the YAML file. unified-planning's PDDLReader parses them (typing, negative
preconditions, equality and action costs included); its errors carry a line and column, which
are turned into `FILE:LINE: ...` here: the PDDL file's line, or for inline text the YAML line.

Why unified-planning: pyperplan's parser refuses `:functions` (so no action costs) and negative
preconditions; tarski parses both but its grounders need clingo or enumerate blindly; UP parses
the full STRIPS + costs fragment, names the line of an error, reports what a problem uses
(`Problem.kind`), and ships a grounder that folds static facts and costs (models/pddl/ground.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TypeVar

from puzzleplan.models.base import ModelError, shorten
from puzzleplan.models.document import Document, read_text

T = TypeVar("T")
MAX_PDDL_BYTES = 4_000_000          # one domain or problem file
_LINE = re.compile(r"line:?\s*(\d+)", re.IGNORECASE)
_NOISE = re.compile(r"\s*\(at char \d+\),?|\s*,?\s*\(line:\s*\d+, col:\s*\d+\)|\s*(?:From|found at) line: .*$")
_REQUIREMENTS = re.compile(r"\(\s*:requirements([^)]*)\)", re.IGNORECASE)
_DOMAIN_NAME = re.compile(r"\(\s*define\s*\(\s*domain\s+([^\s()]+)", re.IGNORECASE)
_PROBLEM_DOMAIN = re.compile(r"\(\s*:domain\s+([^\s()]+)", re.IGNORECASE)
SUPPORTED_REQUIREMENTS = (":strips", ":typing", ":negative-preconditions", ":equality", ":action-costs")


@dataclass(frozen=True)
class Source:
    """One PDDL text and where it came from, so an error can name its line."""

    text: str
    where: str                      # the file's path, or "YAML-FILE" for inline text
    first_line: int = 1             # the line of `where` on which the text's first line stands
    field: str = ""                 # the YAML field holding inline text

    def at(self, line: int | None) -> str:
        """`FILE:LINE:` (plus the field for inline text) of a line of the text (1-based)."""
        where = self.where if line is None else f"{self.where}:{self.first_line + line - 1}"
        return f"{where}: field '{self.field}':" if self.field else f"{where}:"


def source_of(doc: Document, key: str) -> Source:
    """The `domain` or `problem` field: inline PDDL text, or a file relative to the YAML file."""
    value = doc.text(key)
    stripped = value.lstrip()
    if stripped.startswith(("(", ";")):
        skipped = value[:len(value) - len(stripped)].count("\n")
        return Source(value, doc.source, doc.value_line(key, skipped), key)
    if not stripped:
        raise doc.error(key, "expected PDDL text or the path of a PDDL file, got nothing")
    base = Path(doc.source).parent if doc.source and not doc.source.startswith("<") else Path(".")
    path = base / value.strip()
    try:
        text = read_text(path, "a PDDL file", MAX_PDDL_BYTES)
    except ModelError as exc:   # names the PDDL file; say which YAML field pointed there
        raise doc.error(key, str(exc)) from None
    return Source(text, str(path))


def parse(domain: Source, problem: Source) -> Any:
    """The unified-planning Problem of the two texts (ModelError naming the file and line)."""
    _check_domain_names(domain, problem)
    from unified_planning.io import PDDLReader
    from puzzleplan.plans.core.context import LimitReached
    try:
        return stoppable(lambda: PDDLReader().parse_problem_string(domain.text, problem.text))   # seconds on a large one
    except LimitReached:
        raise
    except Exception as exc:  # the reader raises pyparsing's, UP's and plain Python errors alike
        refused = construct_refused(domain, problem)   # e.g. (:derived ...), which the reader cannot parse
        if refused is not None:
            raise refused from None
        culprit = problem
        try:
            PDDLReader().parse_problem_string(domain.text)
        except Exception as domain_exc:
            culprit, exc = domain, domain_exc
        raise _error(culprit, exc) from None


_TOTAL_COST_METRIC = re.compile(r"\(\s*:metric\s+minimize\s+\(\s*total-cost\s*\)\s*\)", re.IGNORECASE)
_TOTAL_COST_START = re.compile(r"\(\s*=\s*\(\s*total-cost\s*\)", re.IGNORECASE)
_INIT = re.compile(r"\(\s*:init\b", re.IGNORECASE)


def counter_from_zero(text: str) -> str:
    """A problem minimising total-cost without `(= (total-cost) 0)` in :init gets it (on the
    same line, so lines keep their numbers): the counter starts at 0, as planners take it;
    unified-planning would otherwise read a metric on the final value of an undefined number."""
    uncommented = _uncommented(text)
    if not _TOTAL_COST_METRIC.search(uncommented) or _TOTAL_COST_START.search(uncommented):
        return text
    found = _INIT.search(uncommented)
    return text if found is None else text[:found.end()] + " (= (total-cost) 0)" + text[found.end():]


def stoppable(work: Callable[[], T]) -> T:
    """A call into unified-planning that the run's limits stop (checkpoints.polled). A call so
    stopped leaves its shared walkers mid-walk: their stacks hold the interrupted walk (the next
    grounding in this process met it as a KeyError), and a walker whose memo lasts one walk
    (the substituter: keyed by expression alone, not by the substitution) keeps the interrupted
    walk's results, which the next grounding took for its own (a wrong precondition). Whatever
    ends the call, both are emptied."""
    from puzzleplan.models.task.checkpoints import polled
    try:
        return polled(work)
    except BaseException:
        _empty_walkers()
        raise


def _empty_walkers() -> None:
    from unified_planning.environment import get_environment
    for part in vars(get_environment()).values():
        stack = getattr(part, "stack", None)
        if isinstance(stack, list):
            stack.clear()
        memo = getattr(part, "memoization", None)
        if getattr(part, "invalidate_memoization", False) and isinstance(memo, dict):
            memo.clear()


def _check_domain_names(domain: Source, problem: Source) -> None:
    """A problem written for another domain (its `(:domain NAME)` is not the domain's name) is
    refused: unified-planning reads it against whatever domain it is given."""
    declared, wanted = _DOMAIN_NAME.search(_uncommented(domain.text)), _PROBLEM_DOMAIN.search(_uncommented(problem.text))
    if declared and wanted and declared.group(1).lower() != wanted.group(1).lower():
        line = problem.text.count("\n", 0, wanted.start(1)) + 1
        raise ModelError(f"{problem.at(line)} PDDL: the problem is for domain {wanted.group(1)!r}, but the domain "
                         f"file defines {declared.group(1)!r}")


def _uncommented(text: str) -> str:
    """`text` with PDDL comments blanked (same length, so positions and lines still match)."""
    return re.sub(r";[^\n]*", lambda m: " " * len(m.group(0)), text)


# unified-planning's wordings, said in PDDL's terms; the group named `name` is looked up for a line
_REWORDED = [
    (re.compile(r"^'(?P<name>[^'\s]+)'$"), "unknown type or name {name}"),
    (re.compile(r"^Name (?P<name>\S+) already defined!.*"), "the name {name} is defined twice"),
    (re.compile(r"^Not able to handle: (?P<expr>\((?P<name>[^\s()]+).*\))$"),
     "unknown predicate {name} in {expr}"),
    (re.compile(r"^Found invalid expression: (?P<name>[^\s.]+)\.?$"), "unknown object or constant {name}"),
    (re.compile(r"^Undefined name found: (?P<name>[^\s.]+)\.?$"), "unknown name {name} (no parameter, object or "
                                                                      "constant is called so)"),
    (re.compile(r"^UPTypeError\(\"The expression '(?P<name>[^(']+)\((?P<args>[^']*)\)' is not well-formed\"\)$"),
     "({name} {args}) does not fit the types of {name}'s parameters"),
    (re.compile(r"^UPExpressionDefinitionError\('In FluentExp, fluent: (?P<name>\S+) has arity (?P<arity>\d+) "
                r"but (?P<given>\d+) parameters were passed\.'\)$"), "{name} takes {arity} arguments, got {given}"),
]


def _error(source: Source, exc: Exception) -> ModelError:
    text = str(exc).strip() or type(exc).__name__
    line = getattr(exc, "lineno", None)
    if line is None:
        found = _LINE.search(text)
        line = int(found.group(1)) if found else None
    message = _NOISE.sub("", text.splitlines()[0] if text else "").strip() or type(exc).__name__
    for pattern, words in _REWORDED:
        m = pattern.match(message)
        if m:
            fields = m.groupdict()
            message = words.format(**{k: v.replace(",", "") if k == "args" else v for k, v in fields.items()})
            line = line or _line_of(source.text, fields["name"])
            break
    if message.startswith("Expected") and line is not None:
        message = _unknown_keyword(source.text, line) or message
    hint = _requirement_hint(source.text)
    return ModelError(f"{source.at(line)} PDDL: {shorten(message, 160)}{hint}")


_KEYWORDS = (":requirements", ":types", ":constants", ":predicates", ":functions", ":action", ":parameters",
             ":precondition", ":effect", ":domain", ":objects", ":init", ":goal", ":metric", ":derived",
             ":durative-action", ":duration", ":condition", ":constraints")


def _unknown_keyword(text: str, line: int) -> str | None:
    """On a parse failure at `line`: a misspelt keyword there (the parser only says what it
    expected), with the keyword it most resembles."""
    import difflib
    lines = _uncommented(text).splitlines()
    if not 1 <= line <= len(lines):
        return None
    for word in re.findall(r"(?<![\w-]):[a-z][\w-]*", lines[line - 1], re.IGNORECASE):
        if word.lower() not in _KEYWORDS and word.lower() not in SUPPORTED_REQUIREMENTS and not any(
                word.lower() in found.group(1).lower().split() for found in _REQUIREMENTS.finditer(text)):
            close = difflib.get_close_matches(word.lower(), _KEYWORDS, n=1)
            return f"unknown keyword {word}" + (f" (did you mean {close[0]}?)" if close else "")
    return None


def _line_of(text: str, name: str) -> int | None:
    """The first line where `name` stands as a whole word (PDDL names: case aside), comments aside."""
    found = re.search(rf"(?<![\w?-]){re.escape(name)}(?![\w-])", _uncommented(text), re.IGNORECASE)
    return None if found is None else text.count("\n", 0, found.start()) + 1


# Constructs outside the fragment puzzleplan reads, where each stands: (pattern, words, in the
# problem rather than the domain). unified-planning reports what a problem uses (`Problem.kind`)
# but not where, and a numeric condition on (total-cost) it reports as a metric that is not
# minimize (total-cost), so the texts are searched for the construct itself.
_CONSTRUCTS = [
    (r"\(\s*:derived(?![\w-])", "derived predicates (:derived)", False),
    (r"\(\s*:durative-action(?![\w-])", "durative actions", False),
    (r"\(\s*when(?![\w-])", "conditional effects (when)", False),
    (r"\(\s*(?:or|imply)(?![\w-])", "disjunctive preconditions (or, imply)", False),
    (r"\(\s*exists(?![\w-])", "existential preconditions (exists)", False),
    (r"\(\s*forall(?![\w-])", "universal preconditions or effects (forall)", False),
    (r"\(\s*(?:<=?|>=?)\s|\(\s*=\s*\(", "numeric conditions (<, <=, >, >=, = on functions)", False),
    (r"\(\s*(?:assign|scale-up|scale-down|decrease)(?![\w-])",
     "numeric effects other than increasing (total-cost)", False),
    (r"\(\s*:metric\s+maximize(?![\w-])", "a metric that maximizes", True),
    (r"\(\s*:metric\s+minimize\s+(?!\(\s*total-cost\s*\)\s*\))", "a metric other than minimize (total-cost)",
     True),
]
FRAGMENT = "puzzleplan reads STRIPS with typing, negative preconditions, equality and action costs"


def construct_refused(domain: Source, problem: Source) -> ModelError | None:
    """The first construct outside the fragment puzzleplan reads, as a ModelError naming its
    file and line (None when neither text holds one)."""
    for pattern, words, in_problem in _CONSTRUCTS:
        source = problem if in_problem else domain
        found = re.search(pattern, _uncommented(source.text), re.IGNORECASE)
        if found:
            line = source.text.count("\n", 0, found.start()) + 1
            return ModelError(f"{source.at(line)} unsupported PDDL: {words}; {FRAGMENT}")
    return None


def _requirement_hint(text: str) -> str:
    """Where a parse failed, the declared requirements puzzleplan does not read, if any."""
    found = _REQUIREMENTS.search(text)
    if not found:
        return ""
    other = [r for r in found.group(1).lower().split() if r not in SUPPORTED_REQUIREMENTS]
    if not other:
        return ""
    return (f" (requirement {', '.join(other[:3])} is not supported; puzzleplan reads "
            f"{' '.join(SUPPORTED_REQUIREMENTS)})")
