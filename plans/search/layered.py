"""Breadth-first search over packed integer states, a whole layer at a time, in numpy arrays.

A family that can pack its states into one uint64 offers a `PackedSpace` (`model.packed_space()`,
the contract in `plans.core.contracts`):
a vectorised move generator over an array of packed states. The search then never touches a
Python object per state: each layer is a sorted uint64 array, successors come from a few array
operations per layer (numpy's compiled loops, about 50 ns a state), duplicates go by sorting.
Stored per state: its key, its parent's index in the previous layer and its move code, 16 bytes
(`bfs`); `explore` keeps only two layers.

Why numpy and not a numba kernel: importing numba alone takes longer (0.27 s measured) than
the whole of a 24,000-state Rush Hour search in this form, and the per-state cost of the
vectorised layer is of the same order as a compiled loop's. Tiles keep their numba IDA*
kernel, where a search runs for seconds.

Reversible spaces (every move undone by one move: tiles, Rush Hour) need duplicate checks only
against the previous and the current layer (a child of layer d lies in d - 1, d or d + 1), so
memory and time stay proportional to the layers, never to a global visited set. Other spaces
are checked against every stored layer.

Limits: `ctx.poll()` runs between chunks of at most CHUNK states, with `stats.states` up to date,
so --time-limit, --max-states and --memory-limit end the search cleanly between chunks. The
merge of a layer's chunks allocates several times the chunks' arrays at once, so its memory is
reserved first (`ctx.reserve`): a merge that would pass the limit ends the search before it
(it took 3x4 and 3x5 boards to 2-2.6 times the limit).

Workers (`explore --workers N`, `solve --engine pbfs --workers N`): the chunks of a layer go to N
threads; the layer's final merge stays serial (3x4 tiles, 4,989,600 states: 1.67 s with one
thread, 0.98 s with two on the 2-core machine).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import ContextManager, Sequence

import numpy as np

from puzzleplan.plans.core.context import SearchContext
from puzzleplan.plans.core.contracts import Action, Model, PackedSpace

CHUNK = 1 << 18   # states expanded per numpy pass (bounds the temporary arrays: about 40 MB)
MIN_THREAD_CHUNK = 1 << 12   # smaller pieces are not worth a thread hand-off


@dataclass
class Layer:
    """One breadth-first layer: sorted keys, and for `bfs` each key's parent index and move code."""

    keys: np.ndarray
    parent: np.ndarray | None = None
    code: np.ndarray | None = None


def packed_space(model: Model) -> PackedSpace | None:
    """The model's packed space, or None when it has none (or its states do not fit 64 bits)."""
    make = getattr(model, "packed_space", None)
    return make() if make is not None else None


def worker_pool(workers: int) -> ContextManager[ThreadPoolExecutor | None]:
    """The threads `next_layer` spreads a layer over, or no pool for one worker."""
    return ThreadPoolExecutor(workers, thread_name_prefix="layers") if workers > 1 else nullcontext()


def _contains(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Membership of each of `keys` in a sorted array."""
    if sorted_keys.size == 0:
        return np.zeros(keys.shape, dtype=bool)
    at = np.searchsorted(sorted_keys, keys)
    at[at == sorted_keys.size] = 0
    return sorted_keys[at] == keys


def _first_of_each(keys: np.ndarray, *with_: np.ndarray) -> tuple[np.ndarray, ...]:
    """Sorted distinct keys, each with the companions of its first occurrence."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first = np.ones(ordered.shape, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    pick = order[first]
    return (keys[pick], *(w[pick] for w in with_))


def next_layer(space: PackedSpace, layers: Sequence[Layer], ctx: SearchContext, keep_links: bool,
               pool: ThreadPoolExecutor | None = None, workers: int = 1) -> Layer:
    """The states one move from the last layer that no stored layer holds (sorted).

    With a thread pool the layer's chunks are expanded and filtered by `workers` threads at once
    (numpy releases the GIL in its loops, sorts and searches); limits are still checked here.
    """
    current = layers[-1].keys
    older = [layer.keys for layer in (layers[-2:] if space.reversible else layers)]
    step = CHUNK if pool is None else max(MIN_THREAD_CHUNK, min(CHUNK, -(-current.size // (2 * workers))))

    def chunk(lo: int) -> tuple[int, int, tuple[np.ndarray, ...]]:
        children, parent, code = space.expand(current[lo:lo + step])
        return min(step, current.size - lo), children.size, _unseen(older, children, parent + lo, code)

    starts = range(0, current.size, step)
    parts: list[tuple[np.ndarray, ...]] = []
    stored = ctx.stats.states
    for expanded, generated, part in (map(chunk, starts) if pool is None else pool.map(chunk, starts)):
        ctx.stats.nodes += expanded
        ctx.stats.generated += generated
        parts.append(part)
        ctx.stats.states = stored + sum(p[0].size for p in parts)  # at most: chunks may share states
        ctx.poll()
    ctx.stats.states = stored   # the caller adds the layer's exact size
    if len(parts) > 1:
        ctx.reserve(_merge_bytes(parts), "merging the next layer")
    if len(parts) == 1:
        keys, parent, code = parts[0]
    elif parts:
        keys, parent, code = _first_of_each(*(np.concatenate(p) for p in zip(*parts)))
    else:
        return Layer(np.zeros(0, dtype=np.uint64))
    if not keep_links:
        return Layer(keys)
    return Layer(keys, parent.astype(np.int32 if current.size < 2**31 else np.int64), code.astype(np.int32))


def _merge_bytes(parts: Sequence[tuple[np.ndarray, ...]]) -> int:
    """Peak memory `_first_of_each` adds over the chunks' arrays: their concatenation, the
    sort's order and sorted keys, the first-occurrence flags and picks, and the result."""
    rows = sum(p[0].size for p in parts)
    row_bytes = sum(a.itemsize for a in parts[0])
    return rows * (2 * row_bytes + 8 + 8 + 1 + 8)


def _unseen(older: Sequence[np.ndarray], children: np.ndarray, *with_: np.ndarray) -> tuple[np.ndarray, ...]:
    """Sorted distinct children in none of the sorted arrays `older`, each with the companions of
    one occurrence (any will do: every parent of a new state lies in the layer just expanded)."""
    order = np.argsort(children)
    ordered = children[order]
    first = np.ones(ordered.shape, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    keep = first
    for old in older:   # sorted needles: the binary searches stay in cache
        keep[keep] = ~_contains(old, ordered[keep])
    pick = order[keep]
    return (ordered[keep], *(w[pick] for w in with_))


def trace(space: PackedSpace, layers: Sequence[Layer], index: int) -> list[Action]:
    """The actions from the start to state `index` of the last layer."""
    codes = []
    for layer in reversed(layers[1:]):
        assert layer.parent is not None and layer.code is not None
        codes.append(int(layer.code[index]))
        index = int(layer.parent[index])
    return [space.action(c) for c in reversed(codes)]
