#!/bin/sh
# Paper 003's case study side by side on one machine: pktlab's consumer drives (a) Cefore's
# cefnetd and (b) `pktlab ccn router`, each with the CS off and with growing CS sizes, to
# pktlab's producer. Runs the *installed* Cefore (CEFORE_PREFIX, see docs/results/ccn-live.md)
# and a built pktlab (PKTLAB) inside a private network namespace, so Cefore's default port 9695
# collides with nothing. Needs root (ip netns).
#
#   tools/cefore-case-study.sh OUT.jsonl [RUNS [SIZES]]     e.g. 3 "0 1024 16384 65536"
#
# One JSON line per (run, size, router) goes to OUT.jsonl: the router process's CPU seconds
# (user + system, /proc/PID/stat) and the wall time over the measured run, the consumer's JSON of
# the measured run, the producer's JSON of the measured run (hit ratio = 1 − producer Interests / consumer
# Interests satisfied, the same measure for both routers), and pktlab's router JSON. Routers and
# sizes are interleaved within each run. Environment: WARMUP, DURATION (s), WINDOW, PAYLOAD,
# WARMUP_PER_ENTRY (extra warm-up seconds per CS entry, so big stores fill), CONTENTS, ALPHA, ROUTER_CPU (core for the router, default 1), LOAD_CPU (consumer+producer, 0),
# POLICY (pktlab CS policy, default fifo like Cefore's local cache), ROUTERS (any of cefnetd,
# csmgrd — cefnetd with CS_MODE=2 and csmgrd's memory cache, FIFO plugin — and pktlab; default
# "cefnetd pktlab"). csmgrd rows with size 0 are skipped (that is cefnetd with the CS off).
set -eu
out=$1; runs=${2:-1}; sizes=${3:-"0 1024 16384 65536 262144 1048576"}
here=$(cd "$(dirname "$0")" && pwd)
PKTLAB=${PKTLAB:-$here/../target/release/pktlab}
NS=${NS:-cefore-casestudy}
WARMUP=${WARMUP:-10}; WARMUP_PER_ENTRY=${WARMUP_PER_ENTRY:-0}; DURATION=${DURATION:-10}; WINDOW=${WINDOW:-64}; PAYLOAD=${PAYLOAD:-100}
CONTENTS=${CONTENTS:-2^26}; ALPHA=${ALPHA:-0.8}; POLICY=${POLICY:-fifo}
ROUTER_CPU=${ROUTER_CPU:-1}; LOAD_CPU=${LOAD_CPU:-0}; ROUTERS=${ROUTERS:-"cefnetd pktlab"}
case " $ROUTERS " in
*" cefnetd "*|*" csmgrd "*)
    [ -n "${CEFORE_PREFIX:-}" ] || { echo "cefore-case-study.sh: set CEFORE_PREFIX to the Cefore install prefix (or ROUTERS=pktlab)" >&2; exit 2; } ;;
esac
tmp=/tmp/cefore-casestudy.$$
mkdir -p "$tmp"
ip netns add "$NS" 2>/dev/null || true
ip netns exec "$NS" ip link set lo up
N="ip netns exec $NS"
: > "$out"

producer() { # $1 = json file
    $N taskset -c "$LOAD_CPU" "$PKTLAB" ccn producer --listen udp:127.0.0.1:9700 --prefix /cefore \
        --payload "$PAYLOAD" --json > "$1" 2> /dev/null &
    echo $!
}
# Stops a process and waits until it is gone (it may not be this shell's child: `wait` alone
# would return at once and the next producer could find port 9700 still taken).
stop() {
    for pid in "$@"; do
        kill -INT "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
    done
}
# CPU seconds (user + system, all threads) the given processes have used so far.
cpu() {
    for pid in "$@"; do cat "/proc/$pid/stat"; done |
        awk -v t="$(getconf CLK_TCK)" '{ s += $14 + $15 } END { printf "%.3f", s / t }'
}

for run in $(seq 1 "$runs"); do
  for cs in $sizes; do
    for r in $ROUTERS; do
      [ "$r" = csmgrd ] && [ "$cs" = 0 ] && continue
      case $r in
      cefnetd|csmgrd)
        mode=1; [ "$cs" = 0 ] && mode=0; [ "$r" = csmgrd ] && mode=2
        cap=$cs; [ "$cs" -lt 2 ] && cap=2
        $N taskset -c "$ROUTER_CPU" sh "$here/cefore-run.sh" start cs$$ 9695 $mode $cap
        $N sh "$here/cefore-run.sh" route cs$$ 9695 ccnx:/cefore 127.0.0.1:9700 > /dev/null
        rp=$(cat /tmp/cefore-cs$$/cefnetd.pid)
        [ "$r" = csmgrd ] && rp="$rp $(cat /tmp/cefore-cs$$/csmgrd.pid)" ;;
      pktlab)
        $N taskset -c "$ROUTER_CPU" "$PKTLAB" ccn router --listen udp:127.0.0.1:9695 \
            --route /cefore=udp:127.0.0.1:9700 --cs-entries "$cs" --cs-policy "$POLICY" \
            --slot-bytes 512 --json > "$tmp/router.json" 2> "$tmp/router.err" &
        rp=$!; sleep 0.5 ;;
      esac
      p=$(producer "$tmp/p1.json"); sleep 0.3
      warm=$(awk "BEGIN{print $WARMUP + $cs * $WARMUP_PER_ENTRY}")
      $N taskset -c "$LOAD_CPU" "$PKTLAB" ccn consumer --to udp:127.0.0.1:9695 --contents "$CONTENTS" \
          --alpha "$ALPHA" --window "$WINDOW" --duration "$warm" --seed $((run * 7919 + cs)) --json \
          > "$tmp/c1.json" 2> /dev/null
      # Let the warm-up's last Interests be answered before this producer goes, so that no
      # PIT entry is left waiting for Data that never comes (the measured run's Interests for
      # the same popular names would be aggregated into it and time out).
      sleep 1; stop "$p"; sleep 0.3
      p=$(producer "$tmp/p2.json"); sleep 0.3
      c0=$(cpu $rp); t0=$(date +%s.%N)
      $N taskset -c "$LOAD_CPU" "$PKTLAB" ccn consumer --to udp:127.0.0.1:9695 --contents "$CONTENTS" \
          --alpha "$ALPHA" --window "$WINDOW" --duration "$DURATION" --seed $((run * 7919 + cs + 1)) --json \
          > "$tmp/c2.json" 2> /dev/null
      c1=$(cpu $rp); t1=$(date +%s.%N)
      sleep 0.3; stop "$p"
      rj=null
      case $r in
      cefnetd|csmgrd) $N sh "$here/cefore-run.sh" stop cs$$ ;;
      pktlab) stop $rp; rj=$(cat "$tmp/router.json") ;;
      esac
      printf '{"run":%s,"router":"%s","cs_entries":%s,"load":"%s","warmup_s":%s,"router_cpu_s":%s,"wall_s":%s,"consumer":%s,"producer":%s,"router_json":%s}\n' \
        "$run" "$r" "$cs" "$(cut -d' ' -f1-3 /proc/loadavg)" "$warm" "$(awk "BEGIN{printf \"%.3f\", $c1 - $c0}")" "$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}")" \
        "$(cat "$tmp/c2.json")" "$(cat "$tmp/p2.json")" "$rj" >> "$out"
      echo "cefore-case-study: run $run cs $cs $r done" >&2
      sleep 0.5
    done
  done
done
rm -rf "$tmp"
