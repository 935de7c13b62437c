#!/usr/bin/env python3
"""pktlab's cache engine side by side with libCacheSim's `cachesim` (a binary built outside
the repository, given by --cachesim or the LIBCACHESIM environment variable, e.g. the
`_build/bin/cachesim` of a libCacheSim checkout; libCacheSim is GPL and is never copied here).
Both read the same key stream: a compact trace for pktlab and its
`pktlab trace convert --format oracle` twin (file name must contain `oracleGeneral`) for
libCacheSim.

  miss   : miss ratio of every shared policy, fully associative, at the given sizes
  speed  : requests/s, interleaved runs on one pinned core, median of --runs

Usage:
  tools/cache_vs_libcachesim.py miss  --pktlab P [--cachesim C] --trace T.pkt --oracle T.oracleGeneral.bin
  tools/cache_vs_libcachesim.py speed --pktlab P [--cachesim C] --trace T.pkt --oracle T.oracleGeneral.bin \
        [--base OLD_PKTLAB] [--runs 3] [--core 1]
Prints one JSON object on stdout (tables on stderr).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

# pktlab name -> (libCacheSim name, extra args)
SHARED = {
    "lru": ("lru", []),
    "fifo": ("fifo", []),
    "clock": ("clock", []),
    "lfu": ("lfu", []),
    "arc": ("arc", []),
    "s3fifo": ("s3fifo", []),
    "sieve": ("sieve", []),
    "random": ("random", []),
    "slru": ("slru", ["-e", "n-seg=2"]),
    "tinylfu": ("wtinylfu", []),
}
SPEED = ["lru", "fifo", "clock", "arc", "s3fifo", "sieve"]
LINE = re.compile(r"cache size\s+(\d+), (\d+) req, miss ratio ([0-9.]+)")
TPUT = re.compile(r"throughput\s+([0-9.]+)\s*MQPS")


def run(cmd, core=None):
    if core is not None:
        cmd = ["taskset", "-c", str(core)] + cmd
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
    return p.stdout + p.stderr, wall


def pktlab_sim(a, pol, size, pk=None, core=None):
    out, wall = run(
        [pk or a.pktlab, "cache", "sim", "--trace", a.trace, "--policy", pol,
         "--entries", str(size), "--ways", "full", "--no-timing", "--json"], core)
    r = json.loads(out[out.index("{"):])["results"][0]
    return r, wall


def lcs(a, pol, sizes, core=None, threads=1):
    name, extra = SHARED[pol]
    out, wall = run(
        [a.cachesim, a.oracle, "oracleGeneral", name, ",".join(map(str, sizes)),
         "--ignore-obj-size", "1", "--num-thread", str(threads)] + extra, core)
    res = {int(m.group(1)): float(m.group(3)) for m in LINE.finditer(out)}
    tp = [float(x) for x in TPUT.findall(out)]
    return res, tp, wall, out


def miss(a):
    sizes = [int(s) for s in a.sizes.split(",")]
    rows = []
    for pol in SHARED:
        ref, _, _, _ = lcs(a, pol, sizes)
        for s in sizes:
            r, _ = pktlab_sim(a, pol, s)
            d = r["miss_rate"] - ref[s]
            rows.append({"policy": pol, "entries": s, "pktlab": r["miss_rate"],
                         "libcachesim": ref[s], "diff": d})
            print(f"{pol:8} {s:>8} pktlab {r['miss_rate']:.4f} libCacheSim {ref[s]:.4f} "
                  f"diff {d:+.4f}", file=sys.stderr)
    print(json.dumps({"trace": a.trace, "rows": rows}))


def speed(a):
    sizes = [int(s) for s in a.sizes.split(",")]
    rows = []
    for pol in a.policies.split(","):
        for s in sizes:
            lw, lt, pw, pm, bw = [], [], [], [], []
            for _ in range(a.runs):
                # Interleaved: libCacheSim, pktlab (and the pre-refactor pktlab) back to back.
                _, tp, wall, out = lcs(a, pol, [s], core=a.core)
                lw.append(wall)
                if tp:
                    lt.append(tp[0])
                r, wall = pktlab_sim(a, pol, s, core=a.core)
                pw.append(wall)
                pm.append(r["mpps"])
                if a.base:
                    _, wall = pktlab_sim(a, pol, s, pk=a.base, core=a.core)
                    bw.append(wall)
            row = {"policy": pol, "entries": s, "requests": r["packets"],
                   "libcachesim_wall_s": statistics.median(lw),
                   "libcachesim_mqps": statistics.median(lt) if lt else None,
                   "pktlab_wall_s": statistics.median(pw),
                   "pktlab_loop_mpps": statistics.median(pm)}
            if bw:
                row["base_wall_s"] = statistics.median(bw)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    print(json.dumps({"trace": a.trace, "runs": a.runs, "core": a.core, "rows": rows}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["miss", "speed"])
    ap.add_argument("--pktlab", required=True)
    ap.add_argument("--cachesim", default=os.environ.get("LIBCACHESIM"),
                    help="libCacheSim's cachesim binary (default: $LIBCACHESIM)")
    ap.add_argument("--trace", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--sizes", default="1024,65536,1048576")
    ap.add_argument("--policies", default=",".join(SPEED))
    ap.add_argument("--base")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--core", type=int, default=1)
    a = ap.parse_args()
    if not a.cachesim:
        sys.exit("cache_vs_libcachesim.py: give --cachesim PATH or set LIBCACHESIM to libCacheSim's cachesim binary")
    if "oracleGeneral" not in a.oracle:
        sys.exit("--oracle: libCacheSim wants `oracleGeneral` in the file name")
    (miss if a.mode == "miss" else speed)(a)


if __name__ == "__main__":
    main()
