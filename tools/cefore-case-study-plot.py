#!/usr/bin/env python3
"""Summarises tools/cefore-case-study.sh output: a Markdown table (medians over runs) on stdout
and an SVG plot of Data/s and Data per router CPU-second against CS size for both routers.

    tools/cefore-case-study-plot.py STUDY.jsonl OUT.svg [CONTENTS ALPHA]

Hit ratios are measured at the producer: 1 - producer Interests / consumer Interests satisfied
(CS hits plus PIT aggregation). The FIFO approximation column is computed by `pktlab` itself
(`ccn::sim::che_fifo`), passed in through the JSON of the pktlab router rows when present,
otherwise left blank. No third-party modules.
"""
import json
import math
import statistics
import sys


def load(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    out = {}
    for r in rows:
        c, p = r["consumer"], r["producer"]
        sat = max(1, c["interests_satisfied"])
        rec = {
            "data_per_s": c["data_per_s"],
            "cpu_s": r["router_cpu_s"],
            "per_cpu_s": c["data_received"] / max(r["router_cpu_s"], 1e-3),
            "cpu_share": r["router_cpu_s"] / max(r["wall_s"], 1e-3),
            "hit": 1 - p["interests"] / sat,
            "timeouts": c["timeouts"],
            "rtt_p50": c["rtt_us"]["p50"],
            "rtt_p99": c["rtt_us"]["p99"],
            "load": float(r["load"].split()[0]),
            "fill": None,
        }
        rj = r.get("router_json")
        if rj and rj["cs"]["capacity"]:
            rec["fill"] = rj["cs"]["entries"] / rj["cs"]["capacity"]
        out.setdefault((r["router"], r["cs_entries"]), []).append(rec)
    return out


def med(recs, k):
    vals = [x[k] for x in recs if x[k] is not None]
    return statistics.median(vals) if vals else None


def table(data, approx):
    sizes = sorted({s for (_, s) in data})
    print("| CS entries | cefnetd Data/s | pktlab Data/s | ratio | cefnetd Data/CPU-s | pktlab Data/CPU-s "
          "| ratio | hit cefnetd | hit pktlab | FIFO approx. | Che (LRU) | pktlab CS fill | runs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in sizes:
        a, b = data.get(("cefnetd", s), []), data.get(("pktlab", s), [])
        if not a or not b:
            continue
        ca, cb = med(a, "data_per_s"), med(b, "data_per_s")
        ea, eb = med(a, "per_cpu_s"), med(b, "per_cpu_s")
        fifo, lru = approx.get(s, (None, None))
        fill = med(b, "fill")
        print(f"| {('2^%d' % int(math.log2(s))) if s else 'off'} | {ca:,.0f} | {cb:,.0f} | {cb / ca:.2f} "
              f"| {ea:,.0f} | {eb:,.0f} | {eb / ea:.1f} | {med(a, 'hit'):.3f} | {med(b, 'hit'):.3f} "
              f"| {'' if fifo is None else '%.3f' % fifo} | {'' if lru is None else '%.3f' % lru} "
              f"| {'' if fill is None else '%.2f' % fill} | {len(a)}/{len(b)} |")


def svg(data, path):
    w, h, m = 720, 420, 60
    sizes = sorted({s for (_, s) in data})
    xs = {s: i for i, s in enumerate(sizes)}
    series = []
    for router, colour in (("cefnetd", "#c0392b"), ("pktlab", "#2471a3")):
        for key, dash, label in (("data_per_s", "", "Data/s at the consumer"),
                                 ("per_cpu_s", "6,4", "Data per router CPU-second")):
            pts = [(xs[s], med(data[(router, s)], key)) for s in sizes if (router, s) in data]
            series.append((f"{router}: {label}", colour, dash, pts))
    ymax = max(v for _, _, _, pts in series for _, v in pts)
    top = 10 ** math.ceil(math.log10(ymax))
    bottom = 10 ** math.floor(math.log10(min(v for _, _, _, pts in series for _, v in pts)))

    def px(i):
        return m + i * (w - 2 * m) / max(1, len(sizes) - 1)

    def py(v):
        return h - m - (math.log10(v) - math.log10(bottom)) / (math.log10(top) - math.log10(bottom)) * (h - 2 * m)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
         f'<rect width="{w}" height="{h}" fill="white"/>',
         f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">Paper 003 case study on loopback: '
         f'Zipf(0.8) over 2^26 names, FIFO CS</text>']
    d = bottom
    while d <= top:
        o.append(f'<line x1="{m}" x2="{w - m}" y1="{py(d):.1f}" y2="{py(d):.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{m - 6}" y="{py(d) + 4:.1f}" text-anchor="end">{d:,.0f}</text>')
        d *= 10
    for s, i in xs.items():
        o.append(f'<text x="{px(i):.1f}" y="{h - m + 18}" text-anchor="middle">'
                 f'{("2^%d" % int(math.log2(s))) if s else "CS off"}</text>')
    o.append(f'<text x="{w / 2}" y="{h - 15}" text-anchor="middle">cached contents (CS entries)</text>')
    o.append(f'<text x="15" y="{h / 2}" transform="rotate(-90 15 {h / 2})" text-anchor="middle">'
             f'Data packets (log scale)</text>')
    for k, (label, colour, dash, pts) in enumerate(series):
        path_d = " ".join(f"{'M' if j == 0 else 'L'}{px(i):.1f},{py(v):.1f}" for j, (i, v) in enumerate(pts))
        o.append(f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>')
        for i, v in pts:
            o.append(f'<circle cx="{px(i):.1f}" cy="{py(v):.1f}" r="3" fill="{colour}"/>')
        ly = 40 + 16 * k
        o.append(f'<line x1="{m + 10}" x2="{m + 40}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2" '
                 f'stroke-dasharray="{dash}"/><text x="{m + 46}" y="{ly + 4}">{label}</text>')
    o.append("</svg>")
    open(path, "w").write("\n".join(o) + "\n")


def main():
    data = load(sys.argv[1])
    approx = {}
    if len(sys.argv) > 3:
        # Optional: "SIZE:FIFO:LRU,…" computed by pktlab (see docs/results/ccn-live.md).
        for part in sys.argv[3].split(","):
            s, f, l = part.split(":")
            approx[int(s)] = (float(f), float(l))
    table(data, approx)
    svg(data, sys.argv[2])


if __name__ == "__main__":
    main()
