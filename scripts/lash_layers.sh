#!/usr/bin/env bash
# scripts/lash_layers.sh - layer count of ftroute's ft-lash against OpenSM's lash on the same
# fabrics: OpenSM routes each .net with lash under ibsim (scripts/demo.sh, qos on), the SLs the
# SA hands out for every CA pair (path_sl.before.txt) are counted, and `ftroute route -e ft-lash`
# routes the same file offline. Prints one line per fabric.
# usage: scripts/lash_layers.sh [--build-dir DIR] [--workdir DIR] NET...
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$REPO/build
W=$REPO/run/lash_layers
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD=$(readlink -f "$2"); shift 2 ;;
    --workdir) W=$(readlink -f "$2"); shift 2 ;;
    -h|--help) sed -n 2,7p "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--build-dir DIR] [--workdir DIR] NET..." >&2; exit 2; }
mkdir -p "$W"
printf '%-28s %14s %14s\n' fabric "OpenSM lash" "ftroute ft-lash"
for net in "$@"; do
  name=$(basename "$net" .net)
  d=$W/$name
  rm -rf "$d"
  if ! timeout 900 bash "$REPO/scripts/demo.sh" --no-deps --no-build --build-dir "$BUILD" --engine lash --qos \
      --net "$(readlink -f "$net")" --workdir "$d" > "$W/$name.log" 2>&1; then
    echo "$name: the lash demo failed (log: $W/$name.log)" >&2
    exit 1
  fi
  # path_sl.before.txt: "<src node GUID> <DLID> <SL>" per CA pair (ibdmchk -c format)
  osm=$(awk '!/^#/ && NF >= 3 { print $NF }' "$d/path_sl.before.txt" | sort -u | wc -l)
  ft=$("$BUILD/cli/ftroute" route -e ft-lash "$net" -o /dev/null 2>&1 | sed -n 's/.*LFT entries, \([0-9]*\) VL(s).*/\1/p' | sed -n 1p)
  printf '%-28s %14s %14s\n' "$name" "$osm layers" "$ft layers"
done
