#!/usr/bin/env bash
# Real Linux TCP (reno, cubic, bbr) through a bottleneck, for the "Linux TCP vs pktlab"
# section of docs/results/netsim.md. Needs root, iproute2, ethtool, iperf3 (installed
# with apt-get if missing) and a release build of pktlab (PKTLAB=path, default
# target/release/pktlab).
#
#   NAME-snd  s0 10.1.0.1 ──── b0 10.1.0.2  NAME-bot  b1 10.2.0.1 ──── m0 10.2.0.2  NAME-mid
#             sa 10.9.0.1 ─┐                (kernel forwarding;                    (pktlab forward
#                          │                 htb + pfifo on b1 when                  --rx m0 --tx m1
#                          │                 the kernel is the bottleneck)           --delay [--rate --aqm])
#                          │                                                        m1 10.3.0.1
#                          │                                                          │
#                          └──────────────── ra 10.9.0.2  NAME-rcv  r0 10.3.0.2 ─────┘
#
# Data goes snd → bot → mid (pktlab: the propagation delay, and with BOTTLENECK=pktlab also the
# rate and the AQM) → rcv. pktlab forwards one direction only, so ACKs return on the direct
# veth sa–ra (no delay): the whole round-trip propagation delay is pktlab's --delay.
# AF_PACKET tx uses PACKET_QDISC_BYPASS, so the kernel bottleneck (BOTTLENECK=kernel) is htb +
# pfifo on bot's b1, an interface pktlab does not transmit on. Offloads (TSO/GSO/GRO and
# checksum offload) are off on every veth: pktlab sees and sends real 1514-byte frames with
# valid checksums. Static ARP everywhere. Namespaces are always removed on exit (trap), and
# every process is bounded in time (timeout).
#
# Usage:
#   linux_tcp_validation.sh up NAME | down NAME
#   linux_tcp_validation.sh run NAME OUTDIR   one run, parameters from the environment:
#       BOTTLENECK=kernel|pktlab  RATE=20 (Mb/s)  DELAY=40 (ms, RTT)  BUFFER=100 (packets)
#       AQM=droptail (pktlab bottleneck)  SECONDS_RUN=30  RENO=0 CUBIC=0 BBR=0 (flows of each)
#     writes OUTDIR/forward.json, OUTDIR/iperf-ALGO.json, OUTDIR/summary.json, and
#     OUTDIR/ss.txt (`ss -tin` of the senders every 0.5 s: cwnd, BBR's bw and mrtt)
#   linux_tcp_validation.sh matrix OUTDIR     the doc's runs (3 runs × reno, cubic, bbr ×
#       kernel and pktlab bottlenecks; BOTTLENECKS="pktlab" for one kind), one fresh topology per run
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
PKTLAB=${PKTLAB:-$here/../target/release/pktlab}

mac() { printf '02:00:00:00:%02x:%02x' "$1" "$2"; }

down() {
  local n=$1
  for r in snd bot mid rcv; do ip netns del "$n-$r" 2>/dev/null || true; done
}

link() { # nsA devA macA nsB devB macB
  ip -n "$1" link add "$2" type veth peer name "$5" netns "$4"
  ip -n "$1" link set "$2" address "$3"
  ip -n "$4" link set "$5" address "$6"
  for d in "$1 $2" "$4 $5"; do
    set -- $d
    ip netns exec "$1" sysctl -qw "net.ipv4.conf.$2.rp_filter=0"
    # Offloads off (required: with checksum offload on, frames leave the veth with partial
    # TCP checksums, which pktlab forwards as they are and the receiver then rejects).
    ip netns exec "$1" ethtool -K "$2" tso off gso off gro off tx off rx off >/dev/null
    ip -n "$1" link set "$2" up
  done
}

up() {
  local n=$1
  local snd=$n-snd bot=$n-bot mid=$n-mid rcv=$n-rcv
  for ns in "$snd" "$bot" "$mid" "$rcv"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
      net.ipv6.conf.default.disable_ipv6=1 net.ipv4.ip_forward=0 \
      net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
  done
  ip netns exec "$bot" sysctl -qw net.ipv4.ip_forward=1
  link "$snd" s0 "$(mac 1 1)" "$bot" b0 "$(mac 1 2)"
  link "$bot" b1 "$(mac 2 1)" "$mid" m0 "$(mac 2 2)"
  # pktlab's rewrite writes the next hop's MAC: the one route `0.0.0.0/0 1` of the run's
  # table gives 02:00:00:00:00:10 (seen on the wire), so that is r0's address.
  link "$mid" m1 "$(mac 3 1)" "$rcv" r0 02:00:00:00:00:10
  link "$snd" sa "$(mac 9 1)" "$rcv" ra "$(mac 9 2)"
  ip -n "$snd" addr add 10.1.0.1/24 dev s0
  ip -n "$snd" addr add 10.9.0.1/24 dev sa
  ip -n "$bot" addr add 10.1.0.2/24 dev b0
  ip -n "$bot" addr add 10.2.0.1/24 dev b1
  ip -n "$mid" addr add 10.2.0.2/24 dev m0
  ip -n "$mid" addr add 10.3.0.1/24 dev m1
  ip -n "$rcv" addr add 10.3.0.2/24 dev r0
  ip -n "$rcv" addr add 10.9.0.2/24 dev ra
  ip -n "$snd" neigh replace 10.1.0.2 lladdr "$(mac 1 2)" dev s0 nud permanent
  ip -n "$snd" neigh replace 10.9.0.2 lladdr "$(mac 9 2)" dev sa nud permanent
  ip -n "$bot" neigh replace 10.1.0.1 lladdr "$(mac 1 1)" dev b0 nud permanent
  ip -n "$bot" neigh replace 10.2.0.2 lladdr "$(mac 2 2)" dev b1 nud permanent
  ip -n "$rcv" neigh replace 10.9.0.1 lladdr "$(mac 9 1)" dev ra nud permanent
  ip -n "$snd" route add 10.3.0.0/24 via 10.1.0.2 dev s0
  ip -n "$bot" route add 10.3.0.0/24 via 10.2.0.2 dev b1
  ip -n "$rcv" route add 10.1.0.0/24 via 10.9.0.1 dev ra
}

