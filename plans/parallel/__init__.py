"""Parallel search over processes (pbfs): `partition` (who owns a state), `worker` (a worker's
share of each layer), `group` (the parent side), `pbfs` (the engine and the exploration). The
threaded array layers live in search/layered."""
