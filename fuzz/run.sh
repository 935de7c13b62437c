#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each, one after another, on the
# run-time corpus (fuzz/seed-corpus.sh) plus the committed hand-made seeds; prints one
# summary line per target (executions, coverage, corpus) and fails on the first crash (the
# reproducer is left in fuzz/artifacts/<target>/).
# Usage: fuzz/run.sh SECONDS [target...]   (needs a nightly toolchain and cargo-fuzz)
# PKTLAB_FUZZ_DEV=1 builds without optimisation (`cargo fuzz --dev`): a few times faster to
# build, slower to run — what CI's short runs want; long runs should keep the default.
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:?usage: fuzz/run.sh SECONDS [target...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(pcap compact parse routes_text routes_pyasn routes_mrt updates ccnx_tlv structures queues)
fi
./seed-corpus.sh >/dev/null
dev=()
if [ "${PKTLAB_FUZZ_DEV:-0}" = 1 ]; then dev=(--dev); fi
cargo +nightly fuzz build -a "${dev[@]}" >/dev/null
mkdir -p logs
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "seeds/$t"
  log=logs/$t.log
  if ! cargo +nightly fuzz run -a "${dev[@]}" "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$secs" -max_len=4096 -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
    echo "fuzz $t: FAILED (see fuzz/$log and fuzz/artifacts/$t/)"
    grep -E "panicked|ERROR|SUMMARY" "$log" | head -5
    exit 1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[^ ]+' || true)
  echo "fuzz $t: ${secs}s, $execs executions, ${last:-no stats}"
done
