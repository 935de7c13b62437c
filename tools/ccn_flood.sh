#!/usr/bin/env bash
# A standing hostile test of the live CCN router: producer + router + consumer on 127.0.0.1,
# measured once without a flood (baseline) and once under each flood kind while the consumer
# runs:
#   oneshot  one-byte datagrams, each from a new UDP source port (every one a new face)
#   pit      Interests for distinct names under /y, whose upstream never answers (a silent
#            UDP socket): a PIT flood, from two source ports
#   answered Interests for random names under /cefore (the producer answers every one) at the
#            flood rate (window 256): load on the PIT, the producer and the CS
#   garbage  random datagrams, half with a valid CCNx fixed header and random TLVs behind it
# Each phase starts a fresh producer and router, so counters and max RSS are per phase. The
# consumer sends Interests for 2^16 Zipf names at a fixed --rate. Asserts, for every flood:
# consumer Data/s >= 50% of the baseline's, no timeout beyond the baseline's, and the router's
# max RSS <= the baseline's + --rss-slack-mb. Prints one table row per phase; exit 1 on failure.
#
# Usage: tools/ccn_flood.sh [--pktlab BIN] [--seconds S] [--rate R] [--flood-rate F]
#                           [--port-base P] [--rss-slack-mb M] [--kinds k1,k2,...]
#   BIN: the pktlab binary (default target/release/pktlab; build it with
#        cargo build --release -p pktlab-cli). S: measured seconds per phase (default 10).
#   R: consumer Interests/s (default 2000). F: datagrams/s of each flooder (default 20000).
#   P: first of 4 UDP ports on 127.0.0.1 (default 19830).
set -euo pipefail
cd "$(dirname "$0")/.."
pk=target/release/pktlab
secs=10
rate=2000
frate=20000
base=19830
slack=64
kinds=oneshot,pit,answered,garbage
while [ $# -gt 0 ]; do
  case "$1" in
    --pktlab) pk=$2; shift 2 ;;
    --seconds) secs=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --flood-rate) frate=$2; shift 2 ;;
    --port-base) base=$2; shift 2 ;;
    --rss-slack-mb) slack=$2; shift 2 ;;
    --kinds) kinds=$2; shift 2 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "ccn_flood: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$pk" ] || { echo "ccn_flood: $pk: not an executable (cargo build --release -p pktlab-cli, or --pktlab BIN)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "ccn_flood: needs python3" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "ccn_flood: needs /usr/bin/time (Debian package time) for the router's max RSS" >&2; exit 2; }

prod_port=$base
router_port=$((base + 1))
silent_port=$((base + 2))
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf -- "$work"
}
trap cleanup EXIT

# The datagram flooders (one-byte from new ports; garbage) and the silent upstream.
cat >"$work/flood.py" <<'EOF'
import os, random, socket, struct, sys, time
kind, port, rate, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
dst = ("127.0.0.1", port)
end = time.monotonic() + secs
if kind == "silent":  # a next hop that never answers: bound, never read
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(dst)
    time.sleep(secs)
    sys.exit(0)
rng = random.Random(7)
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(8)]
sent, t0, tick = 0, time.monotonic(), 0.01
while True:
    now = time.monotonic()
    if now >= end:
        break
    due = int((now - t0) * rate) - sent
    if due <= 0:
        time.sleep(tick)
        continue
    for _ in range(min(due, 2000)):
        if kind == "oneshot":  # a new source port (a new face) for every datagram
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                s.sendto(b"x", dst)
            except OSError:
                pass
            s.close()
        else:  # garbage: random bytes, or a valid fixed header with random TLVs behind it
            n = rng.randrange(1, 200)
            body = os.urandom(n)
            if rng.random() < 0.5:
                t = rng.choice((0, 1, 2))  # Interest, Content Object, Interest Return
                body = struct.pack("!BBHBBBB", 1, t, 8 + n, 32, 0, 0, 8) + body
            try:
                rng.choice(socks).sendto(body, dst)
            except OSError:
                pass
        sent += 1
print(sent)
EOF

# rss_kb FILE: the max RSS /usr/bin/time wrote (last line, KiB).
rss_kb() { tail -1 "$1" 2>/dev/null | tr -dc 0-9; }

