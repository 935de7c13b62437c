#!/usr/bin/env bash
# Side by side on the three-namespace veth topology (tools/netns-topology.sh): the same
# generator (`pktlab gen flows --tx afpacket:veth0 --routes TABLE`, destinations inside the
# table so every packet is routable) through
#   kernel   Linux forwarding in the router namespace (ip_forward=1, routes via `ip -batch`)
#   pktlab   `pktlab forward --rx afpacket:in0 --tx afpacket:out0 --table TABLE --stages S`
#   testpmd  DPDK testpmd io/mac forwarding over two net_af_packet vdevs (no routing), if
#            `dpdk-testpmd` exists and starts (EAL --no-huge --no-pci)
# into `pktlab sink`, for 64 B and 512 B frames and two tables: the full RIS IPv4 table and
# a 10K subset (every 104th route). Prints one JSON object per run on stdout; progress on stderr.
#
# Usage: tools/ports-side-by-side.sh [SECONDS per run] [RATE pps|max] [DUTS] [SIZES] [TABLES]
#   DUTS default "kernel pktlab-full pktlab-l3 pktlab-io testpmd", SIZES "64 512", TABLES "10k full"
# Needs root. Build first: cargo build --release
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
rate=${2:-max}
duts=${3:-kernel pktlab-full pktlab-l3 pktlab-io testpmd}
sizes=${4:-64 512}
tables=${5:-10k full}
pk=${PKTLAB:-$PWD/target/release/pktlab}
ris=${RIS:-../shared/data/routes/ris-rrc00-as3333-2026-05-11/rib-v4.txt.gz}
work=$(mktemp -d /tmp/pktlab-ports.XXXXXX)
name=pkp$$
topo=tools/netns-topology.sh
cleanup() {
  jobs -p | xargs -r kill 2>/dev/null || true
  $topo down "$name"
  rm -rf "$work"
}
trap cleanup EXIT
zcat -f "$ris" | grep -v '^#' | awk '{print $1}' > "$work/full.txt"
awk 'NR % 104 == 1' "$work/full.txt" | head -n 10000 > "$work/10k.txt"
$topo up "$name" >&2
gen=$name-gen rt=$name-rt sink=$name-sink

load_kernel_routes() { # table file
  ip -n "$rt" route flush proto static 2>/dev/null || true
  sed 's|^\(.*\)$|route add \1 via 198.19.0.2 proto static|' "$1" | ip -n "$rt" -batch -
}

backlog_drops() { # veth backlog (netdev_max_backlog) drops, all CPUs (/proc/net/softnet_stat col 2)
  python3 -c 'print(sum(int(l.split()[1], 16) for l in open("/proc/net/softnet_stat")))'
}

cpu_busy() { # system-wide busy jiffies (user+nice+system+irq+softirq) and total
  awk '/^cpu /{b=$2+$3+$4+$7+$8; t=b+$5+$6+$9; print b, t}' /proc/stat
}

wait_line() { # file pattern
  for _ in $(seq 1 600); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timeout waiting for $2 in $1" >&2
  cat "$1" >&2
  return 1
}

