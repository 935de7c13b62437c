#!/usr/bin/env python3
"""Digest of a `pktlab aqm study --json` result, as `pktlab_lab::aqm` tests compute it.

FNV-1a (64 bit) over, for every run in order, the IEEE-754 bits of each metric of
`pktlab_lab::aqm::figures::METRICS` (null → NaN 0x7ff8000000000000) and then `early_drops`, `forced_drops`,
each as 8 little-endian bytes. Used to pin paper 002's presets bit for bit:

    pktlab aqm study fig5 --conns 20 --buffers 1000 --duration 20 --warmup 5 --seeds 1 \\
        --json --out /tmp/d | python3 tools/preset_digest.py
"""
import json
import struct
import sys

METRICS = ["reno_mbps", "vegas_mbps", "vegas_share", "jain", "loss_rate", "reno_loss_rate",
           "vegas_loss_rate", "utilization", "mean_queue_pkts", "flow_estimate"]


def digest(result):
    h = 0xCBF29CE484222325
    def eat(word):
        nonlocal h
        for b in struct.pack("<Q", word):
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    for run in result["runs"]:
        s = run["run"]
        for k in METRICS:
            x = s.get(k)
            eat(0x7FF8000000000000 if x is None else struct.unpack("<Q", struct.pack("<d", x))[0])
        eat(s["early_drops"])
        eat(s["forced_drops"])
    return h


if __name__ == "__main__":
    print(f"0x{digest(json.load(sys.stdin)):016x}")
