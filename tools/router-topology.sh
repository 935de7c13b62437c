#!/usr/bin/env bash
# Host A — router — host B (and a fourth namespace C) for pktlab as a router
# (docs/results/router.md, crates/pktlab-cli/tests/router.rs):
#
#   NAME-a  a0 10.1.0.2/24 ---- ra 10.1.0.1/24  NAME-r  rb 10.2.0.1/24 ---- b0 10.2.0.2/24  NAME-b
#                                                       rc 10.3.0.1/24 ---- c0 10.3.0.2/24  NAME-c
#   B and C both hold 10.9.0.1/32 (their "served subnet" 10.9.0.0/24); in the router
#   10.9.0.0/24 is routed via B (10.2.0.2) until `switch NAME` replaces it via C (10.3.0.2).
#
# No static ARP: neighbours are resolved by the kernels. ip_forward=0 in the router
# namespace (the kernel does not forward: pktlab does, or nothing), rp_filter off. Offloads
# off on every veth (no GSO/GRO super-frames, checksums filled in) as in the Linux
# forwarding anchor. IPv6 stays on (ND keeps working through the kernel).
#
# Usage: router-topology.sh up|down|switch|kernel-forwarding NAME
#        router-topology.sh demo NAME afpacket|afxdp   (needs PKTLAB=path/to/pktlab)
set -euo pipefail

cmd=${1:-}
name=${2:-}
if [[ -z $cmd || -z $name || ! $name =~ ^[A-Za-z0-9_-]{1,20}$ ]]; then
  echo "usage: $0 up|down|switch|kernel-forwarding|demo NAME [afpacket|afxdp] (NAME: 1-20 of [A-Za-z0-9_-])" >&2
  exit 2
fi
A=$name-a R=$name-r B=$name-b C=$name-c

down() {
  for ns in "$A" "$R" "$B" "$C"; do
    ip netns del "$ns" 2>/dev/null || true
  done
}

offloads_off() { # ns dev
  if command -v ethtool >/dev/null 2>&1; then
    ip netns exec "$1" ethtool -K "$2" tso off gso off gro off tx off >/dev/null 2>&1 || true
  fi
}

link() { # host-ns host-dev router-dev host-addr router-addr
  ip link add "$2" netns "$1" type veth peer name "$3" netns "$R"
  ip -n "$1" addr add "$4" dev "$2"
  ip -n "$R" addr add "$5" dev "$3"
  ip -n "$1" link set "$2" up
  ip -n "$R" link set "$3" up
  offloads_off "$1" "$2"
  offloads_off "$R" "$3"
}

up() {
  down
  for ns in "$A" "$R" "$B" "$C"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
  done
  ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=0 net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf.default.rp_filter=0 net.ipv6.conf.all.forwarding=0
  link "$A" a0 ra 10.1.0.2/24 10.1.0.1/24
  link "$B" b0 rb 10.2.0.2/24 10.2.0.1/24
  link "$C" c0 rc 10.3.0.2/24 10.3.0.1/24
  ip -n "$A" route add default via 10.1.0.1
  ip -n "$B" route add default via 10.2.0.1
  ip -n "$C" route add default via 10.3.0.1
  ip -n "$B" addr add 10.9.0.1/32 dev lo
  ip -n "$C" addr add 10.9.0.1/32 dev lo
  ip -n "$R" route add 10.9.0.0/24 via 10.2.0.2 dev rb
}

case $cmd in
  up) up ;;
  down) down ;;
  switch) ip -n "$R" route replace 10.9.0.0/24 via 10.3.0.2 dev rc ;;
  kernel-forwarding) ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 ;;
  demo)
    kind=${3:-afpacket}
    pk=${PKTLAB:?set PKTLAB to the pktlab binary}
    up
    trap down EXIT
    ip netns exec "$R" "$pk" forward --fib kernel --port "$kind:ra" --port "$kind:rb" \
      --port "$kind:rc" --duration 20 &
    sleep 1
    ip netns exec "$A" ping -c 3 -i 0.2 10.9.0.1
    ip netns exec "$B" iperf3 -s -1 -D
    sleep 0.3
    ip netns exec "$A" iperf3 -c 10.9.0.1 -t 3
    ip netns exec "$A" ping -c 40 -i 0.05 10.9.0.1 >/dev/null &
    sleep 1
    "$0" switch "$name"
    wait %2 || true
    echo "C received $(ip netns exec "$C" cat /sys/class/net/c0/statistics/rx_packets) frames after the switch"
    kill -INT %1 2>/dev/null || true
    wait %1 || true
    ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac
