"""The native search engines over a model's `successors` (each module an engine: `run` beside
`supports`), and the loops they share: `breadth_first` (the layered sweep of bfs, explore and
all-optimal), `best_first` (A* and greedy), `depth_first` (IDA* and capped DFS), `layered` (the
array sweep over packed states) and `common` (results, plans traced back)."""
