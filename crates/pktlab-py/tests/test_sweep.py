"""pktlab.sweep on threads, and on a local Ray cluster (identical rows)."""

import json
import sys

import pytest

import pktlab


def miss(policy, entries, seed):
    r = pktlab.cache.simulate(packets=20_000, seed=seed, policy=policy, entries=entries)["results"][0]
    return {"miss_rate": r["miss_rate"], "misses": r["misses"]}


GRID = {"policy": ["lru", "hpc4"], "entries": [128, 512]}


def test_local_sweep_rows():
    rows = pktlab.sweep(miss, GRID, seeds=2)
    assert len(rows) == 8
    assert [(r["policy"], r["entries"], r["seed"]) for r in rows[:3]] == [("lru", 128, 1), ("lru", 128, 2), ("lru", 512, 1)]
    assert rows[3]["misses"] == miss("lru", 512, 2)["misses"]
    assert rows[0]["miss_rate"] >= rows[2]["miss_rate"]
    with pytest.raises(ValueError, match="backend"):
        pktlab.sweep(miss, GRID, backend="spark")


def test_ray_equals_local():
    ray = pytest.importorskip("ray")
    # the task function lives in this test module, which Ray's workers cannot import
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        local = pktlab.sweep(miss, GRID, seeds=2)
        remote = pktlab.sweep(miss, GRID, seeds=2, backend="ray")
        assert remote == local
        study = dict(conns=[4], a=[1.0, 4.0], seeds=2, duration=3.0, warmup=1.0)
        a = pktlab.aqm.study("fig7", backend="ray", **study)
        b = pktlab.aqm.study("fig7", backend="local", **study)
        same = [json.dumps(pktlab.aqm.without_wall_times(r), sort_keys=True) for r in (a, b)]
        assert same[0] == same[1]
    finally:
        ray.shutdown()
