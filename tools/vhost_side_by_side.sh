#!/usr/bin/env bash
# Paper 001 live: a virtual switch between CNFs over vhost-user, DPDK testpmd and pktlab side
# by side on the same cores, the switch pinned to CPU 1 and the CNFs to CPU 0. SWITCH is
#   testpmd-io / testpmd-mac   testpmd with two net_vhost ports, --forward-mode=io|mac
#   pktlab-STAGES-META-BATCH   pktlab forward --rx vhost-user:A --tx vhost-user:B
#                              --stages io|l3|full --meta dpdk|compact-alloc|compact-constant
#                              --batch 32|512 (--table $TABLE; default one default route);
#                              pktlab-…@BINARY runs another pktlab binary (a build before a
#                              change, in the same rounds as the current one)
# and a configuration is
#   loop:SWITCH   the CNF is one testpmd with two net_virtio_user ports in io mode started
#                 with --tx-first (ANCHORS.md's loop: the injected bursts circulate through the
#                 switch; pktlab runs with --duplex, A -> B and B -> A, as testpmd's switch);
#                 Mpps = the CNF's summed per-port Rx-pps, median of the per-second
#                 samples after a 2-s warm-up; pktlab's mean packets per non-empty burst and
#                 its burst-size histogram (log2 buckets) come with it. Stage io only for pktlab: l3/full decrement the
#                 TTL on every pass and the looping packets die after 63 trips.
#   loop1:SWITCH  the same loop with pktlab forwarding A -> B only (one burst circulates; the
#                 one the CNF injects into B is never read): not like for like, for comparison.
#   chain:SWITCH  pktlab gen flows (virtio-user:A) -> switch -> pktlab sink (virtio-user:B), gen
#                 and sink on CPU 0; Mpps = the sink's rate, loss = 1 - received/sent.
#   tchain:SWITCH testpmd txonly (net_virtio_user on A) -> switch -> testpmd rxonly
#                 (net_virtio_user on B), both CNFs on CPU 0: the cheapest CNFs there are, so
#                 the switch is the bottleneck; every stage set runs (no loop). Mpps = the
#                 rxonly CNF's Rx-pps; switch_rx_mpps = what the switch took from A per second
#                 (median of its per-second samples): with both CNFs sharing CPU 0 the rxonly
#                 one is descheduled for whole time slices and its ring overflows, so the
#                 switch's intake, not the delivered rate, is the switch's capacity.
# Configurations run in interleaved rounds (A B C … A B C …). One JSON object per run on
# stdout; progress on stderr.
#
# Usage: tools/vhost_side_by_side.sh [SECONDS per run] [ROUNDS] [CONFIGS]
# Needs root (hugepages; DPDK runs --in-memory, so no hugepage files). TESTPMD (default:
# dpdk-testpmd from PATH), PKTLAB (default: target/release/pktlab) and TABLE locate the
# programs and the routes. PERF_DIR=DIR records a perf cpu-clock profile of each loop run's
# switch into DIR (perf from linux-perf). Build first: cargo build --release -p pktlab-cli
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}
configs=${3:-loop:testpmd-io loop:testpmd-mac loop:pktlab-io-dpdk-32 loop:pktlab-io-compact-constant-512 loop:pktlab-io-compact-alloc-512 chain:testpmd-io chain:pktlab-io-dpdk-32 chain:pktlab-l3-dpdk-32 chain:pktlab-full-dpdk-32 chain:pktlab-full-compact-constant-512}
testpmd=${TESTPMD:-$(command -v dpdk-testpmd || true)}
pk=${PKTLAB:-$PWD/target/release/pktlab}
table=${TABLE:-}  # routing table for --stages l3|full (default: one default route)
if [ "$(id -u)" != 0 ]; then echo "vhost_side_by_side: needs root (hugepages)" >&2; exit 1; fi
if [ -z "$testpmd" ] || [ ! -x "$testpmd" ]; then
  echo "vhost_side_by_side: no testpmd (set TESTPMD or install Debian's dpdk-dev)" >&2; exit 1
fi
[ -x "$pk" ] || { echo "vhost_side_by_side: no pktlab binary at $pk (set PKTLAB)" >&2; exit 1; }
. tools/hugepage_scratch.sh pktlab-vhost
# 2 x 256 MB of EAL memory at most at once; --in-memory: hugepages through memfd, no files.
need=$((hp_before < 600 ? 600 : hp_before))
echo "$need" > $hp
eal_common=(-n 1 --no-pci --socket-mem=256 --in-memory)
if [ -z "$table" ]; then table=$work/routes.txt; echo "0.0.0.0/0 1" > "$table"; fi
pmd_opts=(--total-num-mbufs=32768 --stats-period 1)