run_one() { # dut size table
  local dut=$1 size=$2 table=$3 tfile="$work/$3.txt"
  rm -f "$work"/*.json "$work"/*.err
  ip netns exec "$rt" sysctl -qw net.ipv4.ip_forward=0
  ip netns exec "$sink" "$pk" sink --rx afpacket:veth0 --duration $((secs + 60)) --idle 2 --json \
    > "$work/sink.json" 2> "$work/sink.err" &
  local sink_pid=$!
  wait_line "$work/sink.err" listening
  local fwd_pid=""
  case $dut in
    kernel)
      ip netns exec "$rt" sysctl -qw net.ipv4.ip_forward=1
      ;;
    pktlab-*)
      ip netns exec "$rt" "$pk" forward --rx afpacket:in0 --tx afpacket:out0 --table "$tfile" \
        --stages "${dut#pktlab-}" --json > "$work/fwd.json" 2> "$work/fwd.err" &
      fwd_pid=$!
      wait_line "$work/fwd.err" "forward: running"
      ;;
    testpmd)
      ip netns exec "$rt" dpdk-testpmd --no-huge --no-pci -m 1024 --no-telemetry -l 0,1 \
        --file-prefix "$name" --vdev "net_af_packet0,iface=in0,blocksz=4096,framesz=2048,framecnt=4096,qpairs=1" \
        --vdev "net_af_packet1,iface=out0,blocksz=4096,framesz=2048,framecnt=4096,qpairs=1" \
        -- --total-num-mbufs=16384 --forward-mode=mac --eth-peer=1,02:00:00:00:01:02 --auto-start --stats-period 1 \
        > "$work/fwd.err" 2>&1 &
      fwd_pid=$!
      wait_line "$work/fwd.err" "Port statistics" || { kill $fwd_pid; wait $sink_pid || true; return 1; }
      ;;
  esac
  read -r b0 t0 < <(cpu_busy)
  local bd0; bd0=$(backlog_drops)
  ip netns exec "$gen" "$pk" gen flows --tx afpacket:veth0 --routes "$tfile" --size "$size" \
    --rate "$rate" --duration "$secs" --names 1M --entries 16K --json > "$work/gen.json" 2> "$work/gen.err"
  read -r b1 t1 < <(cpu_busy)
  local bd1; bd1=$(backlog_drops)
  if [[ $dut == kernel ]]; then ip netns exec "$rt" sysctl -qw net.ipv4.ip_forward=0; fi
  if [[ -n $fwd_pid ]]; then
    # Stop the forwarder (SIGINT) a second after the generator is done: the generator's setup
    # (reading the table for --routes) takes a while, so no fixed --duration fits.
    sleep 1
    kill -INT $fwd_pid
    wait $fwd_pid || true
  fi
  wait $sink_pid || true
  python3 - "$dut" "$size" "$table" "$work" "$b0" "$t0" "$b1" "$t1" "$((bd1 - bd0))" <<'PY'
import json, sys, os
dut, size, table, work, b0, t0, b1, t1, bd = sys.argv[1:]
g = json.load(open(f"{work}/gen.json"))
s = json.load(open(f"{work}/sink.json"))
out = {"dut": dut, "size": int(size), "table": table,
       "sent": g["packets"], "gen_pps": g["pps"], "gen_seconds": g["seconds"],
       "gen_cpu_seconds": g["cpu_seconds"],
       "received": s["packets"], "fwd_pps": s["packets"] / g["seconds"],
       "loss": 1 - s["packets"] / max(g["packets"], 1),
       "ttl": s["ttl"], "checksum_errors": s["checksum_errors"],
       "cpu_busy_frac": (int(b1) - int(b0)) / max(int(t1) - int(t0), 1),
       "backlog_drops": int(bd), "sink_kernel_drops": s["kernel_drops"],
       "load": os.getloadavg()[0]}
f = f"{work}/fwd.json"
if os.path.exists(f) and os.path.getsize(f) > 0:
    r = json.load(open(f))
    out["pktlab"] = {k: r[k] for k in ("packets", "forwarded", "dropped", "live", "cpu_seconds", "seconds", "stages", "cache")}
print(json.dumps(out), flush=True)
PY
}

for table in $tables; do
  if [[ " $duts " == *" kernel "* ]]; then
    echo "loading $(wc -l < "$work/$table.txt") routes into the kernel ($table)" >&2
    load_kernel_routes "$work/$table.txt"
  fi
  for size in $sizes; do
    for dut in $duts; do
      if [[ $dut == testpmd ]] && ! command -v dpdk-testpmd >/dev/null; then
        echo "skipping testpmd: dpdk-testpmd not installed" >&2
        continue
      fi
      echo "== $dut, $size B, table $table, rate $rate, ${secs}s (load $(cut -d' ' -f1 /proc/loadavg))" >&2
      run_one "$dut" "$size" "$table" || echo "run $dut $size $table failed" >&2
    done
  done
done
