"""pktlab.Lpm: NumPy lookups equal the radix oracle and an independent Python oracle."""

import ipaddress
import random

import numpy as np
import pytest

import pktlab

ALGOS = ["poptrie18", "poptrie16", "poptrie0", "treebitmap", "sail", "d16r", "d18r", "dir24_8"]


def random_routes(n, seed, v6=False):
    rng = random.Random(seed)
    bits = 128 if v6 else 32
    out = {}
    while len(out) < n:
        length = rng.randint(8 if not v6 else 16, 32 if not v6 else 64)
        addr = rng.getrandbits(bits) >> (bits - length) << (bits - length)
        net = (ipaddress.IPv6Network if v6 else ipaddress.IPv4Network)((addr, length))
        out[str(net)] = rng.randint(1, 1000)
    return list(out.items())


def oracle(routes, v6=False):
    """Longest-prefix match by brute force over prefix lengths (dict per length)."""
    bits = 128 if v6 else 32
    by_len = {}
    for p, nh in routes:
        n = ipaddress.ip_network(p)
        by_len.setdefault(n.prefixlen, {})[int(n.network_address)] = nh
    lens = sorted(by_len, reverse=True)

    def lookup(a):
        for length in lens:
            key = a >> (bits - length) << (bits - length) if length else 0
            nh = by_len[length].get(key)
            if nh is not None:
                return nh
        return 0

    return lookup


def test_v4_lookup_equals_oracles():
    routes = random_routes(3000, 1)
    rng = np.random.default_rng(7)
    addrs = rng.integers(0, 2**32, size=200_000, dtype=np.uint64).astype(np.uint32)
    # every prefix's first and last address too
    bounds = []
    for p, _ in routes:
        n = ipaddress.ip_network(p)
        bounds += [int(n.network_address), int(n.broadcast_address)]
    addrs = np.concatenate([addrs, np.array(bounds, dtype=np.uint32)])
    radix = pktlab.Lpm("radix", routes=routes).lookup(addrs)
    assert radix.dtype == np.uint32 and radix.shape == addrs.shape
    py = oracle(routes)
    sample = addrs[::50]
    assert [py(int(a)) for a in sample] == radix[::50].tolist()
    assert all(py(int(a)) == int(r) for a, r in zip(addrs[-len(bounds):], radix[-len(bounds):]))
    assert (radix != 0).sum() > 0
    for algo in ALGOS:
        got = pktlab.Lpm(algo, routes=routes).lookup(addrs)
        assert np.array_equal(got, radix), algo
    out = np.full(len(addrs), 7, dtype=np.uint32)
    assert pktlab.Lpm("poptrie18", routes=routes).lookup(addrs, out=out) is out
    assert np.array_equal(out, radix)
    with pytest.raises(ValueError, match="out has 3 elements"):
        pktlab.Lpm("radix", routes=routes).lookup(addrs, out=np.zeros(3, dtype=np.uint32))


def test_v6_lookup_equals_oracle():
    routes = random_routes(2000, 2, v6=True)
    lpm = pktlab.Lpm("poptrie18", routes=routes)
    assert lpm.family == "v6"
    rng = np.random.default_rng(3)
    nets = [ipaddress.ip_network(p) for p, _ in routes]
    addrs = [int(n.network_address) | int(rng.integers(0, 2**32)) for n in nets[:1000]]
    addrs += [int(x) << 64 | int(y) for x, y in rng.integers(0, 2**63, size=(1000, 2))]
    arr = np.array([[a >> 64, a & (2**64 - 1)] for a in addrs], dtype=np.uint64)
    got = lpm.lookup(arr)
    py = oracle(routes, v6=True)
    assert got.tolist() == [py(a) for a in addrs]
    assert np.array_equal(got, pktlab.Lpm("radix", routes=routes).lookup(arr))


def test_insert_remove_stats():
    lpm = pktlab.Lpm("poptrie18", routes=[("10.0.0.0/8", 5)])
    a = np.array([int(ipaddress.ip_address("10.1.2.3")), int(ipaddress.ip_address("11.0.0.1"))], dtype=np.uint32)
    assert lpm.lookup(a).tolist() == [5, 0]
    assert lpm.insert("10.1.0.0/16", 7) is None
    assert lpm.insert("10.1.0.0/16", 8) == 7
    assert lpm.lookup(a).tolist() == [8, 0]
    assert lpm.remove("10.1.0.0/16") == 8
    assert lpm.remove("10.1.0.0/16") is None
    assert lpm.lookup(a).tolist() == [5, 0]
    st = lpm.stats()
    assert st["algo"] == "poptrie18" and st["prefixes"] == 1 and st["memory_bytes"] > 0
    assert len(lpm) == 1


def test_ris_table_equals_radix(ris_v4):
    fast = pktlab.Lpm("poptrie18", path=ris_v4)
    radix = pktlab.Lpm("radix", path=ris_v4)
    st = fast.stats()
    assert st["table"]["prefixes"] > 1_000_000 and st["table"]["nexthops"] == "hash:16"
    addrs = np.random.default_rng(1).integers(0, 2**32, size=1_000_000, dtype=np.uint64).astype(np.uint32)
    a, b = fast.lookup(addrs), radix.lookup(addrs)
    assert np.array_equal(a, b)
    assert 0.2 < (a != 0).mean() < 0.9


def test_bad_arguments_raise_value_error_with_cli_message(cli):
    with pytest.raises(ValueError) as e:
        pktlab.Lpm("nope")
    r = cli("lpm", "verify", "--algo", "nope", "--synthetic-routes", "1000", check=False)
    assert r.returncode != 0
    assert r.stderr.strip().splitlines()[-1] == f"pktlab: error: {e.value}"
    with pytest.raises(ValueError, match="nexthops"):
        pktlab.Lpm("radix", path="synthetic", nexthops="bogus:3")


def test_bad_lookup_inputs():
    lpm = pktlab.Lpm("radix", routes=[("10.0.0.0/8", 1)])
    with pytest.raises(ValueError, match="uint32"):
        lpm.lookup(np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match=r"routes\[1\]"):
        pktlab.Lpm("radix", routes=[("10.0.0.0/8", 1), ("10.0.0.0/99", 2)])
    with pytest.raises(ValueError, match="next hop 0"):
        pktlab.Lpm("radix", routes=[("10.0.0.0/8", 0)])
    with pytest.raises(OSError, match="no-such-file"):
        pktlab.Lpm("radix", path="no-such-file.txt", family="v4")
