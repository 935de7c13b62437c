#!/usr/bin/env bash
# Kernel forwarding vs pktlab over afpacket vs pktlab over afxdp on tools/router-topology.sh
# (A — router — B): a UDP flood of 64-byte frames (iperf3 -u -l 18 -b 0: pps reaching B,
# loss) and an iperf3 TCP transfer, each with the whole machine's CPU time per forwarded
# packet from /proc/stat deltas (user+nice+system+irq+softirq+steal, so softirq work is
# counted on whichever core it ran). Prints a Markdown table (and the load average).
#
# Usage: PKTLAB=target/release/pktlab [ROUNDS=5] tools/router-side-by-side.sh [SECONDS] [MODES]
#   MODES: space-separated of kernel afpacket afxdp afxdp-drv (default: all four; afxdp-drv
#   attaches the XDP program in the veth driver instead of generic mode), run round-robin
#   ROUNDS times (default 5); the table gives each column's median and [min–max] over rounds.
# pktlab runs on core 1, the iperf3 client on core 0 (the server where the scheduler puts it). Needs root, iperf3, ping. The machine's other load counts in /proc/stat: read the
# numbers as a diagnostic unless the machine was otherwise idle.
set -euo pipefail
secs=${1:-5}
modes=${2:-kernel afpacket afxdp afxdp-drv}
rounds=${ROUNDS:-5}
pk=${PKTLAB:?set PKTLAB to the pktlab binary}
topo="$(dirname "$0")/router-topology.sh"
name=sbs$$
A=$name-a R=$name-r B=$name-b

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
# user+nice, system, irq+softirq ticks: where the machine's time went.
split() { awk '/^cpu /{print $2+$3, $4, $7+$8}' /proc/stat; }
# B's UDP receive-buffer overflows (datagrams the router delivered that B's socket dropped).
rcvbuf() { ip netns exec "$B" awk '/^Udp:/{n++; if (n==2) print $6}' /proc/net/snmp; }
# The per-CPU backlog drops of the whole machine (frames a veth could not queue).
backlog() { local s=0 a b r; while read -r a b r; do s=$((s + 0x$b)); done </proc/net/softnet_stat; echo "$s"; }
hz=$(getconf CLK_TCK)

