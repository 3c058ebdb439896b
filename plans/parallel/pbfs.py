"""Parallel breadth-first search: level-synchronous, over worker processes, partitioned by state hash.

Each of W workers owns the states whose stable hash maps to its id and keeps its own visited set
(or, when a plan is wanted, its own parent pointers). For every layer the parent process tells
all workers to expand; each worker expands the states of the layer it owns, sends the children
owned by others straight to their owners' inboxes, takes in what the others sent it, drops what
it has seen and reports how many new states it kept (and any goal among them). The parent sums
the counts, checks the limits and starts the next layer. A plan is read back from the goal by
asking, state by state, the owner of each parent pointer.

Workers are started with the "forkserver" start method ("spawn" where there is none), never a
plain fork: the parent may hold OR-Tools or numba threads. Models travel to the workers pickled;
the built-in families and user families (see models/python_model.py) pickle. The owner of a
state must not depend on the process (Python salts the hash of str and bytes per process):
bytes states of one length (tiles, Rush Hour) are owned by a fixed weighted sum of their bytes,
computed for a whole layer at once with numpy, and travel between workers as one blob per layer;
any other state goes through `stable_hash` (int, str, bytes, None, tuples and frozensets of
them; anything else by its pickle, which is deterministic for plain values but not for sets).

The exchange costs CPU: with 2 workers each spends about two thirds of the single worker's time
on the 3x4 benchmark (benchmarks/pbfs.py), since the model's own Python `successors` stays the
largest share and the rest (partition, send, dedupe) grows. Worth it on idle cores only.

Families with packed states (Rush Hour, tiles up to 15 cells) do not need processes: `run` (and
`puzzleplan explore --workers N`) hands them to the array search of plans.search.layered on N
threads, 6x faster than this on the 3x4 benchmark. `explore_parallel` itself always uses processes.

Public entry points:
    explore_parallel(model, workers, ctx) -> Exploration     like plans.explore.explore
    run(model, request, ctx) -> Result                        the `pbfs` engine (optimal plans)
    WorkerGroup(workers)                                      the pool itself, reusable by jobs
"""
from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import queue
import signal
import traceback
from dataclasses import dataclass
from typing import Any, Callable
from zlib import crc32

from puzzleplan.models.base import ModelError

from puzzleplan.plans.core.context import LimitReached, SearchContext
from puzzleplan.plans.explore import Exploration
from puzzleplan.plans.core.memory import resident_mb
from puzzleplan.plans.core.types import Request, Result, Status
from puzzleplan.plans.core.words import count
from puzzleplan.plans.search.bfs import run_packed
from puzzleplan.plans.search.common import finish
from puzzleplan.plans.search.layered import packed_space

ENGINE = "pbfs"
WAIT_SECONDS = 0.1          # how often the parent checks limits and workers while a layer runs
_MASK = (1 << 64) - 1


class WorkerError(RuntimeError):
    """A worker raised an exception (e.g. in the model's own code); carries its traceback."""


class WorkerDied(RuntimeError):
    """A worker process ended without a word (killed, e.g. by the out-of-memory killer)."""


# -- partitioning -----------------------------------------------------------------------------------
def stable_hash(state: Any) -> int:
    """A hash of `state` that every process agrees on (Python's own hash of str/bytes is salted)."""
    kind = type(state)
    if kind is bytes or kind is bytearray:
        return crc32(state)
    if kind is int or kind is bool:
        return state & _MASK
    if kind is str:
        return crc32(state.encode("utf-8", "surrogatepass"))
    if kind is tuple:
        h = 0x345678
        for item in state:
            h = ((h * 1000003) ^ stable_hash(item)) & _MASK
        return h ^ len(state)
    if state is None:
        return 0x9E37
    if kind is frozenset:
        return sum(stable_hash(item) for item in state) & _MASK
    return crc32(pickle.dumps(state, protocol=4))


def _byte_weights(size: int) -> list[int]:
    """Fixed odd 64-bit multipliers, one per byte position (the same in every process)."""
    return [((0x9E3779B97F4A7C15 * (2 * i + 1)) ^ (0xD1B54A32D192ED03 >> (i % 17))) & _MASK | 1
            for i in range(size)]


