#!/usr/bin/env bash
# ctest integration.lash_layers: scripts/lash_layers.sh on the shipped 4x4 torus; OpenSM's lash
# (under ibsim, SA path SLs of every CA pair) and ftroute's ft-lash must use the same number of
# layers (2), and OpenSM must have routed with lash.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${1:?usage: lash_layers_test.sh BUILD_DIR WORKDIR}
W=${2:?usage: lash_layers_test.sh BUILD_DIR WORKDIR}
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$W"; mkdir -p "$W"
bash "$REPO/scripts/lash_layers.sh" --build-dir "$BUILD" --workdir "$W" "$REPO/ibsim_topologies/nets/torus4x4.net" > "$W/out.txt" 2>&1 ||
  fail "lash_layers.sh failed ($W/out.txt)"
cat "$W/out.txt"
grep -q 'OpenSM used: lash' "$W/torus4x4.log" || fail "OpenSM did not route with lash ($W/torus4x4.log)"
line=$(grep '^torus4x4 ' "$W/out.txt") || fail "no result line"
osm=$(echo "$line" | awk '{print $2}')
ft=$(echo "$line" | awk '{print $4}')
[ "$osm" = 2 ] || fail "OpenSM's lash used $osm layers on the 4x4 torus, expected 2"
[ "$ft" = "$osm" ] || fail "ft-lash used $ft layers, OpenSM's lash $osm"
echo PASS
