#!/usr/bin/env bash
# ftsim.sh - run a simulated InfiniBand fabric: ibsim + OpenSM (+ the ftroute plugin) + diagnostics.
#
# Usage: scripts/ftsim.sh [-w WORKDIR] <command> [args]
#
#   start NETFILE                 start ibsim on NETFILE (unique IBSIM_SOCKNAME, console FIFO + holder)
#   opensm-once [OSM-OPTS]        run `opensm -o` once (one sweep, exits); prints the engine used
#   opensm-start [OSM-OPTS]       start OpenSM as a daemon, wait for SUBNET UP; prints the engine used
#   opensm-stop                   stop the OpenSM daemon
#   cmd 'CONSOLE COMMAND'         send one line to the ibsim console, print ibsim's answer
#   unlink NODE PORT              `Unlink "NODE"[PORT]` (marks the log for wait-reroute)
#   relink NODE PORT              `ReLink "NODE"[PORT]` (marks the log for wait-reroute)
#   hup                           SIGHUP to the OpenSM daemon (heavy sweep; marks the log)
#   wait-reroute [SECONDS]        wait for a new SUBNET UP after the mark, then a quiet log
#   dump-fts                      LFTs read back from the simulated switches (dump_fts)
#   ibnetdiscover                 topology as OpenSM/ibsim see it (with the assigned LIDs)
#   tool CMD [ARGS]               any libibumad tool against the sim (ibroute 2, ibtracert 1 6, ...)
#   engine                        routing engine of the last routing pass ("<x> tables configured")
#   vmhwm                         peak RSS (VmHWM, kB) of the running OpenSM daemon; `opensm-once
#                                 --until-routed` writes it to its run dir as vmhwm_kb before stopping
#   log                           path of the current OpenSM log
#   dumpdir                       path of the current OpenSM dump dir (opensm-lfts.dump, opensm.fdbs, ...)
#   status                        what is running
#   stop                          stop OpenSM, ibsim and the FIFO holder (by PID); idempotent
#   run NETFILE [OSM-OPTS]        one shot: start, opensm-once, dump-fts > WORKDIR/dump_fts.txt, stop
#
# OSM-OPTS:
#   --engine LIST          routing_engine (comma list, e.g. ftree or ftree-misroute,no_fallback); default minhop
#   --conf LINE            extra opensm.conf line (repeatable), e.g. --conf 'lmc 1'
#   --plugin NAME          event_plugin_name (loads libNAME.so), e.g. --plugin ftroute
#   --plugin-dir DIR       prepended to LD_LIBRARY_PATH (default, if --plugin is used: $FTROUTE_PLUGIN_DIR,
#                          <repo>/build/plugin, or the build tree's plugin/ beside build/libexec/ftroute/
#                          ftsim.sh, whichever holds libNAME.so; else OpenSM's dlopen searches the system
#                          library path, and a warning says when the library is not there either)
#   --plugin-options STR   event_plugin_options
#   --lfts FILE            lfts_file for the "file" engine (like opensm -U FILE)
#   --sweep SECONDS        sweep_interval (default 0: no periodic sweeps; traps still trigger sweeps)
#   --timeout SECONDS      opensm-once: whole run; opensm-start: until SUBNET UP (default 60)
#   --sim-host NODE        SIM_HOST: the node OpenSM attaches to (default: first node of the .net file)
#   --until-routed         opensm-once: stop OpenSM right after "<x> tables configured on all switches"
#                          (no LFT upload, no SUBNET UP): times the routing step of big fabrics
#   --opensm PATH          the opensm binary (default: env FTSIM_OPENSM, else `opensm` from PATH), e.g.
#                          an upstream OpenSM built with scripts/build-opensm.sh: PREFIX/sbin/opensm
#
# Environment: FTSIM_OPENSM (the opensm binary, like --opensm), FTSIM_WORKDIR (default ./run/ftsim), FTSIM_LIFETIME (upper bound for background
# processes, default 3600 s), FTSIM_TOOL_TIMEOUT (default 60 s), SIM_HOST (tools' attach node),
# FTSIM_IBSIM_OPTS (extra ibsim options, e.g. '-N 14000 -S 2000 -P 100000'; unset: `start` sizes
# ibsim itself when the fabric is beyond ibsim's default limits of 2048 nodes / 256 switches /
# 30720 LIDs, the LinearFDBCap its switches report, which OpenSM takes as its LID limit),
# FTSIM_START_TIMEOUT (seconds to wait for ibsim to load the fabric, default 10).
#
# Every process runs under timeout(1). Background processes (holder, ibsim, OpenSM) are recorded
# in WORKDIR/*.pid and stopped by PID with `stop`; `run` and failing starts clean up via trap EXIT.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
UM=""
for c in /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so /usr/lib/aarch64-linux-gnu/umad2sim/libumad2sim.so \
         /usr/lib/umad2sim/libumad2sim.so /usr/lib64/umad2sim/libumad2sim.so; do
  [ -e "$c" ] && { UM=$c; break; }