def owner_function(workers: int, sample: Any) -> Callable[[Any], int]:
    """state -> the id of the worker that owns it.

    bytes states (of the sample's length) use a weighted byte sum, which `_owners_of_blob`
    computes for a whole layer at once with numpy; anything else uses `stable_hash`.
    """
    if workers == 1:
        return lambda state: 0
    if type(sample) is bytes and sample:
        weights = _byte_weights(len(sample))

        def owner(state: Any) -> int:
            if type(state) is bytes and len(state) == len(weights):
                return ((sum(b * w for b, w in zip(state, weights)) & _MASK) >> 32) % workers
            return (((stable_hash(state) * 0x9E3779B97F4A7C15) & _MASK) >> 29) % workers
        return owner
    return lambda state: (((stable_hash(state) * 0x9E3779B97F4A7C15) & _MASK) >> 29) % workers


def _owners_of_blob(blob: bytes, size: int, workers: int) -> Any:
    """The owners of the equal-length bytes states packed in `blob` (numpy, same as owner_function)."""
    import numpy as np
    rows = np.frombuffer(blob, dtype=np.uint8).reshape(-1, size)
    sums = np.zeros(len(rows), dtype=np.uint64)
    for i, weight in enumerate(_byte_weights(size)):  # column by column: far faster than a row sum
        sums += rows[:, i].astype(np.uint64) * np.uint64(weight)
    return (sums >> np.uint64(32)) % np.uint64(workers)


def _pack(items: list[Any]) -> tuple[int, Any]:
    """Equal-length bytes states travel as one blob (much cheaper to pickle than a list)."""
    if items and type(items[0]) is bytes:
        size = len(items[0])
        blob = b"".join(items)
        if size and len(blob) == size * len(items):
            return size, blob
    return 0, items


def _unpack(packed: tuple[int, Any]) -> Any:
    """An iterable of the states of `_pack` (slices made at C speed)."""
    size, data = packed
    if size:
        n = len(data)
        return map(data.__getitem__, map(slice, range(0, n, size), range(size, n + size, size)))
    return data


# -- the worker side --------------------------------------------------------------------------------
@dataclass
class LayerReport:
    """One worker's share of one layer."""

    new: int = 0            # states first reached in this layer, owned by this worker
    goals: int = 0          # goal states among them
    goal: Any = None        # one of them (for plans), else None
    nodes: int = 0          # states expanded
    generated: int = 0      # children generated
    rss_mb: float = 0.0     # the worker's resident memory


