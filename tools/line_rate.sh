#!/usr/bin/env bash
# The line-rate targets of the data plane, measured on this machine's CPU in interleaved rounds
# (docs/results/mbuf.md, "Line rate on this CPU"):
#   forward --stages full >= 14.88 Mpps (10 GbE at 64 B) on the synthetic table and on RIS;
#   ZL-RED <= 20 ns per arrival at 1,000 and 100,000 flows.
# (Poptrie against the reference C code: tools/poptrie_vs_reference.sh.)
#
#   tools/line_rate.sh [ROUNDS]        (default 5; run it on a quiet machine)
#
# Environment: PKTLAB (default target/release/pktlab), CPU (the pinned core, default 1),
# RIS_DIR (default ../shared/data/routes/ris-rrc00-as3333-2026-05-11), REPEAT (forward's
# --repeat, default 20).
#
# Each round runs the four measurements once, in an order rotated by one per round, each in its
# own process pinned to CPU. Prints every round, then per target the median, the range and
# whether the median meets it; the first line records the CPU model and the load.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
PKTLAB=${PKTLAB:-target/release/pktlab}
CPU=${CPU:-1}
RIS_DIR=${RIS_DIR:-../shared/data/routes/ris-rrc00-as3333-2026-05-11}
REPEAT=${REPEAT:-20}
[ -x "$PKTLAB" ] || { echo "PKTLAB=$PKTLAB: not an executable (cargo build --release)" >&2; exit 2; }
for f in rib-v4.txt.gz rib-v6.txt.gz; do
  [ -f "$RIS_DIR/$f" ] || { echo "RIS_DIR=$RIS_DIR: no $f" >&2; exit 2; }
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
run() {
  case $1 in
    synthetic) taskset -c "$CPU" "$PKTLAB" forward --stages full --repeat "$REPEAT" --json 2>/dev/null | json 'd["mpps"]' ;;
    ris) taskset -c "$CPU" "$PKTLAB" forward --stages full --repeat "$REPEAT" --json \
           --table "$RIS_DIR/rib-v4.txt.gz" --table "$RIS_DIR/rib-v6.txt.gz" 2>/dev/null | json 'd["mpps"]' ;;
    zlred1k) taskset -c "$CPU" "$PKTLAB" aqm bench --aqm zlred --flows 1000 --reps 3 --json 2>/dev/null \
           | json 'd["rows"][0]["ns_per_packet"]' ;;
    zlred100k) taskset -c "$CPU" "$PKTLAB" aqm bench --aqm zlred --flows 100000 --reps 3 --json 2>/dev/null \
           | json 'd["rows"][0]["ns_per_packet"]' ;;
  esac
}

names=(synthetic ris zlred1k zlred100k)
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') | load $(cut -d' ' -f1-3 /proc/loadavg) | $(date -u +%FT%TZ) | $("$PKTLAB" --version) | core $CPU"
printf '%-5s %14s %14s %14s %14s\n' round "${names[@]}"
for r in $(seq 1 "$rounds"); do
  declare -A v=()
  for i in 0 1 2 3; do
    n=${names[$(((i + r - 1) % 4))]}
    v[$n]=$(run "$n")
  done
  printf '%-5s %14.2f %14.2f %14.2f %14.2f\n' "$r" "${v[synthetic]}" "${v[ris]}" "${v[zlred1k]}" "${v[zlred100k]}"
  echo "${v[synthetic]} ${v[ris]} ${v[zlred1k]} ${v[zlred100k]}" >>"$out"
done
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
targets = [("forward --stages full, synthetic table (Mpps)", ">=", 14.88),
           ("forward --stages full, RIS table (Mpps)", ">=", 14.88),
           ("ZL-RED, 1,000 flows (ns per arrival)", "<=", 20.0),
           ("ZL-RED, 100,000 flows (ns per arrival)", "<=", 20.0)]
for (name, op, t), col in zip(targets, zip(*rows)):
    m = statistics.median(col)
    ok = m >= t if op == ">=" else m <= t
    print("%-42s median %7.2f (%.2f-%.2f over %d rounds), target %s %g: %s"
          % (name, m, min(col), max(col), len(col), op, t, "met" if ok else "NOT met"))
EOF
