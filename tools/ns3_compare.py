#!/usr/bin/env python3
"""Tabulates pktlab vs ns-3 runs of the paper-002 dumbbell with modern TCP.

Reads `pk-MIX-AQM-sS.json` (`pktlab aqm sim --json`) from --pktlab and `ns3-MIX-AQM-sS.json`
(`tools/ns3_dumbbell.py`) from --ns3, and prints one markdown row per (mix, AQM, simulator):
mean over seeds with the range in parentheses, then whether each pktlab metric is within the
tolerance of docs/results/netsim.md (its first section) of the ns-3 mean.
Utilisation is goodput-based on both sides (sum of goodputs / 45 Mb/s). See tools/README.md.
`--ns3-rows FILE` takes the ns-3 rows of an earlier table (this tool's output) for the (MIX, AQM)
pairs without ns-3 JSON; they are marked "(earlier run)" (ns-3 3.44 is deterministic per seed).
"""
import argparse
import glob
import json
import os
import re
import statistics

p = argparse.ArgumentParser()
p.add_argument("--pktlab", required=True, help="directory of pk-MIX-AQM-sS.json")
p.add_argument("--ns3", required=True, help="directory of ns3-MIX-AQM-sS.json")
p.add_argument("--bw", type=float, default=45.0, help="bottleneck Mb/s")
p.add_argument("--ns3-rows", help="markdown table with ns-3 rows of an earlier run (this tool's "
               "output format): used for (mix, AQM) pairs without ns-3 JSON in --ns3; ns-3 3.44 "
               "runs are deterministic per seed, so earlier rows stand for a rerun")
a = p.parse_args()

MIXES = ["cubic", "bbr", "newreno", "mix"]
AQMS = ["droptail", "red", "fq_codel"]
# metric -> (absolute tolerance, relative tolerance): within if |d| <= max(abs, rel * ns-3).
TOL = {
    "first_share": (0.10, 0.0),
    "jain": (0.10, 0.0),
    "util": (0.03, 0.0),
    "loss": (0.002, 0.5),
    "queue": (10.0, 0.25),
}


def metrics(path, bw):
    """The compared metrics of one run, from either tool's JSON."""
    j = json.load(open(path))
    s = j["summary"]
    good = [f["goodput_mbps"] for f in j["flows"]]
    tot = sum(good)
    shares = {x["kind"]: x["share"] for x in j.get("shares", [])}
    kinds = [x["kind"] for x in j.get("shares", [])]
    return {
        "per_flow": tot / len(good),
        "first_share": shares[kinds[0]] if kinds else float("nan"),
        "jain": s["jain"],
        "util": tot / bw,
        "loss": s["loss_rate"],
        "queue": s["mean_queue_pkts"],
        "min_flow": min(good),
        "max_flow": max(good),
    }


def load(d, prefix, mix, aqm):
    runs = []
    for f in sorted(glob.glob(os.path.join(d, "%s-%s-%s-s*.json" % (prefix, mix, aqm)))):
        if os.path.getsize(f) > 0 and re.search(r"-s\d+\.json$", f):
            runs.append(metrics(f, a.bw))
    return runs


def fmt(v, k):
    if k == "loss":
        return "%.4f" % v
    if k == "queue":
        return "%.0f" % v
    return "%.3f" % v if k != "per_flow" else "%.2f" % v


def cell(runs, k):
    v = [r[k] for r in runs]
    m = statistics.mean(v)
    return "%s (%s–%s)" % (fmt(m, k), fmt(min(v), k), fmt(max(v), k)), m


COLS = ["per_flow", "first_share", "jain", "util", "loss", "queue"]


def earlier_rows(path):
    """(mix, aqm) -> (seeds, cell texts, means) from the ns-3 rows of an earlier table."""
    rows = {}
    if not path:
        return rows
    for line in open(path):
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) < 10 or c[2] != "ns-3":
            continue
        cells = c[4:10]
        means = {}
        for k, txt in zip(COLS, cells):
            if txt != "–":
                means[k] = float(txt.split()[0])
        rows[(c[0], c[1])] = (c[3], cells, means)
    return rows


EARLIER = earlier_rows(a.ns3_rows)
print("| mix | AQM | simulator | seeds | Mb/s per flow | first algorithm's share | Jain | "
      "goodput utilisation | loss rate | mean queue (pkts) | outside tolerance |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for mix in MIXES:
    for aqm in AQMS:
        pk, n3 = load(a.pktlab, "pk", mix, aqm), load(a.ns3, "ns3", mix, aqm)
        means = {}
        earlier = EARLIER.get((mix, aqm)) if not n3 else None
        for name, runs in (("pktlab", pk), ("ns-3", n3)):
            if name == "ns-3" and earlier:
                seeds, cells, m = earlier
                means["ns-3"] = m
                bad = []
                for k, (ab, rel) in TOL.items():
                    if k in means.get("pktlab", {}) and k in m:
                        d = means["pktlab"][k] - m[k]
                        if abs(d) > max(ab, rel * abs(m[k])):
                            bad.append(k)
                print("| %s | %s | ns-3 | %s (earlier run) | %s | %s |"
                      % (mix, aqm, seeds, " | ".join(cells), ", ".join(bad) if bad else "none"))
                continue
            if not runs:
                continue
            cells = []
            for k in COLS:
                if k == "first_share" and mix != "mix":
                    cells.append("–")
                    continue
                c, m = cell(runs, k)
                cells.append(c)
                means.setdefault(name, {})[k] = m
            out = ""
            if name == "pktlab" and "ns-3" in means or (name == "ns-3" and "pktlab" in means):
                bad = []
                for k, (ab, rel) in TOL.items():
                    if k not in means["pktlab"] or k not in means["ns-3"]:
                        continue
                    d = means["pktlab"][k] - means["ns-3"][k]
                    if abs(d) > max(ab, rel * abs(means["ns-3"][k])):
                        bad.append(k)
                out = ", ".join(bad) if bad else "none"
            print("| %s | %s | %s | %d | %s | %s |" % (mix, aqm, name, len(runs), " | ".join(cells), out))