class _Job:
    """One search inside one worker: the states it owns, its share of the current layer."""

    def __init__(self, wid: int, workers: int, model: Any, track: bool, inboxes: list[Any]) -> None:
        self.wid, self.workers, self.model, self.track = wid, workers, model, track
        self.inboxes = inboxes
        self.seen: Any = {} if track else set()   # track: state -> (parent, action) or None
        self.frontier: list[Any] = []
        self.owner: Callable[[Any], int] = lambda state: 0

    def seed(self, start: Any) -> LayerReport:
        self.owner = owner_function(self.workers, start)
        if self.owner(start) != self.wid:
            return LayerReport(rss_mb=resident_mb())
        if self.track:
            self.seen[start] = None
        else:
            self.seen.add(start)
        self.frontier = [start]
        return self._report(0, 0)

    def expand(self, layer: int) -> LayerReport:
        nodes = len(self.frontier)
        generated = self._expand_tracked(layer) if self.track else self._expand_counting(layer)
        return self._report(nodes, generated)

    def _report(self, nodes: int, generated: int) -> LayerReport:
        is_goal = self.model.is_goal
        goals = [s for s in self.frontier if is_goal(s)]
        return LayerReport(len(self.frontier), len(goals), goals[0] if goals else None, nodes, generated,
                           resident_mb())

    def _expand_counting(self, layer: int) -> int:
        successors = self.model.successors
        children = [child for state in self.frontier for _, child in successors(state)]
        generated = len(children)
        if self.workers == 1:
            fresh = set(children)
        else:
            fresh = self._partition(layer, children)
            del children
            for (packed,) in self._receive(layer):
                fresh.update(_unpack(packed))
        fresh -= self.seen
        self.seen |= fresh
        self.frontier = list(fresh)
        return generated

    def _partition(self, layer: int, children: list[Any]) -> set[Any]:
        """Send the states of others to their owners; return this worker's own as a set."""
        size, blob = _pack(children)
        if size:
            import numpy as np
            from itertools import compress
            owners = _owners_of_blob(blob, size, self.workers)
            rows = np.frombuffer(blob, dtype=np.uint8).reshape(-1, size)
            parts = [((size, rows[owners == o].tobytes()),) if o != self.wid else None
                     for o in range(self.workers)]
            self._send(layer, parts)
            return set(compress(children, (owners == self.wid).tolist()))
        buckets: list[list[Any]] = [[] for _ in range(self.workers)]
        put = [b.append for b in buckets]
        owner = self.owner
        for child in set(children):
            put[owner(child)](child)
        self._send(layer, [((0, b),) for b in buckets])
        return set(buckets[self.wid])

    def _expand_tracked(self, layer: int) -> int:
        successors = self.model.successors
        seen = self.seen
        kids: list[Any] = []
        parents: list[Any] = []
        actions: list[Any] = []
        generated = 0
        for state in self.frontier:
            for action, child in successors(state):
                generated += 1
                if child not in seen:  # only ever true for this worker's own states
                    kids.append(child)
                    parents.append(state)
                    actions.append(action)
        nxt: list[Any] = []
        if self.workers == 1:
            own = zip(kids, parents, actions)
        else:
            masks = self._owner_masks(kids)
            from itertools import compress
            self._send(layer, [(_pack(list(compress(kids, m))), _pack(list(compress(parents, m))),
                                list(compress(actions, m))) if o != self.wid else None
                               for o, m in enumerate(masks)])
            mine = masks[self.wid]
            own = zip(compress(kids, mine), compress(parents, mine), compress(actions, mine))
        for child, parent, action in own:
            if child not in seen:
                seen[child] = (parent, action)
                nxt.append(child)
        if self.workers > 1:
            for packed_kids, packed_parents, sent_actions in self._receive(layer):
                for child, parent, action in zip(_unpack(packed_kids), _unpack(packed_parents), sent_actions):
                    if child not in seen:
                        seen[child] = (parent, action)
                        nxt.append(child)
        self.frontier = nxt
        return generated

    def _owner_masks(self, states: list[Any]) -> list[list[bool]]:
        """For each worker, a list of booleans: which of `states` it owns."""
        size, blob = _pack(states)
        if size:
            owners = _owners_of_blob(blob, size, self.workers)
            return [(owners == o).tolist() for o in range(self.workers)]
        of = [self.owner(s) for s in states]
        return [[x == o for x in of] for o in range(self.workers)]

    def _send(self, layer: int, parts: list[Any]) -> None:
        for o, part in enumerate(parts):
            if o != self.wid:
                self.inboxes[o].put((layer, self.wid, part))

    def _receive(self, layer: int) -> list[Any]:
        inbox = self.inboxes[self.wid]
        parts = []
        for _ in range(self.workers - 1):
            got_layer, _, part = inbox.get()
            if got_layer != layer:
                raise RuntimeError(f"layer {got_layer} data arrived during layer {layer}")
            parts.append(part)
        return parts

    def parent_of(self, state: Any) -> Any:
        return self.seen[state]


