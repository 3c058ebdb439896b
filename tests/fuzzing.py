"""A fuzzer for the whole command line: mutated example files and mutated arguments.

Used by tests/test_fuzz.py (a few hundred cases under hypothesis) and by benchmarks/fuzz.py (thousands,
by hand). One case is a puzzle text plus an argument list; `run_case` runs it in-process
through `puzzleplan.plans.cli.main` and returns what a user would see. The contract checked:
exit code 0..3, no traceback, exactly one line on stderr for exit 2, bounded time.
"""
from __future__ import annotations

import contextlib
import io
import random
import time
from dataclasses import dataclass
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SOURCES = sorted(p for p in EXAMPLES.glob("*/*") if p.suffix in (".yaml", ".xsb"))

_CHARACTERS = list("#.$@*+_xoA0129 :-[]{}&*!|>\t\"'é,") + ["\n", "  ", "~"]
_LINES = [
    "max_moves: 0x10", "max_moves: 1e3", "max_moves: [1, 2]", "max_moves: -4", "max_moves: 3",
    "metric: slide", "metric: pushes", "metric: nope", "goal: |", "start: ~", "board: ''", "start: ''",
    "a: &a [1, 2]", "b: *a", "rows: 99", "cols: -1", "rows: 9", "exit: up", "exit: sideways",
    "primary: Z", "notation: korf", "notation: hex", "player_goal: [0, 0]", "player_goal: [99, 99]",
    "walls: ['1 1']", "vehicles: [red 2 3 2 h]", "name: " + "n" * 300, "puzzle: tiles", "puzzle: rush-hour",
    "puzzle: sokoban", "puzzle: python:./nowhere.py:Nope", "types: {A: h9}", "max_moves: 100001",
    "expect: {optimal: 3}", "level: |", "  #####", "  #@$.#", "  #####", "[[[[[[[[[[", "? complex key",
    "max_moves: 2", "max_moves: 2",
]
_NUMBERS = ["0", "-1", "1", "2", "7", "16", "17", "255", "999999", "100000000000000000000", "1e9"]
_PLANS = ["", "U", "D", "d", "A+1", "A+1B-2", "1>3", "lurd", "3R", "0 3 2 1", "UULLDDRR", "X+99999999999",
          "a b c", "rR\nuL", "@/nonexistent", "~", "A+0", "urRlDldRR", "F1P1>2"]


