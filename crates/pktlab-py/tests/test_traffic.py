"""pktlab.traffic.Zipf: sample statistics against the exact distribution."""

import numpy as np
import pytest

import pktlab


def test_exact_table_sample_frequencies():
    n, alpha = 1000, 1.0
    z = pktlab.traffic.Zipf(alpha, names=n, entries=n)
    assert z.entries == n and z.stats()["tv"] < 1e-9
    s = z.sample(1_000_000, seed=5)
    assert s.dtype == np.uint32 and s.min() >= 1 and s.max() <= n
    p = 1.0 / np.arange(1, n + 1) ** alpha
    p /= p.sum()
    counts = np.bincount(s, minlength=n + 1)[1:]
    # every one of the 20 most popular ranks within 5 standard deviations of its mean
    m = len(s)
    sd = np.sqrt(m * p * (1 - p))
    assert np.all(np.abs(counts[:20] - m * p[:20]) < 5 * sd[:20])
    # chi-square over the ranks with an expected count of at least 50
    ok = m * p >= 50
    chi2 = ((counts[ok] - m * p[ok]) ** 2 / (m * p[ok])).sum()
    dof = ok.sum() - 1
    assert chi2 < dof + 6 * np.sqrt(2 * dof)
    assert np.array_equal(z.sample(1000, seed=5), s[:1000])
    assert not np.array_equal(z.sample(1000, seed=6), s[:1000])


def test_large_table_is_uint64_and_has_small_error():
    z = pktlab.traffic.Zipf(0.8)
    assert z.names == 2**32
    s = z.sample(100_000)
    assert s.dtype == np.uint64 and s.max() <= 2**32
    st = z.stats()
    assert st["tv"] < 0.01 and st["ks"] < 0.01


def test_bad_alpha_is_value_error():
    with pytest.raises(ValueError, match="--alpha"):
        pktlab.traffic.Zipf(-1.0, names=10, entries=10)
    with pytest.raises(ValueError, match="merge"):
        pktlab.traffic.Zipf(1.0, names=10, entries=10, merge="nope")


def test_ccn_simulate_hit_ratio_grows_with_size():
    r = pktlab.ccn.simulate(contents=100_000, cs_entries=[100, 1000, 10000], policy="lru",
                            requests=100_000, warmup=10_000, fwd_requests=0, table_entries=4096)
    h = [row["hit_ratio"] for row in r["results"]]
    assert h == sorted(h) and 0 < h[0] < h[-1] < 1
    for row in r["results"]:
        assert row["hit_ratio"] <= row["ideal"] + 0.02