# One run in a fresh topology NAME (removed on exit).
run() {
  local n=$1 out=$2
  local bottleneck=${BOTTLENECK:-kernel} rate=${RATE:-20} delay=${DELAY:-40}
  local buffer=${BUFFER:-100} aqm=${AQM:-droptail} secs=${SECONDS_RUN:-30}
  local reno=${RENO:-0} cubic=${CUBIC:-0} bbr=${BBR:-0}
  mkdir -p "$out"
  trap "down $n" EXIT
  down "$n"
  up "$n"
  local routes=$out/routes.txt
  echo "0.0.0.0/0 1" >"$routes"
  local fwd=(forward --rx afpacket:m0 --tx afpacket:m1 --table "$routes" --workers 1
    --duration $((secs + 12)) --json --delay "$delay" --aqm "$aqm")
  if [[ $bottleneck == kernel ]]; then
    # htb at RATE with a pfifo of BUFFER packets; pktlab only delays.
    ip netns exec "$n-bot" tc qdisc add dev b1 root handle 1: htb default 1
    ip netns exec "$n-bot" tc class add dev b1 parent 1: classid 1:1 htb rate "${rate}mbit" ceil "${rate}mbit"
    ip netns exec "$n-bot" tc qdisc add dev b1 parent 1:1 handle 10: pfifo limit "$buffer"
    # No --rate: the line's capacity is --queue packets (arrivals at RATE × DELAY fit).
    fwd+=(--stages l3 --queue 4096)
  else
    fwd+=(--rate "$rate" --queue "$buffer" --stages l3)
  fi
  timeout $((secs + 30)) ip netns exec "$n-mid" "$PKTLAB" "${fwd[@]}" >"$out/forward.json" 2>"$out/forward.err" &
  local fpid=$!
  for _ in $(seq 100); do grep -q "forward: running" "$out/forward.err" 2>/dev/null && break; sleep 0.1; done
  local port=5201 pids=() algos=()
  for spec in "reno $reno" "cubic $cubic" "bbr $bbr"; do
    set -- $spec
    [[ $2 -gt 0 ]] || continue
    timeout $((secs + 25)) ip netns exec "$n-rcv" iperf3 -s -1 -p $port >/dev/null 2>&1 &
    algos+=("$1:$2:$port")
    port=$((port + 1))
  done
  sleep 0.5
  for a in "${algos[@]}"; do
    IFS=: read -r algo flows p <<<"$a"
    timeout $((secs + 15)) ip netns exec "$n-snd" iperf3 -c 10.3.0.2 -p "$p" -B 10.1.0.1 \
      -C "$algo" -P "$flows" -t "$secs" -O 5 -J >"$out/iperf-$algo.json" 2>"$out/iperf-$algo.err" &
    pids+=($!)
  done
  # The senders' TCP state (cwnd, and BBR's bw / min RTT estimates), every half second.
  for _ in $(seq $((2 * secs))); do
    echo "T $(date +%s.%N)"
    ip netns exec "$n-snd" ss -tin state established dst 10.3.0.2
    sleep 0.5
  done >"$out/ss.txt" 2>/dev/null &
  local sspid=$!
  # Queue at the kernel bottleneck, sampled every second (backlog in packets).
  if [[ $bottleneck == kernel ]]; then
    for _ in $(seq "$secs"); do
      ip netns exec "$n-bot" tc -s qdisc show dev b1 | awk '/pfifo/{f=1} f&&/backlog/{print $3; f=0}' | tr -d 'p'
      sleep 1
    done >"$out/kernel-backlog.txt" &
  fi
  for p in "${pids[@]}"; do wait "$p" || true; done
  kill "$sspid" 2>/dev/null || true
  wait "$fpid" || true
  [[ $bottleneck == kernel ]] && ip netns exec "$n-bot" tc -s qdisc show dev b1 >"$out/tc.txt"
  python3 "$here/linux_tcp_summary.py" "$out" "$rate" >"$out/summary.json"
  cat "$out/summary.json"
}

matrix() {
  local out=$1 i
  export SECONDS_RUN=${SECONDS_RUN:-30}
  for b in ${BOTTLENECKS:-kernel pktlab}; do
    for algo in reno cubic bbr; do
      for i in 1 2 3; do
        local up=${algo^^}
        env BOTTLENECK=$b "$up=${FLOWS:-4}" "$0" run "ltv$$" "$out/$b-$algo-$i" || true
      done
    done
  done
}

cmd=${1:-}
case $cmd in
  up) up "$2" ;;
  down) down "$2" ;;
  run)
    command -v iperf3 >/dev/null || apt-get install -y iperf3 >/dev/null
    run "$2" "$3"
    ;;
  matrix) matrix "$2" ;;
  *)
    echo "usage: $0 up NAME | down NAME | run NAME OUTDIR | matrix OUTDIR" >&2
    exit 2
    ;;
esac
