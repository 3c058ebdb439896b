"""Parallel search over processes (pbfs); the threaded array layers live in search/layered."""
