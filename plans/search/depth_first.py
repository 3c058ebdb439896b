"""The generic depth-first searchers behind IDA* and capped DFS, for any model.

`GenericDepthFirst.bounded` is the depth-first pass IDA* iterates: paths never revisit a state
already on the path, and three tables of up to `TABLE_BUDGET` states each make it a search of the
graph rather than of its paths:

- per pass, the least depth each state was expanded at: a state reached again no shallower is
  skipped;
- across passes, learned bounds H (backed-up values): when a state's children are done, its H
  rises to their least 1 + H, so later passes stop walking into subtrees that proved deeper;
- across passes, every state generated and whether it was ever expanded: when all were, the
  reachable space is exhausted, and with no goal in it the instance is proved unsolvable.

Without them a pass walked every simple path, which in a cyclic space outnumber the states by far:
a 513-state Rush Hour board with no solution ran until the time limit (1.6M nodes in 5 s; now
2,916 nodes, 0.03 s), and neither Rush Hour seed 000 (93 moves) nor Klotski (116) finished in 60
s (now 356,184 nodes in 3.7-4.8 s and 813,554 in 16 s). Past its budget a table stops growing
(learned bounds, which also stop rising once the record of states is dropped) or is dropped (the
others), and the pass goes on with what is left, down to the plain tree search with memory linear
in depth. A model may offer a compiled searcher with the same `bounded` method
(`model.native_searcher()`); `searcher_for` picks it.

`GenericDepthFirst.within_cap` is capped DFS's graph search: a depth-first pass with a table of
the smallest depth each state was reached at, then a breadth-first repair of the states later
reached at a smaller depth (see its docstring, and `plans.search.dfs` for why it is complete).
"""
from __future__ import annotations

from typing import Any

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Action, DepthFirstSearcher, Model, State
from puzzleplan.plans.core.memory import resident_mb
from puzzleplan.plans.search.common import POLL_EVERY

UNBOUNDED = 1 << 62        # no child settled yet
TABLE_BUDGET = 1_000_000   # states each table of `bounded` holds at most (per pass; learned bounds)