run_mode() { # mode -> prints a table row
  local mode=$1 pkpid=""
  "$topo" up "$name"
  if [[ $mode == kernel ]]; then
    "$topo" kernel-forwarding "$name"
  else
    local kind=${mode%-drv} opt=""
    [[ $mode == *-drv ]] && opt=,drv
    ip netns exec "$R" taskset -c 1 "$pk" forward --fib kernel --port "$kind:ra$opt" \
      --port "$kind:rb$opt" --port "$kind:rc$opt" --json >"/tmp/$name-$mode.json" 2>/dev/null &
    pkpid=$!
    sleep 2
  fi
  ip netns exec "$A" ping -c 3 -i 0.2 -W 1 10.9.0.1 >/dev/null || true
  # UDP flood, 64-byte frames.
  ip netns exec "$B" iperf3 -s -1 -D -B 10.9.0.1; sleep 0.3
  local b0 s0 r0 q0; b0=$(busy); s0=$(split); r0=$(rcvbuf); q0=$(backlog)
  ip netns exec "$A" taskset -c 0 iperf3 -c 10.9.0.1 -u -l 18 -b 0 -t "$secs" -J >"/tmp/$name-udp.json" || true
  local b1 s1 r1 q1; b1=$(busy); s1=$(split); r1=$(rcvbuf); q1=$(backlog)
  local udp
  udp=$(python3 - "$secs" "$b0" "$b1" "$hz" "/tmp/$name-udp.json" "$s0" "$s1" "$((r1 - r0))" "$((q1 - q0))" <<'PY'
import json, sys
secs, b0, b1, hz, f = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
s0, s1 = [float(x) for x in sys.argv[6].split()], [float(x) for x in sys.argv[7].split()]
rcvbuf, backlog = int(sys.argv[8]), int(sys.argv[9])
try:
    s = json.load(open(f))["end"]["sum"]
    got = s["packets"] - s["lost_packets"]
    pps = got / s["seconds"]
    per = lambda t: t / hz * 1e6 / max(got, 1)
    cpu_us = per(b1 - b0)
    usr, sys_, sirq = (per(b - a) for a, b in zip(s0, s1))
    lost = max(s["lost_packets"], 1)
    print(f"{pps/1e3:.1f} {s['lost_percent']:.2f} {cpu_us:.3f} {usr:.3f} {sys_:.3f} {sirq:.3f} "
          f"{100*rcvbuf/lost:.1f} {100*backlog/lost:.1f}")
except Exception as e:
    print("nan nan nan nan nan nan nan nan")
PY
)
  # TCP.
  ip netns exec "$B" iperf3 -s -1 -D -B 10.9.0.1; sleep 0.3
  b0=$(busy)
  ip netns exec "$A" taskset -c 0 iperf3 -c 10.9.0.1 -t "$secs" -J >"/tmp/$name-tcp.json" || true
  b1=$(busy)
  local tcp
  tcp=$(python3 - "$b0" "$b1" "$hz" "/tmp/$name-tcp.json" <<'PY'
import json, sys
b0, b1, hz, f = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
try:
    e = json.load(open(f))["end"]
    bps = e["sum_received"]["bits_per_second"]
    # Data segments of 1448 bytes: CPU per forwarded data segment (ACKs ride along).
    segs = e["sum_received"]["bytes"] / 1448
    print(f"{bps/1e9:.3f} {(b1-b0)/hz*1e6/max(segs,1):.3f}")
except Exception as ex:
    print("nan nan")
PY
)
  if [[ -n $pkpid ]]; then kill -INT "$pkpid" 2>/dev/null || true; wait "$pkpid" || true; fi
  "$topo" down "$name"
  echo "$mode $udp $tcp" >>"$raw"
  echo "round $2 $mode: kpps loss% µs/pkt usr sys sirq rcvbuf%lost backlog%lost Gb/s µs/seg = $udp $tcp" >&2
}

raw=$(mktemp)
trap '"$topo" down "$name"; rm -f "$raw"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(lscpu | sed -n 's/^Model name: *//p')"
echo
for r in $(seq 1 "$rounds"); do
  for m in $modes; do run_mode "$m" "$r"; done
done
python3 - "$raw" "$rounds" <<'PY'
import math, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m, *v = line.split()
    rows.setdefault(m, []).append([float(x) for x in v])
def cell(vals, fmt):
    vals = [x for x in vals if not math.isnan(x)]
    if not vals:
        return "-"
    return f"{fmt(statistics.median(vals))} [{fmt(min(vals))}–{fmt(max(vals))}]"
print(f"median [min–max] of {sys.argv[2]} interleaved rounds")
print()
f0 = lambda x: f"{x:.0f}"
f1 = lambda x: f"{x:.1f}"
f2 = lambda x: f"{x:.2f}"
print("| forwarding | UDP 64 B at B (kpps) | loss (%) | CPU µs/packet | TCP (Gb/s) | CPU µs/segment |")
print("|---|---|---|---|---|---|")
for m, vs in rows.items():
    c = list(zip(*vs))
    print(f"| {m} | " + " | ".join(cell(c[i], f) for i, f in
          [(0, f0), (1, f1), (2, f2), (8, f2), (9, f2)]) + " |")
print()
print("UDP phase, where the machine's time went (µs per delivered packet) and where the loss was")
print("(share of iperf3's lost datagrams: B's socket receive buffer, the machine's backlog queues):")
print()
print("| forwarding | user | system | irq+softirq | lost at B's socket (%) | lost in backlog (%) |")
print("|---|---|---|---|---|---|")
for m, vs in rows.items():
    c = list(zip(*vs))
    print(f"| {m} | " + " | ".join(cell(c[i], f) for i, f in
          [(3, f2), (4, f2), (5, f2), (6, f0), (7, f0)]) + " |")
PY
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
