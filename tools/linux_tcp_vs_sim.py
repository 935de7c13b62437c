#!/usr/bin/env python3
"""Compares the Linux runs of tools/linux_tcp_validation.sh (matrix OUTDIR) with pktlab's
simulator on the same scenario, and prints the markdown table of docs/results/netsim.md
("Linux TCP vs pktlab").

Scenario (both): FLOWS flows of one algorithm, one bottleneck of RATE Mb/s (Linux: htb or
pktlab --rate, counting 1514-byte frames; simulator: --bw RATE*1488/1514 so that the packet
rate is the same for its 1488-byte packets), DropTail buffer BUFFER packets, round-trip
propagation delay 40 ms (Linux: pktlab --delay 40 one way, ACKs direct; simulator: 10 ms
access + 10 ms bottleneck each way), MSS 1448, initial window 10, min RTO 200 ms, delayed
ACKs, SACK, 25 s with the first 5 s not measured (iperf3 -t 20 -O 5 / --duration 25
--warmup 5).

Usage: linux_tcp_vs_sim.py OUTDIR [PKTLAB]  (PKTLAB: binary, default target/release/pktlab)
"""
import glob
import json
import os
import statistics as st
import subprocess
import sys

RATE, BUFFER, FLOWS = 20.0, 100, 4
PAYLOAD_LINUX = 1448 / 1514  # payload share of an htb-counted frame
PAYLOAD_SIM = 1448 / 1488  # … of a simulator packet (MSS + 40)


def sim(pktlab, algo, seed):
    counts = {"reno": 0, "cubic": 0, "bbr": 0}
    counts[algo] = FLOWS
    args = [pktlab, "aqm", "sim", "--aqm", "droptail", "--vegas", "0", "--sack",
            "--reno", str(counts["reno"]), "--cubic", str(counts["cubic"]),
            "--bbr", str(counts["bbr"]), "--buffer", str(BUFFER),
            "--bw", f"{RATE * 1488 / 1514:.4f}", "--delay", "10", "--reno-delay", "10",
            "--access-bw", "1000", "--mss", "1448", "--init-cwnd", "10", "--min-rto", "200",
            "--delayed-ack", "--duration", "25", "--warmup", "5", "--start-spread", "0.1",
            "--seed", str(seed), "--json"]
    j = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    s = j["summary"]
    bw = j["config"]["bottleneck_bw_mbps"]
    total = sum(f["goodput_mbps"] for f in j["flows"])
    return {"util": total / (bw * PAYLOAD_SIM), "jain": s["jain"], "loss": s["loss_rate"],
            "queue": s["mean_queue_pkts"]}


def linux(out, bottleneck, algo):
    runs = []
    for d in sorted(glob.glob(os.path.join(out, f"{bottleneck}-{algo}-*"))):
        with open(os.path.join(d, "summary.json")) as f:
            j = json.load(f)
        runs.append({"util": j["total_mbps"] / (RATE * PAYLOAD_LINUX), "jain": j["jain"],
                     "loss": j["loss"], "queue": j.get("mean_queue", float("nan")),
                     "fwd_drops": j["forwarder"]["dropped"]["port"]
                     + j["forwarder"]["dropped"]["delay"]
                     + (j["forwarder"]["kernel_rx_ring_drops"] or 0)})
    return runs


def fmt(runs, k, p):
    v = [r[k] for r in runs]
    if not v:
        return "–"
    if len(v) == 1:
        return f"{v[0]:.{p}f}"
    return f"{st.mean(v):.{p}f} ± {st.stdev(v):.{p}f}"


def main():
    out = sys.argv[1]
    pktlab = sys.argv[2] if len(sys.argv) > 2 else "target/release/pktlab"
    print("| algorithm | path | runs | utilisation | Jain | loss (retx/segments) | mean queue (pkts) | forwarder drops |")
    print("|---|---|---|---|---|---|---|---|")
    for algo in ["reno", "cubic", "bbr"]:
        rows = [("Linux, kernel htb+pfifo", linux(out, "kernel", algo)),
                ("Linux, pktlab --rate --aqm droptail", linux(out, "pktlab", algo)),
                ("pktlab simulator", [sim(pktlab, algo, s) for s in (1, 2, 3)])]
        for name, runs in rows:
            drops = sum(r.get("fwd_drops", 0) for r in runs) if "Linux" in name else "–"
            print(f"| {algo} | {name} | {len(runs)} | {fmt(runs, 'util', 3)} | {fmt(runs, 'jain', 3)} "
                  f"| {fmt(runs, 'loss', 4)} | {fmt(runs, 'queue', 1)} | {drops} |")


main()
