"""What the generic encodings read off a planning task, computed once per task.

The generic SAT and CP-SAT encodings (encoders/sat/sas.py, encoders/sat/sas_exists.py,
encoders/cpsat/sas.py) work on `compiled(model).task` alone. They share these facts about it,
each of which holds for every plan, so pruning with them never loses a plan:

- relaxed reachability (the planning graph without mutexes): `fact_level[v][x]` is the first
  step at which v = x can hold, `action_level[i]` the first step at which action i can apply.
  Every action applicable in the layer applies at once, so the levels bound parallel (exists-
  step) plans as well as sequential ones. Facts and actions before their level get no variable.
- domain-transition distances (`goal_distance[v][y]`): each step changes a variable at most
  once, so a goal variable at value y needs at least that many more steps to reach its goal
  value (the generic form of the hand-tuned distance cuts).
- reversal pairs (`reversals[i]`): actions that, applied right after action i, restore the
  state before i whatever it was (the generic "no immediate reversal" cut; shortest plans and
  cheapest plans within a step bound never contain one).
- the exists-step order (`order`, `position`), computed on first use: see `exists_order`.
"""
from __future__ import annotations

import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from puzzleplan.models.task.checkpoints import checkpoint
from puzzleplan.models.task.ir import Action, Task
from puzzleplan.models.task.relaxed import INF, relaxed_levels


_memo: "weakref.WeakKeyDictionary[Task, TaskAnalysis]" = weakref.WeakKeyDictionary()


def analysis(task: Task) -> "TaskAnalysis":
    """The analysis of `task` (memoised per task object)."""
    found = _memo.get(task)
    if found is None or found.task is not task:
        found = TaskAnalysis(task)
        _memo[task] = found
    return found


def analysis_of(model: Any) -> "TaskAnalysis":
    """The analysis of a model's planning task (NotCompilable when it has none)."""
    from puzzleplan.models.task.compile import compiled
    return analysis(compiled(model).task)


@dataclass
class TaskAnalysis:
    """Reachability levels, goal distances, reversal pairs and cost facts of one task."""

    task: Task
    fact_level: list[list[int]] = field(init=False)
    action_level: list[int] = field(init=False)
    goal_distance: dict[int, list[int]] = field(init=False)
    _reversals: list[list[int]] | None = field(default=None, init=False, repr=False)
    _order: list[int] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.sizes = self.task.sizes
        self.fact_level, self.action_level = relaxed_levels(self.task)
        self.goal_distance = _goal_distances(self.task)
        costs = [a.cost for a in self.task.actions]
        self.max_cost = max(costs, default=0)
        self.min_cost = min(costs, default=0)
        self.unit_cost = self.task.unit_cost
        levels = [lv for row in self.fact_level for lv in row if lv < INF]
        levels += [lv for lv in self.action_level if lv < INF]
        self.last_level = max(levels, default=0)   # from here on nothing new becomes reachable
        self._actions_at: dict[int, list[int]] = {}
        self._values_at: dict[tuple[int, int], list[int]] = {}
        self.by_effect: dict[tuple[int, int], list[int]] = {}
        for i, a in enumerate(self.task.actions):
            for fact in a.eff:
                self.by_effect.setdefault(fact, []).append(i)

    # -- steps ----------------------------------------------------------------------------------
    def actions_at(self, t: int) -> list[int]:
        """Indices of the actions that can apply at step t (relaxed reachability)."""
        t = min(t, self.last_level)
        found = self._actions_at.get(t)
        if found is None:
            found = self._actions_at[t] = [i for i, level in enumerate(self.action_level) if level <= t]
        return found

    def reachable(self, v: int, x: int, t: int) -> bool:
        return self.fact_level[v][x] <= t

    def values_at(self, v: int, t: int) -> list[int]:
        """The values variable v can hold at step t."""
        key = (v, min(t, self.last_level))
        found = self._values_at.get(key)
        if found is None:
            found = self._values_at[key] = [x for x in range(self.sizes[v]) if self.fact_level[v][x] <= t]
        return found

    def allowed(self, v: int, x: int, t: int, horizon: int | None) -> bool:
        """Whether v = x can hold at step t of a plan of at most `horizon` steps (None: any)."""
        if self.fact_level[v][x] > t:
            return False
        if horizon is not None and v in self.goal_distance:
            return self.goal_distance[v][x] <= horizon - t
        return True

    def lower_steps(self) -> int:
        """An admissible lower bound on a plan's number of steps: the goal's relaxed level
        (h_max) and every goal variable's transition distance."""
        bound = max((self.fact_level[v][g] for v, g in self.task.goal), default=0)
        bound = max([bound] + [self.goal_distance[v][self.task.init[v]] for v in self.goal_distance])
        return bound

    # -- cuts -----------------------------------------------------------------------------------
    @property
    def reversals(self) -> list[list[int]]:
        """reversals[i]: the actions that undo action i when applied right after it."""
        if self._reversals is None:
            self._reversals = _reversal_pairs(self.task, self.by_effect)
        return self._reversals

    @property
    def order(self) -> list[int]:
        """The action indices in the exists-step order (see `exists_order`)."""
        if self._order is None:
            self._order = exists_order(self.task)
        return self._order

    @property
    def position(self) -> list[int]:
        pos = [0] * len(self.task.actions)
        for k, i in enumerate(self.order):
            pos[i] = k
        return pos


