#!/usr/bin/env bash
# Per-lookup instruction and cache-miss counts of LPM structures under cachegrind: the portable
# check beside wall-clock Mlps. Each structure runs twice (N1 and N2 random lookups, same table);
# the difference divided by N2 - N1 removes the table load and build, leaving the lookup loop.
# The simulated caches are the Poptrie paper's i7-4770K by default (32 KiB 8-way L1 I/D, and
# its 8 MiB 16-way L3 as cachegrind's last level; cachegrind models two levels, so the 256 KiB
# L2 is not modelled): counts are the same on any host.
#
# Usage: tools/lpm_cachegrind.sh TABLE NEXTHOPS ALGO...
#   PKTLAB=path/to/pktlab (default target/release/pktlab), N1/N2 (default 2^20 / 2^22),
#   LL="size,assoc,line" (default 8388608,16,64), TRAFFIC (default random), PREGEN (addresses
#   generated before the timed loop and cycled, as `lpm bench --pregen`; default 0 = generated
#   in the loop, whose cost is then counted too — use it with zipf traffic), BATCH (addresses
#   per lookup call, default 256; 1 = the scalar lookup, as the by-depth timings).
# Prints one line per structure: instructions, L1 data misses, LL data misses and mispredicted
# branches (cachegrind's branch simulator: conditional + indirect) per lookup.
set -euo pipefail
table=${1:?usage: tools/lpm_cachegrind.sh TABLE NEXTHOPS ALGO...}
nexthops=${2:?usage: tools/lpm_cachegrind.sh TABLE NEXTHOPS ALGO...}
shift 2
[ $# -gt 0 ] || { echo "usage: tools/lpm_cachegrind.sh TABLE NEXTHOPS ALGO..." >&2; exit 2; }
pk=${PKTLAB:-target/release/pktlab}
n1=${N1:-1048576}
n2=${N2:-4194304}
ll=${LL:-8388608,16,64}
traffic=${TRAFFIC:-random}
pregen=${PREGEN:-0}
batch=${BATCH:-256}
command -v valgrind >/dev/null || { echo "lpm_cachegrind: valgrind is not installed" >&2; exit 1; }
[ -x "$pk" ] || { echo "lpm_cachegrind: $pk is not an executable (set PKTLAB)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf -- "$dir"' EXIT
# Totals of one run: instructions, L1d misses, LL data misses, mispredicts (cachegrind's
# "summary:" line).
totals() {
  valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL="$ll" \
    --cachegrind-out-file="$dir/cg.out" "$pk" lpm bench --table "$table" --nexthops "$nexthops" \
    --algo "$1" --traffic "$traffic" --pregen "$pregen" --lookups "$2" --runs 1 --batch "$batch" --json >/dev/null 2>"$dir/log" \
    || { echo "lpm_cachegrind: $1 failed:" >&2; tail -3 "$dir/log" >&2; exit 1; }
  local events summary
  events=$(sed -n 's/^events: //p' "$dir/cg.out")
  summary=$(sed -n 's/^summary: //p' "$dir/cg.out")
  python3 - "$events" "$summary" <<'PY'
import sys
e = sys.argv[1].split(); v = dict(zip(e, map(int, sys.argv[2].split())))
print(v["Ir"], v["D1mr"] + v["D1mw"], v["DLmr"] + v["DLmw"], v["Bcm"] + v["Bim"])
PY
}
printf '%-20s %14s %14s %14s %14s   (per lookup; %s traffic, pregen %s, batch %s; LL %s; N %s -> %s)\n' \
  algorithm instructions L1d_misses LL_misses mispredicts "$traffic" "$pregen" "$batch" "$ll" "$n1" "$n2"
for a in "$@"; do
  read -r i1 d1 l1 b1 < <(totals "$a" "$n1")
  read -r i2 d2 l2 b2 < <(totals "$a" "$n2")
  python3 -c "
n = $n2 - $n1
print('%-20s %14.1f %14.3f %14.3f %14.3f' % ('$a', ($i2 - $i1) / n, ($d2 - $d1) / n, ($l2 - $l1) / n, ($b2 - $b1) / n))"
done
