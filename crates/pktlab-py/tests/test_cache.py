"""pktlab.cache: the CLI's numbers on the synthetic trace, and in-memory traces checked
against a Python LRU."""

import json
from collections import OrderedDict

import numpy as np
import pytest

import pktlab


def test_synthetic_equals_cli(cli):
    r = pktlab.cache.simulate(packets=30_000, policy="lru,hpc4,belady", entries=256)
    c = json.loads(cli("cache", "sim", "--packets", "30000", "--policy", "lru,hpc4,belady",
                       "--entries", "256", "--json").stdout)
    assert r["trace"]["packets"] == c["trace"]["packets"] == 30_000
    for a, b in zip(r["results"], c["results"]):
        for k in ("policy", "entries", "ways", "misses", "cmt_hits", "exchanges", "avg_delay_ns"):
            assert a[k] == b[k], k


def lru_misses(keys, entries):
    cache, misses = OrderedDict(), 0
    for k in keys:
        if k in cache:
            cache.move_to_end(k)
        else:
            misses += 1
            cache[k] = True
            if len(cache) > entries:
                cache.popitem(last=False)
    return misses


def zipf_keys(n, seed=1):
    ranks = pktlab.traffic.Zipf(0.9, names=5000, entries=5000).sample(n, seed=seed)
    return ranks.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)  # wraps mod 2^64


def test_memory_trace_fully_associative_lru_equals_python():
    keys = zipf_keys(20_000)
    r = pktlab.cache.simulate(keys, policy="lru", entries=64, ways=64, timing=False)
    res = r["results"][0]
    assert (res["sets"], res["ways"]) == (1, 64)
    assert r["trace"]["packets"] == 20_000 and r["trace"]["flows"] == len(set(keys.tolist()))
    assert res["misses"] == lru_misses(keys.tolist(), 64)


def test_iterator_and_five_tuples():
    keys = zipf_keys(5000, seed=2)
    a = pktlab.cache.simulate(keys, policy=["lru", "hpc4"], entries=128)
    b = pktlab.cache.simulate(iter(keys.tolist()), policy=["lru", "hpc4"], entries=128)
    assert [x["misses"] for x in a["results"]] == [x["misses"] for x in b["results"]]
    tuples = [(0x0A000000 | int(k % 5000), 0x0A0000FE, 1000 + int(k % 7), 80, 6) for k in keys]
    t1 = pktlab.cache.simulate(np.array(tuples, dtype=np.uint64), policy="lru", entries=128, timing=False)
    t2 = pktlab.cache.simulate(iter(tuples), policy="lru", entries=128, timing=False)
    assert t1["results"][0]["misses"] == t2["results"][0]["misses"] > 0
    ts = np.arange(5000, dtype=np.uint64) * 1000
    t3 = pktlab.cache.simulate(keys, policy="lru", entries=128, timestamps=ts)
    assert t3["results"][0]["packets"] == 5000


def test_sweep_miss_rate_falls():
    r = pktlab.cache.sweep(zipf_keys(20_000), policy="lru", min_bytes=1024, max_bytes=16384, timing=False)
    rates = [p["miss_rate"] for p in r["points"]]
    assert [p["bytes"] for p in r["points"]] == [1024, 2048, 4096, 8192, 16384]
    assert all(b <= a for a, b in zip(rates, rates[1:]))


def test_bad_arguments(cli):
    with pytest.raises(ValueError) as e:
        pktlab.cache.simulate(policy="nope", packets=1000)
    r = cli("cache", "sim", "--policy", "nope", "--packets", "1000", check=False)
    assert r.stderr.strip().splitlines()[-1] == f"pktlab: error: {e.value}"
    with pytest.raises(ValueError, match="unknown parameter 'entires'"):
        pktlab.cache.simulate(entires=3)
    with pytest.raises(ValueError, match="timestamp"):
        pktlab.cache.simulate(np.arange(3, dtype=np.uint64), timestamps=np.array([3, 2, 1], dtype=np.uint64))
    with pytest.raises(ValueError, match=r"\(n, 5\)"):
        pktlab.cache.simulate(np.zeros((4, 3), dtype=np.uint64))
