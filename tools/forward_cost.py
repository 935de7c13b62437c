#!/usr/bin/env python3
"""Instruction budget per stage of `pktlab forward --stages full` (HPC4 flow cache, poptrie18,
ZL-RED queue, the defaults of `pktlab forward`) under callgrind, per packet: instructions,
L1d misses, last-level misses and branch mispredictions of each stage, on the synthetic table
and on a real table (`--table PATH`, e.g. the RIS v4 dump, with `--nexthops hash:16`); and
ZL-RED alone per arrival (`pktlab aqm bench --aqm zlred`) at each of `--aqm-flows`.

Counts are callgrind's (`--cache-sim=yes --branch-sim=yes`) on fixed simulated caches, so they
are the same on any host: L1 I/D 32 KiB 8-way and an 8 MiB 16-way last level by default (the
geometry of tools/lpm_cachegrind.sh; override with --D1/--LL). Mispredictions are callgrind's
model (a 16 K-entry table of 2-bit counters for conditional branches, a 512-entry target table
for indirect ones), not the host's predictor.

Setup (table build, trace generation, pool) is removed by difference: each case runs twice,
with `--repeat R1` and `--repeat R2` of the same trace (packet counts read from the run's JSON),
and every number is Δcost / Δpackets. The aqm bench runs with K and 2K arrivals and reports
Δ(inclusive cost of `bench_loop`) / K.

Stages are callgrind inclusive costs (`callgrind_annotate --inclusive=yes`) of these functions,
each `#[inline(never)]` in the worker for this purpose:
  rx (I/O)            pipeline::worker::Worker::receive      rx burst: pool-cache alloc, frame
                                                              copy of the replayed trace, rx_init
  parse               pipeline::worker::Worker::parse_batch  headers, IPv4 checksum, verdicts
  flow-cache lookup   pipeline::worker::cache_lookup         NextHopCache::lookup (HPC4 hit update)
  LPM                 pipeline::worker::lookup_misses        Poptrie batched lookup of the misses
  flow-cache fill     pipeline::worker::cache_fill           NextHopCache::fill (victim, insert)
  ZL-RED queue        pipeline::queue::Link::offer_all       link model + ZL-RED enqueue/dequeue
  tx + free (I/O)     pipeline::worker::Worker::transmit     tx burst + buffers back to the pool
  other, worker       worker thread − the stages above       rss read, miss collection,
                                                              forward/drop split, TTL/checksum/
                                                              MAC rewrite, departures' unpark,
                                                              the batch loop
  other, outside      whole program − the threads pktlab     (nothing per packet is expected)
                      starts (glibc's start_thread)
Misses are L1d = D1mr + D1mw, LL = DLmr + DLmw (data only; instruction-fetch misses are
left out), mispredictions = Bcm + Bim.

Build pktlab for the baseline x86-64 target (no AVX-512, which valgrind does not decode; see
tools/cachegrind_mbuf.py):  cargo build --release -p pktlab-cli
Usage: tools/forward_cost.py [--pktlab target/release/pktlab] [--table rib-v4.txt.gz]
       [--packets 1M] [--repeat 1,3] [--aqm-flows 1000,100000] [--aqm-packets 200K]
       [--jobs 2] [--keep DIR [--reuse]] [--json out.json]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from cachegrind_mbuf import parse_size

# (stage, regex on callgrind_annotate's function name)
STAGES = [
    ("rx (I/O)", r"::Worker<.*>::receive$"),
    ("parse", r"::Worker<.*>::parse_batch$"),
    ("flow-cache lookup", r"pipeline::worker::cache_lookup(<.*>)?$"),
    ("LPM", r"pipeline::worker::lookup_misses(<.*>)?$"),
    ("flow-cache fill", r"pipeline::worker::cache_fill(<.*>)?$"),
    ("ZL-RED queue", r"pipeline::queue::Link>?::offer_all(<.*>)?$"),
    ("tx + free (I/O)", r"::Worker<.*>::transmit$"),
]
# Every thread pktlab starts (glibc's thread entry): in a replay the worker alone does work
# per packet (`Worker::run` itself may be inlined into the thread's closure).
WORKER = r"^start_thread$"
EVENTS = ["Ir", "L1d", "LL", "mispred"]


def derived(v):
    """The four reported counts from callgrind's raw events."""
    return {"Ir": v["Ir"], "L1d": v["D1mr"] + v["D1mw"], "LL": v["DLmr"] + v["DLmw"],
            "mispred": v["Bcm"] + v["Bim"]}


