"""Tiles encodings that prove deep optima: `puzzleplan verify` per instance and encoding.

Run by hand from the repository root:

    .venv/bin/python benchmarks/tiles_encodings.py                       # tiles-pdb on the goal instances
    .venv/bin/python benchmarks/tiles_encodings.py --encodings tiles-pdb tiles-dirs --time-limit 150
    .venv/bin/python benchmarks/tiles_encodings.py --korf 1 --time-limit 900   # the moonshot, Korf #1 (57)

Each run is the user's command, `puzzleplan verify FILE --encodings NAME --json`, in its own
process: the native optimum (IDA*), then the encoding's checked plan of L moves and its UNSAT
proof at L-2 (exact semantics; parity rules out L-1). One line per row with its seconds, and
the command's wall time. Korf instances given by --korf are read from benchmarks/data/korf100.txt
into a temporary YAML file. Exit 1 when a verdict is not "verified".
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data" / "korf100.txt"
INSTANCES = ["examples/tiles/eight-31.yaml", "examples/tiles/korf-055.yaml",
             "examples/tiles/korf-079.yaml", "examples/tiles/korf-012.yaml"]


def korf_yaml(number: int, folder: Path) -> Path:
    """Korf's instance `number` as a YAML file in `folder` (published optimum as `expect`)."""
    lines = [ln.split() for ln in DATA.read_text().splitlines() if ln.strip()]
    for head, cells in zip(lines[0::2], lines[1::2]):
        if int(head[0]) == number:
            path = folder / f"korf-{number:03d}.yaml"
            path.write_text(f"puzzle: tiles\nname: Korf {number:03d}\nnotation: korf\n"
                            f"start: \"{' '.join(cells)}\"\nexpect:\n  optimal: {head[1]}\n")
            return path
    raise SystemExit(f"no instance {number} in {DATA}")


def verify(path: Path, encoding: str, time_limit: float) -> tuple[dict, float]:
    started = time.perf_counter()
    run = subprocess.run([str(Path(sys.executable).parent / "puzzleplan"), "verify", str(path), "--encodings", encoding,
                          "--json", "--quiet", "--time-limit", str(time_limit)],
                         capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - started
    try:
        return json.loads(run.stdout), wall
    except json.JSONDecodeError:
        return {"status": f"failed: {run.stderr.strip().splitlines()[-1:]}", "certificates": []}, wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--encodings", nargs="+", default=["tiles-pdb"])
    ap.add_argument("--time-limit", type=float, default=120.0, help="per verify command (seconds)")
    ap.add_argument("--korf", type=int, nargs="*", help="Korf instance numbers instead of the default set")
    args = ap.parse_args(argv)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        paths = [korf_yaml(k, Path(tmp)) for k in args.korf] if args.korf else [ROOT / p for p in INSTANCES]
        for path in paths:
            for encoding in args.encodings:
                data, wall = verify(path, encoding, args.time_limit)
                print(f"{path.stem} {encoding}: {data['status']} (wall {wall:.1f} s)")
                for row in data.get("certificates", []):
                    print(f"    {row['method']:<32} {row['claim']:<52} {row['result']:<18} {row['seconds']:7.2f} s")
                bad += data["status"] != "verified"
                sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
