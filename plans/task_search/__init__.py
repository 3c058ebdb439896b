"""Generic native search over the planning-task IR: any model that compiles to a task.

The engines `task-bfs`, `task-astar` and `task-idastar` (registered in plans/core/engines.py)
search the compiled task (`puzzleplan.models.task.compile.compiled`), not the family's own
move generator, so user families and the rules and PDDL families get optimal solvers, and the
built-in families a generic baseline to compare their tuned engines with. All three are
optimal by plan cost (0-cost actions included) and take `max_moves` as a cap on cost.

Modules, one job each:

    packing       a task state as one Python int (a bit field per variable)
    successors    the successor generator over packed states (masks and values per action)
    space         a packed task as the loops see it; their outcome
    hmax          the h^max heuristic (relaxed costs over facts)
    pdb           one projection pattern database (abstract graph, backward Dijkstra)
    patterns      choosing patterns along the causal graph
    heuristics    the named heuristics (blind, hmax, pdb) as functions of a packed state
    breadth       breadth-first search (unit costs)
    best_first    A* by cost (uniform-cost search with h = 0)
    depth_first   IDA* by cost, with a transposition table and backed-up values
    engines       the engine entry points (`run_*`, `supports`)

Why Python ints and not numpy or numba: a Rush Hour task packs into 72 bits and a Sokoban
level into 225, beyond one machine word; one int per state keeps the search's tables plain
dicts, and the successor generator is a few masks per candidate action (1-4 microseconds a
state on the examples). The heavy array work, building pattern databases, is numpy.
"""
