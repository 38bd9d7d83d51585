#!/usr/bin/env bash
# scripts/demo.sh --net on a fabric file as an admin has it: the `ibnetdiscover` output of a
# 2-level tree of 576 CAs (`gen fattree2:24,12,24`, 36 switches, loaded into ibsim and
# discovered), about 160 KB, over the 64 KiB pipe buffer, where node ids ("S-<GUID>") and
# NodeDescriptions ("L23") differ. demo.sh once ended on such files with exit 141 and no output
# (`sw_links FILE | awk '... exit'` under pipefail: the writer died of SIGPIPE; about 7 runs in 10
# here, so this test catches that with the same odds, and architecture.pipefail_check always), and
# matched the cut link's switches by name in dump_fts, which names them by NodeDescription: it
# reported "carried 0 entries" and "dead link now carries 0" without looking at a single entry.
# The demo must route with ftree-misroute through the plugin, cut a link that carried routes,
# re-route and validate both states.
#   demo_big_net_test.sh BUILD_DIR WORKDIR      (exit 77 = skipped: ibsim/OpenSM/plugin missing)
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=$(cd "$1" && pwd); W=$2
fail() { echo "FAIL: $*"; exit 1; }
for t in ibsim opensm ibnetdiscover; do command -v "$t" > /dev/null || { echo "SKIP: $t not installed"; exit 77; }; done
[ -f "$B/plugin/libftroute.so" ] || { echo "SKIP: $B/plugin/libftroute.so not built"; exit 77; }
rm -rf "$W"; mkdir -p "$W"
GEN=$W/t576.net NET=$W/t576.ibnetdiscover
"$B/cli/ftroute" gen fattree2:24,12,24 -o "$GEN" 2> /dev/null
FTSIM="bash $REPO/scripts/ftsim.sh -w $W/discover"
trap '$FTSIM stop > /dev/null 2>&1 || true' EXIT
$FTSIM start "$GEN" > /dev/null 2>&1 || { echo "SKIP: ibsim did not start on $GEN"; exit 77; }
$FTSIM ibnetdiscover > "$NET" 2> "$W/discover.err" || { cat "$W/discover.err"; fail "ibnetdiscover"; }
$FTSIM stop > /dev/null
trap - EXIT
size=$(stat -c %s "$NET")
[ "$size" -gt 65536 ] || fail "$NET has $size bytes, not over the 64 KiB pipe buffer: the test would prove nothing"
ncas=$(grep -c -E '^(Hca|Ca)[[:space:]]' "$NET")
[ "$ncas" -eq 576 ] || fail "$NET has $ncas CAs, expected 576"
echo "ok: $NET: $size bytes, $ncas CAs"

rc=0
bash "$REPO/scripts/demo.sh" --no-deps --no-build --build-dir "$B" --workdir "$W/demo" --net "$NET" \
  > "$W/demo.out" 2>&1 || rc=$?
cat "$W/demo.out"
[ "$rc" -eq 0 ] || fail "demo.sh --net $NET exited $rc"
grep -F "engine        ftree-misroute (OpenSM used: ftree-misroute, after the fault: ftree-misroute)" "$W/demo.out" \
  > /dev/null || fail "OpenSM did not route with ftree-misroute before and after the fault"
grep -E "^    fault         Unlink \"[^\"]+\"\[[0-9]+\] \(peer \"[^\"]+\"\[[0-9]+\]\), carried [1-9][0-9]* entries" \
  "$W/demo.out" > /dev/null || fail "no fault injected on a link that carried routes"
grep -F "dead link now carries 0" "$W/demo.out" > /dev/null || fail "the dead link still carries routes"
grep -F "validation    ftroute check passed before and after the fault" "$W/demo.out" > /dev/null ||
  fail "no validation before and after the fault"
grep -F "(36 switches, $ncas HCAs)" "$W/demo.out" > /dev/null || fail "the report does not name the 576-CA fabric"
echo "PASS: demo.sh --net on a $size-byte fabric: routed, fault injected, re-routed, validated"

# The same dump as an admin may have it: saved from a PuTTY session (its log header, CRLF line
# ends, the tab after "Switch" lost, the prompt after the dump). demo.sh reads it with ftroute's
# own reader (export --to ibsim) and runs the same job on it.
CAP=$W/t576.putty.log
{ printf '=~=~=~=~=~=~=~=~=~=~=~= PuTTY log 2026.11.28 08:00:00 =~=~=~=~=~=~=~=~=~=~=~=\r\n\r\n'
  sed -e 's/^Switch\t/Switch/' -e 's/$/\r/' "$NET"
  printf '\r\n\rmgmt01 [ mgmt-ha-active ] (config) # '; } > "$CAP"
grep -q '^Switch[0-9]' "$CAP" || fail "$CAP has no Switch header without its blank: the test would prove nothing"
rc=0
bash "$REPO/scripts/demo.sh" --no-deps --no-build --build-dir "$B" --workdir "$W/demo-putty" --net "$CAP" \
  > "$W/demo-putty.out" 2>&1 || rc=$?
cat "$W/demo-putty.out"
[ "$rc" -eq 0 ] || fail "demo.sh --net $CAP exited $rc"
grep -F "a terminal session log's header line, skipped" "$W/demo-putty.out" > /dev/null || fail "no warning for the PuTTY header"
grep -F "validation    ftroute check passed before and after the fault" "$W/demo-putty.out" > /dev/null ||
  fail "no validation before and after the fault on the console capture"
grep -F "(36 switches, $ncas HCAs)" "$W/demo-putty.out" > /dev/null || fail "the report does not name the 576-CA fabric (console capture)"
echo "PASS: demo.sh --net on the same dump saved from a console session"
