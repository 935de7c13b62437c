#!/usr/bin/env python3
"""Forwarding-only rate, side by side and interleaved on one core: DPDK's own testpmd (Debian
`dpdk-testpmd`, net_null vdevs, `io` and `mac` forwarding) against `pktlab forward --rx null:64
--stages io` with each metadata layout (paper 001's measurement).

Nothing of DPDK is built or vendored: the script runs the installed `dpdk-testpmd`
(`apt-get install -y dpdk-dev`) in interactive mode, feeding `start`, `show port stats all`,
`stop`, `quit` on stdin, and reads the Tx-pps of both null ports over a measured interval.
testpmd's forwarding lcore is core 1 (`-l 0,1`: 0 is the idle main lcore); pktlab runs under
`taskset -c 1`. Each round runs every configuration once, in order, so that a load change on
this shared machine hits all of them; the table shows medians over the rounds and the ratio to
pktlab's `dpdk` layout (and to testpmd io) at the same burst.

Usage: tools/testpmd_side_by_side.py [--pktlab target/release/pktlab] [--bursts 32,512]
       [--rounds 3] [--seconds 4] [--packets 200M] [--json out.json]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import time

# A private --file-prefix so that other DPDK processes on the machine do not collide.
EAL = ["--no-huge", "--no-pci", "-m", "1024", "--no-telemetry", "-l", "0,1",
       "--vdev", "net_null0", "--vdev", "net_null1", f"--file-prefix=pktlab-tp-{os.getpid()}"]


def testpmd(mode, burst, seconds):
    """Mpps forwarded by testpmd (sum of both ports' Tx-pps over `seconds`)."""
    args = ["dpdk-testpmd", *EAL, "--", "-i", f"--forward-mode={mode}", f"--burst={burst}",
            "--mbcache=512", "--total-num-mbufs=32768"]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)

    def cmd(c):
        p.stdin.write(c + "\n")
        p.stdin.flush()

    time.sleep(2.0)  # EAL init
    cmd("start")
    time.sleep(1.0)
    cmd("show port stats all")  # baseline for "since last show"
    time.sleep(seconds)
    cmd("show port stats all")
    cmd("stop")
    cmd("quit")
    out, _ = p.communicate(timeout=60)
    tx = [int(x) for x in re.findall(r"Tx-pps:\s+(\d+)", out)]
    if len(tx) < 4:
        raise RuntimeError("testpmd output not understood:\n" + out[-2000:])
    return sum(tx[-2:]) / 1e6


def pktlab(binary, meta, burst, packets, meta_bytes=16):
    args = ["taskset", "-c", "1", binary, "forward", "--rx", "null:64", "--stages", "io",
            "--batch", str(burst), "--meta", meta, "--meta-bytes", str(meta_bytes),
            "--packets", str(packets), "--json"]
    r = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return r["mpps"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pktlab", default="target/release/pktlab")
    ap.add_argument("--bursts", default="32,512")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--packets", default="200M")
    ap.add_argument("--no-testpmd", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    bursts = [int(b) for b in a.bursts.split(",")]
    configs = []
    for b in bursts:
        if not a.no_testpmd:
            configs += [("testpmd io", b), ("testpmd mac", b)]
        configs += [("pktlab dpdk", b), ("pktlab compact-alloc", b), ("pktlab compact-constant", b)]
    res = {c: [] for c in configs}
    loads = []
    for r in range(a.rounds):
        for c in configs:
            name, b = c
            if name.startswith("testpmd"):
                v = testpmd(name.split()[1], b, a.seconds)
            else:
                v = pktlab(a.pktlab, name.split()[1], b, a.packets)
            res[c].append(v)
            print(f"round {r + 1} {name:24} burst {b:5}: {v:7.2f} Mpps", flush=True)
        loads.append(os.getloadavg()[0])
    med = {c: statistics.median(v) for c, v in res.items()}
    print(f"\nload average during the rounds: {', '.join(f'{x:.1f}' for x in loads)}")
    print(f"{'configuration':26} {'burst':>5} {'Mpps (median)':>14} {'× pktlab dpdk':>14} {'× testpmd io':>13}")
    for c in configs:
        name, b = c
        base = med.get(("pktlab dpdk", b))
        tp = med.get(("testpmd io", b))
        print(f"{name:26} {b:5} {med[c]:14.2f} {med[c] / base:14.2f} "
              f"{(med[c] / tp if tp else float('nan')):13.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": {f"{n}@{b}": v for (n, b), v in res.items()},
                       "median": {f"{n}@{b}": v for (n, b), v in med.items()},
                       "load": loads}, f, indent=1)


if __name__ == "__main__":
    main()