start_cnf() { # log
  taskset -c 0 "$testpmd" --lcores '0@0,1@0' --main-lcore 0 "${eal_common[@]}" --file-prefix=cnf \
    --single-file-segments \
    --vdev "net_virtio_user0,path=$work/a.sock,queues=1" \
    --vdev "net_virtio_user1,path=$work/b.sock,queues=1" \
    -- --forward-mode=io --tx-first "${pmd_opts[@]}" > "$1" 2>&1 &
  echo $!
}

start_pmd_cnf() { # prefix socket mode log
  taskset -c 0 "$testpmd" --lcores '0@0,1@0' --main-lcore 0 "${eal_common[@]}" --file-prefix="$1" \
    --single-file-segments --vdev "net_virtio_user0,path=$2,queues=1" \
    -- --forward-mode="$3" "${pmd_opts[@]}" > "$4" 2>&1 &
  echo $!
}

wait_sock() { for _ in $(seq 1 300); do [ -S "$1" ] && return 0; sleep 0.1; done; echo "no socket $1" >&2; return 1; }

wait_running() { # the switch's stderr: its workers run once the status line starts
  for _ in $(seq 1 1200); do grep -q "forward: running" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "the switch never started (see $1)" >&2; return 1
}

rx_mpps() { # testpmd log: median over samples 3.. of the summed per-port Rx-pps
  python3 - "$1" <<'EOF'
import re, sys, statistics
pps = [int(x) for x in re.findall(r"Rx-pps:\s+(\d+)", open(sys.argv[1], errors="replace").read())]
tot = [a + b for a, b in zip(pps[0::2], pps[1::2])][2:]
print(f"{statistics.median(tot) / 1e6:.3f}" if tot else "0")
EOF
}

