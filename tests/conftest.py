import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# Pattern databases built by the tests go to a cache of their own, kept between local runs
# (under .pytest_cache) and never mixed with the user's ~/.cache/puzzleplan.
os.environ.setdefault("PUZZLEPLAN_CACHE_DIR",
                      str(Path(__file__).resolve().parent.parent / ".pytest_cache" / "puzzleplan"))
# Unit tests use only pattern databases that build in a few seconds (bigger ones are for benchmarks).
os.environ.setdefault("PUZZLEPLAN_PDB_BUDGET", "4")
