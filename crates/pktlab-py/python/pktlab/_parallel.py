"""One task per call, on local threads or on a Ray cluster; results in call order.

Every pktlab call releases the GIL while Rust works, so the local backend is a thread pool
(no pickling, no processes). The Ray backend sends each call to a worker as a task
(``ray.remote``) on an existing cluster (``address``) or on a local one it starts."""

import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, List, Optional, Sequence, Tuple

BACKENDS = ("local", "ray")


def ray_init(address: Optional[str] = None, workers: Optional[int] = None):
    """Connects to the Ray cluster at ``address`` (``"auto"``, ``"ray://host:10001"``, …) or,
    without one, starts a local cluster of ``workers`` CPUs (default: all); no-op if Ray is
    already initialised. Returns the ``ray`` module."""
    try:
        import ray
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ValueError("backend 'ray' needs the ray package: pip install 'ray>=2.9'") from e
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers or os.cpu_count(), log_to_driver=False, include_dashboard=False)
    return ray


def _apply(fn, *args, **kwargs):
    """Calls ``fn``: the Ray task body (``fn`` may be a Rust builtin, which ``ray.remote``
    does not take itself)."""
    return fn(*args, **kwargs)


def pmap(
    fn: Callable[..., Any],
    calls: Sequence[Tuple[tuple, dict]],
    backend: str = "local",
    address: Optional[str] = None,
    workers: Optional[int] = None,
) -> Tuple[List[Any], float, int]:
    """Runs ``fn(*args, **kwargs)`` for every ``(args, kwargs)`` of ``calls``; returns the
    results in call order, the wall time in seconds (without starting Ray) and the number of
    parallel workers."""
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if backend == "local":
        t0 = time.perf_counter()
        n = workers or os.cpu_count() or 1
        with ThreadPoolExecutor(max_workers=n) as ex:
            futs = [ex.submit(fn, *a, **k) for a, k in calls]
            out = [f.result() for f in futs]
        return out, time.perf_counter() - t0, n
    ray = ray_init(address, workers)
    t0 = time.perf_counter()
    task = ray.remote(num_cpus=1)(_apply)
    f = ray.put(fn)
    refs = [task.remote(f, *a, **k) for a, k in calls]
    out = ray.get(refs)
    n = int(ray.cluster_resources().get("CPU", 1))
    return out, time.perf_counter() - t0, n