class GenericDepthFirst:
    """Depth-first search over `model.successors`, pruning on g + H > bound, where H is h raised
    by what earlier passes learned."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.h0 = model.h(model.initial())
        self.learned: dict[Any, int] = {}   # H above h: a state's least 1 + H over its children
        # every state generated in any pass -> expanded in some pass yet (None past the budget)
        self.seen: dict[Any, bool] | None = {model.initial(): True}
        self.expanded = 1
        self._next_poll = POLL_EVERY        # generated children at the next limit check

    def _estimate(self, state: State) -> int:
        value = self.learned.get(state)
        return self.model.h(state) if value is None else value

    def _learn(self, state: State, value: int) -> None:
        # Not once `seen` is dropped: on a cycle with no way out learned values rise every pass,
        # and only the exhaustion test (which needs `seen`) would end a space without a goal;
        # frozen, they are a fixed admissible h, and the tree search ends as it always did.
        if self.seen is not None and value > self._estimate(state) and (
                state in self.learned or len(self.learned) < TABLE_BUDGET):
            self.learned[state] = value

    def _count_stored(self, stats: Any, depth_of: dict[Any, int] | None) -> None:
        """States stored: the largest of the tables (most states are in all three)."""
        stats.states = max(stats.states, len(self.seen or ()), len(self.learned), len(depth_of or ()))

    def _children(self, state: State, ordered: bool, ctx: SearchContext) -> list[tuple[int, Action, State]]:
        kids = [(self._estimate(child), action, child) for action, child in self.model.successors(state)]
        ctx.stats.generated += len(kids)
        # the limits by work as well as by nodes: on a large board a node has dozens of children,
        # and POLL_EVERY nodes took 6 s of a 1 s limit (Rush Hour 12x12)
        if ctx.stats.generated >= self._next_poll:
            self._next_poll = ctx.stats.generated + POLL_EVERY
            ctx.poll()
        seen = self.seen
        if seen is not None:
            for _, _, child in kids:
                seen.setdefault(child, False)
            if len(seen) > TABLE_BUDGET:
                self.seen = None
        if ordered:
            kids.sort(key=lambda k: k[0])
        kids.reverse()  # popped from the end
        return kids

    def bounded(self, bound: int, ctx: SearchContext, ordered: bool = False) -> tuple[list[Action] | None, int | None]:
        """Every path with g + H <= bound. Returns (actions, None) or (None, next bound or None).

        Skipping a state reached again at a depth no smaller than the one it was expanded at keeps
        the pass complete: its subtree was searched with at least as much of the bound left (a
        state still on the path is a cycle, skipped anyway). When a state's children are done, its
        H rises to their least 1 + H (Reinefeld and Marsland's backed-up values): admissible
        whatever the pass skipped, since it is a one-step lookahead over admissible values, and it
        keeps a later pass from walking again into subtrees that proved deeper than h said."""
        model = self.model
        start = model.initial()
        h0 = self._estimate(start)
        if h0 > bound:
            return None, h0
        if model.is_goal(start):
            return [], None
        stats = ctx.stats
        next_bound: int | None = None
        on_path = {start}
        path_states = [start]
        actions: list[Any] = []
        depth_of: dict[Any, int] | None = {start: 0}   # the table; None once past the budget
        stack = [self._children(start, ordered, ctx)]
        backed = [UNBOUNDED]   # per frame: least 1 + H among its children settled so far
        stats.nodes += 1
        while stack:
            kids = stack[-1]
            if not kids:
                stack.pop()
                state = path_states.pop()
                on_path.discard(state)
                value = backed.pop()
                if value < UNBOUNDED:
                    self._learn(state, value)
                if backed:
                    backed[-1] = min(backed[-1], 1 + self._estimate(state))
                if actions:
                    actions.pop()
                continue
            h, action, child = kids.pop()
            if child in on_path:   # a cycle: never a cut, so a pass whose only cuts close cycles ends the search
                backed[-1] = min(backed[-1], 1 + self._estimate(child))
                continue
            g = len(stack)
            f = g + h
            if f > bound:
                if next_bound is None or f < next_bound:
                    next_bound = f
                backed[-1] = min(backed[-1], 1 + h)
                continue
            if depth_of is not None:
                seen = depth_of.get(child)
                if seen is not None and seen <= g:
                    backed[-1] = min(backed[-1], 1 + self._estimate(child))
                    continue
            if model.is_goal(child):
                self._count_stored(stats, depth_of)
                return actions + [action], None
            stats.nodes += 1
            if stats.nodes % POLL_EVERY == 0:
                self._count_stored(stats, depth_of)
                ctx.poll()
            if depth_of is not None:
                depth_of[child] = g
                if len(depth_of) > TABLE_BUDGET:
                    depth_of = None
            if self.seen is not None and not self.seen[child]:
                self.seen[child] = True
                self.expanded += 1
            actions.append(action)
            on_path.add(child)
            path_states.append(child)
            stack.append(self._children(child, ordered, ctx))
            backed.append(UNBOUNDED)
        self._count_stored(stats, depth_of)
        if self.seen is not None and self.expanded == len(self.seen):
            return None, None   # every state ever generated was expanded: the whole reachable space
        return None, next_bound

    def within_cap(self, cap: int, ctx: SearchContext) -> tuple[list[Action] | None, bool]:
        """A plan of at most `cap` moves, or None when none exists. Returns (actions, pruned):
        `pruned` is False when nothing was cut by the cap, so None then means no plan at all.

        The table maps each stored state to [depth, h, parent, action]: the smallest depth it has
        been reached at, by the path through `parent`. Phase 1 is depth-first, children best-h
        first, each state expanded once, at the depth it was first stored with; a stored state
        reached again at a smaller depth gets that depth and goes to the repair queue instead of
        being expanded again at once. Phase 2 expands the queue a depth at a time, smallest first,
        so each state is expanded there at most once, at its final depth: at most two expansions
        per state in all (re-expanding at once instead expanded each state of Rush Hour seed 000
        about eight times: 2.4 s against 0.4 s). g + h > cap prunes a child in both phases.
        """
        model, stats = self.model, ctx.stats
        start = model.initial()
        if model.is_goal(start):
            return [], False
        if self.h0 > cap or cap == 0:
            return None, True
        table: dict[Any, list[Any]] = {start: [0, self.h0, None, None]}
        repair: list[list[Any]] = [[] for _ in range(cap + 1)]
        pruned = False

        def expand(state: Any, g: int) -> tuple[tuple[Any] | None, list[tuple[int, Any, Any]]]:
            """Generate state's children at depth g + 1: ((the move to a goal,) or None, new ones)."""
            nonlocal pruned
            stats.nodes += 1
            if stats.nodes % POLL_EVERY == 0 or stats.generated >= self._next_poll:   # by nodes or by work
                self._next_poll = stats.generated + POLL_EVERY
                stats.states = len(table)
                ctx.poll()
            cg = g + 1
            kids = []
            for action, child in model.successors(state):
                stats.generated += 1
                node = table.get(child)
                if node is not None and node[0] <= cg:
                    continue
                if model.is_goal(child):
                    return (action,), kids
                h = model.h(child) if node is None else node[1]
                if cg + h > cap:
                    pruned = True
                elif node is None:
                    kids.append((h, action, child))
                else:
                    node[0], node[2], node[3] = cg, state, action
                    repair[cg].append(child)
            return None, kids

        def plan(state: Any, last: tuple[Any]) -> list[Any]:
            actions = list(last)
            node = table[state]
            while node[0]:  # the start alone is stored at depth 0
                actions.append(node[3])
                node = table[node[2]]
            actions.reverse()
            return actions

        # phase 1: depth-first, each state expanded once
        found, kids = expand(start, 0)
        if found is not None:
            return list(found), pruned
        kids.sort(key=lambda k: -k[0])  # best h popped first
        stack, states = [kids], [start]
        while stack:
            kids = stack[-1]
            if not kids:
                stack.pop()
                states.pop()
                continue
            h, action, child = kids.pop()
            g = len(stack)
            node = table.get(child)
            if node is not None:  # stored since it was generated: keep the smaller depth
                if g < node[0]:
                    node[0], node[2], node[3] = g, states[-1], action
                    repair[g].append(child)
                continue
            table[child] = [g, h, states[-1], action]
            stats.depth = max(stats.depth, g)
            if g == cap:
                pruned = True
                continue
            found, kids = expand(child, g)
            if found is not None:
                stats.states = len(table)
                return plan(child, found), pruned
            kids.sort(key=lambda k: -k[0])
            stack.append(kids)
            states.append(child)
        # phase 2: states reached shallower after their expansion, and what they reach in turn,
        # a depth at a time, smallest first
        for g in range(cap):
            if repair[g]:
                stats.depth = max(stats.depth, g)
            for state in repair[g]:
                if table[state][0] != g:
                    continue  # reached at a smaller depth since: expanded there
                found, kids = expand(state, g)
                if found is not None:
                    stats.states = len(table)
                    return plan(state, found), pruned
                for h, action, child in kids:
                    if child not in table:  # a child may come twice by different moves
                        table[child] = [g + 1, h, state, action]
                        repair[g + 1].append(child)
            repair[g] = []
        stats.states = len(table)
        return None, pruned or bool(repair[cap])  # states stored at the cap were not expanded


def searcher_for(model: Model, ctx: SearchContext, options: dict[str, Any]) -> DepthFirstSearcher:
    """The model's compiled searcher when it has one (unless options["native"] is False), else
    the generic one. Building its tables (pattern databases) polls the context's limits.

    The hook has one signature (`ModelBase.native_searcher`): (heuristic, progress=,
    memory_limit_mb=), plus partition= when the request names one; it returns None when the
    family has no compiled searcher for this instance."""
    make = getattr(model, "native_searcher", None)  # optional: a model of the bare protocol has none
    if options.get("native", True) and make is not None:
        started = ctx.elapsed()
        extra: dict[str, Any] = {"partition": options["partition"]} if options.get("partition") else {}
        if ctx.limits.memory_mb is None:
            extra["memory_limit_mb"] = float("inf")
        else:  # the limit is on the whole process: tables get what it does not hold yet
            extra["memory_limit_mb"] = max(0.0, ctx.limits.memory_mb - resident_mb())

        def building(done: int, total: int) -> None:
            ctx.count("building pattern databases", done, total)   # a bar; the limits stop the build
        fast = make(options.get("heuristic"), progress=building, **extra)
        if fast is not None:
            ctx.stats.extra["setup_seconds"] = round(ctx.elapsed() - started, 6)  # tables, compiled kernels
            for key in ("heuristic_name", "pdb_seconds"):   # what a table-driven searcher reports
                if hasattr(fast, key):
                    ctx.stats.extra[key.replace("_name", "")] = getattr(fast, key)
            return fast
    return GenericDepthFirst(model)
