"""The CP-SAT side: an encoding builds one CpModel per horizon; `solve` runs it.

Parameters can be given as SatParameters text (`"num_workers:4 max_time_in_seconds:10"`), a
native plan can be passed as a solution hint, and the model can be exported as a proto file.

CP-SAT runs in this process, so the solve is watched from here (`_watched`): it runs in a
thread while this one checks the memory limit and takes Ctrl-C. CP-SAT's own SIGINT handler
is turned off because it would end the search as if by the time limit and swallow the
interrupt, and its `max_memory_in_mb` is not enforced by the multi-worker search.
"""
from __future__ import annotations

import importlib.util
import sys
import threading
import time
from types import ModuleType
from typing import Any, Callable, ClassVar

from google.protobuf import text_format
from ortools.sat import sat_parameters_pb2

from puzzleplan.encoders.base import Answer, EncodingOptions, HorizonResult, steps_of
from puzzleplan.plans.core.memory import resident_mb

WATCH_EVERY = 0.25   # seconds between looks at the memory while CP-SAT searches


def _lazy(name: str) -> ModuleType:
    """The module `name`, executed at its first attribute access (importlib's LazyLoader).
    ortools' cp_model imports pandas and numpy, half a second: listing or checking encoding
    names imports every encoding class, and a run on SAT alone never needs CP-SAT."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}")
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)     # as an import would
    loader.exec_module(module)
    return module


cp_model = _lazy("ortools.sat.python.cp_model")


class CpEncoding:
    """Base of the CP-SAT encodings: build(T) -> CpModel, decode(solver) -> moves."""

    backend: ClassVar[str] = "cpsat"
    family: ClassVar[str] = ""
    name: ClassVar[str] = ""
    parameters: ClassVar[str] = ""   # SatParameters this encoding runs best with; the caller's win

    def __init__(self, model: Any, options: EncodingOptions = EncodingOptions()) -> None:
        self.model = model
        self.options = options
        self.cp = cp_model.CpModel()
        self.budget: Callable[[], None] | None = None   # the caller's limit check (SearchContext.poll)

    def tick(self) -> None:
        """Called by `build` once a step: the caller's limits (time, memory) stop a long build
        with whatever `budget` raises (LimitReached), not only the solve after it."""
        if self.budget is not None:
            self.budget()

    def build(self, horizon: int) -> cp_model.CpModel:
        raise NotImplementedError

    def decode(self, solver: cp_model.CpSolver, horizon: int) -> list[str]:
        raise NotImplementedError

    def add_hint(self, moves: list[str]) -> None:
        """Hint the solver with a known plan (an encoding that cannot use it ignores it)."""


def solver_parameters(text: str | None, workers: int | None, time_limit: float | None,
                      defaults: str = "") -> Any:
    """A CpSolver with SatParameters from `defaults` (an encoding's own), then text over them,
    then workers and the time limit on top."""
    solver = cp_model.CpSolver()
    if text or defaults:
        merged = sat_parameters_pb2.SatParameters()
        try:  # validate with the protobuf message first: a clean one-line error, nothing logged
            text_format.Parse(text or "", sat_parameters_pb2.SatParameters())
            text_format.Merge(defaults, merged)
            text_format.Merge(text or "", merged)      # Merge: a field given again takes the last value
        except text_format.ParseError as exc:
            raise ValueError(f"CP-SAT parameters: {exc}") from None
        solver.parameters.parse_text_format(text_format.MessageToString(merged))
    if workers is not None:
        solver.parameters.num_workers = workers
    if time_limit is not None:
        limit = solver.parameters.max_time_in_seconds
        solver.parameters.max_time_in_seconds = min(limit, time_limit) if limit > 0 else time_limit
    return solver


def _watched(solver: Any, model: Any, memory_mb: int | None) -> tuple[Any, str | None]:
    """solver.Solve(model) in a thread, stopped (StopSearch) when this process's resident memory
    passes `memory_mb` or Ctrl-C comes (re-raised once the search has stopped). Returns the
    status and the limit that stopped it, if any."""
    solver.parameters.catch_sigint_signal = False
    outcome: dict[str, Any] = {}
    # an Event, not Thread.join: a join that Ctrl-C interrupts may report the thread ended while
    # CP-SAT still runs (its threads then abort the interpreter at exit)
    finished = threading.Event()

    def run() -> None:
        try:
            outcome["status"] = solver.Solve(model)
        except BaseException as exc:   # handed to the caller's thread
            outcome["error"] = exc
        finally:
            finished.set()
    threading.Thread(target=run, name="cp-sat", daemon=True).start()
    stopped = None
    try:
        while not finished.wait(WATCH_EVERY):
            if stopped is None and memory_mb is not None and resident_mb() > memory_mb:
                stopped = f"memory limit of {memory_mb} MiB"
                solver.StopSearch()
    except KeyboardInterrupt:
        solver.StopSearch()
        finished.wait()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["status"], stopped


def solve(encoding: CpEncoding, horizon: int, params: str | None = None, workers: int | None = None,
          time_limit: float | None = None, hint: list[str] | None = None,
          memory_mb: int | None = None) -> HorizonResult:
    """Build and solve one horizon; the model's size is read off its proto. `memory_mb`: the
    process's memory limit, which stops the search (UNKNOWN, extra["reason"] naming it)."""
    started = time.perf_counter()
    model = encoding.build(horizon)
    if hint:
        encoding.add_hint(hint)
    built = time.perf_counter()
    if time_limit is not None:   # the build spent part of the time
        time_limit -= built - started
        if time_limit <= 0:
            return HorizonResult(horizon, Answer.UNKNOWN, None, 0, 0, built - started, 0.0,
                                 {"cp_status": "UNKNOWN", "reason": "time limit"})
    solver = solver_parameters(params, workers, time_limit, type(encoding).parameters)
    status, stopped = _watched(solver, model, memory_mb)
    solved = time.perf_counter()
    proto = model.Proto()
    answer = {cp_model.OPTIMAL: Answer.SAT, cp_model.FEASIBLE: Answer.SAT,
              cp_model.INFEASIBLE: Answer.UNSAT}.get(status, Answer.UNKNOWN)
    if status == cp_model.MODEL_INVALID:
        raise RuntimeError(f"{encoding.name}: invalid CP-SAT model: {model.Validate()}")
    moves = encoding.decode(solver, horizon) if answer is Answer.SAT else None
    extra = {"cp_status": solver.StatusName(status)}
    if answer is Answer.UNKNOWN:   # CP-SAT stops without an answer at its time limit (ours or the caller's parameters)
        extra["reason"] = stopped or ("time limit" if solver.parameters.max_time_in_seconds < float("inf")
                                      else "solver limit")
    return HorizonResult(horizon, answer, moves, len(proto.variables), len(proto.constraints),
                         built - started, solved - built, extra,
                         None if moves is None else steps_of(encoding, moves))