def annotate(out):
    """(program totals, {function: inclusive events}) of one callgrind output file."""
    p = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no",
                        out],
                       capture_output=True, text=True, check=True)
    events, total, fns = None, None, {}
    for line in p.stdout.splitlines():
        if line.startswith("Events shown:"):
            events = line.split(":", 1)[1].split()
            continue
        if events is None or not line.strip() or line.startswith("-"):
            continue
        # "1,234 (5.0%)  2 (0.0%) ...  file:function [binary]": drop the percentages.
        toks = re.sub(r"\(\s*[\d.]+%\)", "", line).split()
        nums = []  # "." is an event that never occurred
        while toks and re.fullmatch(r"[\d,]+|\.", toks[0]):
            nums.append(int(toks.pop(0).replace(",", "").replace(".", "0")))
        if len(nums) != len(events) or not toks:
            continue
        v = dict(zip(events, nums))
        rest = " ".join(toks)
        if rest.startswith("PROGRAM TOTALS"):
            total = v
            continue
        # "file:function [object]". A function is listed once per source file its inlined
        # code comes from; the entry of its own file holds the whole inclusive cost and the
        # others are parts of it, so the largest entry is the function's.
        name = re.sub(r"\s*\[[^\]]*\]$", "", rest)
        name = name.split(":", 1)[1] if ":" in name else name
        if name not in fns or v["Ir"] > fns[name]["Ir"]:
            fns[name] = v
    if total is None:
        sys.exit(f"forward_cost: no PROGRAM TOTALS in callgrind_annotate output of {out}")
    return total, fns


def callgrind(args, cache, tag, keep=None, reuse=False):
    """Runs pktlab under callgrind; returns (stdout JSON, totals, functions). With `keep`, the
    callgrind output and the run's JSON are kept there (named after the run); with `reuse`,
    a run whose two files are there already is read instead of run again."""
    with tempfile.TemporaryDirectory(prefix="pktlab-cost-") as d:
        name = re.sub(r"[^\w.-]+", "_", tag) + ".callgrind"
        out = os.path.join(keep or d, name)
        cmd = ["valgrind", "--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes",
               f"--I1={cache['D1']}", f"--D1={cache['D1']}", f"--LL={cache['LL']}",
               f"--callgrind-out-file={out}"] + args
        if keep and reuse and os.path.exists(out) and os.path.exists(out + ".json"):
            with open(out + ".json") as fh:
                stdout = fh.read()
        else:
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                tail = " | ".join(p.stderr.strip().splitlines()[-3:])
                sys.exit(f"forward_cost: {tag} failed (exit {p.returncode}): {tail}")
            stdout = p.stdout
            if keep:
                with open(out + ".json", "w") as fh:
                    fh.write(stdout)
        total, fns = annotate(out)
        return json.loads(stdout), total, fns


def stage_costs(fns, stages=STAGES):
    """{stage: raw events} summed over the functions each stage's pattern matches."""
    got = {}
    for stage, pat in stages:
        hits = [v for f, v in fns.items() if re.search(pat, f)]
        if not hits:
            sys.exit(f"forward_cost: no function matches stage {stage!r} ({pat}); "
                     "is this binary built from a tree with the worker's stage functions?")
        got[stage] = {k: sum(h[k] for h in hits) for k in hits[0]}
    return got


def forward_args(a, table, r):
    """The `pktlab forward` command of one run."""
    tabs = [x for t in table.split(",") for x in ("--table", t)]
    return [a.pktlab, "forward", "--stages", "full"] + tabs + [
        "--nexthops", a.nexthops, "--packets", a.packets, "--repeat", str(r), "--json"]


def aqm_args(a, flows, k):
    """The `pktlab aqm bench` command of one run (ZL-RED only, one repetition)."""
    return [a.pktlab, "aqm", "bench", "--aqm", "zlred", "--flows", str(flows), "--packets",
            str(k), "--reps", "1", "--json"]


def forward_case(runs):
    """Per-packet costs per stage from the runs with R1 and R2 replays (callgrind results)."""
    st = []
    for res, total, fns in runs:
        s = stage_costs(fns)
        s["total"] = total
        s["worker"] = stage_costs(fns, [("worker", WORKER)])["worker"]
        st.append((res["packets"], s))
    (p1, s1), (p2, s2) = st
    dp = p2 - p1
    per = {}
    for stage in [s for s, _ in STAGES] + ["worker", "total"]:
        d1, d2 = derived(s1[stage]), derived(s2[stage])
        per[stage] = {e: (d2[e] - d1[e]) / dp for e in EVENTS}
    per["other, worker"] = {e: per["worker"][e] - sum(per[s][e] for s, _ in STAGES)
                            for e in EVENTS}
    per["other, outside the worker"] = {e: per["total"][e] - per["worker"][e] for e in EVENTS}
    res = runs[1][0]
    info = {"packets_difference": dp, "forwarded": res["forwarded"], "dropped": res["dropped"],
            "cache": res["cache"], "routes": res["routes"]}
    return per, info