# phase NAME: one measurement; writes $work/NAME.{consumer,router}.json and NAME.rss.
phase() {
  local name=$1
  local dur
  dur=$(python3 -c "print($secs + 4)")
  python3 "$work/flood.py" silent "$silent_port" 0 "$dur" &
  pids+=($!)
  "$pk" ccn producer --listen "udp:127.0.0.1:$prod_port" --duration "$dur" --json \
    >"$work/$name.producer.json" &
  pids+=($!)
  /usr/bin/time -f '%M' -o "$work/$name.rss" \
    "$pk" ccn router --listen "udp:127.0.0.1:$router_port" \
    --route "/cefore=udp:127.0.0.1:$prod_port" --route "/y=udp:127.0.0.1:$silent_port" \
    --cs-entries 4K --duration "$(python3 -c "print($secs + 3)")" --json \
    >"$work/$name.router.json" &
  local router=$!
  pids+=($router)
  sleep 0.5
  local fl=$((secs + 2))
  case "$name" in
    baseline) ;;
    oneshot|garbage)
      python3 "$work/flood.py" "$name" "$router_port" "$frate" "$fl" >/dev/null &
      pids+=($!) ;;
    pit)
      for s in 1 2; do
        "$pk" ccn consumer --to "udp:127.0.0.1:$router_port" --prefix /y --contents 2^32 \
          --alpha 0.001 --rate "$frate" --window 1048576 --timeout-ms 100 --duration "$fl" --seed "$((s + 10))" \
          --json >/dev/null &
        pids+=($!)
      done ;;
    answered)
      "$pk" ccn consumer --to "udp:127.0.0.1:$router_port" --contents 2^32 --alpha 0.001 \
        --rate "$frate" --window 256 --duration "$fl" --seed 99 --json >/dev/null &
      pids+=($!) ;;
    *) echo "ccn_flood: unknown kind $name" >&2; exit 2 ;;
  esac
  sleep 0.5
  "$pk" ccn consumer --to "udp:127.0.0.1:$router_port" --contents 64K --rate "$rate" \
    --window 64 --warmup 0.5 --duration "$secs" --json >"$work/$name.consumer.json"
  wait
  pids=()
}

names=(baseline)
IFS=, read -r -a ks <<<"$kinds"
names+=("${ks[@]}")
for n in "${names[@]}"; do
  echo "ccn_flood: $n ($secs s)…" >&2
  phase "$n"
done

python3 - "$work" "$slack" "${names[@]}" <<'EOF'
import json, sys
work, slack, names = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
def load(n, role):
    with open(f"{work}/{n}.{role}.json") as f:
        return json.loads(f.read().strip().splitlines()[-1])
def rss(n):
    with open(f"{work}/{n}.rss") as f:
        return int(f.read().split()[-1]) / 1024
rows, ok = [], True
base = load("baseline", "consumer")
brss = rss("baseline")
print(f"{'flood':<9} {'Data/s':>8} {'vs base':>7} {'timeouts':>8} {'rx dgrams':>9} {'malformed':>9} "
      f"{'faces':>5} {'evicted':>7} {'overflow':>8} {'pit_full':>8} {'face_lim':>8} {'route_lim':>9} "
      f"{'max RSS MB':>10}  verdict")
for n in names:
    c, r, m = load(n, "consumer"), load(n, "router")["stats"], rss(n)
    frac = c["data_per_s"] / max(base["data_per_s"], 1e-9)
    why = []
    if n != "baseline":
        if frac < 0.5:
            why.append("Data/s < 50% of baseline")
        if c["timeouts"] > base["timeouts"]:
            why.append("timeouts")
        if m > brss + slack:
            why.append(f"RSS > baseline + {slack:g} MB")
    ok &= not why
    print(f"{n:<9} {c['data_per_s']:>8.0f} {frac:>7.2f} {c['timeouts']:>8} {r['received']:>9} "
          f"{r['malformed']:>9} {r['faces']:>5} {r['face_evicted']:>7} {r['face_overflow']:>8} "
          f"{r['pit_full']:>8} {r['pit_face_limit']:>8} {r['pit_route_limit']:>9} {m:>10.1f}  "
          f"{'ok' if not why else 'FAIL: ' + ', '.join(why)}")
sys.exit(0 if ok else 1)
EOF
