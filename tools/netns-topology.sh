#!/usr/bin/env bash
# Three network namespaces joined by two veth pairs, for pktlab's live ports
# (docs/results/ports.md, crates/pktlab-cli/tests/live_ports.rs):
#
#   NAME-gen               NAME-rt                          NAME-sink
#   veth0 02:00:00:00:00:01 --- in0 02:00:00:00:00:02
#   198.18.0.1/24               198.18.0.2/24
#                               out0 02:00:00:00:01:01 --- veth0 02:00:00:00:01:02
#                               198.19.0.1/24               198.19.0.2/24
#
# Static ARP entries everywhere (no broadcast is ever needed), IPv6 off (no DAD, router
# solicitations or MLD reports), ip_forward=0 and rp_filter=0 in the router namespace (so the
# kernel neither forwards nor answers what pktlab forwards; `kernel-forwarding NAME` turns
# forwarding on for the kernel baseline). The generator's frames (io/pcap_write.rs) carry
# source MAC ..:01 and destination MAC ..:02, exactly gen's and the router's addresses.
#
# Usage: netns-topology.sh up|down|kernel-forwarding NAME
set -euo pipefail

cmd=${1:-}
name=${2:-}
if [[ -z $cmd || -z $name || ! $name =~ ^[A-Za-z0-9_-]{1,40}$ ]]; then
  echo "usage: $0 up|down|kernel-forwarding NAME (NAME: 1-40 of [A-Za-z0-9_-])" >&2
  exit 2
fi
gen=$name-gen rt=$name-rt sink=$name-sink

down() {
  for ns in "$gen" "$rt" "$sink"; do
    ip netns del "$ns" 2>/dev/null || true
  done
}

sysctls() { # ns
  ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
    net.ipv4.ip_forward=0 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
}

offloads_off() { # ns dev
  if command -v ethtool >/dev/null 2>&1; then
    ip netns exec "$1" ethtool -K "$2" gro off gso off tso off >/dev/null 2>&1 || true
  fi
}

up() {
  for ns in "$gen" "$rt" "$sink"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    sysctls "$ns"
  done
  ip -n "$gen" link add veth0 type veth peer name in0 netns "$rt"
  ip -n "$rt" link add out0 type veth peer name veth0 netns "$sink"
  ip -n "$gen" link set veth0 address 02:00:00:00:00:01
  ip -n "$rt" link set in0 address 02:00:00:00:00:02
  ip -n "$rt" link set out0 address 02:00:00:00:01:01
  ip -n "$sink" link set veth0 address 02:00:00:00:01:02
  for d in "$gen veth0" "$rt in0" "$rt out0" "$sink veth0"; do
    set -- $d
    # Per-device sysctls exist once the device does.
    ip netns exec "$1" sysctl -qw "net.ipv4.conf.$2.rp_filter=0"
    offloads_off "$1" "$2"
    ip -n "$1" link set "$2" up
  done
  ip -n "$gen" addr add 198.18.0.1/24 dev veth0
  ip -n "$rt" addr add 198.18.0.2/24 dev in0
  ip -n "$rt" addr add 198.19.0.1/24 dev out0
  ip -n "$sink" addr add 198.19.0.2/24 dev veth0
  ip -n "$gen" neigh replace 198.18.0.2 lladdr 02:00:00:00:00:02 dev veth0 nud permanent
  ip -n "$rt" neigh replace 198.18.0.1 lladdr 02:00:00:00:00:01 dev in0 nud permanent
  ip -n "$rt" neigh replace 198.19.0.2 lladdr 02:00:00:00:01:02 dev out0 nud permanent
  ip -n "$sink" neigh replace 198.19.0.1 lladdr 02:00:00:00:01:01 dev veth0 nud permanent
  ip -n "$gen" route add default via 198.18.0.2 dev veth0
  ip -n "$sink" route add default via 198.19.0.1 dev veth0
  echo "up: $gen(veth0) -> $rt(in0, out0) -> $sink(veth0)"
}

case $cmd in
  up)
    trap 'down; exit 1' ERR
    up
    ;;
  down)
    down
    ;;
  kernel-forwarding)
    # The kernel baseline: forwarding on in the router namespace (routes: add them with
    # `ip -n NAME-rt -batch FILE`, lines `route add PREFIX via 198.19.0.2`).
    ip netns exec "$rt" sysctl -qw net.ipv4.ip_forward=1
    ;;
  *)
    echo "unknown command $cmd (up, down, kernel-forwarding)" >&2
    exit 2
    ;;
esac
