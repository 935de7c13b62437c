#!/usr/bin/env bash
# Interleaved rounds of pktlab's dir24_8 against DPDK's rte_fib (docs/results/lpm.md, section
# "DIR-24-8 again"). Build the DPDK side first (outside the repo, see tools/dpdk_lpm_bench.c).
# DPDK runs twice per round: with the usual EAL flags (--no-huge) and on 2 MiB hugetlbfs
# pages, which need (as root): echo 600 > /proc/sys/vm/nr_hugepages;
#   mkdir -p /dev/hugepages; mount -t hugetlbfs nodev /dev/hugepages
# Usage: tools/dir24_8_vs_dpdk.sh TABLE.txt PKTLAB [DPDK_LPM_BENCH [ROUNDS]]
#   DPDK_LPM_BENCH: the built tools/dpdk_lpm_bench.c binary; default $DPDK_LPM_BENCH.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: tools/dir24_8_vs_dpdk.sh TABLE.txt PKTLAB [DPDK_LPM_BENCH [ROUNDS]]" >&2
  exit 2
fi
T=$1 P=$2 D=${3:-${DPDK_LPM_BENCH:-}} ROUNDS=${4:-3}
if [ -z "$D" ]; then
  echo "dir24_8_vs_dpdk.sh: give the dpdk_lpm_bench binary as the third argument or set DPDK_LPM_BENCH" >&2
  exit 2
fi
for r in $(seq 1 "$ROUNDS"); do
  l=$(cut -d' ' -f1 /proc/loadavg)
  taskset -c 1 "$P" lpm bench --table "$T" --nexthops hash:16 --algo dir24_8 --lookups 2^24 \
    --runs 3 --json 2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)['results'][0]
print('round $r pktlab load $l on-CPU Mlps', [round(x, 1) for x in d['runs_oncpu_mlps']],
      'median', round(d['mlps_oncpu'], 1), 'checksum', d['checksum'])"
  for h in nohuge huge; do
    l=$(cut -d' ' -f1 /proc/loadavg)
    f=--no-huge; [ $h = huge ] && f=
    taskset -c 1 "$D" $f --no-pci -m 1024 --no-telemetry -l 1 --file-prefix "d$h" -- \
      "$T" 16 random 16777216 3 256 fib 2>/dev/null | python3 -c "
import json, sys
rr = [json.loads(l) for l in sys.stdin if l.startswith('{')]
rr = [x for x in rr if 'round' in x]
v = sorted(x['mlps_oncpu'] for x in rr)
print('round $r dpdk-fib-$h load $l on-CPU Mlps', [x['mlps_oncpu'] for x in rr],
      'median', v[len(v) // 2], 'checksum', rr[0]['checksum'])"
  done
done
