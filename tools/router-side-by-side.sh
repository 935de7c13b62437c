#!/usr/bin/env bash
# Kernel forwarding vs pktlab over afpacket vs pktlab over afxdp on tools/router-topology.sh
# (A — router — B): a UDP flood of 64-byte frames (iperf3 -u -l 18 -b 0: pps reaching B,
# loss) and an iperf3 TCP transfer, each with the whole machine's CPU time per forwarded
# packet from /proc/stat deltas (user+nice+system+irq+softirq+steal, so softirq work is
# counted on whichever core it ran). Prints a Markdown table (and the load average).
#
# Usage: PKTLAB=target/release/pktlab tools/router-side-by-side.sh [SECONDS] [MODES]
#   MODES: space-separated of kernel afpacket afxdp (default: all three)
# Needs root, iperf3, ping. The machine's other load counts in /proc/stat: read the
# numbers as a diagnostic unless the machine was otherwise idle.
set -euo pipefail
secs=${1:-5}
modes=${2:-kernel afpacket afxdp}
pk=${PKTLAB:?set PKTLAB to the pktlab binary}
topo="$(dirname "$0")/router-topology.sh"
name=sbs$$
A=$name-a R=$name-r B=$name-b

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
hz=$(getconf CLK_TCK)

run_mode() { # mode -> prints a table row
  local mode=$1 pkpid=""
  "$topo" up "$name"
  if [[ $mode == kernel ]]; then
    "$topo" kernel-forwarding "$name"
  else
    ip netns exec "$R" "$pk" forward --fib kernel --port "$mode:ra" --port "$mode:rb" \
      --port "$mode:rc" --json >"/tmp/$name-$mode.json" 2>/dev/null &
    pkpid=$!
    sleep 2
  fi
  ip netns exec "$A" ping -c 3 -i 0.2 -W 1 10.9.0.1 >/dev/null || true
  # UDP flood, 64-byte frames.
  ip netns exec "$B" iperf3 -s -1 -D; sleep 0.3
  local b0; b0=$(busy)
  ip netns exec "$A" iperf3 -c 10.9.0.1 -u -l 18 -b 0 -t "$secs" -J >"/tmp/$name-udp.json" || true
  local b1; b1=$(busy)
  local udp
  udp=$(python3 - "$secs" "$b0" "$b1" "$hz" "/tmp/$name-udp.json" <<'PY'
import json, sys
secs, b0, b1, hz, f = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
try:
    s = json.load(open(f))["end"]["sum"]
    got = s["packets"] - s["lost_packets"]
    pps = got / s["seconds"]
    cpu_us = (b1 - b0) / hz * 1e6 / max(got, 1)
    print(f"{pps/1e3:.0f} kpps | {s['lost_percent']:.1f} % | {cpu_us:.2f}")
except Exception as e:
    print(f"- | - | - ({e.__class__.__name__})")
PY
)
  # TCP.
  ip netns exec "$B" iperf3 -s -1 -D; sleep 0.3
  b0=$(busy)
  ip netns exec "$A" iperf3 -c 10.9.0.1 -t "$secs" -J >"/tmp/$name-tcp.json" || true
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
    print(f"{bps/1e9:.2f} Gb/s | {(b1-b0)/hz*1e6/max(segs,1):.2f}")
except Exception as ex:
    print(f"- | - ({ex.__class__.__name__})")
PY
)
  if [[ -n $pkpid ]]; then kill -INT "$pkpid" 2>/dev/null || true; wait "$pkpid" || true; fi
  "$topo" down "$name"
  echo "| $mode | $udp | $tcp |"
}

trap '"$topo" down "$name"' EXIT
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(lscpu | sed -n 's/^Model name: *//p')"
echo
echo "| forwarding | UDP 64 B at B | loss | CPU µs/packet | TCP | CPU µs/segment |"
echo "|---|---|---|---|---|---|"
for m in $modes; do run_mode "$m"; done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
