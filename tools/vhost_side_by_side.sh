#!/usr/bin/env bash
# Paper 001 live: a virtual switch between CNFs over vhost-user, DPDK testpmd and pktlab side
# by side on the same cores. The CNF is one DPDK testpmd with two net_virtio_user ports in io
# mode started with --tx-first (the loop of ANCHORS.md: the injected bursts circulate through
# the switch), pinned to CPU 0; the switch is pinned to CPU 1 and is either
#   testpmd-io / testpmd-mac   testpmd with two net_vhost ports, --forward-mode=io|mac
#   pktlab-STAGES-META-BATCH   pktlab forward --rx vhost-user:A --tx vhost-user:B
#                              --stages io|l3|full --meta dpdk|compact-alloc|compact-constant
#                              --batch 32|512
# and, as a DPDK-free chain, pktlab gen (virtio-user:A) -> pktlab forward -> pktlab sink
# (virtio-user:B), gen and sink on CPU 0 (`pktchain-STAGES`).
# The delivered rate is what the CNF receives (sum of its two ports' Rx-pps, the median of the
# per-second samples after a warm-up), i.e. what the switch forwarded; loss is the switch's
# counted drops over what it received. Configurations run in interleaved rounds (A B C … A B C …).
# One JSON object per run on stdout; progress on stderr.
#
# Usage: tools/vhost_side_by_side.sh [SECONDS per run] [ROUNDS] [CONFIGS]
#   CONFIGS default: "testpmd-io testpmd-mac pktlab-io-dpdk-32 pktlab-io-compact-constant-512
#   pktlab-l3-dpdk-32 pktlab-full-dpdk-32 pktlab-full-compact-constant-512
#   pktlab-io-compact-alloc-512 pktchain-io"
# Needs root (hugepages). TESTPMD (default: dpdk-testpmd from PATH) and PKTLAB (default:
# target/release/pktlab) locate the programs. Build first: cargo build --release -p pktlab-cli
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}
configs=${3:-testpmd-io testpmd-mac pktlab-io-dpdk-32 pktlab-io-compact-constant-512 pktlab-l3-dpdk-32 pktlab-full-dpdk-32 pktlab-full-compact-constant-512 pktlab-io-compact-alloc-512 pktchain-io}
testpmd=${TESTPMD:-$(command -v dpdk-testpmd || true)}
pk=${PKTLAB:-$PWD/target/release/pktlab}
if [ "$(id -u)" != 0 ]; then echo "vhost_side_by_side: needs root (hugepages)" >&2; exit 1; fi
if [ -z "$testpmd" ] || [ ! -x "$testpmd" ]; then
  echo "vhost_side_by_side: no testpmd (set TESTPMD or install Debian's dpdk-dev)" >&2; exit 1
fi
[ -x "$pk" ] || { echo "vhost_side_by_side: no pktlab binary at $pk (set PKTLAB)" >&2; exit 1; }
work=$(mktemp -d /tmp/pktlab-vhost.XXXXXX)
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
hp_before=$(cat $hp)
cleanup() {
  jobs -p | xargs -r kill -INT 2>/dev/null || true
  sleep 0.5
  jobs -p | xargs -r kill -KILL 2>/dev/null || true
  rm -rf "$work"
  echo "$hp_before" > $hp
}
trap cleanup EXIT
# 2 x 256 MB of EAL memory at most at once; --in-memory: hugepages through memfd, no files.
need=$((hp_before < 600 ? 600 : hp_before))
echo "$need" > $hp
eal_common=(-n 1 --no-pci --socket-mem=256 --in-memory)
pmd_opts=(--total-num-mbufs=32768 --stats-period 1)

start_cnf() { # log
  taskset -c 0 "$testpmd" --lcores '0@0,1@0' --main-lcore 0 "${eal_common[@]}" --file-prefix=cnf \
    --single-file-segments \
    --vdev "net_virtio_user0,path=$work/a.sock,queues=1" \
    --vdev "net_virtio_user1,path=$work/b.sock,queues=1" \
    -- --forward-mode=io --tx-first "${pmd_opts[@]}" > "$1" 2>&1 &
  echo $!
}

wait_sock() { for _ in $(seq 1 300); do [ -S "$1" ] && return 0; sleep 0.1; done; echo "no socket $1" >&2; return 1; }

rx_mpps() { # testpmd log: median over samples 3.. of the summed per-port Rx-pps
  python3 - "$1" <<'EOF'
import re, sys, statistics
pps = [int(x) for x in re.findall(r"Rx-pps:\s+(\d+)", open(sys.argv[1], errors="replace").read())]
tot = [a + b for a, b in zip(pps[0::2], pps[1::2])][2:]
print(f"{statistics.median(tot) / 1e6:.3f}" if tot else "0")
EOF
}

