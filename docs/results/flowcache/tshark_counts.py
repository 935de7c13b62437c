#!/usr/bin/env python3
"""Count IP packets and distinct unidirectional 5-tuples with tshark (outer IP header only,
no defragmentation). Ports: first tcp/udp port field when the outer protocol is TCP/UDP and the
packet is not a non-first fragment."""
import subprocess, sys
def counts(path):
    f = ["ip.src","ip.dst","ip.proto","ipv6.src","ipv6.dst","tcp.srcport","tcp.dstport",
         "udp.srcport","udp.dstport"]
    cmd = ["tshark","-r",path,"-o","ip.defragment:FALSE","-o","ipv6.defragment:FALSE",
           "-Y","ip or ipv6","-T","fields","-E","separator=|"] + sum([["-e",x] for x in f],[])
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    pk, flows = 0, set()
    for line in out.splitlines():
        v = [x.split(",")[0] for x in line.split("|")]
        d = dict(zip(f, v))
        pk += 1
        src = d["ip.src"] or d["ipv6.src"]; dst = d["ip.dst"] or d["ipv6.dst"]
        proto = d["ip.proto"] if d["ip.src"] else "v6"
        sp = d["tcp.srcport"] or d["udp.srcport"]; dp = d["tcp.dstport"] or d["udp.dstport"]
        flows.add((src, dst, proto, sp, dp))
    return pk, len(flows)
for p in sys.argv[1:]:
    pk, fl = counts(p)
    print(f'{p.split("/")[-1]} {pk} {fl}')
