#!/usr/bin/env python3
"""pktlab.Lpm(...).lookup on N NumPy addresses against `pktlab lpm bench --pregen` on the
same table with the same algorithm, interleaved in one process (target: the Python side ≥ 80 % of the CLI's rate).

The bench side is `pktlab.lpm.bench`, the library function `pktlab lpm bench` calls, so both
sides run in the same process, one after the other, `--reps` times; the ratio of medians is
printed with `uptime`'s load. Usage:

    python tools/py_lpm_vs_cli.py --table ../shared/data/routes/ris-rrc00-as3333-2026-05-11/rib-v4.txt.gz \
        --algo poptrie18 --n 10M
"""

import argparse
import json
import os
import statistics
import time

import numpy as np

import pktlab


def size(s: str) -> int:
    m = {"K": 1 << 10, "M": 1 << 20}
    return int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--table", default="synthetic")
    p.add_argument("--algo", default="poptrie18")
    p.add_argument("--nexthops", default="hash:16")
    p.add_argument("--n", type=size, default=10_000_000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--pregen", type=size, action="append", help="bench pregen sizes (default: n and 64K)")
    a = p.parse_args()
    pregens = a.pregen or [a.n, 64 << 10]
    t0 = time.perf_counter()
    lpm = pktlab.Lpm(a.algo, path=a.table, nexthops=a.nexthops)
    build = time.perf_counter() - t0
    addrs = np.random.default_rng(1).integers(0, 2**32, size=a.n, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(a.n, dtype=np.uint32)  # reused: lookup(addrs, out=out) allocates nothing
    py_rates, py_oncpu, bench, bench_oncpu = [], [], {g: [] for g in pregens}, {g: [] for g in pregens}
    for _ in range(a.reps):
        t, c = time.perf_counter(), time.thread_time()
        lpm.lookup(addrs, out=out)
        py_oncpu.append(a.n / (time.thread_time() - c) / 1e6)
        py_rates.append(a.n / (time.perf_counter() - t) / 1e6)
        for g in pregens:
            r = pktlab.lpm.bench(table=a.table, algos=[a.algo], nexthops=a.nexthops, lookups=a.n,
                                 pregen=g, runs=1, batch=256)
            bench[g].append(r["results"][0]["mlps"])
            bench_oncpu[g].append(r["results"][0]["mlps_oncpu"])
    py = statistics.median(py_rates)
    pyc = statistics.median(py_oncpu)
    res = {
        "table": a.table, "algo": a.algo, "n": a.n, "build_s": round(build, 2),
        "matched": float((out != 0).mean()),
        "python_lookup_mlps": [round(x, 1) for x in py_rates], "python_median_mlps": round(py, 1),
        "python_oncpu_mlps": [round(x, 1) for x in py_oncpu], "python_oncpu_median": round(pyc, 1),
        "bench": {str(g): {"mlps": [round(x, 1) for x in v], "median": round(statistics.median(v), 1),
                           "ratio_python_over_bench": round(py / statistics.median(v), 3),
                           "oncpu_mlps": [round(x, 1) for x in bench_oncpu[g]],
                           "ratio_oncpu": round(pyc / statistics.median(bench_oncpu[g]), 3)}
                  for g, v in bench.items()},
        "loadavg": os.getloadavg(),
    }
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
