#!/usr/bin/env bash
# `ftroute route` / `ftroute export` stream their files (issue 15) and still publish them
# atomically: the streamed dump equals the export of itself in every format round trip, a write
# error in the middle of the stream (file size limit) and a failing second output leave no file and
# no temp file behind, `-o -` streams to stdout and an existing FIFO/device is written in place.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; D=$2
NET=$(cd "$(dirname "$0")/../.." && pwd)/ibsim_topologies/nets/4ary3tree.net
rm -rf "$D"; mkdir -p "$D"; cd "$D"
"$FT" route -e ftree-misroute "$NET" -o a.dump -q
"$FT" route -e ftree-misroute "$NET" -o - -q > b.dump
cmp a.dump b.dump || { echo "FAIL: -o - differs from -o FILE"; exit 1; }
"$FT" export -f "$NET" -l a.dump --to opensm-lfts -o c.dump
cmp a.dump c.dump || { echo "FAIL: export of the dump changed it"; exit 1; }
"$FT" export -f "$NET" -l a.dump --to dump_fts -o d.fts
"$FT" export -f "$NET" -l d.fts --to opensm-lfts -o e.dump
cmp a.dump e.dump || { echo "FAIL: dump_fts round trip changed the tables"; exit 1; }
# An existing FIFO (like /dev/null or a pipe) is written in place, not replaced by a regular file.
mkfifo fifo
cat fifo > g.dump &
"$FT" route -e ftree-misroute "$NET" -o fifo -q
wait
[ -p fifo ] || { echo "FAIL: the FIFO was replaced by a regular file"; exit 1; }
cmp a.dump g.dump || { echo "FAIL: FIFO output differs"; exit 1; }
size=$(stat -c %s a.dump)
# A write error in the middle: 8 KiB file size limit, SIGXFSZ ignored so write() fails (EFBIG).
if bash -c 'trap "" XFSZ; ulimit -f 8; exec "$0" route -e ftree-misroute "$1" -o big.dump -q' "$FT" "$NET" 2> err.txt; then
  echo "FAIL: route succeeded past the file size limit ($size bytes needed)"; exit 1
fi
cat err.txt
grep -q "cannot write big.dump" err.txt || { echo "FAIL: no 'cannot write' message"; exit 1; }
[ -z "$(ls | grep big.dump)" ] || { echo "FAIL: left $(ls | grep big.dump)"; exit 1; }
# The second output cannot be created: the first (already streamed) is not published either.
if "$FT" route -e ftree-misroute "$NET" -o f.dump --sl-out nodir/sl.txt -q 2> err2.txt; then
  echo "FAIL: route with an unwritable --sl-out succeeded"; exit 1
fi
cat err2.txt
[ -z "$(ls | grep f.dump)" ] || { echo "FAIL: left $(ls | grep f.dump) behind"; exit 1; }
# A fabric that does not fit the unicast LID space: the count and the limit, no file.
if "$FT" route -e ft-minhop "$(dirname "$NET")/ft648.net" --lmc 7 -o h.dump 2> err3.txt; then
  echo "FAIL: 648 x 128 LIDs accepted"; exit 1
fi
cat err3.txt
grep -q "needs [0-9]* unicast LIDs.*49151" err3.txt || { echo "FAIL: no count/limit in the message"; exit 1; }
[ -z "$(ls | grep h.dump)" ] || { echo "FAIL: left $(ls | grep h.dump)"; exit 1; }
echo "PASS: streamed $size bytes; no partial output on errors"
