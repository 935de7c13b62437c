#!/usr/bin/env bash
# pktlab's Poptrie18 beside the reference C Poptrie (pixos/poptrie), interleaved rounds on the
# same table, next hops and traffic (issue: "Poptrie --batch 1 >= 1.0x the reference C and
# --pregen batched >= 1.5x").
#
#   POPTRIE_SRC=/path/to/pixos-poptrie-checkout tools/poptrie_vs_reference.sh [ROUNDS]
#
# Environment:
#   POPTRIE_SRC  a checkout of pixos/poptrie (research-only licence: built outside this
#                repository, never copied into it); its *.c/*.h must be present
#   PKTLAB       the pktlab binary (default: target/release/pktlab)
#   TABLE        IPv4 `prefix/len` table, gzip allowed (default: the RIS rrc00 table in
#                ../shared/data)
#   LOOKUPS      lookups per timed run (default 2^26); PREGEN the pre-generated buffer (64K)
#   CPU          the core every run is pinned to (default 1)
#   REF_CFLAGS   compiler flags for the reference and its driver (default -O3 -march=native
#                -flto: the lookup may inline into the timing loop, the strongest anchor)
#
# Each round runs, in an order that alternates between rounds: the reference scalar loop with
# xor128 generated in the loop ("random") and pktlab `--batch 1` on the same stream; the
# reference on a pre-generated buffer cycled in place ("pregen") and pktlab `--pregen` with its
# default batch (256; `auto` picks the batch walk, printed in the header). Rates are on-CPU
# million lookups per second. Prints every round, the medians and the per-round ratios' median
# (pktlab / reference).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
: "${POPTRIE_SRC:?set POPTRIE_SRC to a pixos/poptrie checkout}"
PKTLAB=${PKTLAB:-target/release/pktlab}
TABLE=${TABLE:-../shared/data/routes/ris-rrc00-as3333-2026-05-11/rib-v4.txt.gz}
LOOKUPS=${LOOKUPS:-2^26}
PREGEN=${PREGEN:-64K}
CPU=${CPU:-1}
REF_CFLAGS=${REF_CFLAGS:--O3 -march=native -flto}
for f in poptrie.c poptrie4.c buddy.c poptrie.h; do
  [ -f "$POPTRIE_SRC/$f" ] || { echo "POPTRIE_SRC=$POPTRIE_SRC: no $f (restore the sources: git restore --source=HEAD -- '*.c' '*.h')" >&2; exit 2; }
done
[ -x "$PKTLAB" ] || { echo "PKTLAB=$PKTLAB: not an executable (cargo build --release)" >&2; exit 2; }
[ -f "$TABLE" ] || { echo "TABLE=$TABLE: no such file" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
touch "$work/config.h"
# shellcheck disable=SC2086
cc $REF_CFLAGS -DHAVE_CONFIG_H -I"$work" -I"$POPTRIE_SRC" -o "$work/ref" tools/poptrie_ref_bench.c \
  "$POPTRIE_SRC/buddy.c" "$POPTRIE_SRC/poptrie.c" "$POPTRIE_SRC/poptrie4.c" "$POPTRIE_SRC/poptrie6.c" 2>"$work/cc.log" \
  || { cat "$work/cc.log" >&2; exit 1; }
zcat -f "$TABLE" >"$work/table.txt"

# Each prints "Mlps checksum": the checksum (sum of the next hops found) must agree between the
# two, since both walk the same address stream over the same routes and next hops.
ref() { taskset -c "$CPU" "$work/ref" "$work/table.txt" "$@" | sed -n 's/.*mlps=\([0-9.]*\) sum=\([0-9]*\).*mismatches=\([0-9]*\).*/\1 \2 \3/p'; }
ours() {
  taskset -c "$CPU" "$PKTLAB" lpm bench --table "$TABLE" --family v4 --nexthops hash:16 --algo poptrie18 \
    --traffic random --lookups "$LOOKUPS" --runs 1 --json "$@" 2>/dev/null \
    | python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["results"][0]; print(r["mlps_oncpu"], r["checksum"])'
}

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) | load $(cut -d' ' -f1-3 /proc/loadavg) | $(date -u +%FT%TZ)"
echo "# reference: $(git -C "$POPTRIE_SRC" rev-parse --short HEAD 2>/dev/null || echo '?') built with $REF_CFLAGS; pktlab: $("$PKTLAB" --version)"
# Which batch walk pktlab's `auto` runs for --pregen (the AVX-512 one where this CPU runs it
# clearly faster, timed when the table is built; the scalar one otherwise).
auto=$(taskset -c "$CPU" "$PKTLAB" lpm bench --table "$TABLE" --family v4 --nexthops hash:16 --algo poptrie18 \
  --lookups 1024 --runs 1 --json 2>/dev/null | python3 -c 'import json,sys; c=json.load(sys.stdin).get("poptrie_auto_batch"); print("%s (AVX-512 walk timed at %.2fx the scalar one)" % (c["kernel"], c["speedup"]) if c else "popcnt (no AVX-512)")')
echo "# pktlab poptrie18 batches of 128+ addresses: $auto"
printf '%-5s %12s %12s %12s %12s\n' round ref-random ours-batch1 ref-pregen ours-pregen
: >"$work/rounds"
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then
    read -r a sa m1 <<<"$(ref random "$LOOKUPS")"; read -r b sb <<<"$(ours --batch 1)"
    read -r c sc m2 <<<"$(ref pregen "$LOOKUPS" "$PREGEN")"; read -r d sd <<<"$(ours --pregen "$PREGEN")"
  else
    read -r b sb <<<"$(ours --batch 1)"; read -r a sa m1 <<<"$(ref random "$LOOKUPS")"
    read -r d sd <<<"$(ours --pregen "$PREGEN")"; read -r c sc m2 <<<"$(ref pregen "$LOOKUPS" "$PREGEN")"
  fi
  [ "$m1$m2" = 00 ] || { echo "reference: $m1/$m2 mismatches against its own RIB" >&2; exit 1; }
  [ "$sa" = "$sb" ] && [ "$sc" = "$sd" ] \
    || { echo "checksums differ: random ref $sa ours $sb, pregen ref $sc ours $sd (not the same lookups)" >&2; exit 1; }
  printf '%-5s %12.2f %12.2f %12.2f %12.2f\n' "$r" "$a" "$b" "$c" "$d"
  echo "$a $b $c $d" >>"$work/rounds"
done
echo "# load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/rounds" <<'EOF'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
med = lambda xs: statistics.median(xs)
cols = list(zip(*rows))
print("median Mlps: ref-random %.1f, ours --batch 1 %.1f, ref-pregen %.1f, ours --pregen %.1f"
      % tuple(med(c) for c in cols))
for name, o, rf, target in (("--batch 1 / ref random", 1, 0, 1.0), ("--pregen batched / ref pregen", 3, 2, 1.5)):
    ratios = [r[o] / r[rf] for r in rows]
    print("%s: per-round %s, median %.2f (target >= %.1f)"
          % (name, ", ".join("%.2f" % x for x in ratios), med(ratios), target))
EOF
