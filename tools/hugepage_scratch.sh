# Sourced by the DPDK side-by-side scripts (bash): a scratch directory in $work and the 2 MiB
# hugepage count in $hp / $hp_before; on exit, every background job is stopped (SIGINT, then
# SIGKILL), the directory removed and the hugepage count restored.
#   . tools/hugepage_scratch.sh NAME     (the directory is /tmp/NAME.XXXXXX)
work=$(mktemp -d "/tmp/$1.XXXXXX")
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
hp_before=$(cat $hp)
cleanup() {
  jobs -p | xargs -r kill -INT 2>/dev/null || true
  sleep 0.5
  jobs -p | xargs -r kill -KILL 2>/dev/null || true
  rm -rf "$work"
  echo "$hp_before" > $hp
}
trap cleanup EXIT
