#!/usr/bin/env bash
# Integration test of scripts/ftsim.sh (ctest: integration.ftsim_script):
# start -> opensm-start -> Unlink -> wait-reroute -> dead port unused -> ReLink -> stop, then
# checks that every process the script started is gone; and `run` (one shot) leaves nothing;
# dump-fts completes the LID dump_fts skips when the top LID is a multiple of 64.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
W=${1:?usage: ftsim_script_test.sh WORKDIR}
F="bash $REPO/scripts/ftsim.sh -w $W"
NET=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
fail() { echo "FAIL: $*" >&2; $F stop || true; exit 1; }
for t in ibsim opensm dump_fts; do command -v $t >/dev/null || PATH=$PATH:/usr/sbin; done
command -v ibsim >/dev/null || { echo "SKIP: ibsim not installed"; exit 77; }  # ctest SKIP_RETURN_CODE
rm -rf "$W"

$F start "$NET" || fail "start"
pids=$(cat "$W"/holder.pid "$W"/ibsim.pid)
eng=$($F opensm-start --engine minhop) || fail "opensm-start"
[ "$eng" = minhop ] || fail "engine '$eng' != minhop"
pids="$pids $(cat "$W/opensm.pid")"
# Switch1 reaches Switch2 (LID 3) through port 3 with minhop on this fabric.
$F dump-fts | grep -A8 '(Switch1)' | grep '^0x0003 003' > /dev/null || fail "expected Switch1 LID 3 -> port 3"
$F unlink Switch1 3 >/dev/null
$F wait-reroute 30 || fail "no re-route after Unlink"
if $F dump-fts | grep -A8 '(Switch1)' | grep -E '^0x[0-9a-f]+ 003 ' ; then fail "Switch1 still uses the dead port 3"; fi
$F relink Switch1 3 >/dev/null
$F wait-reroute 30 || fail "no re-route after ReLink"
$F dump-fts | grep -A8 '(Switch1)' | grep -E '^0x[0-9a-f]+ 003 ' > /dev/null || fail "port 3 unused after ReLink"
$F cmd 'Route 2 4' | grep 'Hca2' > /dev/null || fail "ibsim console Route gave no path"
# --until-routed (bench_ftree opensm): stops OpenSM after the routing pass, before SUBNET UP
$F opensm-stop
eng=$($F opensm-once --until-routed --engine minhop --conf 'log_flags 0x47') || fail "opensm-once --until-routed"
[ "$eng" = minhop ] || fail "--until-routed: engine '$eng' != minhop"
log=$($F log)
grep -q "building routing with 'minhop'" "$log" || fail "--until-routed: no VERBOSE routing line in $log"
# (whether OpenSM got to SUBNET UP before it was stopped depends on timing on a fabric this small)
[ ! -f "$W/opensm.pid" ] || fail "--until-routed left opensm.pid"
if pgrep -f "$(dirname "$log")/opensm.conf" >/dev/null; then fail "--until-routed left OpenSM running"; fi
$F stop
sleep 0.2
for p in $pids; do kill -0 "$p" 2>/dev/null && fail "process $p still running after stop"; done

# one-shot run: nothing may survive it
out=$($F run "$NET" --engine minhop) || fail "run"
echo "$out" | grep 'engine: minhop' > /dev/null || fail "run output: $out"
for f in holder ibsim opensm; do [ ! -f "$W/$f.pid" ] || fail "$f.pid left behind by run"; done
# a fabric whose top LID is 64: dump_fts skips LID LinearFDBTop, dump-fts must read it back with
# smpdump on every switch (48), so the tables list all 64 LIDs
$F run "$REPO/ibsim_topologies/nets/kns_4x2_ft2.net" --engine minhop >/dev/null 2>&1 || fail "run kns_4x2_ft2"
[ "$(grep -c '^0x0040 .*read with smpdump' "$W/dump_fts.txt")" = 48 ] || fail "LID 64 not completed on 48 switches"
[ "$(grep -c '^64 valid lids dumped' "$W/dump_fts.txt")" = 48 ] || fail "footers not updated to 64 LIDs"
# a fabric beyond ibsim's default limits (300 switches > 256): start sizes ibsim from the file
big="$W.ring300.net"
awk 'BEGIN { n = 300; for (i = 0; i < n; i++) printf "Switch 2 \"R%d\"\n[1] \"R%d\"[2]\n[2] \"R%d\"[1]\n\n", i, (i + 1) % n, (i + n - 1) % n }' > "$big"
(unset FTSIM_IBSIM_OPTS; $F start "$big" 2>"$W.ring300.err") || fail "start of a 300-switch ring: $(cat "$W.ring300.err")"
grep -q -- '-S 316' "$W.ring300.err" || fail "start did not size ibsim: $(cat "$W.ring300.err")"
$F stop
rm -f "$big" "$W.ring300.err"
# a failing start must clean up too
if $F start /nonexistent.net 2>/dev/null; then fail "start on a missing file succeeded"; fi
echo "PASS"
