#!/bin/bash
# Regenerates the real OpenSM / infiniband-diags fixtures in this folder:
#   capture.sh <name> <netfile> <sim_host> [opensm args...]
# Runs ibsim (unique IBSIM_SOCKNAME, console via FIFO + holder), `opensm -o -D 0x43` (dumps
# opensm-lfts.dump, opensm-subnet.lst, opensm.fdbs, opensm.mcfdbs), then dump_fts and ibroute
# (of the first switch in opensm-lfts.dump) against the
# simulator, and stops everything it started by PID. Every call runs under `timeout`.
set -u
name=$1 net=$(readlink -f "$2") host=$3; shift 3
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/ftroute-lftcap.XXXXXX)
UM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
export IBSIM_SOCKNAME=ftlft$$ SIM_HOST=$host OSM_CACHE_DIR=$W/cache OSM_TMP_DIR=$W/dump
mkdir -p "$W/cache" "$W/dump" && cd "$W" || exit 1
mkfifo ibsim.in
sleep 600 > ibsim.in & holder=$!
timeout 300 ibsim -s "$net" < ibsim.in > ibsim.out 2>&1 & sim=$!
for i in $(seq 50); do grep -q 'sim>' ibsim.out 2>/dev/null && break; sleep 0.1; done
timeout 60 env LD_PRELOAD=$UM opensm -o -D 0x43 -f "$W/osm.log" --dump_files_dir "$W/dump" "$@" > osm.stdout 2>&1
rc=$?
timeout 30 env LD_PRELOAD=$UM dump_fts > dump_fts.out 2> dump_fts.err
swlid=$(sed -n '1s/.*switch Lid \([0-9]*\) .*/\1/p' dump/opensm-lfts.dump)
timeout 30 env LD_PRELOAD=$UM ibroute "$swlid" > ibroute.out 2> ibroute.err
kill "$sim" "$holder" 2>/dev/null; wait "$sim" "$holder" 2>/dev/null
echo "opensm rc=$rc; $(grep -c 'SUBNET UP' osm.log) SUBNET UP"
cp dump/opensm-lfts.dump "$here/$name.opensm-lfts.dump"
cp dump/opensm-subnet.lst "$here/$name.opensm-subnet.lst"
cp dump/opensm.fdbs "$here/$name.opensm.fdbs"
cp dump/opensm.mcfdbs "$here/$name.opensm.mcfdbs"
cp dump_fts.out "$here/$name.dump_fts"
cp ibroute.out "$here/$name.ibroute"
cd / && rm -rf "$W"
