#!/usr/bin/env bash
# Instructions per received packet of a vhost-user switch's receive path, pktlab against DPDK,
# under callgrind (machine-independent; the loop's wall clock is not). A testpmd `txonly` CNF
# (net_virtio_user, CPU 0) keeps the switch's A ring full; the switch (CPU 1, under callgrind,
# so it is the bottleneck) receives from A and sends to an unconnected B (counted drops):
#   pktlab: pktlab forward --rx vhost-user:A --tx vhost-user:B --stages io --meta dpdk --batch 32
#           cost = inclusive Ir of Worker::receive (port, pool allocation, descriptor walk,
#           copy, metadata init; no flow hash at --stages io, which has no flow cache)
#   dpdk:   dpdk-testpmd io with two net_vhost ports (EAL --no-huge: valgrind cannot map the
#           hugepage VA reservation); cost = inclusive Ir of rte_vhost_dequeue_burst (mbuf
#           allocation, descriptor walk, copy, mbuf init)
# Each switch runs twice (SECS and 2*SECS of feeding); the polls that find the ring empty
# differ between the two runs, so "Ir = a * packets + c * empty polls" is solved for a (per
# packet) and c (per empty poll). Prints one line per switch.
#
# Usage: tools/vhost_rx_cost.sh [SECS]    (root: hugepages for the CNF; valgrind, dpdk-testpmd)
# PKTLAB (default target/release/pktlab, a baseline x86-64 build: valgrind does not decode
# AVX-512) and TESTPMD (default dpdk-testpmd on PATH) locate the programs.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
pk=${PKTLAB:-$PWD/target/release/pktlab}
testpmd=${TESTPMD:-$(command -v dpdk-testpmd || true)}
if [ "$(id -u)" != 0 ]; then echo "vhost_rx_cost: needs root (hugepages)" >&2; exit 1; fi
[ -x "$pk" ] || { echo "vhost_rx_cost: no pktlab binary at $pk (set PKTLAB)" >&2; exit 1; }
[ -n "$testpmd" ] && [ -x "$testpmd" ] || { echo "vhost_rx_cost: no testpmd (set TESTPMD)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "vhost_rx_cost: no valgrind" >&2; exit 1; }
. tools/hugepage_scratch.sh pktlab-vhcost
echo $((hp_before < 300 ? 300 : hp_before)) > $hp
echo "0.0.0.0/0 1" > "$work/routes.txt"

stop() { # pid: SIGINT, then SIGKILL after 20 s (a CNF stopping its ports can wait on a
         # backend that is slow under valgrind)
  kill -INT "$1" 2>/dev/null || true
  for _ in $(seq 1 200); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

run() { # switch secs dir
  local sw=$1 t=$2 d=$3 s
  mkdir -p "$d"; rm -f "$work"/*.sock
  if [ "$sw" = pktlab ]; then
    taskset -c 1 valgrind --tool=callgrind --callgrind-out-file="$d/cg" "$pk" forward \
      --rx "vhost-user:$work/a.sock" --tx "vhost-user:$work/b.sock" --table "$work/routes.txt" \
      --stages io --meta dpdk --batch 32 --duration $((t + 120)) --json > "$d/sw.json" 2> "$d/sw.err" &
  else
    taskset -c 1 valgrind --tool=callgrind --callgrind-out-file="$d/cg" "$testpmd" --lcores '0@1,1@1' \
      --main-lcore 0 -n 1 --no-pci --no-huge -m 512 --file-prefix=vhcost-sw \
      --vdev "net_vhost0,iface=$work/a.sock,queues=1" --vdev "net_vhost1,iface=$work/b.sock,queues=1" \
      -- --forward-mode=io --total-num-mbufs=32768 --stats-period 1 > "$d/sw.log" 2>&1 &
  fi
  s=$!
  for _ in $(seq 1 1200); do [ -S "$work/a.sock" ] && break; sleep 0.1; done
  sleep 2
  taskset -c 0 "$testpmd" --lcores '0@0,1@0' --main-lcore 0 -n 1 --no-pci --socket-mem=256 --in-memory \
    --file-prefix=vhcost-tx --single-file-segments --vdev "net_virtio_user0,path=$work/a.sock,queues=1" \
    -- --forward-mode=txonly --total-num-mbufs=32768 --stats-period 1 > "$d/tx.log" 2>&1 &
  local tx=$!
  sleep "$t"
  stop $tx
  stop $s
  echo "vhost_rx_cost: $sw ${t}s done" >&2
}

for sw in pktlab dpdk; do
  run $sw "$secs" "$work/$sw-1"
  run $sw $((2 * secs)) "$work/$sw-2"
done

python3 - "$work" <<'EOF'
import json, re, subprocess, sys
work = sys.argv[1]

def calls_and_ir(cg, fn):
    """Inclusive Ir of `fn` and how often its caller called it (callgrind_annotate's tree)."""
    out = subprocess.run(["callgrind_annotate", "--show=Ir", "--tree=calling", cg],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) .*(?:=>|>) .*" + re.escape(fn) + r" \(([\d,]+)x\)", line)
        if m:
            return int(m.group(1).replace(",", "")), int(m.group(2).replace(",", ""))
    sys.exit(f"vhost_rx_cost: no calls of {fn} in {cg}")

rows = {}
for sw, fn in (("pktlab", "Worker<L,R,T>::receive"), ("dpdk", "rte_vhost_dequeue_burst")):
    pts = []
    for k in (1, 2):
        d = f"{work}/{sw}-{k}"
        ir, polls = calls_and_ir(f"{d}/cg", fn)
        if sw == "pktlab":
            j = json.load(open(f"{d}/sw.json"))
            pkts, bursts = j["packets"], j["batches"]
        else:
            log = open(f"{d}/sw.log", errors="replace").read()
            pkts = int(re.findall(r"RX-packets:\s+(\d+)", log)[-1])
            bursts = None
        pts.append((ir, polls, pkts, bursts))
    rows[sw] = pts

for sw, pts in rows.items():
    if sw == "pktlab":
        # Ir = a * packets + c * empty polls (bursts are counted by the switch).
        (i1, p1, n1, b1), (i2, p2, n2, b2) = pts
        e1, e2 = p1 - b1, p2 - b2
        det = n1 * e2 - n2 * e1
        a = (i1 * e2 - i2 * e1) / det
        c = (n1 * i2 - n2 * i1) / det
        print(f"pktlab vhost-user receive: {a:.1f} instructions per packet, {c:.1f} per empty poll "
              f"(runs: {n1} and {n2} packets, {e1} and {e2} empty polls)")
    else:
        per = [ir / n for ir, _, n, _ in pts]
        calls = [n / p for _, p, n, _ in pts]
        print(f"DPDK rte_vhost_dequeue_burst: {per[0]:.1f} and {per[1]:.1f} instructions per packet "
              f"(every poll counted; {calls[0]:.1f} and {calls[1]:.1f} packets per call)")
EOF
