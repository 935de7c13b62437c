#!/bin/bash
# 2-thread scaling of every LPM structure, tightly interleaved: for each round and
# each algorithm, `lpm bench --threads 1` then `--threads 2` back to back on the same table,
# so that a noise phase of the shared host hits both. Prints one line per invocation:
#   round algo threads load1 wall_mlps oncpu_mlps
# Usage: tools/lpm_thread_scaling.sh [ROUNDS] [TABLE]   (run from the repository root, after
#        cargo build --release; default table: RIS v4 under ../shared/data)
set -euo pipefail
ROUNDS=${1:-3}
TABLE=${2:-../shared/data/routes/ris-rrc00-as3333-2026-05-11/rib-v4.txt.gz}
B=./target/release/pktlab
for r in $(seq 1 "$ROUNDS"); do
  for A in radix treebitmap sail d16r d18r dir24_8 poptrie18; do
    for T in 1 2; do
      out=$($B lpm bench --table "$TABLE" --nexthops hash:16 --algo $A --traffic random \
        --lookups 2^25 --runs 3 --threads $T --json 2>/dev/null |
        python3 -c 'import json,sys; a=json.load(sys.stdin)["results"][0]; print(a["mlps"], a["mlps_oncpu"])')
      echo "$r $A $T $(cut -d' ' -f1 /proc/loadavg) $out"
    done
  done
done