done
export PATH="$PATH:/usr/sbin:/sbin"
LIFE=${FTSIM_LIFETIME:-3600}
TOOL_T=${FTSIM_TOOL_TIMEOUT:-60}

die() { echo "ftsim: error: $*" >&2; exit 1; }
note() { echo "ftsim: $*" >&2; }

W=${FTSIM_WORKDIR:-$PWD/run/ftsim}
if [ "${1:-}" = "-w" ]; then
  [ $# -ge 2 ] || die "-w needs a work directory"
  W=$2; shift 2
fi
[ $# -ge 1 ] || { sed -n '2,49p' "$0"; exit 2; }
OP=$1; shift

need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found (run scripts/install-deps.sh)"; }
alive() { [ -f "$W/$1.pid" ] && kill -0 "$(cat "$W/$1.pid")" 2>/dev/null; }
sock() { [ -f "$W/sockname" ] || die "no simulator in $W (run: ftsim.sh -w $W start NETFILE)"; cat "$W/sockname"; }
cur_osm() { [ -f "$W/current_opensm" ] || die "OpenSM has not run in $W"; cat "$W/current_opensm"; }
subnet_ups() { local l; l=$(cur_osm)/osm.log; [ -f "$l" ] && grep -c 'SUBNET UP' "$l" || echo 0; }
engine_of() { grep -o '[^ ]* tables configured on all switches' "$1" 2>/dev/null | tail -1 | cut -d' ' -f1; }
mark() { subnet_ups > "$W/reroute.mark"; }
fsize() { stat -c %s "$1" 2>/dev/null || echo 0; }

# Stops a process started under timeout(1): TERM (forwarded to the command), then KILL the group.
stop_pid() {
  local name=$1 p
  [ -f "$W/$name.pid" ] || return 0
  p=$(cat "$W/$name.pid")
  if kill -0 "$p" 2>/dev/null; then
    kill -TERM "$p" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$p" 2>/dev/null; then kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null || true; fi
    note "stopped $name (pid $p)"
  fi
  rm -f "$W/$name.pid"
}

stop_all() { stop_pid opensm; stop_pid ibsim; stop_pid holder; }

# dump_fts (and ibroute) of infiniband-diags 44 stop one LFT block early when LinearFDBTop is a
# non-zero multiple of 64, so the entry of the top LID is missing from every table (docs/HARNESS.md,
# "dump_fts skips LID LinearFDBTop"). This reads that block with smpdump over the table's DR path
# and adds the line, marked as read with smpdump, so that nothing is lost.
dump_fts_complete() {
  local raw line hex port n=0 top=0 path="" seen=0 last=0
  raw=$(tool dump_fts) || return 1
  while IFS= read -r line; do
    if [[ $line =~ ^Unicast\ lids\ \[0x[0-9a-fA-F]+-0x([0-9a-fA-F]+)\]\ of\ switch\ DR\ path\ slid\ [0-9]+\;\ dlid\ [0-9]+\;\ ([0-9,]+) ]]; then
      top=$((16#${BASH_REMATCH[1]})); path=${BASH_REMATCH[2]}; seen=0
    elif [[ $line =~ ^0x([0-9a-fA-F]{4})\  ]]; then
      [ $((16#${BASH_REMATCH[1]})) -eq "$top" ] && seen=1
    elif [[ $line =~ ^([0-9]+)(\ valid\ lids\ dumped.*)$ ]]; then
      if [ "$top" -gt 0 ] && [ $((top % 64)) -eq 0 ] && [ $seen -eq 0 ]; then
        hex=$(tool smpdump -D "$path" 0x19 $((top / 64)) 2>/dev/null |
              grep -E '^[0-9a-fA-F]{4}( [0-9a-fA-F]{4})* *$' | tr -d ' \n')
        [ ${#hex} -eq 128 ] || die "smpdump of LFT block $((top / 64)) at DR path $path failed"
        port=$((16#${hex:$((2 * (top % 64))):2}))
        if [ "$port" -ne 255 ]; then
          printf '0x%04x %03d : (read with smpdump: dump_fts skips LID LinearFDBTop)\n' "$top" "$port"
          line="$((BASH_REMATCH[1] + 1))${BASH_REMATCH[2]}"
          n=$((n + 1)); last=$top
        fi
      fi
      top=0
    fi
    printf '%s\n' "$line"
  done <<< "$raw"
  [ $n -eq 0 ] || note "dump-fts: LID $last read with smpdump on $n switch(es) (dump_fts skips LID LinearFDBTop)"
}

tool() {
  local s; s=$(sock)
  (cd "$W" && IBSIM_SOCKNAME=$s timeout -k 3 "$TOOL_T" env LD_PRELOAD="$UM" "$@")
}

# ibsim options for a .net file beyond ibsim's default limits (2048 nodes, 256 switches), with
# room to spare (ports: every port of every node, port 0 included, plus half again); nothing
# for fabrics within them. ibsim 0.10's switches report LinearFDBCap 30720 (30*1024), which
# OpenSM takes as its highest unicast LID (ERR 0307 "OPENSM RAN OUT OF LIDS" beyond it, e.g. the
# radix-52 tree's 38,532 LIDs): with more than 30000 LIDs (switches + CA/router ports) -L 49152.
ibsim_limits() {
  awk '$1 == "Switch" { s++; p += $2 + 1 } $1 == "Hca" || $1 == "Ca" || $1 == "Rt" { c++; p += $2 + 1; l += $2 }
       END { if (s > 256 || s + c > 2048) printf "-N %d -S %d -P %d", s + c + 64, s + 16, p * 3 / 2 + 1000
             if (s + l > 30000) printf "%s-L 49152", (s > 256 || s + c > 2048) ? " " : "" }' "$1"
}

cmd_start() {
  local net=${1:-}
  [ -n "$net" ] || die "usage: ftsim.sh start NETFILE"
  [ -r "$net" ] || die "cannot read net file '$net'"
  need ibsim; need timeout; [ -n "$UM" ] || die "libumad2sim.so not found (package libumad2sim0)"
  if alive ibsim; then die "ibsim already running in $W (pid $(cat "$W/ibsim.pid")); run 'stop' first"; fi
  mkdir -p "$W"; W=$(cd "$W" && pwd)
  rm -rf "$W"/opensm-* "$W/ibsim.in" "$W/ibsim.out" "$W/current_opensm" "$W/reroute.mark"
  cp "$net" "$W/fabric.net"
  echo "ftsim_$$_$RANDOM" > "$W/sockname"
  mkfifo "$W/ibsim.in"
  trap 'stop_all' EXIT
  # Holder: keeps a writer on the FIFO (opened read-write, so it never blocks); without one ibsim
  # sees EOF on its console and spins at 100% CPU.
  ( exec timeout "$LIFE" sleep "$LIFE" ) 3<>"$W/ibsim.in" </dev/null >/dev/null 2>&1 &
  echo $! > "$W/holder.pid"
  local opts=${FTSIM_IBSIM_OPTS-$(ibsim_limits "$W/fabric.net")}
  [ -z "$opts" ] || note "ibsim $opts (fabric beyond ibsim's default limits)"
  (cd "$W" && IBSIM_SOCKNAME=$(cat "$W/sockname") exec timeout -k 3 "$LIFE" ibsim $opts -s "$W/fabric.net") \
    < "$W/ibsim.in" > "$W/ibsim.out" 2>&1 &
  echo $! > "$W/ibsim.pid"
  for _ in $(seq $((${FTSIM_START_TIMEOUT:-10} * 20))); do
    grep -q 'sim>' "$W/ibsim.out" 2>/dev/null && break
    alive ibsim || { cat "$W/ibsim.out" >&2; die "ibsim exited while starting on $net"; }
    sleep 0.05
  done
  grep -q 'sim>' "$W/ibsim.out" || { tail -20 "$W/ibsim.out" >&2; die "ibsim did not come up on $net"; }
  trap - EXIT
  note "ibsim up on $net (IBSIM_SOCKNAME=$(cat "$W/sockname"), workdir $W)"
}

# Parses OSM-OPTS, writes <run>/opensm.conf, sets OSM_DIR, OSM_ENV, OSM_TIMEOUT, OSM_BIN.
prep_opensm() {
  OSM_BIN=${FTSIM_OPENSM:-opensm}
  local engines=minhop plugin="" pdir="" popts="" lfts="" sweep=0 host=${SIM_HOST:-}
  UNTIL_ROUTED=0
  local -a conf=()
  OSM_TIMEOUT=60
  while [ $# -gt 0 ]; do
    case $1 in
      --until-routed) ;;
      --*) [ $# -ge 2 ] || die "option $1 needs a value" ;;
    esac
    case $1 in
      --engine) engines=$2; shift 2 ;;
      --conf) conf+=("$2"); shift 2 ;;
      --plugin) plugin=$2; shift 2 ;;
      --plugin-dir) pdir=$2; shift 2 ;;
      --plugin-options) popts=$2; shift 2 ;;
      --lfts) lfts=$(readlink -f "$2"); [ -r "$lfts" ] || die "cannot read LFT file '$2'"; shift 2 ;;
      --sweep) sweep=$2; shift 2 ;;
      --timeout) OSM_TIMEOUT=$2; shift 2 ;;
      --sim-host) host=$2; shift 2 ;;
      --until-routed) UNTIL_ROUTED=1; shift ;;
      --opensm) OSM_BIN=$2; shift 2 ;;
      *) die "unknown OpenSM option '$1'" ;;
    esac
  done
  [[ $OSM_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive number of seconds, not '$OSM_TIMEOUT'"
  [[ $sweep =~ ^[0-9]+$ ]] || die "--sweep must be a number of seconds, not '$sweep'"
  if [[ $OSM_BIN == */* ]]; then
    [ -x "$OSM_BIN" ] || die "opensm '$OSM_BIN' is not an executable file (--opensm / FTSIM_OPENSM)"
    OSM_BIN=$(readlink -f "$OSM_BIN")
  else
    need "$OSM_BIN"
  fi
  alive ibsim || die "ibsim is not running in $W (run: ftsim.sh -w $W start NETFILE)"
  W=$(cd "$W" && pwd)
  local n=1
  while [ -e "$W/opensm-$n" ]; do n=$((n + 1)); done
  OSM_DIR=$W/opensm-$n
  mkdir -p "$OSM_DIR/dump" "$OSM_DIR/cache"
  {
    echo "# written by scripts/ftsim.sh"
    echo "routing_engine $engines"
    echo "log_flags 0x43"
    echo "force_log_flush TRUE"
    echo "dump_files_dir $OSM_DIR/dump"
    echo "sweep_interval $sweep"
    [ -z "$plugin" ] || echo "event_plugin_name $plugin"
    [ -z "$popts" ] || echo "event_plugin_options $popts"
    [ -z "$lfts" ] || echo "lfts_file $lfts"
    for l in "${conf[@]+"${conf[@]}"}"; do echo "$l"; done
  } > "$OSM_DIR/opensm.conf"
  OSM_ENV=(IBSIM_SOCKNAME="$(sock)" OSM_CACHE_DIR="$OSM_DIR/cache" OSM_TMP_DIR="$OSM_DIR/dump")
  [ -z "$host" ] || OSM_ENV+=(SIM_HOST="$host")
  if [ -n "$plugin" ]; then
    # default: $FTROUTE_PLUGIN_DIR, the source tree's build/plugin, or the build tree's plugin/
    # beside this copy (build/libexec/ftroute/ftsim.sh); installed: the system library path
    if [ -z "$pdir" ]; then
      local here d
      here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
      for d in "${FTROUTE_PLUGIN_DIR:-}" "$REPO/build/plugin" "$here/../../plugin"; do
        if [ -n "$d" ] && [ -e "$d/lib$plugin.so" ]; then pdir=$d; break; fi
      done
    fi
    if [ -n "$pdir" ]; then
      [ -e "$pdir/lib$plugin.so" ] || note "warning: $pdir/lib$plugin.so not found; OpenSM will fall back"
    elif [ -z "$(/sbin/ldconfig -p 2> /dev/null | grep -F "lib$plugin.so")" ]; then
      note "warning: lib$plugin.so is neither beside this script nor on the system library path (give --plugin-dir); OpenSM will fall back"
    fi
  fi
  [ -z "$pdir" ] || OSM_ENV+=(LD_LIBRARY_PATH="$(readlink -f "$pdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  printf '%s\n' "${OSM_ENV[@]}" "OPENSM=$OSM_BIN" > "$OSM_DIR/opensm.env"   # what OpenSM ran with (plugin dir, binary)
  echo "$OSM_DIR" > "$W/current_opensm"
}

# One OpenSM sweep (opensm -o) with the run's configuration, log and environment (after prep_opensm).
opensm_o() {
  cd "$OSM_DIR" && exec env "${OSM_ENV[@]}" timeout -k 3 "$OSM_TIMEOUT" env LD_PRELOAD="$UM" \
    "$OSM_BIN" -o -F "$OSM_DIR/opensm.conf" -f "$OSM_DIR/osm.log" -d 2
}

cmd_opensm_once() {
  prep_opensm "$@"
  local rc=0
  if [ "$UNTIL_ROUTED" = 1 ]; then
    # Stop OpenSM as soon as the routing pass has ended (LFT upload and SUBNET UP are skipped):
    # for timing the routing step on big fabrics, where the upload under ibsim takes minutes.
    (opensm_o) </dev/null > "$OSM_DIR/opensm.out" 2>&1 &
    echo $! > "$W/opensm.pid"
    while alive opensm; do
      grep -q -E 'tables configured on all switches|No routing engine able' "$OSM_DIR/osm.log" 2>/dev/null && break
      sleep 0.1
    done
    osm_vmhwm > "$OSM_DIR/vmhwm_kb" 2>/dev/null || true
    stop_pid opensm
    grep -q 'tables configured on all switches' "$OSM_DIR/osm.log" 2>/dev/null ||
      die "OpenSM configured no routing tables (log $OSM_DIR/osm.log)"
    engine_of "$OSM_DIR/osm.log"
    return 0
  fi
  (opensm_o) > "$OSM_DIR/opensm.out" 2>&1 || rc=$?
  if ! grep -q 'SUBNET UP' "$OSM_DIR/osm.log" 2>/dev/null; then
    grep -E 'ERR|error' "$OSM_DIR/osm.log" 2>/dev/null | tail -5 >&2 || true
    die "OpenSM did not bring the subnet up (rc $rc; log $OSM_DIR/osm.log)"
  fi
  engine_of "$OSM_DIR/osm.log"
}

cmd_opensm_start() {
  stop_pid opensm
  prep_opensm "$@"
  (cd "$OSM_DIR" && exec env "${OSM_ENV[@]}" timeout -k 3 "$LIFE" env LD_PRELOAD="$UM" \
     "$OSM_BIN" -F "$OSM_DIR/opensm.conf" -f "$OSM_DIR/osm.log" -d 2) </dev/null > "$OSM_DIR/opensm.out" 2>&1 &
  echo $! > "$W/opensm.pid"
  local t0=$SECONDS
  while [ $((SECONDS - t0)) -lt "$OSM_TIMEOUT" ]; do
    if grep -q 'SUBNET UP' "$OSM_DIR/osm.log" 2>/dev/null; then mark; engine_of "$OSM_DIR/osm.log"; return 0; fi
    alive opensm || break
    sleep 0.05
  done
  tail -20 "$OSM_DIR/osm.log" >&2 2>/dev/null || true
  stop_pid opensm
  die "OpenSM daemon: no SUBNET UP within $OSM_TIMEOUT s (log $OSM_DIR/osm.log)"
}

cmd_console() {
  [ $# -eq 1 ] || die "usage: ftsim.sh cmd 'CONSOLE COMMAND'"
  alive ibsim || die "ibsim is not running in $W"
  local before; before=$(fsize "$W/ibsim.out")
  # The holder keeps the FIFO open, so this write never blocks for long; bound it anyway.
  timeout 10 bash -c 'printf "%s\n" "$1" > "$2"' _ "$1" "$W/ibsim.in" || die "cannot write to the ibsim console"
  for _ in $(seq 100); do
    [[ $(tail -c +"$((before + 1))" "$W/ibsim.out") == *'sim>'* ]] && break
    sleep 0.02
  done
  tail -c +"$((before + 1))" "$W/ibsim.out" | grep -v '^sim> *$' || true
}

opensm_child() { local p; p=$(cat "$W/opensm.pid"); pgrep -P "$p" | sed -n 1p; }
# Peak RSS (VmHWM, kB) of the OpenSM process (the child of its timeout(1)).
osm_vmhwm() {
  local c; c=$(opensm_child); [ -n "$c" ] || return 1
  awk '/^VmHWM:/ { print $2; f = 1 } END { exit !f }' "/proc/$c/status"
}

cmd_hup() {
  alive opensm || die "no OpenSM daemon running in $W"
  mark
  local c; c=$(opensm_child); [ -n "$c" ] || die "cannot find the OpenSM process"
  kill -HUP "$c"
}

cmd_wait_reroute() {
  local t=${1:-30} m t0=$SECONDS hupped=0
  alive opensm || die "no OpenSM daemon running in $W"
  m=$(cat "$W/reroute.mark" 2>/dev/null || echo 0)
  local log; log=$(cur_osm)/osm.log
  while [ $((SECONDS - t0)) -lt "$t" ]; do
    if [ "$(subnet_ups)" -gt "$m" ]; then
      # settle: log unchanged for 0.5 s (both link ends send a trap; there may be two sweeps)
      local s q=0; s=$(fsize "$log")
      while [ $((SECONDS - t0)) -lt "$t" ] && [ $q -lt 10 ]; do
        sleep 0.05
        if [ "$(fsize "$log")" != "$s" ]; then s=$(fsize "$log"); q=0; else q=$((q + 1)); fi
      done
      [ $q -ge 10 ] || break
      mark
      echo "re-routed by $(engine_of "$log")"
      return 0
    fi
    if [ $hupped -eq 0 ] && [ $((SECONDS - t0)) -ge $((t / 2)) ]; then
      note "no re-route yet; sending SIGHUP to OpenSM"
      local c; c=$(opensm_child); [ -z "$c" ] || kill -HUP "$c"; hupped=1
    fi
    alive opensm || die "OpenSM died (log $log)"
    sleep 0.05
  done
  die "no re-route within $t s (log $log)"
}

cmd_status() {
  echo "workdir: $W"
  [ -f "$W/sockname" ] && echo "IBSIM_SOCKNAME: $(cat "$W/sockname")"
  for p in holder ibsim opensm; do
    if alive $p; then echo "$p: running (pid $(cat "$W/$p.pid"))"; else echo "$p: not running"; fi
  done
  if [ -f "$W/current_opensm" ]; then
    echo "opensm run: $(cat "$W/current_opensm")"
    echo "engine: $(engine_of "$(cat "$W/current_opensm")/osm.log")"
  fi
}

case $OP in
  start) cmd_start "$@" ;;
  opensm-once) cmd_opensm_once "$@" ;;
  opensm-start) cmd_opensm_start "$@" ;;
  opensm-stop) stop_pid opensm ;;
  cmd) cmd_console "$@" ;;
  unlink|relink)
    [ $# -eq 2 ] || die "usage: ftsim.sh $OP NODE PORT"
    alive opensm && mark
    if [ "$OP" = unlink ]; then cmd_console "Unlink \"$1\"[$2]"; else cmd_console "ReLink \"$1\"[$2]"; fi ;;
  hup) cmd_hup ;;
  wait-reroute) cmd_wait_reroute "$@" ;;
  dump-fts) need dump_fts; dump_fts_complete ;;
  ibnetdiscover) need ibnetdiscover; tool ibnetdiscover ;;
  tool) [ $# -ge 1 ] || die "usage: ftsim.sh tool CMD [ARGS]"; tool "$@" ;;
  engine) engine_of "$(cur_osm)/osm.log" ;;
  vmhwm) alive opensm || die "no OpenSM running in $W"; osm_vmhwm || die "cannot read OpenSM's VmHWM" ;;
  log) echo "$(cur_osm)/osm.log" ;;
  dumpdir) echo "$(cur_osm)/dump" ;;
  status) cmd_status ;;
  stop) [ -d "$W" ] && stop_all; true ;;
  run)
    [ $# -ge 1 ] || die "usage: ftsim.sh run NETFILE [OSM-OPTS]"
    net=$1; shift
    trap 'stop_all' EXIT
    cmd_start "$net"
    trap 'stop_all' EXIT
    eng=$(cmd_opensm_once "$@")
    echo "engine: $eng"
    dump_fts_complete > "$W/dump_fts.txt"
    echo "LFTs: $W/dump_fts.txt ($(grep -c '^Unicast lids' "$W/dump_fts.txt") switches)"
    ;;
  -h|--help|help) sed -n '2,49p' "$0" ;;
  *) die "unknown command '$OP' (try: ftsim.sh help)" ;;
esac
