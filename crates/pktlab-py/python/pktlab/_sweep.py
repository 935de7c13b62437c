"""``pktlab.sweep``: a parameter grid × seeds, one task per point, as DataFrame rows."""

import itertools
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from ._parallel import pmap


def _points(grid: Dict[str, Iterable[Any]], seeds: Union[None, int, Iterable[int]]):
    keys = list(grid)
    values = [list(grid[k]) for k in keys]
    if seeds is None:
        seed_list = [None]
    elif isinstance(seeds, int):
        if seeds < 1:
            raise ValueError(f"seeds must be at least 1 (got {seeds})")
        seed_list = list(range(1, seeds + 1))
    else:
        seed_list = list(seeds)
    for combo in itertools.product(*values):
        for s in seed_list:
            p = dict(zip(keys, combo))
            if s is not None:
                p["seed"] = s
            yield p


def _row(point: Dict[str, Any], result: Any) -> Dict[str, Any]:
    if isinstance(result, dict):
        return {**point, **result}
    return {**point, "result": result}


def sweep(
    fn: Callable[..., Any],
    grid: Dict[str, Iterable[Any]],
    seeds: Union[None, int, Iterable[int]] = None,
    backend: str = "local",
    address: Optional[str] = None,
    workers: Optional[int] = None,
) -> List[Dict[str, Any]]:
    """Calls ``fn(**point)`` for every point of the grid (the cartesian product of
    ``grid``'s value lists), once per seed (``seeds``: a count, giving seeds 1..n, or a list;
    passed as ``seed=``), one task per call, and returns one row per call in grid order:
    the point's parameters merged with ``fn``'s result if it is a dict, else under
    ``"result"``, ready for ``pandas.DataFrame(rows)``.

    ``backend="local"``: a thread pool of ``workers`` threads (default: all cores; pktlab's
    calls release the GIL). ``backend="ray"``: Ray tasks on the cluster at ``address``, or a
    local Ray cluster when it is None. Both give the same rows for the same seeds: every
    pktlab experiment is deterministic given its configuration.
    """
    points = list(_points(grid, seeds))
    results, _, _ = pmap(fn, [((), p) for p in points], backend, address, workers)
    return [_row(p, r) for p, r in zip(points, results)]