@dataclass
class Case:
    source: str          # the example it came from
    text: str            # the mutated puzzle text
    suffix: str          # .yaml or .xsb
    args: list[str]      # the command line, with FILE where the puzzle file goes


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    seconds: float

    def problems(self, max_seconds: float) -> list[str]:
        """What breaks the contract, in words (empty when the case behaved)."""
        found = []
        if self.code not in (0, 1, 2, 3):
            found.append(f"exit code {self.code}")
        if "Traceback" in self.stderr or "Traceback" in self.stdout:
            found.append("traceback")
        if self.code == 2:
            lines = [line for line in self.stderr.splitlines() if line.strip()]
            if len(lines) != 1:
                found.append(f"{len(lines)} lines on stderr for exit 2")
            elif len(lines[0]) > 500:
                found.append(f"an error line of {len(lines[0])} characters")
        if self.seconds > max_seconds:
            found.append(f"{self.seconds:.1f} s (bound {max_seconds:g} s)")
        return found


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits of a puzzle text."""
    for _ in range(rng.randint(1, 3)):
        lines = text.split("\n")
        kind = rng.randrange(8)
        if kind == 0 and lines:
            del lines[rng.randrange(len(lines))]
        elif kind == 1 and len(lines) > 1:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 2 and lines:
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
        elif kind == 3 and text:
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice(_CHARACTERS) + text[i + 1:]
            continue
        elif kind == 4:
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(_LINES))
        elif kind == 5 and text:
            text = text[: rng.randrange(len(text))]
            continue
        elif kind == 6:
            import re
            runs = list(re.finditer(r"\d+", text))
            if runs:
                m = rng.choice(runs)
                text = text[: m.start()] + rng.choice(_NUMBERS) + text[m.end():]
            continue
        text = "\n".join(lines)
    return text


def arguments(rng: random.Random, engines: list[str]) -> list[str]:
    """A random but mostly plausible command line; FILE stands for the puzzle file."""
    command = rng.choices(["solve", "explore", "check", "convert", "verify", "export", "compare"],
                          weights=[10, 3, 5, 2, 1, 1, 1])[0]
    args = [command, "FILE"]
    if command == "check":
        args.append(rng.choice(_PLANS))
        if rng.random() < 0.2:
            args += ["--notation", rng.choice(["blank", "digits", "tiles", "bogus"])]
    if command == "convert":
        args += ["--to", rng.choice(["grid", "vehicles", "yaml", "xsb", "pdf"])]
        if rng.random() < 0.5:
            args += ["-o", "OUT"]
    if command == "export":
        args += ["--horizon", rng.choice(["0", "3", "-1", "x"]), "--to", rng.choice(["dimacs", "cpsat", "pddl"]),
                 "-o", "OUT"]
    if command in ("solve", "explore", "verify", "compare"):
        args += ["--time-limit", rng.choice(["1", "2", "0.5"]), "--max-states", "200000", "--quiet"]
    if command == "compare":
        args += ["--horizon", rng.choice(["2", "5"])]
    if command == "solve":
        if rng.random() < 0.6:
            args += ["--engine", rng.choice(engines + ["bogus"])]
        if rng.random() < 0.3:
            args += ["--max-moves", rng.choice(_NUMBERS + ["x"])]
        if rng.random() < 0.3:
            args.append("--any")
        if rng.random() < 0.1:
            args += ["--heuristic", rng.choice(["manhattan", "pdb", "magic"])]
        if rng.random() < 0.1:
            args += ["--partition", rng.choice(["1 2 3 / 4 5", "a b c d e f g h i j k l", "/ /", "1 1"])]
        if rng.random() < 0.1:
            args += ["--all-optimal"] + rng.choice([[], ["--count-only"], ["--limit", "2"]])
    if rng.random() < 0.15:
        args += ["--metric", rng.choice(["step", "slide", "moves", "pushes", "weird"])]
    if rng.random() < 0.1:
        args += ["--level", rng.choice(["1", "2", "99", "0", "The Title"])]
    return _output_options(args, rng)


def _output_options(args: list[str], rng: random.Random) -> list[str]:
    if rng.random() < 0.2:
        args.append("--json")
    if rng.random() < 0.05:
        args.append(rng.choice(["--memory-limit", "--time-limit", "--max-states"]))
        args.append(rng.choice(["-5", "0", "none", "lots", "1e400"]))
    return args


def make_case(rng: random.Random, engines: list[str]) -> Case:
    source = rng.choice(SOURCES)
    text = source.read_text(encoding="utf-8")
    if rng.random() < 0.7:
        text = mutate(text, rng)
    args = arguments(rng, engines)
    if source.suffix == ".yaml" and "--level" in args:  # levels are for collections: mostly a wasted case
        at = args.index("--level")
        del args[at:at + 2]
    return Case(str(source.relative_to(EXAMPLES)), text, source.suffix, args)


def run_case(case: Case, workdir: Path) -> Outcome:
    """Write the puzzle beside copies of the user modules it may name, run the CLI in-process."""
    from puzzleplan.plans.cli import main
    folder = workdir / Path(case.source).parent
    folder.mkdir(parents=True, exist_ok=True)
    for module in (EXAMPLES / "user").glob("*.py"):
        target = workdir / "user" / module.name
        if not target.exists():
            (workdir / "user").mkdir(exist_ok=True)
            target.write_text(module.read_text(encoding="utf-8"), encoding="utf-8")
    puzzle = folder / f"fuzzed{case.suffix}"
    puzzle.write_text(case.text, encoding="utf-8")
    args = [str(puzzle) if a == "FILE" else str(workdir / "out") if a == "OUT" else a for a in case.args]
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:  # main never exits by itself; a SystemExit is a contract break too
            code = exc.code if isinstance(exc.code, int) else 99
        except BaseException as exc:  # noqa: BLE001 - anything that escapes main is a finding
            import traceback
            err.write("Traceback (escaped main)\n" + "".join(traceback.format_exception(exc)))
            code = 99
    return Outcome(code, out.getvalue(), err.getvalue(), time.monotonic() - started)