run_one() { # config round
  local c=$1 r=$2 log=$work/$1-$2
  rm -f "$work"/*.sock
  case $c in
    testpmd-*)
      local mode=${c#testpmd-}
      taskset -c 1 "$testpmd" --lcores '0@1,1@1' --main-lcore 0 "${eal_common[@]}" --file-prefix=sw \
        --vdev "net_vhost0,iface=$work/a.sock,queues=1" \
        --vdev "net_vhost1,iface=$work/b.sock,queues=1" -- --forward-mode="$mode" "${pmd_opts[@]}" \
        > "$log.sw" 2>&1 &
      local sw=$!;;
    pktlab-*)
      local rest=${c#pktlab-} stages meta batch
      stages=${rest%%-*}; rest=${rest#*-}; batch=${rest##*-}; meta=${rest%-*}
      taskset -c 1 "$pk" forward --rx "vhost-user:$work/a.sock" --tx "vhost-user:$work/b.sock" \
        --stages "$stages" --meta "$meta" --batch "$batch" --duration $((secs + 30)) --json \
        > "$log.sw" 2> "$log.sw.err" &
      local sw=$!;;
    pktchain-*)
      local stages=${c#pktchain-}
      taskset -c 1 "$pk" forward --rx "vhost-user:$work/a.sock" --tx "vhost-user:$work/b.sock" \
        --stages "$stages" --duration $((secs + 30)) --json > "$log.sw" 2> "$log.sw.err" &
      local sw=$!
      wait_sock "$work/b.sock"
      taskset -c 0 "$pk" sink --rx "virtio-user:$work/b.sock" --duration $((secs + 2)) --json \
        > "$log.sink" 2> "$log.sink.err" &
      local sink=$!
      sleep 0.5
      taskset -c 0 "$pk" gen flows --tx "virtio-user:$work/a.sock" --duration "$secs" --json \
        > "$log.gen" 2> "$log.gen.err"
      wait $sink || true
      kill -INT $sw 2>/dev/null || true; wait $sw || true
      python3 - "$c" "$r" "$log" "$(cut -d' ' -f1 /proc/loadavg)" <<'EOF'
import json, sys
c, r, log, load = sys.argv[1:5]
g, s = json.load(open(log + ".gen")), json.load(open(log + ".sink"))
sw = json.load(open(log + ".sw"))
print(json.dumps({"config": c, "round": int(r), "sent": g["packets"], "delivered": s["packets"],
                  "mpps": round(s["pps"] / 1e6, 3), "loss": round(1 - s["packets"] / max(g["packets"], 1), 6),
                  "switch_drops": sum(sw.get("dropped", {}).values()), "load": float(load)}))
EOF
      return;;
  esac
  wait_sock "$work/b.sock"
  local cnf; cnf=$(start_cnf "$log.cnf")
  sleep "$secs"
  kill -INT "$cnf" 2>/dev/null || true; wait "$cnf" 2>/dev/null || true
  kill -INT "$sw" 2>/dev/null || true; wait "$sw" 2>/dev/null || true
  local mpps; mpps=$(rx_mpps "$log.cnf")
  python3 - "$c" "$r" "$log" "$mpps" "$(cut -d' ' -f1 /proc/loadavg)" <<'EOF'
import json, re, sys
c, r, log, mpps, load = sys.argv[1:6]
out = {"config": c, "round": int(r), "mpps": float(mpps), "load": float(load)}
if c.startswith("pktlab"):
    sw = json.load(open(log + ".sw"))
    out["switch_rx"] = sw.get("packets")
    out["switch_drops"] = sum(sw.get("dropped", {}).values())
    out["switch_json_mpps"] = sw.get("mpps")
else:
    t = open(log + ".sw", errors="replace").read()
    m = re.search(r"Accumulated forward statistics.*?RX-packets:\s+(\d+).*?TX-packets:\s+(\d+)\s+TX-dropped:\s+(\d+)", t, re.S)
    if m:
        out["switch_rx"], out["switch_tx"], out["switch_drops"] = map(int, m.groups())
print(json.dumps(out))
EOF
}

echo "vhost_side_by_side: $rounds rounds x [$configs], ${secs}s each; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq 1 "$rounds"); do
  for c in $configs; do
    echo "round $r: $c" >&2
    run_one "$c" "$r" || echo "{\"config\": \"$c\", \"round\": $r, \"error\": \"run failed (logs in $work)\"}"
  done
done
