#!/usr/bin/env python3
"""The tables of docs/results/ports.md from the JSON lines of tools/ports-side-by-side.sh.

Usage: tools/ports_table.py RUN.jsonl [RUN.jsonl ...] [--csv-dir DIR]

Prints, per forwarder over all the given runs, the markdown summary row (runs, frames sent,
frames lost and where the loss is counted, TTL at the sink, forwarder CPU per packet, the
forwarded rate), and writes one CSV per input file (every run, with its load average) into
--csv-dir (default: beside the input). A run is labelled by its file's stem (run-a → A).
"""
import argparse
import csv
import json
import os
import statistics
import sys

ORDER = ["kernel", "pktlab-full", "pktlab-l3", "pktlab-io", "testpmd"]
LABEL = {
    "kernel": "kernel (`ip_forward=1`, table via `ip -batch`)",
    "pktlab-full": "pktlab `--stages full`",
    "pktlab-l3": "pktlab `--stages l3`",
    "pktlab-io": "pktlab `--stages io`",
    "testpmd": "DPDK testpmd (`net_af_packet`, mac forwarding, no LPM)",
}
# The fields of tools/ports-side-by-side.sh's run objects that the tables read.
REQUIRED = ["dut", "size", "table", "sent", "received", "loss", "gen_pps", "fwd_pps", "ttl",
            "load"]
# pktlab's named counters that hold a packet the sink did not get.
COUNTERS = [("live", "rx_ring_drops"), ("live", "rx_oversize"), ("live", "tx_ring_full"),
            ("live", "tx_rejected"), ("dropped", "parse"), ("dropped", "ttl"),
            ("dropped", "no_route"), ("dropped", "aqm"), ("dropped", "port")]


def load(path):
    rows = []
    try:
        f = open(path)
    except OSError as e:
        sys.exit(f"ports_table: {path}: cannot read ({e.strerror})")
    with f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"ports_table: {path}:{n}: not JSON ({e.msg})")
            if not isinstance(r, dict):
                sys.exit(f"ports_table: {path}:{n}: not a run object")
            missing = [k for k in REQUIRED if k not in r]
            if missing:
                sys.exit(f"ports_table: {path}:{n}: run without {', '.join(missing)}")
            rows.append(r)
    return rows


def cpu_us(r):
    """Forwarder CPU seconds and µs per forwarded packet (pktlab only)."""
    p = r.get("pktlab")
    if not p or not p.get("forwarded"):
        return None, None
    return p["cpu_seconds"], p["cpu_seconds"] * 1e6 / p["forwarded"]


def named_losses(r):
    """The named counters, forwarder's and sink's, that hold frames the sink did not count."""
    out = {}
    for group, k in COUNTERS:
        v = r.get("pktlab", {}).get(group, {}).get(k, 0)
        if v:
            out[f"forward {group}.{k}"] = v
    if r.get("backlog_drops"):
        out["veth backlog"] = r["backlog_drops"]
    if r.get("sink_kernel_drops"):
        out["sink kernel_drops"] = r["sink_kernel_drops"]
    return out


def unaccounted(r):
    """Frames lost beyond what the named counters hold (None: the forwarder has none)."""
    if r["dut"] == "testpmd":
        return None
    return r["sent"] - r["received"] - sum(named_losses(r).values())


def write_csv(rows, run, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "table", "frame", "forwarder", "sent", "received", "loss",
                    "gen kpps (offered)", "forwarded kpps", "TTL at sink",
                    "forwarder CPU s (µs/pkt)", "gen CPU s", "named drops", "unaccounted", "load"])
        for r in rows:
            s, us = cpu_us(r)
            if r["dut"] == "kernel":
                cpu = "softirq (in gen/sink)"
            elif r["dut"] == "testpmd":
                cpu = "busy-polls 1 core"
            else:
                cpu = f"{s:.2f} ({us:.1f})"
            ttl = "/".join(sorted(r["ttl"]))
            drops = " ".join(f"{k}={v}" for k, v in named_losses(r).items()) or "–"
            un = unaccounted(r)
            w.writerow([run, r["table"], f"{r['size']} B", r["dut"], r["sent"], r["received"],
                        f"{100 * r['loss']:.1f} %", f"{r['gen_pps'] / 1e3:.1f}",
                        f"{r['fwd_pps'] / 1e3:.1f}", ttl, cpu,
                        f"{r.get('gen_cpu_seconds', float('nan')):.2f}", drops,
                        "–" if un is None else un, f"{r['load']:.1f}"])


def rng(xs, fmt):
    if not xs:
        return "–"
    lo, hi = min(xs), max(xs)
    return fmt(lo) if lo == hi else f"{fmt(lo)}–{fmt(hi)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--csv-dir")
    a = ap.parse_args()
    by = {}
    loads = []
    for path in a.runs:
        rows = load(path)
        if not rows:
            sys.exit(f"ports_table: {path}: no runs")
        stem = os.path.splitext(os.path.basename(path))[0]
        run = stem.split("-")[-1].upper()
        d = a.csv_dir or os.path.dirname(path) or "."
        os.makedirs(d, exist_ok=True)
        out = os.path.join(d, stem + ".csv")
        write_csv(rows, run, out)
        for r in rows:
            by.setdefault(r["dut"], []).append(r)
            loads.append(r["load"])
    print(f"load average (1 min) over the runs: {min(loads):.2f}–{max(loads):.2f}\n")
    print("| forwarder | runs | frames sent per run | frames lost | where the loss is counted "
          "| lost, not in a counter | TTL at the sink | forwarded kpps (median) "
          "| forwarder CPU per packet (µs) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for dut in [d for d in ORDER if d in by] + sorted(set(by) - set(ORDER)):
        rs = by[dut]
        lost = [r["sent"] - r["received"] for r in rs]
        lost_runs = [(r, n) for r, n in zip(rs, lost) if n > 0]
        if not lost_runs:
            lost_txt = "0"
        elif len(lost_runs) <= 2:
            lost_txt = ", ".join(f"{n} of {r['sent']:,}" for r, n in lost_runs)
        else:
            lost_txt = f"{len(lost_runs)} runs, {rng([100 * r['loss'] for r, _ in lost_runs], lambda x: f'{x:.1f} %')}"
        where = sorted({k for r, _ in lost_runs for k in named_losses(r)})
        un = [unaccounted(r) for r in rs]
        un_txt = "–" if None in un else f"{sum(max(u, 0) for u in un):,}"
        ttl = "/".join(sorted({t for r in rs for t in r["ttl"]}))
        us = [u for u in (cpu_us(r)[1] for r in rs) if u is not None]
        cpu = rng(us, lambda x: f"{x:.2f}") if us else (
            "in the sender's softirq" if dut == "kernel" else "busy-polls a core")
        kpps = statistics.median(r["fwd_pps"] / 1e3 for r in rs)
        print(f"| {LABEL.get(dut, dut)} | {len(rs)} | "
              f"{rng([r['sent'] for r in rs], lambda x: f'{x:,}')} | {lost_txt} | "
              f"{', '.join(where) if where else '–'} | {un_txt} | {ttl} | {kpps:.1f} | {cpu} |")


if __name__ == "__main__":
    main()
