"""Which worker owns a state: a hash every process agrees on, and layers packed for the trip.

The owner of a state must not depend on the process (Python salts the hash of str and bytes per
process): bytes states of one length (tiles, Rush Hour) are owned by a fixed weighted sum of
their bytes, computed for a whole layer at once with numpy, and travel between workers as one
blob per layer; any other state goes through `stable_hash` (int, str, bytes, None, tuples and
frozensets of them; anything else by its pickle, which is deterministic for plain values but
not for sets).
"""
from __future__ import annotations

import pickle
from typing import Any, Callable
from zlib import crc32

_MASK = (1 << 64) - 1


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

    bytes states (of the sample's length) use a weighted byte sum, which `owners_of_blob`
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


def owners_of_blob(blob: bytes, size: int, workers: int) -> Any:
    """The owners of the equal-length bytes states packed in `blob` (numpy, same as owner_function)."""
    import numpy as np
    rows = np.frombuffer(blob, dtype=np.uint8).reshape(-1, size)
    sums = np.zeros(len(rows), dtype=np.uint64)
    for i, weight in enumerate(_byte_weights(size)):  # column by column: far faster than a row sum
        sums += rows[:, i].astype(np.uint64) * np.uint64(weight)
    return (sums >> np.uint64(32)) % np.uint64(workers)


def pack_states(items: list[Any]) -> tuple[int, Any]:
    """Equal-length bytes states travel as one blob (much cheaper to pickle than a list)."""
    if items and type(items[0]) is bytes:
        size = len(items[0])
        blob = b"".join(items)
        if size and len(blob) == size * len(items):
            return size, blob
    return 0, items


def unpack_states(packed: tuple[int, Any]) -> Any:
    """An iterable of the states of `pack_states` (slices made at C speed)."""
    size, data = packed
    if size:
        n = len(data)
        return map(data.__getitem__, map(slice, range(0, n, size), range(size, n + size, size)))
    return data
