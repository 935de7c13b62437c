#!/usr/bin/env python3
"""Summarises tools/cefore-case-study.sh output: a Markdown table (medians over runs) on stdout
and an SVG plot of Data/s and Data per router CPU-second against CS size for both routers.

    tools/cefore-case-study-plot.py STUDY.jsonl OUT.svg [CONTENTS [ALPHA]]   (default 2^26 0.8)

Hit ratios are measured at the producer: 1 - producer Interests / consumer Interests satisfied
(CS hits plus PIT aggregation). Next to them: the characteristic-time approximations for FIFO
and LRU (Che), computed here the way `pktlab::ccn::sim::{che_fifo, che_lru}` computes them
(ranks up to 2^16 exactly, the tail in geometric bins); the LRU values reproduce the library's
(docs/results/traffic-ccn.md section 3). No third-party modules.
"""
import json
import math
import statistics
import sys


def load(path):
    rows = []
    for n, line in enumerate(open(path), 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            # A point whose producer or consumer wrote nothing (e.g. it could not bind).
            print(f"{path}:{n}: skipped, not JSON ({e})", file=sys.stderr)
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


def zsum(alpha, a, b):
    """Sum of r^-alpha for r in a..=b (Euler-Maclaurin beyond a few terms)."""
    if b - a < 64:
        return sum(r ** -alpha for r in range(a, b + 1))
    f = lambda x: x ** (1 - alpha) / (1 - alpha)
    return f(b) - f(a) + (a ** -alpha + b ** -alpha) / 2 + alpha / 12 * (a ** (-alpha - 1) - b ** (-alpha - 1))


def groups(alpha, n):
    z = zsum(alpha, 1, n)
    head = min(n, 1 << 16)
    g = [(1.0, r ** -alpha / z) for r in range(1, head + 1)]
    a = head + 1
    while a <= n:
        w = min(max(int(a * 1e-4), 1), n - a + 1)
        b = a + w - 1
        g.append((float(w), zsum(alpha, a, b) / z / w))
        a = b + 1
    return g


def approx(alpha, n, c, fifo):
    if c == 0:
        return 0.0
    g = groups(alpha, n)
    occ_item = (lambda p, t: p * t / (1 + p * t)) if fifo else (lambda p, t: -math.expm1(-p * t))
    occ = lambda t: sum(w * occ_item(p, t) for w, p in g)
    lo, hi = 0.0, 1.0
    while occ(hi) < c:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if occ(mid) < c else (lo, mid)
    t = (lo + hi) / 2
    return sum(w * p * occ_item(p, t) for w, p in g)


ROUTERS = ("cefnetd", "csmgrd", "pktlab")


def fmt_size(s):
    return ("2^%d" % int(math.log2(s))) if s else "off"


def table(data, contents, alpha):
    sizes = sorted({s for (_, s) in data})
    present = [r for r in ROUTERS if any((r, s) in data for s in sizes)]
    print("| CS entries | " + " | ".join(f"{r} Data/s" for r in present) + " | pktlab / cefnetd | "
          + " | ".join(f"{r} Data/CPU-s" for r in present) + " | pktlab / cefnetd | runs |")
    print("|---" * (4 + 2 * len(present)) + "|")
    for s in sizes:
        rate = {r: med(data[(r, s)], "data_per_s") for r in present if (r, s) in data}
        eff = {r: med(data[(r, s)], "per_cpu_s") for r in present if (r, s) in data}
        cell = lambda d, r: f"{d[r]:,.0f}" if r in d else ""
        ratio = lambda d: f"{d['pktlab'] / d['cefnetd']:.2f}" if "pktlab" in d and "cefnetd" in d else ""
        runs = "/".join(str(len(data.get((r, s), []))) for r in present)
        print(f"| {fmt_size(s)} | " + " | ".join(cell(rate, r) for r in present) + f" | {ratio(rate)} | "
              + " | ".join(cell(eff, r) for r in present) + f" | {ratio(eff)} | {runs} |")
    print()
    print("| CS entries | " + " | ".join(f"hit {r}" for r in present)
          + " | FIFO approx. | Che (LRU) | pktlab CS fill | " + " | ".join(f"{r} CPU share" for r in present)
          + " | " + " | ".join(f"{r} RTT p50 µs" for r in present) + " |")
    print("|---" * (4 + 3 * len(present)) + "|")
    for s in sizes:
        hit = {r: med(data[(r, s)], "hit") for r in present if (r, s) in data}
        share = {r: med(data[(r, s)], "cpu_share") for r in present if (r, s) in data}
        rtt = {r: med(data[(r, s)], "rtt_p50") for r in present if (r, s) in data}
        fill = med(data[("pktlab", s)], "fill") if ("pktlab", s) in data else None
        print(f"| {fmt_size(s)} | " + " | ".join(f"{hit[r]:.3f}" if r in hit else "" for r in present)
              + f" | {approx(alpha, contents, s, True):.3f} | {approx(alpha, contents, s, False):.3f} | "
              + ("" if fill is None else f"{fill:.2f}") + " | "
              + " | ".join(f"{share[r]:.2f}" if r in share else "" for r in present) + " | "
              + " | ".join(f"{rtt[r]:,.0f}" if r in rtt else "" for r in present) + " |")


def svg(data, path):
    w, h, m = 720, 420, 60
    sizes = sorted({s for (_, s) in data})
    xs = {s: i for i, s in enumerate(sizes)}
    series = []
    for router, colour in (("cefnetd", "#c0392b"), ("csmgrd", "#7d3c98"), ("pktlab", "#2471a3")):
        if not any((router, s) in data for s in sizes):
            continue
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
    contents = int(eval(sys.argv[3].replace("^", "**"))) if len(sys.argv) > 3 else 1 << 26
    alpha = float(sys.argv[4]) if len(sys.argv) > 4 else 0.8
    table(data, contents, alpha)
    svg(data, sys.argv[2])


if __name__ == "__main__":
    main()
