"""Fuzz the command line by hand: thousands of mutated example files and argument lists.

    .venv/bin/python benchmarks/fuzz.py --runs 5000 --seed 1 [--save DIR]

Each case runs in-process through `puzzleplan.plans.cli.main` (tests/fuzzing.py makes the cases
and states the contract: exit code 0..3, no traceback, one line on stderr for exit 2, bounded
time). Prints the exit codes seen, the slowest cases and every case that broke the contract;
`--save DIR` writes those as files to rerun by hand.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
os.environ.setdefault("PUZZLEPLAN_PDB_BUDGET", "4")

from fuzzing import Outcome, make_case, run_case  # noqa: E402
from puzzleplan.plans.core.engines import ENGINES  # noqa: E402


class Hang(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise Hang()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=30.0, help="a case slower than this is a finding")
    parser.add_argument("--save", type=Path, help="write the cases that broke the contract here")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    engines = list(ENGINES)
    codes: collections.Counter[int] = collections.Counter()
    findings = []
    slowest: list[tuple[float, list[str]]] = []
    signal.signal(signal.SIGALRM, _alarm)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="puzzleplan-fuzz-") as scratch:
        work = Path(scratch)
        for i in range(args.runs):
            case = make_case(rng, engines)
            signal.alarm(int(args.max_seconds * 4))
            try:
                outcome = run_case(case, work)
            except Hang:
                outcome = Outcome(98, "", "hang: no answer within the alarm", args.max_seconds * 4)
            finally:
                signal.alarm(0)
            codes[outcome.code] += 1
            slowest = sorted(slowest + [(outcome.seconds, case.args)], reverse=True)[:5]
            problems = outcome.problems(args.max_seconds)
            if problems:
                findings.append((i, case, outcome, problems))
                print(f"case {i} ({case.source}, {' '.join(case.args)}): {'; '.join(problems)}", flush=True)
                tail = (outcome.stderr.strip().splitlines() or [""])[-1]
                print(f"    {tail[:200]}", flush=True)
            if (i + 1) % 250 == 0:
                print(f"... {i + 1} cases, {len(findings)} findings, {time.monotonic() - started:.0f} s", flush=True)
    total = time.monotonic() - started
    print(f"\n{args.runs} cases in {total:.0f} s (seed {args.seed}); exit codes: "
          + ", ".join(f"{code}: {n}" for code, n in sorted(codes.items())))
    print("slowest: " + "; ".join(f"{s:.1f} s {' '.join(a)}" for s, a in slowest))
    print(f"findings: {len(findings)}")
    if args.save and findings:
        args.save.mkdir(parents=True, exist_ok=True)
        for i, case, outcome, problems in findings:
            (args.save / f"case-{i}{case.suffix}").write_text(case.text, encoding="utf-8")
            (args.save / f"case-{i}.json").write_text(json.dumps(
                {"source": case.source, "args": case.args, "problems": problems, "code": outcome.code,
                 "stderr": outcome.stderr[-2000:]}, indent=1), encoding="utf-8")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
