#!/usr/bin/env bash
# The library's unit tests in the builds where undefined behaviour behind a debug_assert!
# shows: release optimisation with debug assertions kept (profile release-checked), and
# AddressSanitizer on nightly; and, on request, under Miri (nightly), which also checks
# pointer aliasing (Stacked Borrows) and every unchecked index, at ~1000× the run time.
# Slower than .ci/run's other steps (each rebuilds pktlab and its dependencies); run `all`
# before landing a change to unsafe code.
#
# Usage: tools/sanitizers.sh [all|release-checked|asan|miri] [TEST-FILTER...]
#   all (default) runs release-checked and asan over every unit test of the library;
#   TEST-FILTER... (libtest name filters, e.g. `mbuf:: flowcache::store`) narrows them to the
#   tests whose path contains one of them. .ci/run runs `asan` over the modules that hold
#   unsafe code, with fewer proptest cases (PROPTEST_CASES), to stay within its budget.
#   miri runs the tests named by the filters, each an exact test path (`--exact`): many of
#   the library's tests take minutes under Miri, so it is for a chosen list (.ci/run's, or
#   a module's tests one by one). Needs `rustup component add --toolchain nightly miri`.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
shift || true
case "$what" in all | release-checked | asan | miri) ;; *)
  echo "usage: tools/sanitizers.sh [all|release-checked|asan|miri] [TEST-FILTER...]" >&2
  exit 2
  ;;
esac
if [ "$what" = miri ]; then
  [ $# -gt 0 ] || { echo "miri: name the tests (exact paths)" >&2; exit 2; }
  if ! cargo +nightly miri --version >/dev/null 2>&1; then
    echo "miri: skipped (no Miri on the nightly toolchain)"
    exit 0
  fi
  echo "== Miri (nightly): $# unit tests of the library"
  # Isolation off: proptest reads PROPTEST_CASES and the tests read the clock.
  MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}" \
    cargo +nightly miri test -q -p pktlab --lib -- --exact "$@"
  exit 0
fi
if [ "$what" != asan ]; then
  echo "== release build with debug assertions (profile release-checked): the library's tests"
  # Release optimisation is where a bug behind a `debug_assert!` shows; the assertions and
  # overflow checks stay on so that it shows as a failure.
  cargo test -q -p pktlab --profile release-checked --lib -- "$@"
fi
if [ "$what" != release-checked ]; then
  echo "== AddressSanitizer (nightly): the library's unit tests${1:+ matching $*}"
  # Instrumented pktlab and dependencies, uninstrumented std (-Zbuild-std would need rust-src
  # and rebuild std). Leak checking is off: long-lived tables are leaked on purpose.
  if cargo +nightly --version >/dev/null 2>&1; then
    RUSTFLAGS="-Zsanitizer=address" ASAN_OPTIONS=detect_leaks=0 CARGO_TARGET_DIR=target/asan \
      cargo +nightly test -q -p pktlab --lib --target x86_64-unknown-linux-gnu -- "$@"
  else
    echo "asan: skipped (no nightly toolchain)"
  fi
fi
