#!/usr/bin/env python3
"""Summarises one run of tools/linux_tcp_validation.sh: reads OUTDIR/iperf-*.json (iperf3 -J,
one file per congestion-control algorithm), OUTDIR/forward.json (pktlab forward --json) and,
for the kernel bottleneck, OUTDIR/kernel-backlog.txt; prints one JSON object: goodput per flow
and per algorithm (Mb/s, measured at the receiver after iperf3's omitted start), Jain's index
over the flows, utilisation of RATE, loss (TCP retransmissions / segments sent, MSS 1448),
the forwarder's drops and the mean queue.

Usage: linux_tcp_summary.py OUTDIR RATE_MBPS
"""
import glob
import json
import os
import sys


def main():
    out, rate = sys.argv[1], float(sys.argv[2])
    flows, algos = [], {}
    retrans = sent_segs = 0
    for path in sorted(glob.glob(os.path.join(out, "iperf-*.json"))):
        algo = os.path.basename(path)[len("iperf-"):-len(".json")]
        try:
            with open(path) as f:
                j = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"{path}: not iperf3 JSON: {e}")
        if "error" in j:
            sys.exit(f"{path}: iperf3 error: {j['error']}")
        tot = 0.0
        for s in j["end"]["streams"]:
            mbps = s["receiver"]["bits_per_second"] / 1e6
            flows.append(mbps)
            tot += mbps
            retrans += s["sender"].get("retransmits", 0)
            sent_segs += s["sender"]["bytes"] / 1448
        algos[algo] = {"flows": len(j["end"]["streams"]), "mbps": tot}
    total = sum(flows)
    jain = total * total / (len(flows) * sum(x * x for x in flows)) if flows else 0.0
    for a in algos.values():
        a["share"] = a["mbps"] / total if total else 0.0
    r = {
        "flows_mbps": flows,
        "algos": algos,
        "total_mbps": total,
        "utilisation": total / rate,
        "jain": jain,
        "retransmits": retrans,
        "loss": retrans / sent_segs if sent_segs else 0.0,
    }
    fj = os.path.join(out, "forward.json")
    if os.path.exists(fj) and os.path.getsize(fj) > 0:
        with open(fj) as f:
            fw = json.load(f)
        r["forwarder"] = {
            "packets": fw["packets"],
            "forwarded": fw["forwarded"],
            "dropped": fw["dropped"],
            "kernel_rx_ring_drops": (fw.get("live") or {}).get("rx_ring_drops"),
            "delay_line": fw.get("delay_line"),
            "cpu_seconds": fw["cpu_seconds"],
            "seconds": fw["seconds"],
        }
        if fw.get("delay_line") and fw["delay_line"]["aqm_drops"] + fw["delay_line"]["offered"] > 0:
            dl = fw["delay_line"]
            r["mean_queue"] = dl["mean_queue"]
            r["aqm_drop_rate"] = dl["aqm_drops"] / max(dl["offered"], 1)
    kb = os.path.join(out, "kernel-backlog.txt")
    if os.path.exists(kb):
        v = [int(x) for x in open(kb).read().split() if x.isdigit()]
        if v:
            r["mean_queue"] = sum(v) / len(v)
    tc = os.path.join(out, "tc.txt")
    if os.path.exists(tc):
        txt = open(tc).read().split("qdisc pfifo")[-1]
        words = txt.replace(",", " ").replace(")", " ").replace("(", " ").split()
        if "dropped" in words:
            dropped = int(words[words.index("dropped") + 1])
            sent = int(words[words.index("pkt") - 1]) if "pkt" in words else 0
            r["kernel_qdisc_drops"] = dropped
            r["aqm_drop_rate"] = dropped / max(sent + dropped, 1)
    print(json.dumps(r))


main()
