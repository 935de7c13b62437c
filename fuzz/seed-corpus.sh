#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seeds cut from ../shared/data (routing tables, update
# streams, MRT dumps, ndpi captures), at run time: they are never committed. The small
# hand-made seeds live in fuzz/seeds/<target>/ (committed). Missing shared data is skipped
# with a one-line note. Usage: fuzz/seed-corpus.sh [path/to/shared/data]
set -euo pipefail
cd "$(dirname "$0")"
data=${1:-../../shared/data}
if [ ! -d "$data" ]; then
  echo "seed-corpus: no shared data at $data: hand-made seeds only"
  exit 0
fi
for t in pcap compact parse routes_text routes_pyasn routes_mrt updates ccnx_tlv; do
  mkdir -p "corpus/$t"
done
r=$data/routes
# Line formats: the first lines of each table and stream (zcat stops early: ignore SIGPIPE).
head_of() { { gzip -dc "$1" 2>/dev/null || true; } | head -n "$2"; }
if [ -d "$r/ris-rrc00-as3333-2026-05-11" ]; then
  d=$r/ris-rrc00-as3333-2026-05-11
  head_of "$d/rib-v4.txt.gz" 300 > corpus/routes_text/ris-rib-v4-head.txt
  head_of "$d/rib-v6.txt.gz" 300 > corpus/routes_text/ris-rib-v6-head.txt
  head_of "$d/updates-v4.txt.gz" 300 > corpus/updates/ris-updates-v4-head.txt
  head_of "$d/updates-v6.txt.gz" 300 > corpus/updates/ris-updates-v6-head.txt
fi
if [ -f "$r/routeviews-2014-05-13/ipasn_20140513.dat.gz" ]; then
  head_of "$r/routeviews-2014-05-13/ipasn_20140513.dat.gz" 300 > corpus/routes_pyasn/routeviews-head.dat
fi
# MRT: the first 4 KiB and 32 KiB of each RIB dump (cut mid-record on purpose).
for f in "$r"/mrt-samples/*.bz2; do
  [ -f "$f" ] || continue
  b=$(basename "$f" .bz2)
  for n in 4096 32768; do
    { bzip2 -dc "$f" 2>/dev/null || true; } | head -c $n > "corpus/routes_mrt/$b-$n"
  done
done
# Captures: every ndpi capture under 16 KiB.
if [ -d "$data/traces/ndpi-captures" ]; then
  find "$data/traces/ndpi-captures" -type f -size -16k \( -name '*.pcap' -o -name '*.pcapng' \) \
    -exec cp -t corpus/pcap {} +
fi
# Parser frames: the first frames of a few legacy captures, prefixed by the target's link
# selector (needs python3; skipped without it).
if command -v python3 >/dev/null 2>&1; then
  python3 - "$data/traces/ndpi-captures" corpus/parse <<'PY' || echo "seed-corpus: frame extraction failed"
import os, struct, sys
src, out = sys.argv[1], sys.argv[2]
links = [1, 101, 228, 229, 113, 276, 0, 108, 9, 147]  # the parse target's LINK_TYPES
n = 0
for name in sorted(os.listdir(src)) if os.path.isdir(src) else []:
    p = os.path.join(src, name)
    if not name.endswith(".pcap") or os.path.getsize(p) > 1 << 20:
        continue
    b = open(p, "rb").read()
    if len(b) < 24 or b[:4] not in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        continue
    lt = struct.unpack("<I", b[20:24])[0] & 0xFFFF
    if lt not in links:
        continue
    at, k = 24, 0
    while at + 16 <= len(b) and k < 4:
        incl = struct.unpack("<I", b[at + 8:at + 12])[0]
        f = b[at + 16:at + 16 + incl]
        open(os.path.join(out, "%s-%d" % (name, k)), "wb").write(bytes([links.index(lt)]) + f)
        at += 16 + incl
        k += 1
        n += 1
    if n >= 400:
        break
PY
else
  echo "seed-corpus: no python3: parser seeds are the hand-made ones only"
fi
# Compact traces: converted from a synthetic trace and a capture by the release binary, if
# it is built.
pk=../target/release/pktlab
if [ -x "$pk" ]; then
  "$pk" trace convert --packets 300 --out corpus/compact/synthetic.pktl >/dev/null 2>&1 || true
  c=$data/traces/ndpi-captures/1kxun.pcap
  [ -f "$c" ] && { "$pk" trace convert --trace "$c" --out corpus/compact/1kxun.pktl >/dev/null 2>&1 || true; }
else
  echo "seed-corpus: no $pk: compact seeds are the hand-made ones only"
fi
for t in corpus/*/; do
  echo "seed-corpus: $t $(find "$t" -type f | wc -l) files"
done
