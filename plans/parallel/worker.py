"""The worker side of pbfs: one process's share of every layer, and its command loop.

A worker owns the states `owner_function` maps to its id and keeps its own visited set (or,
when a plan is wanted, its own parent pointers). On "expand" it expands the states of the layer
it owns, sends the children owned by others straight to their owners' inboxes, takes in what
the others sent it, drops what it has seen and reports how many new states it kept (and any
goal among them). The parent side is `plans.parallel.group`.
"""
from __future__ import annotations

import pickle
import signal
import traceback
from dataclasses import dataclass
from typing import Any, Callable

from puzzleplan.models.base import ModelError

from puzzleplan.plans.core.contracts import Model
from puzzleplan.plans.core.memory import resident_mb
from puzzleplan.plans.parallel.partition import owner_function, owners_of_blob, pack_states, unpack_states


@dataclass
class LayerReport:
    """One worker's share of one layer."""

    new: int = 0            # states first reached in this layer, owned by this worker
    goals: int = 0          # goal states among them
    goal: Any = None        # one of them (for plans), else None
    nodes: int = 0          # states expanded
    generated: int = 0      # children generated
    rss_mb: float = 0.0     # the worker's resident memory


class Job:
    """One search inside one worker: the states it owns, its share of the current layer."""

    def __init__(self, wid: int, workers: int, model: Model, track: bool, inboxes: list[Any]) -> None:
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
                fresh.update(unpack_states(packed))
        fresh -= self.seen
        self.seen |= fresh
        self.frontier = list(fresh)
        return generated

    def _partition(self, layer: int, children: list[Any]) -> set[Any]:
        """Send the states of others to their owners; return this worker's own as a set."""
        size, blob = pack_states(children)
        if size:
            import numpy as np
            from itertools import compress
            owners = owners_of_blob(blob, size, self.workers)
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
            self._send(layer, [(pack_states(list(compress(kids, m))), pack_states(list(compress(parents, m))),
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
                arrived = zip(unpack_states(packed_kids), unpack_states(packed_parents), sent_actions)
                for child, parent, action in arrived:
                    if child not in seen:
                        seen[child] = (parent, action)
                        nxt.append(child)
        self.frontier = nxt
        return generated

    def _owner_masks(self, states: list[Any]) -> list[list[bool]]:
        """For each worker, a list of booleans: which of `states` it owns."""
        size, blob = pack_states(states)
        if size:
            owners = owners_of_blob(blob, size, self.workers)
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


def worker_main(wid: int, workers: int, control: Any, inboxes: list[Any], results: Any) -> None:
    """A worker's loop: commands from `control`, answers on `results`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    job: Job | None = None
    while True:
        command = control.get()
        kind = command[0]
        if kind == "stop":
            break
        try:
            if kind == "load":
                job = None
                job = Job(wid, workers, pickle.loads(command[1]), command[2], inboxes)
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
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            if "pickle" not in str(exc):
                results.put(("error", wid, traceback.format_exc()))
            else:   # a user class's state: the workers pass states to each other pickled
                source = getattr(getattr(job, "model", None), "source", None)
                results.put(("model_error", wid, (f"{source}: " if source else "") +
                             "a state of the puzzle does not pickle, and the worker processes "
                             f"of --workers pass states to each other pickled ({' '.join(str(exc).split())[:160]}); "
                             "run with one worker"))
        except BaseException:  # report, then wait: the parent tears the group down
            results.put(("error", wid, traceback.format_exc()))
    for inbox in inboxes:
        inbox.cancel_join_thread()
