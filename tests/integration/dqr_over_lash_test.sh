#!/usr/bin/env bash
# DQR over OpenSM's own multi-VL tables (ctest integration.dqr_over_lash): the demo runs OpenSM's
# lash on a 4x4 torus (qos, per-path SLs on 2 VLs), which leaves the tables read back from the
# switches (dump_fts), the SA's path SLs and OpenSM's SL2VL dump in its work dir; the demo then
# runs `dqr` with base=lft-file on those three files: OpenSM programs lash's tables unchanged,
# and after the link fault DQR patches them; the demo validates both states per VL.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:?usage: dqr_over_lash_test.sh BUILD_DIR WORKDIR}
W=${2:?usage: dqr_over_lash_test.sh BUILD_DIR WORKDIR}
NET=$REPO/ibsim_topologies/nets/torus4x4.net
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$W"; mkdir -p "$W/base"
demo() { bash "$REPO/scripts/demo.sh" --no-deps --no-build --build-dir "$BUILD" --net "$NET" "$@"; }
demo --engine lash --workdir "$W/lash" > "$W/lash.log" 2>&1 || fail "demo with lash ($W/lash.log)"
grep -q 'OpenSM used: lash' "$W/lash.log" || fail "OpenSM did not route with lash ($W/lash.log)"
for f in lfts.before.txt path_sl.before.txt sl2vl.before.dump; do
  [ -s "$W/lash/$f" ] || fail "the lash demo left no $f"
  cp "$W/lash/$f" "$W/base/"
done
opts="dqr:base=lft-file,base.file=$W/base/lfts.before.txt,base.sl=$W/base/path_sl.before.txt"
opts="$opts,base.sl2vl=$W/base/sl2vl.before.dump,fallback=false"
demo --engine dqr --qos --plugin-options "$opts" --workdir "$W/dqr" > "$W/dqr.log" 2>&1 || fail "demo with dqr over lash ($W/dqr.log)"
grep -q 'OpenSM used: dqr, after the fault: dqr' "$W/dqr.log" || fail "dqr did not route both sweeps ($W/dqr.log)"
log=$(ls "$W"/dqr/opensm-*/osm.log | sed -n 1p)
grep -q "full routing with base engine 'lft-file'" "$log" || fail "first sweep not from the lash tables ($log)"
grep -q 'dqr: patched the previous routing' "$log" || fail "DQR did not patch lash's tables after the fault ($log)"
# the tables DQR programmed before the fault are lash's
strip() { grep -v -e '^#' -e 'dumped' -e '^$' "$1"; }
diff <(strip "$W/lash/lfts.before.txt") <(strip "$W/dqr/lfts.before.txt") > "$W/before.diff" ||
  fail "dqr(lft-file) programmed other tables than lash's ($W/before.diff)"
echo "PASS"
