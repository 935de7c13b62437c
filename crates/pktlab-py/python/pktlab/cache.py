"""Packet processing cache simulation (paper 000, Hit Priority Cache).

``trace`` is a capture or compact trace path, ``"synthetic"`` (the AGH-calibrated generator,
``packets``/``seed``/``flow_rate`` apply), a NumPy array of flow keys (``uint64``, one per
packet, opaque) or of IPv4 5-tuples (``uint64`` of shape (n, 5): src, dst, sport, dport,
proto), or an iterator of either (ints or 5-tuples). In-memory packets are ``interval_ns``
apart unless ``timestamps`` (``uint64`` ns, non-decreasing) are given."""

import os
from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import _pktlab
from ._config import build


def _integers(a: np.ndarray, what: str) -> np.ndarray:
    """``a`` as contiguous ``uint64`` if its dtype is an integer one (signed values are taken
    modulo 2^64, as opaque keys); floats, NaN, booleans and objects are refused."""
    if a.dtype == object or not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"{what}: expected integers, got dtype {a.dtype}")
    return np.ascontiguousarray(a.astype(np.uint64, copy=False))


def _keys(a: np.ndarray) -> np.ndarray:
    """A key array checked: integer, 1-D (flow keys) or (n, 5) (5-tuples)."""
    if not (a.ndim == 1 or (a.ndim == 2 and a.shape[1] == 5)):
        raise ValueError(
            "trace: expected a 1-D array of flow keys or an (n, 5) array of 5-tuples "
            f"(src, dst, sport, dport, proto), got shape {a.shape}"
        )
    return _integers(a, "trace")


def _trace(trace) -> Tuple[Optional[str], Optional[np.ndarray]]:
    if isinstance(trace, (str, os.PathLike)):
        return os.fspath(trace), None
    if isinstance(trace, np.ndarray):
        return None, _keys(trace)
    try:
        it = iter(trace)
    except TypeError:
        raise TypeError(
            f"trace: expected a path, a NumPy array or an iterator of flow keys, got {type(trace).__name__}"
        ) from None
    items = list(it)  # an exception of the iterator itself (a generator's) propagates as is
    if not items:
        raise ValueError("trace: no packets")
    return None, _from_items(items)


def _from_items(items) -> np.ndarray:
    """Flow keys (ints) or 5-tuples (sequences of 5 ints) as a checked ``uint64`` array."""
    rows = isinstance(items[0], (tuple, list))
    for i, x in enumerate(items):
        vals = x if rows else (x,)
        if rows and (not isinstance(x, (tuple, list)) or len(x) != 5):
            raise ValueError(f"trace: packet {i}: expected a 5-tuple (src, dst, sport, dport, proto), got {x!r}")
        for v in vals:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"trace: packet {i}: expected integers, got {type(v).__name__} {v!r}")
    try:
        return np.array(items, dtype=np.uint64)
    except OverflowError:
        raise ValueError("trace: flow keys must be in 0..2^64-1") from None


def _call(name: str, trace, timing: bool, timestamps, interval_ns: int, policy, kw) -> Dict[str, Any]:
    path, keys = _trace(trace)
    if isinstance(policy, (list, tuple)):
        policy = ",".join(policy)
    if path is not None:
        kw["trace"] = path
    cfg = build(name, policy=policy, no_timing=not timing, **kw)
    ts = None
    if timestamps is not None:
        ts = np.asarray(timestamps)
        if ts.ndim != 1:
            raise ValueError(f"timestamps: expected a 1-D array, got shape {ts.shape}")
        ts = _integers(ts, "timestamps")
    if ts is not None and keys is None:
        raise ValueError("timestamps: only for in-memory traces (a NumPy array or an iterator)")
    return _pktlab.cache_run(name.split(".")[1], cfg, keys, ts, interval_ns)


def simulate(
    trace="synthetic",
    policy="lru,slru,hpc1,hpc2,hpc4,hpc8,hpc16",
    entries: int = 1024,
    ways: Optional[int] = None,
    timing: bool = True,
    timestamps=None,
    interval_ns: int = 100,
    **kw,
) -> Dict[str, Any]:
    """``pktlab cache sim``: every policy (a comma-separated string or a list; ``paper``,
    ``all``) with ``entries`` entries and ``ways`` ways (None: the policy's own) on one
    pass over ``trace``; ``timing=False`` drops the PE/CMT timing model. Other keys as
    ``pktlab.defaults("cache.sim")`` (packets, seed, pes, lookup_ns, index, …)."""
    return _call("cache.sim", trace, timing, timestamps, interval_ns, policy,
                 dict(kw, entries=entries, ways=ways))


def sweep(
    trace="synthetic",
    policy="lru,slru,hpc1,hpc2,hpc4,hpc8,hpc16",
    min_bytes: int = 1024,
    max_bytes: int = 1 << 20,
    entry_bytes: int = 32,
    timing: bool = True,
    timestamps=None,
    interval_ns: int = 100,
    **kw,
) -> Dict[str, Any]:
    """``pktlab cache sweep``: the miss rate of every policy at cache sizes doubling from
    ``min_bytes`` to ``max_bytes`` (paper 000 fig. 2), all on one pass over ``trace``."""
    return _call("cache.sweep", trace, timing, timestamps, interval_ns, policy,
                 dict(kw, min_bytes=min_bytes, max_bytes=max_bytes, entry_bytes=entry_bytes))


__all__ = ["simulate", "sweep"]
