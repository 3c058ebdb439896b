"""Korf's 100 random 15-puzzle instances, solved optimally by `idastar` with pattern databases.

Run by hand from the repository root:

    .venv/bin/python benchmarks/korf100.py                 # all 100, databases built afresh
    .venv/bin/python benchmarks/korf100.py --only 1-10     # a few instances
    .venv/bin/python benchmarks/korf100.py --reuse-cache   # use the user's cached databases
    .venv/bin/python benchmarks/korf100.py --partition '1 2 3 4 5 6 7 / 8 9 10 11 12 13 14 15'   # 7-8

It builds the pattern databases first (in a fresh temporary cache unless --reuse-cache, so the
build time is real) and reports that time apart. Then every instance is solved through the same
path as `puzzleplan solve --engine idastar` (the plan replayed by the independent checker), its
length compared with the published optimum in benchmarks/data/korf100.txt, and one line printed
per instance: published and computed length, nodes expanded, in-search seconds (setting up the
search, a few milliseconds, is in the totals' wall and CPU time). Totals at the end. Exit 1 if any length differs from the published one.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data" / "korf100.txt"


def read_instances(path: Path) -> list[tuple[int, int, list[int]]]:
    """(number, published optimum, 16 cells with 0 the blank) per instance."""
    lines = [ln.split() for ln in path.read_text().splitlines() if ln.strip()]
    out = []
    for head, cells in zip(lines[0::2], lines[1::2]):
        out.append((int(head[0]), int(head[1]), [int(c) for c in cells]))
    return out


def selection(spec: str | None, count: int) -> set[int]:
    """Instance numbers from '1-10,42' (all when None)."""
    if not spec:
        return set(range(1, count + 1))
    chosen: set[int] = set()
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        chosen.update(range(int(lo), int(hi or lo) + 1))
    return chosen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="instance numbers, e.g. 1-10,42 (default: all)")
    ap.add_argument("--reuse-cache", action="store_true", help="use the user's database cache instead of a fresh one")
    ap.add_argument("--heuristic", default="pdb", choices=("pdb", "manhattan"))
    ap.add_argument("--partition", metavar="GROUPS",
                    help="pattern faces, groups split by '/', e.g. '1 2 3 4 5 6 7 / 8 9 10 11 12 13 14 15' "
                         "(default: the automatic 6-6-3)")
    ap.add_argument("--quiet", action="store_true", help="totals only")
    args = ap.parse_args(argv)
    if not args.reuse_cache:
        os.environ["PUZZLEPLAN_CACHE_DIR"] = tempfile.mkdtemp(prefix="korf100-cache-")

    # Imported after the cache directory is chosen: the database module reads it at use.
    from puzzleplan.models.tiles import pdb as tiles_pdb
    from puzzleplan.models.tiles.model import TilesPuzzle
    from puzzleplan.plans.solve import solve
    from puzzleplan.plans.core.types import Request, Status

    instances = read_instances(DATA)
    chosen = selection(args.only, len(instances))
    goal = [["_" if r * 4 + c == 0 else str(r * 4 + c) for c in range(4)] for r in range(4)]
    partition = [g.split() for g in args.partition.split("/")] if args.partition else None
    options = {"heuristic": args.heuristic, **({"partition": partition} if partition else {})}

    def model_of(cells: list[int]) -> TilesPuzzle:
        faces = ["_" if x == 0 else str(x) for x in cells]
        return TilesPuzzle.from_grids([faces[r * 4:r * 4 + 4] for r in range(4)], goal, name="korf")

    print(f"Korf's 100 ({DATA.relative_to(ROOT)}), {platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores, heuristic {args.heuristic}")
    first = model_of(instances[0][2])
    c0, w0 = time.process_time(), time.perf_counter()
    if args.heuristic == "pdb":
        dbs = tiles_pdb.databases_for(first, partition)
        print(f"databases: {dbs.describe(first.faces)}")
        print(f"database build: {time.perf_counter() - w0:.2f} s wall, {time.process_time() - c0:.2f} s CPU "
              f"({'built' if dbs.built else 'loaded from cache'})")
    # Compile/load the kernels once on a trivial board so no instance pays for it.
    c1, w1 = time.process_time(), time.perf_counter()
    solve(model_of([1, 0] + list(range(2, 16))), "idastar", Request(options=options))
    print(f"kernel warm-up: {time.perf_counter() - w1:.2f} s wall, {time.process_time() - c1:.2f} s CPU")

    head = f"{'#':>3}  {'published':>9}  {'ours':>4}  {'nodes':>12}  {'search s':>9}"
    if not args.quiet:
        print(head)
        print("-" * len(head))
    total_nodes, total_search, wrong = 0, 0.0, []
    c2, w2 = time.process_time(), time.perf_counter()
    for number, published, cells in instances:
        if number not in chosen:
            continue
        result = solve(model_of(cells), "idastar", Request(options=options))
        length = result.plan.length if result.status is Status.OPTIMAL and result.plan else None
        if length != published:
            wrong.append(number)
        search = result.stats.extra.get("search_seconds", result.stats.seconds)
        total_nodes += result.stats.nodes
        total_search += search
        if not args.quiet:
            print(f"{number:>3}  {published:>9}  {length if length is not None else '-':>4}  "
                  f"{result.stats.nodes:>12,}  {search:>9.3f}", flush=True)
    wall, cpu = time.perf_counter() - w2, time.process_time() - c2
    print(f"solved {len(chosen) - len(wrong)}/{len(chosen)} at the published length; "
          f"nodes {total_nodes:,}; in-search {total_search:.2f} s; "
          f"all solves {wall:.2f} s wall, {cpu:.2f} s CPU; {total_nodes / max(total_search, 1e-9) / 1e6:.1f} M nodes/s")
    if wrong:
        print(f"lengths differ from the published ones on: {', '.join(map(str, wrong))}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