def _worker_main(wid: int, workers: int, control: Any, inboxes: list[Any], results: Any) -> None:
    """A worker's loop: commands from `control`, answers on `results`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    job: _Job | None = None
    while True:
        command = control.get()
        kind = command[0]
        if kind == "stop":
            break
        try:
            if kind == "load":
                job = None
                job = _Job(wid, workers, pickle.loads(command[1]), command[2], inboxes)
                answer: Any = None
            elif kind == "seed":
                answer = job.seed(command[1])
            elif kind == "expand":
                answer = job.expand(command[1])
            elif kind == "parent":
                answer = job.parent_of(command[1])
            elif kind == "drop":
                job = None
                answer = None
            else:
                raise ValueError(f"unknown command {kind!r}")
            results.put(("ok", wid, answer))
        except ModelError as exc:  # the user's puzzle at fault (e.g. a hook that raised): one line
            results.put(("model_error", wid, str(exc)))
        except BaseException:  # report, then wait: the parent tears the group down
            results.put(("error", wid, traceback.format_exc()))
    for inbox in inboxes:
        inbox.cancel_join_thread()


# -- the parent side --------------------------------------------------------------------------------
def start_method() -> str:
    """forkserver where the platform has it, else spawn (never plain fork)."""
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


class WorkerGroup:
    """W worker processes and their queues; one search job at a time. Use as a context manager."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"expected at least 1 worker, got {workers}")
        mpctx = mp.get_context(start_method())
        self.size = workers
        self.control = [mpctx.Queue() for _ in range(workers)]
        self.inboxes = [mpctx.Queue() for _ in range(workers)]
        self.results = mpctx.Queue()
        self.broken = False
        self.owner: Callable[[Any], int] = lambda state: 0
        self.procs = [mpctx.Process(target=_worker_main, name=f"pbfs-worker-{i}", daemon=True,
                                    args=(i, workers, self.control[i], self.inboxes, self.results))
                      for i in range(workers)]
        self._started: list[Any] = []
        try:
            for proc in self.procs:
                proc.start()
                self._started.append(proc)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "WorkerGroup":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- commands ---------------------------------------------------------------------------------
    def _all(self, command: tuple[Any, ...], ctx: SearchContext | None) -> list[Any]:
        if self.broken:
            raise RuntimeError("this worker group was interrupted mid-layer; start a new one")
        for q in self.control:
            q.put(command)
        return self._collect(self.size, ctx)

    def _collect(self, count: int, ctx: SearchContext | None) -> list[Any]:
        replies: dict[int, Any] = {}
        try:
            while len(replies) < count:
                try:
                    kind, wid, answer = self.results.get(timeout=WAIT_SECONDS)
                except queue.Empty:
                    self._check_workers()
                    if ctx is not None:
                        self._check_limits(ctx)
                    continue
                if kind == "model_error":
                    raise ModelError(answer)
                if kind == "error":
                    raise WorkerError(f"pbfs worker {wid} failed:\n{answer}")
                replies[wid] = answer
        except BaseException:
            self.broken = True
            raise
        return [replies[w] for w in sorted(replies)]

    def _check_workers(self) -> None:
        for i, proc in enumerate(self.procs):
            if not proc.is_alive():
                code = proc.exitcode
                why = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                hint = " (out of memory?)" if code == -signal.SIGKILL else ""
                raise WorkerDied(f"pbfs worker {i} died: {why}{hint}")

    def memory_mb(self) -> float:
        """Resident memory of the parent plus every worker, MiB."""
        return resident_mb() + sum(resident_mb(p.pid) for p in self.procs if p.pid is not None)

    def cpu_seconds(self) -> list[float]:
        """CPU time (user + system) each worker has used so far (Linux /proc; 0 elsewhere)."""
        ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        out = []
        for proc in self.procs:
            try:
                with open(f"/proc/{proc.pid}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                out.append((int(fields[11]) + int(fields[12])) / ticks)
            except (OSError, ValueError, IndexError):
                out.append(0.0)
        return out

    def _check_limits(self, ctx: SearchContext) -> None:
        ctx.poll()
        limit = ctx.limits.memory_mb
        if limit is not None and self.memory_mb() > limit:
            raise LimitReached(f"memory limit of {limit} MiB reached (parent and {self.size} workers)")

    def load(self, model: Any, track: bool, ctx: SearchContext | None = None) -> None:
        """Hand every worker the model; `track` keeps parent pointers (for plans)."""
        blob = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
        self._all(("load", blob, track), ctx)

    def seed(self, start: Any, ctx: SearchContext | None = None) -> list[LayerReport]:
        self.owner = owner_function(self.size, start)
        return self._all(("seed", start), ctx)

    def expand(self, layer: int, ctx: SearchContext | None = None) -> list[LayerReport]:
        return self._all(("expand", layer), ctx)

    def parent_of(self, state: Any, ctx: SearchContext | None = None) -> Any:
        """(parent, action) of a state reached with track=True, or None for the start."""
        if self.broken:
            raise RuntimeError("this worker group was interrupted mid-layer; start a new one")
        self.control[self.owner(state)].put(("parent", state))
        return self._collect(1, ctx)[0]

    def trace_back(self, state: Any, ctx: SearchContext | None = None) -> list[Any]:
        """The actions from the start to `state`, following parent pointers across owners."""
        actions = []
        link = self.parent_of(state, ctx)
        while link is not None:
            state, action = link
            actions.append(action)
            link = self.parent_of(state, ctx)
        actions.reverse()
        return actions

    def drop(self, ctx: SearchContext | None = None) -> None:
        """Free the workers' tables (the group stays up for another job)."""
        self._all(("drop",), ctx)

    def close(self) -> None:
        """Stop every worker: politely when idle, by force when interrupted mid-layer."""
        procs = self._started
        if not self.broken:
            for q in self.control:
                try:
                    q.put(("stop",))
                except (OSError, ValueError):
                    pass
            for proc in procs:
                proc.join(timeout=5)
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        for proc in procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        for q in [*self.control, *self.inboxes, self.results]:
            q.cancel_join_thread()
            q.close()
        self.procs, self._started = [], []
        self.broken = True


def default_workers() -> int:
    return os.cpu_count() or 1


def _interrupted(exc: BaseException) -> str:
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (Ctrl-C)"
    if isinstance(exc, MemoryError):
        return str(exc) or "out of memory"
    return str(exc)


# -- exploration ------------------------------------------------------------------------------------
def explore_parallel(model: Any, workers: int | None = None, ctx: SearchContext | None = None,
                     group: WorkerGroup | None = None) -> Exploration:
    """Every state reachable from the start, counted by `workers` processes (see plans.explore).

    Limits are checked between layers (time, states) and every 0.1 s while a layer runs (time,
    memory of parent + workers). A limit, Ctrl-C or a dead worker ends it with partial counts
    (complete=False). `group`: an existing WorkerGroup to use (left running), else a new one.
    """
    ctx = ctx or SearchContext()
    own = group is None
    out = Exploration()
    stats = ctx.stats
    start = model.initial()
    out.per_depth.append(1)  # the start, known before any worker is up
    stats.states = 1
    if model.is_goal(start):
        out.goals, out.goal_distance = 1, 0
    try:
        if group is None:
            group = WorkerGroup(workers or default_workers())
        stats.extra["workers"] = group.size
        ctx.phase = f"pbfs explore x{group.size}"
        group.load(model, track=False, ctx=ctx)
        group.seed(start, ctx)
        reachable, depth = 1, 0
        while True:
            ctx.poll()
            reports = group.expand(depth, ctx)
            stats.nodes += sum(r.nodes for r in reports)
            stats.generated += sum(r.generated for r in reports)
            new = sum(r.new for r in reports)
            if new == 0:
                break
            depth += 1
            out.per_depth.append(new)
            reachable += new
            goals = sum(r.goals for r in reports)
            if goals and out.goal_distance is None:
                out.goal_distance = depth
            out.goals += goals
            stats.states = reachable
            stats.depth = depth
        if not own:
            group.drop(ctx)
    except (LimitReached, KeyboardInterrupt, MemoryError, WorkerDied) as exc:
        out.complete = False
        out.message = _interrupted(exc)
    finally:
        if own and group is not None:
            group.close()
    out.reachable = sum(out.per_depth)
    stats.states = out.reachable
    out.stats = ctx.finish()
    return out


# -- the engine -------------------------------------------------------------------------------------
def run(model: Any, request: Request, ctx: SearchContext) -> Result:
    """`solve --engine pbfs --workers N`: optimal (first goal layer), plan traced across owners."""
    workers = request.options.get("workers") or default_workers()
    space = packed_space(model) if request.options.get("native", True) else None
    if space is not None:   # packed states: threads over array layers beat processes (plans.search.layered)
        ctx.stats.extra["workers"] = workers
        return run_packed(model, space, request, ctx, ENGINE, workers)
    start = model.initial()
    cap = request.max_moves
    stats = ctx.stats
    stats.extra["workers"] = workers
    ctx.phase = f"pbfs x{workers}"
    if model.is_goal(start):
        return finish(ctx, ENGINE, model, Status.OPTIMAL, [], 0)
    try:
        with WorkerGroup(workers) as group:
            group.load(model, track=True, ctx=ctx)
            group.seed(start, ctx)
            reachable, depth = 1, 0
            stats.states = 1
            while True:
                if cap is not None and depth >= cap:
                    return finish(ctx, ENGINE, model, Status.NO_PLAN_WITHIN_CAP, lower_bound=depth + 1,
                                  message=f"no plan within {count(cap, 'move')}")
                ctx.poll()
                reports = group.expand(depth, ctx)
                depth += 1
                new = sum(r.new for r in reports)
                reachable += new
                stats.depth = depth
                stats.states = reachable
                stats.nodes += sum(r.nodes for r in reports)
                stats.generated += sum(r.generated for r in reports)
                goal = next((r.goal for r in reports if r.goals), None)
                if goal is not None:
                    actions = group.trace_back(goal, ctx)
                    return finish(ctx, ENGINE, model, Status.OPTIMAL, actions, depth)
                if new == 0:
                    return finish(ctx, ENGINE, model, Status.UNSOLVABLE,
                                  message=f"all {reachable} reachable states explored, none is a goal")
                ctx.lower_bound = depth + 1
    except WorkerDied as exc:
        return Result(Status.LIMIT_REACHED, ENGINE, None, ctx.lower_bound, ctx.finish(), str(exc))
