"""Microban levels verified by a Sokoban encoding: wall time of `puzzleplan verify` per level and
metric (the native optimum, a plan of that length from the encoding, UNSAT one below).

    .venv/bin/python benchmarks/sokoban_encodings.py --levels 1-30 --metric moves --encoding sok-onehot
    .venv/bin/python benchmarks/sokoban_encodings.py --levels 1-30 --metric pushes --encoding sok-push
    .venv/bin/python benchmarks/sokoban_encodings.py --levels 1-30 --metric moves --encoding sok-walk
    .venv/bin/python benchmarks/sokoban_encodings.py --levels 1-30 --metric moves --encoding cp-sok
    .venv/bin/python benchmarks/sokoban_encodings.py --levels 1-30 --metric pushes --encoding cp-sok-push

Prints one tab-separated row per level: level, metric, optimum, verdict, the encoding's plan and
bound seconds, the whole command's seconds (process start included), and whether it beat the
target (--target, 10 s). Each command runs with --time-limit (--limit, 60 s); --fresh-bound is
passed on to verify (the bound on a fresh solver instead of the plan's, where verify shares it).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MICROBAN = ROOT / "benchmarks" / "data" / "microban.xsb"


def levels(text: str) -> list[int]:
    """'1-30' or '1,4,9' -> the level numbers."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def run(level: int, metric: str, encoding: str, limit: float, fresh_bound: bool = False) -> dict[str, object]:
    command = [sys.executable, "-m", "puzzleplan.plans.cli", "verify", str(MICROBAN), "--level", str(level),
               "--metric", metric, "--encodings", encoding, "--time-limit", str(limit), "--json"]
    command += ["--fresh-bound"] if fresh_bound else []
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    try:
        out = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"optimum": None, "status": f"exit {done.returncode}", "rows": [], "seconds": seconds}
    rows = [c for c in out.get("certificates", []) if encoding in c["method"]]
    return {"optimum": out.get("optimal"), "status": out["status"], "rows": rows, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1-30")
    parser.add_argument("--metric", default="pushes", choices=("moves", "pushes"))
    parser.add_argument("--encoding", default="sok-push")
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--target", type=float, default=10.0)
    parser.add_argument("--fresh-bound", action="store_true", help="verify --fresh-bound")
    args = parser.parse_args()
    print("level\tmetric\toptimum\tverdict\tplan_s\tbound_s\ttotal_s\tunder_target")
    for level in levels(args.levels):
        r = run(level, args.metric, args.encoding, args.limit, args.fresh_bound)
        times = [f"{row['seconds']:.2f}" for row in r["rows"]] + ["-", "-"]
        total = float(r["seconds"])  # type: ignore[arg-type]
        print(f"{level}\t{args.metric}\t{r['optimum']}\t{r['status']}\t{times[0]}\t{times[1]}\t{total:.2f}\t"
              f"{'yes' if total < args.target and r['status'] == 'verified' else 'no'}", flush=True)


if __name__ == "__main__":
    main()
