#!/usr/bin/env python3
"""Paper 001's cache study under cachegrind: L1d hit ratio and L1d misses per packet of the
forwarding-only loop (`pktlab forward --rx null:64 --stages io`) for metadata layout ×
metadata bytes {0, 2, 4, 8, 16, 32, 64} × batch {32, 128, 512, 1024}, with the paper's L1d
(Core i9-11900K: 48 KiB, 12-way, 64-byte lines: `--D1=49152,12,64`).

Setup (pool allocation and pre-faulting, thread start) is excluded by difference: every
configuration runs twice, with K and 2K packets, and the numbers are
`hit ratio = 1 − Δ(D1 misses) / Δ(D refs)` and `misses per packet = Δ(D1 misses) / K`.
cachegrind counts misses, not replacements; once the cache is warm every miss replaces a line,
so misses per packet is the counterpart of the paper's "replacements per packet".

Build pktlab for the baseline x86-64 target (no AVX-512, which valgrind does not decode):
  cargo build --release -p pktlab-cli
Usage: tools/cachegrind_mbuf.py [--pktlab target/release/pktlab] [--packets 100K]
       [--batches 32,128,512,1024] [--sizes 0,2,4,8,16,32,64] [--json out.json]
"""

import argparse
import json
import os
import re
import subprocess
import tempfile


def parse_size(s):
    m = {"K": 1000, "M": 1000_000}
    return int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s)


def cachegrind(binary, meta, size, batch, packets):
    """(D refs, D1 misses) of one run."""
    with tempfile.TemporaryDirectory(prefix="pktlab-cg-") as d:
        out = os.path.join(d, "cg.out")
        args = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", "--D1=49152,12,64",
                f"--cachegrind-out-file={out}", binary, "forward", "--rx", "null:64",
                "--stages", "io", "--batch", str(batch), "--meta", meta, "--meta-bytes",
                str(size), "--packets", str(packets), "--json"]
        p = subprocess.run(args, capture_output=True, text=True, check=True)
        num = lambda k: int(re.search(k + r"\s*:\s*([\d,]+)", p.stderr).group(1).replace(",", ""))
        return num(r"D\s+refs"), num(r"D1\s+misses")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pktlab", default="target/release/pktlab")
    ap.add_argument("--packets", default="100K")
    ap.add_argument("--batches", default="32,128,512,1024")
    ap.add_argument("--sizes", default="0,2,4,8,16,32,64")
    ap.add_argument("--layouts", default="dpdk,compact-alloc,compact-constant")
    ap.add_argument("--json")
    a = ap.parse_args()
    k = parse_size(a.packets)
    rows = []
    print(f"{'layout':18} {'S':>3} {'batch':>5} {'D1 hit %':>9} {'D1 miss/pkt':>12} {'D refs/pkt':>11}")
    for layout in a.layouts.split(","):
        sizes = [128] if layout == "dpdk" else [int(s) for s in a.sizes.split(",")]
        for s in sizes:
            for b in [int(x) for x in a.batches.split(",")]:
                r1, m1 = cachegrind(a.pktlab, layout, 16 if s == 128 else s, b, k)
                r2, m2 = cachegrind(a.pktlab, layout, 16 if s == 128 else s, b, 2 * k)
                refs, miss = r2 - r1, m2 - m1
                row = {"layout": layout, "meta_bytes": s, "batch": b,
                       "hit_ratio": 1 - miss / refs, "misses_per_packet": miss / k,
                       "refs_per_packet": refs / k}
                rows.append(row)
                print(f"{layout:18} {s:3} {b:5} {100 * row['hit_ratio']:9.2f} "
                      f"{row['misses_per_packet']:12.3f} {row['refs_per_packet']:11.1f}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