def _goal_distances(task: Task) -> dict[int, list[int]]:
    """Per goal variable v: the fewest changes of v from each value to its goal value, in v's
    domain-transition graph. One pass over the actions serves every goal variable (a pass per
    variable took 19 s on a 16x16 tiles board, whose 255 goal variables each re-read them all)."""
    goals = dict(task.goal)
    into = {v: [set() for _ in range(task.sizes[v])] for v in goals}   # into[v][x]: values y with a step y -> x
    for k, a in enumerate(task.actions):
        if k % 4096 == 0:
            checkpoint()
        pre = None
        for var, x in a.eff:
            edges = into.get(var)
            if edges is None:
                continue
            if pre is None:
                pre = dict(a.pre)
            before = pre.get(var)
            edges[x].update(range(task.sizes[var]) if before is None else (before,))
    out: dict[int, list[int]] = {}
    for v, goal in goals.items():
        dist = [INF] * task.sizes[v]
        dist[goal] = 0
        queue = deque([goal])
        while queue:
            x = queue.popleft()
            for y in into[v][x]:
                if dist[y] == INF:
                    dist[y] = dist[x] + 1
                    queue.append(y)
        out[v] = dist
    return out


def reverses(a: Action, b: Action) -> bool:
    """True when applying b right after a restores the state before a, whatever it was."""
    pa, ea, pb, eb = dict(a.pre), dict(a.eff), dict(b.pre), dict(b.eff)
    for v, y in eb.items():
        if v in pa:
            before = pa[v]
        elif v not in ea and v in pb:
            before = pb[v]        # untouched by a, so b's precondition names its old value
        else:
            return False
        if y != before:
            return False
    for v, x in ea.items():
        if v not in eb and pa.get(v) != x:
            return False
    return True


def _reversal_pairs(task: Task, by_effect: dict[tuple[int, int], list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for a in task.actions:
        pa = dict(a.pre)
        changed = [(v, pa[v]) for v, x in a.eff if v in pa and pa[v] != x]
        if len(changed) != sum(1 for v, x in a.eff if pa.get(v) != x):
            out.append([])        # some effect's old value is unknown: no reversal is certain
            continue
        candidates = set(by_effect.get(changed[0], ())) if changed else set(range(len(task.actions)))
        out.append(sorted(j for j in candidates if reverses(a, task.actions[j])))
    return out


def interference(task: Task) -> dict[tuple[int, int], tuple[list[int], list[int]]]:
    """Per fact f = (v, y): (E, R), the actions that can falsify f while sharing a step with an
    action that requires f (E: an effect v = x != y, and no precondition on v other than y) and
    the actions that require f (R: precondition v = y). Actions needing another value of v at
    the same step never share a step with R, so they are left out of E."""
    out: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
    requirers: dict[tuple[int, int], list[int]] = {}
    setting: dict[int, list[tuple[int, int | None, int]]] = {}   # v -> (action, its pre on v, new value)
    for i, a in enumerate(task.actions):
        for fact in a.pre:
            requirers.setdefault(fact, []).append(i)
        pre = dict(a.pre)
        for v, x in a.eff:
            setting.setdefault(v, []).append((i, pre.get(v), x))
    for (v, y), needing in requirers.items():
        falsifying = [i for i, pre, x in setting.get(v, ()) if x != y and pre in (None, y)]
        if falsifying:
            out[(v, y)] = (falsifying, needing)
    return out


def exists_order(task: Task) -> list[int]:
    """A total order of the actions for the exists-step semantics.

    Action a disables b when a can falsify a precondition of b in the same step (see
    `interference`); a set of actions is an exists-step when no action disables one that comes
    later in this order. The order puts b before a where a disables b: the strongly connected
    components of the disabling graph in reverse topological order (Tarjan's algorithm emits
    them so), as Rintanen, Heljanko and Niemela (2006) suggest. Within a component, task order.
    Any order is sound; this one allows the most parallelism a fixed order can.
    """
    # The disabling edges a -> b number sum |E| x |R| over the facts (2.8e9 on a 4x4 blocks board
    # under the piece metric, 77,748 actions), so the graph runs through one node per fact
    # instead, a -> f -> b: linear in sum |E| + |R|. Actions reach each other through fact nodes
    # exactly when they do through disabling edges, so the actions' components and their order
    # are those of the disabling graph (a -> f -> a only puts a fact in a's component).
    n = len(task.actions)
    chains = list(interference(task).values())
    edges: list[list[int]] = [[] for _ in range(n)] + [sorted(needing) for _, needing in chains]
    for k, (falsifying, _) in enumerate(chains):
        for a in falsifying:
            edges[a].append(n + k)
    order: list[int] = []
    for component in _strong_components(edges):
        order += sorted(i for i in component if i < n)
    return order


def _strong_components(edges: list[list[int]]) -> list[list[int]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit), in the order
    Tarjan emits them: every component after all the components it reaches. (No library among
    puzzleplan's dependencies offers this; the algorithm is the textbook one.)"""
    n = len(edges)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            node, k = work.pop()
            if k == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            descended = False
            while k < len(edges[node]):
                child = edges[node][k]
                k += 1
                if index[child] == -1:
                    work.append((node, k))
                    work.append((child, 0))
                    descended = True
                    break
                if on_stack[child]:
                    low[node] = min(low[node], index[child])
            if descended:
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    component.append(w)
                    if w == node:
                        break
                out.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return out
