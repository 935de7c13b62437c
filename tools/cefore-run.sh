#!/bin/sh
# Starts and stops an *installed* Cefore cefnetd (and optionally csmgrd) with a private config
# directory, for pktlab's interop checks and the paper-003 case study (docs/results/ccn-live.md).
# It never builds Cefore: install it first as that doc describes, then point CEFORE_PREFIX at it
# (required; the script stops with a one-line error when it is unset).
#
#   tools/cefore-run.sh start TAG PORT [CS_MODE [CAPACITY]]   # CS_MODE 0 = off, 1 = local cache, 2 = csmgrd
#   tools/cefore-run.sh route TAG PORT PREFIX ADDR:PORT        # cefroute add PREFIX udp ADDR:PORT
#   tools/cefore-run.sh stop TAG
#
# Run it inside your own network namespace (ip netns exec NAME …) when PORT is Cefore's default
# 9695, so that it cannot collide with anything else on the machine. Files go to /tmp/cefore-TAG/.
# CSMGR_ALGO picks csmgrd's replacement plugin (libcsmgrd_fifo, libcsmgrd_lru, libcsmgrd_lfu).
set -eu
PREFIX=${CEFORE_PREFIX:?set CEFORE_PREFIX to the Cefore install prefix (the --prefix given to its ./configure)}
export PATH="$PREFIX/bin:$PREFIX/sbin:$PATH"
export LD_LIBRARY_PATH="$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export USER=${USER:-root}          # cefnetd refuses to start without USER
cmd=$1; tag=$2; dir=/tmp/cefore-$tag
case $cmd in
start)
    port=$3; cs=${4:-0}; cap=${5:-65535}
    mkdir -p "$dir"
    cp "$PREFIX/cefore/default-private-key" "$PREFIX/cefore/default-public-key" "$dir/"
    cp -r "$PREFIX/cefore/.ccninfo" "$dir/" 2>/dev/null || true
    : > "$dir/cefnetd.fib"
    cp "$PREFIX/cefore/plugin.conf" "$dir/" 2>/dev/null || true
    cat > "$dir/cefnetd.conf" <<CONF
PORT_NUM=$port
LOCAL_SOCK_ID=$tag
CS_MODE=$cs
LOCAL_CACHE_CAPACITY=$cap
LOCAL_CACHE_DEFAULT_RCT=3599
CSMGR_NODE=127.0.0.1
CSMGR_PORT_NUM=$((port + 104))
PATH_PRIVATE_KEY=$dir/default-private-key
PATH_PUBLIC_KEY=$dir/default-public-key
CONF
    if [ "$cs" = 2 ]; then
        cat > "$dir/csmgrd.conf" <<CONF
PORT_NUM=$((port + 104))
LOCAL_SOCK_ID=$tag
CACHE_TYPE=memory
CACHE_CAPACITY=$cap
CACHE_ALGORITHM=${CSMGR_ALGO:-libcsmgrd_fifo}
CONF
        csmgrd -d "$dir" > "$dir/csmgrd.out" 2>&1 &
        echo $! > "$dir/csmgrd.pid"
        sleep 1
    fi
    cefnetd -d "$dir" > "$dir/cefnetd.out" 2>&1 &
    echo $! > "$dir/cefnetd.pid"
    # Wait until it listens.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        if cefstatus -d "$dir" > /dev/null 2>&1; then exit 0; fi
        sleep 0.5
    done
    echo "cefore-run: cefnetd $tag did not come up; see $dir/cefnetd.out" >&2
    exit 1 ;;
route)
    port=$3; name=$4; to=$5
    cefroute add "$name" udp "$to" -d "$dir" ;;
stop)
    cefnetdstop -d "$dir" > /dev/null 2>&1 || true
    sleep 0.5
    for p in cefnetd csmgrd; do
        if [ -f "$dir/$p.pid" ]; then kill "$(cat "$dir/$p.pid")" 2>/dev/null || true; rm -f "$dir/$p.pid"; fi
    done
    # cefnetd leaves its local socket behind when killed; it refuses to start while it exists.
    rm -f /tmp/cef_*."$tag" /tmp/csmgr_*."$tag" ;;
*) echo "usage: $0 start|route|stop TAG …" >&2; exit 2 ;;
esac
