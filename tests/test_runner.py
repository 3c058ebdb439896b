"""The solver child process (encoders/runner.py): items stream back, deadlines end it, and
within `warm_children` each call finds a child started ahead that has run the warm-ups, and
the unused one ends with the block."""
from __future__ import annotations

import importlib
import os
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from puzzleplan.encoders import runner
from puzzleplan.encoders.runner import Deadline, early_child, stream, warm_children


def pids_and_modules(count: int) -> Iterator[tuple[int, bool]]:
    """The child's pid and whether `colorsys` was imported before the work came, `count` times."""
    for _ in range(count):
        yield os.getpid(), "colorsys" in sys.modules


def sleeper(seconds: float) -> Iterator[int]:
    time.sleep(seconds)
    yield 1


def test_items_come_back_from_another_process():
    got = list(stream(pids_and_modules, (3,), None))
    assert len(got) == 3 and {pid for pid, _ in got} != {os.getpid()}


def test_a_deadline_ends_the_child():
    with pytest.raises(Deadline):
        list(stream(sleeper, (30.0,), 0.2))


def failing() -> None:
    raise ValueError("a warm-up that fails")


IMPORT_COLORSYS = [(importlib.import_module, ("colorsys",))]


def test_each_call_finds_a_child_started_ahead_with_its_warm_ups_done():
    with warm_children(IMPORT_COLORSYS):
        for _ in range(3):
            spare = runner._spares.child
            assert spare is not None
            (pid, imported), = stream(pids_and_modules, (1,), None)
            assert pid == spare.process.pid and imported
            assert runner._spares.child is not spare      # the next call's is already starting
    (pid, imported), = stream(pids_and_modules, (1,), None)   # outside: a cold child
    assert not imported


def test_the_unused_child_ends_with_the_block():
    with warm_children(IMPORT_COLORSYS):
        spare = runner._spares.child
    assert runner._spares.child is None
    assert spare is not None and spare.process.poll() is not None


def test_a_failing_warm_up_only_loses_its_head_start():
    with warm_children([(failing, ()), (importlib.import_module, ("no_such_module_anywhere",))]
                       + IMPORT_COLORSYS):
        assert list(stream(pids_and_modules, (1,), 10.0))[0][1]


def test_a_child_started_early_is_taken_over_by_the_block_inside():
    """early_child starts a process before the warm-ups are known; the warm_children block
    inside sends them to it, and the first call runs there with both sets done."""
    with early_child([(importlib.import_module, ("json",))]):
        early = runner._spares.child
        assert early is not None and early.early
        with warm_children(IMPORT_COLORSYS):
            assert runner._spares.child is early and not early.early
            (pid, imported), = stream(pids_and_modules, (1,), 10.0)
            assert pid == early.process.pid and imported
    assert runner._spares.child is None


def test_an_early_child_nothing_took_ends_with_its_block():
    with early_child():
        early = runner._spares.child
        with warm_children(None):    # no SAT row: the early child is not wanted
            pass
    assert runner._spares.child is None
    assert early is not None and early.process.poll() is not None
    with early_child():
        early = runner._spares.child
    assert early is not None and early.process.poll() is not None and runner._spares.child is None


def test_none_starts_no_child_ahead():
    with warm_children(None):
        assert runner._spares.child is None


def test_a_spare_that_cannot_start_leaves_the_call_its_own(monkeypatch):
    start = runner._start

    def no_spares(warmups=()):
        if warmups:
            raise OSError("no more processes")
        return start()
    with warm_children(IMPORT_COLORSYS):
        monkeypatch.setattr(runner, "_start", no_spares)
        assert list(stream(pids_and_modules, (1,), 10.0))[0][1]      # the spare started before
        assert runner._spares.child is None
        assert not list(stream(pids_and_modules, (1,), 10.0))[0][1]  # a cold one of its own


def test_a_memory_limit_ends_the_child() -> None:
    from puzzleplan.encoders.runner import MemoryExceeded
    with pytest.raises(MemoryExceeded, match="memory limit of 1 MiB reached"):
        list(stream(sleeper, (30.0,), 20.0, memory_mb=1))
    assert list(stream(sleeper, (0.0,), 20.0, memory_mb=1 << 20)) == [1]     # under the limit: as without


def test_the_sat_engine_stops_at_the_memory_limit() -> None:
    import puzzleplan
    model = puzzleplan.load(Path(__file__).resolve().parent.parent / "examples" / "tiles" / "korf-055.yaml")
    result = puzzleplan.solve(model, "sat", encoding="tiles-moves", memory_mb=1, time_limit=60)
    assert result.status is puzzleplan.Status.LIMIT_REACHED
    assert result.message == "memory limit of 1 MiB reached" and result.lower_bound is not None   # the solver process's


def _hard_cp_sat_horizon():
    """Korf #55 (41 moves) asked at 39 by CP-SAT: seconds of search, never a quick answer."""
    import puzzleplan
    from puzzleplan.encoders.base import encoding_class
    from puzzleplan.encoders.certify import proof_options
    model = puzzleplan.load(Path(__file__).resolve().parent.parent / "examples" / "tiles" / "korf-055.yaml")
    return encoding_class("cp-tiles-bool")(model, proof_options(model)[0]), 39


def test_cp_sat_stops_at_the_memory_limit(monkeypatch) -> None:
    """CP-SAT searches in this process: the watch stops it when the memory passes the limit."""
    from puzzleplan.encoders.base import Answer
    from puzzleplan.encoders.cpsat import base
    monkeypatch.setattr(base, "WATCH_EVERY", 0.001)
    monkeypatch.setattr(base, "resident_mb", lambda pid="self": 10.0**6)   # as if the search grew without bound
    encoding, horizon = _hard_cp_sat_horizon()
    started = time.monotonic()
    result = base.solve(encoding, horizon, time_limit=60, memory_mb=2_000)
    assert result.answer is Answer.UNKNOWN and result.extra["reason"] == "memory limit of 2000 MiB"
    assert time.monotonic() - started < 30   # stopped by the watch, not by the 60 s time limit


def test_ctrl_c_stops_cp_sat_at_once_and_is_not_swallowed(monkeypatch) -> None:
    """Ctrl-C during a CP-SAT search stops it and reaches the caller as KeyboardInterrupt (CP-SAT's
    own handler would end the search as if by the time limit and keep the interrupt)."""
    from puzzleplan.encoders.cpsat import base

    def interrupt(pid="self"):
        raise KeyboardInterrupt   # arrives in the watching thread, as a signal's handler raises it
    monkeypatch.setattr(base, "WATCH_EVERY", 0.001)
    monkeypatch.setattr(base, "resident_mb", interrupt)
    encoding, horizon = _hard_cp_sat_horizon()
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        base.solve(encoding, horizon, time_limit=60, memory_mb=2_000)
    assert time.monotonic() - started < 30