def aqm_case(runs, k):
    """ZL-RED per arrival: Δ(inclusive cost of `bench_loop`) / K from the runs with K and 2K."""
    vals = []
    for _, _, fns in runs:
        hits = [v for f, v in fns.items() if re.search(r"::bench_loop(<.*>)?$", f)]
        if not hits:
            sys.exit("forward_cost: no bench_loop in the aqm bench profile")
        vals.append(derived(max(hits, key=lambda h: h["Ir"])))
    return {e: (vals[1][e] - vals[0][e]) / k for e in EVENTS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pktlab", default=os.environ.get("PKTLAB", "target/release/pktlab"))
    ap.add_argument("--table", action="append", default=[],
                    help="a case besides `synthetic`: table file(s), comma-separated for an "
                    "IPv4 and an IPv6 table (repeatable: one case each)")
    ap.add_argument("--nexthops", default="hash:16")
    ap.add_argument("--packets", default="1M",
                    help="packets of the synthetic trace (pktlab's sizes: 1M = 2^20)")
    ap.add_argument("--repeat", default="1,3", help="the two replay counts R1,R2")
    ap.add_argument("--aqm-flows", default="1000,100000")
    ap.add_argument("--aqm-packets", default="200K")
    ap.add_argument("--D1", default="32768,8,64", help="L1 I and D: size,assoc,line")
    ap.add_argument("--LL", default="8388608,16,64", help="last level: size,assoc,line")
    ap.add_argument("--no-synthetic", action="store_true", help="only the --table files")
    ap.add_argument("--jobs", type=int, default=1, help="valgrind runs at once")
    ap.add_argument("--keep", help="keep the callgrind outputs and run JSON in this directory")
    ap.add_argument("--reuse", action="store_true",
                    help="with --keep: read the runs found there instead of running them")
    ap.add_argument("--json")
    a = ap.parse_args()
    if not os.access(a.pktlab, os.X_OK):
        sys.exit(f"forward_cost: {a.pktlab} is not an executable (--pktlab or PKTLAB)")
    for t in (x for c in a.table for x in c.split(",")):
        if not os.path.isfile(t):
            sys.exit(f"forward_cost: --table {t}: no such file")
    a.aqm_packets = parse_size(a.aqm_packets)
    a.repeat = [int(x) for x in a.repeat.split(",")]
    if len(a.repeat) != 2 or not 0 < a.repeat[0] < a.repeat[1]:
        sys.exit(f"forward_cost: --repeat {a.repeat}: needs R1,R2 with 0 < R1 < R2")
    cache = {"D1": a.D1, "LL": a.LL}
    out = {"cache": cache, "packets": a.packets, "repeat": a.repeat, "forward": {}, "zlred": {}}
    tables = ([] if a.no_synthetic else ["synthetic"]) + a.table
    flows = [int(f) for f in a.aqm_flows.split(",")] if a.aqm_flows else []
    jobs = [(forward_args(a, t, r), f"forward --table {t} --repeat {r}")
            for t in tables for r in a.repeat]
    jobs += [(aqm_args(a, f, k), f"aqm bench --flows {f} --packets {k}")
             for f in flows for k in (a.aqm_packets, 2 * a.aqm_packets)]
    with ThreadPoolExecutor(a.jobs) as ex:
        done = list(ex.map(lambda j: callgrind(j[0], cache, j[1], a.keep, a.reuse), jobs))
    rows = [s for s, _ in STAGES] + ["other, worker", "other, outside the worker", "total"]
    for i, t in enumerate(tables):
        per, info = forward_case(done[2 * i:2 * i + 2])
        out["forward"][t] = {"per_packet": per, **info}
        name = " --table ".join(os.path.basename(x) for x in t.split(","))
        print(f"\n`forward --stages full --table {name}`: per packet "
              f"({info['packets_difference']} packets by difference; "
              f"flow-cache hit rate {info['cache']['hit_rate']:.3f})")
        print(f"| stage | {' | '.join(EVENTS)} |\n|---|{'---:|' * len(EVENTS)}")
        for s in rows:
            print(f"| {s} | " + " | ".join(f"{per[s][e]:.1f}" if e == "Ir" else f"{per[s][e]:.3f}"
                                          for e in EVENTS) + " |")
    if flows:
        print(f"\n`aqm bench --aqm zlred`: per arrival ({a.aqm_packets} arrivals by difference)")
        print(f"| flows | {' | '.join(EVENTS)} |\n|---|{'---:|' * len(EVENTS)}")
    base = 2 * len(tables)
    for i, f in enumerate(flows):
        v = aqm_case(done[base + 2 * i:base + 2 * i + 2], a.aqm_packets)
        out["zlred"][str(f)] = v
        print(f"| {f} | " + " | ".join(f"{v[e]:.1f}" if e == "Ir" else f"{v[e]:.3f}"
                                      for e in EVENTS) + " |")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
