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


def pytest_configure(config) -> None:
    """Compile the numba kernels once, before pytest-xdist starts its workers. Processes that
    compile the same cached kernels at once can crash each other (numba issue 4807: a Jupyter
    kernel running the example notebook died so in CI), and each worker would compile them again."""
    if hasattr(config, "workerinput"):   # an xdist worker: the controller has compiled them
        return
    from puzzleplan.plans.warmup import kernels_cached, warm_up
    if not kernels_cached():
        warm_up()