start_switch() { # switch log [extra pktlab flags...]; sets $sw
  local c=$1 log=$2; shift 2
  case $c in
    testpmd-*)
      taskset -c 1 "$testpmd" --lcores '0@1,1@1' --main-lcore 0 "${eal_common[@]}" --file-prefix=sw \
        --vdev "net_vhost0,iface=$work/a.sock,queues=1" \
        --vdev "net_vhost1,iface=$work/b.sock,queues=1" -- --forward-mode="${c#testpmd-}" \
        "${pmd_opts[@]}" > "$log.sw" 2>&1 &
      sw=$!
      wait_sock "$work/b.sock";;
    pktlab-*)
      local rest=${c#pktlab-} stages meta batch bin=$pk
      if [[ $rest == *@* ]]; then bin=${rest#*@}; rest=${rest%%@*}; fi
      [ -x "$bin" ] || { echo "no pktlab binary at $bin" >&2; return 1; }
      stages=${rest%%-*}; rest=${rest#*-}; batch=${rest##*-}; meta=${rest%-*}
      taskset -c 1 "$bin" forward --rx "vhost-user:$work/a.sock" --tx "vhost-user:$work/b.sock" \
        --stages "$stages" --meta "$meta" --batch "$batch" --table "$table" "$@" \
        --duration $((secs + 120)) --json > "$log.sw" 2> "$log.sw.err" &
      sw=$!
      wait_running "$log.sw.err";;
    *) echo "unknown switch $c" >&2; return 1;;
  esac
}

run_one() { # config round
  local c=$1 r=$2 log sw label=$1
  log=$work/$(printf %s "$1" | tr -c 'A-Za-z0-9.-' _)-$2
  rm -f "$work"/*.sock
  case $c in
    chain:*)
      # pktlab gen -> switch -> pktlab sink (gen and sink on CPU 0): no TTL loop, so every
      # stage set runs
      start_switch "${c#chain:}" "$log"
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
out = {"config": c, "round": int(r), "sent": g["packets"], "delivered": s["packets"],
       "mpps": round(s["pps"] / 1e6, 3), "loss": round(1 - s["packets"] / max(g["packets"], 1), 6),
       "ttl": s["ttl"], "checksum_errors": s["checksum_errors"], "load": float(load)}
if "pktlab-" in c:
    sw = json.load(open(log + ".sw"))
    out["switch_drops"] = sum(sw.get("dropped", {}).values())
print(json.dumps(out))
EOF
      return;;
    tchain:*)
      start_switch "${c#tchain:}" "$log"
      local rx tx
      rx=$(start_pmd_cnf cnfrx "$work/b.sock" rxonly "$log.rx")
      sleep 1
      tx=$(start_pmd_cnf cnftx "$work/a.sock" txonly "$log.tx")
      sleep "$secs"
      kill -INT "$tx" 2>/dev/null || true; wait "$tx" 2>/dev/null || true
      kill -INT "$rx" 2>/dev/null || true; wait "$rx" 2>/dev/null || true
      kill -INT "$sw" 2>/dev/null || true; wait "$sw" 2>/dev/null || true
      python3 - "$c" "$r" "$log" "$(cut -d' ' -f1 /proc/loadavg)" <<'EOF'
import json, re, statistics, sys
c, r, log, load = sys.argv[1:5]
def pps(f, key):
    v = [int(x) for x in re.findall(key + r"-pps:\s+(\d+)", open(f, errors="replace").read())][2:]
    return statistics.median(v) / 1e6 if v else 0.0
def total(f, key):
    m = re.findall(key + r"-packets:\s+(\d+)", open(f, errors="replace").read())
    return int(m[-1]) if m else None
out = {"config": c, "round": int(r), "mpps": round(pps(log + ".rx", "Rx"), 3),
       "tx_mpps": round(pps(log + ".tx", "Tx"), 3), "sent": total(log + ".tx", "TX"),
       "delivered": total(log + ".rx", "RX"), "load": float(load)}
# The switch's own receive rate from A (per-second samples while the source runs, after 2 s):
# what the switch can take in when the receiving CNF, sharing CPU 0, cannot keep up.
if "pktlab-" in c:
    sw = json.load(open(log + ".sw"))
    out["switch_rx"] = sw.get("packets")
    out["switch_drops"] = sum(sw.get("dropped", {}).values())
    v = [float(x) for x in re.findall(r"rx\s+(\d+) pps", open(log + ".sw.err", errors="replace").read())]
else:
    v = [float(x) for x in re.findall(r"Rx-pps:\s+(\d+)", open(log + ".sw", errors="replace").read())][0::2]
v = [x for x in v if x > 0][2:-1]
out["switch_rx_mpps"] = round(statistics.median(v) / 1e6, 3) if v else 0.0
print(json.dumps(out))
EOF
      return;;
    loop:*)
      c=${c#loop:}; label=$c
      # pktlab as a duplex switch (A -> B and B -> A), as testpmd's: both injected bursts
      # circulate.
      start_switch "$c" "$log" --duplex;;
    loop1:*)
      c=${c#loop1:}
      start_switch "$c" "$log";;
    *) echo "unknown configuration $c (loop:SWITCH, loop1:SWITCH, chain:SWITCH or tchain:SWITCH)" >&2; return 1;;
  esac
  local cnf; cnf=$(start_cnf "$log.cnf")
  if [ -n "${PERF_DIR:-}" ] && [ -n "$sw" ]; then
    # A cpu-clock profile of the switch for the middle of the run (PERF_DIR: where to keep it).
    sleep 2
    perf record -q -e cpu-clock -F 4999 -g -p "$sw" -o "$PERF_DIR/${label/:/-}-$r.perf" \
      -- sleep $((secs > 5 ? secs - 4 : 1)) > /dev/null 2>&1 || true
    sleep 2
  else
    sleep "$secs"
  fi
  kill -INT "$cnf" 2>/dev/null || true; wait "$cnf" 2>/dev/null || true
  kill -INT "$sw" 2>/dev/null || true; wait "$sw" 2>/dev/null || true
  local mpps; mpps=$(rx_mpps "$log.cnf")
  python3 - "$label" "$r" "$log" "$mpps" "$(cut -d' ' -f1 /proc/loadavg)" <<'EOF'
import json, re, sys
c, r, log, mpps, load = sys.argv[1:6]
out = {"config": c, "round": int(r), "mpps": float(mpps), "load": float(load)}
if "pktlab-" in c:
    sw = json.load(open(log + ".sw"))
    out["switch_rx"] = sw.get("packets")
    out["switch_drops"] = sum(sw.get("dropped", {}).values())
    out["switch_json_mpps"] = sw.get("mpps")
    out["mean_burst"] = round(sw["packets"] / max(sw.get("batches", 0), 1), 2)
    out["burst_log2"] = sw.get("burst_log2")
    out["directions"] = [d["packets"] for d in sw.get("directions", [])]
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
