#!/bin/bash
# Loads an LFT file into real OpenSM through its file routing engine and reads the switches back:
#   opensm_file_engine.sh <netfile> <lfts> <out.dump_fts> [sim_host]
# ibsim (unique IBSIM_SOCKNAME, console FIFO + holder), `opensm -o -R file -U <lfts>`, dump_fts;
# everything under `timeout`, stopped by PID. Then compare, e.g.:
#   ftroute export -f NET -l OUT.dump_fts --to opensm-lfts -o back && cmp back LFTS
# (verified for `ftroute export --to opensm-lfts` and `--to minimal` output on ft4x2.net).
set -u
net=$(readlink -f "$1") lfts=$(readlink -f "$2") out=$(readlink -f "$3") host=${4:-H0_0}
W=$(mktemp -d /tmp/ftroute-fe.XXXXXX)
UM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
export IBSIM_SOCKNAME=ftfe$$ SIM_HOST=$host OSM_CACHE_DIR=$W/cache OSM_TMP_DIR=$W/dump
mkdir -p "$W/cache" "$W/dump" && cd "$W" || exit 1
mkfifo ibsim.in
sleep 300 > ibsim.in & holder=$!
timeout 200 ibsim -s "$net" < ibsim.in > ibsim.out 2>&1 & sim=$!
for i in $(seq 50); do grep -q 'sim>' ibsim.out 2>/dev/null && break; sleep 0.1; done
timeout 60 env LD_PRELOAD=$UM opensm -o -R file -U "$lfts" -f "$W/osm.log" --dump_files_dir "$W/dump" > osm.stdout 2>&1
rc=$?
grep -E "tables configured|PARSE" osm.log | head -5
timeout 30 env LD_PRELOAD=$UM dump_fts > "$out" 2> dump_fts.err
kill "$sim" "$holder" 2>/dev/null; wait "$sim" "$holder" 2>/dev/null
cd / && rm -rf "$W"
exit $rc
