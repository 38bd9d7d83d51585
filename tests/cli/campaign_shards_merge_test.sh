#!/usr/bin/env bash
# `ftroute campaign --shard I/N` (a 2-task job array) + `ftroute campaign-merge` end to end:
# the merged results.csv has exactly the rows of the unsharded campaign (same keys, same metrics),
# a duplicate shard is dropped with a count, the plots and summary are written, bad input fails
# with a message and leaves no output directory.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; D=$2
rm -rf "$D"; mkdir -p "$D"; cd "$D"
run() { "$FT" campaign --gen fattree:4,2 --engines ftree-misroute,ft-minhop --link-failures 0,1,2 --seeds 2 -j 1 -q "$@"; }
run --out all
run --shard 0/2 --out s0
run --shard 1/2 --out s1
n0=$(($(wc -l < s0/results.csv) - 1)); n1=$(($(wc -l < s1/results.csv) - 1))
[ "$n0" -gt 0 ] && [ "$n1" -gt 0 ] || { echo "FAIL: empty shard ($n0, $n1)"; exit 1; }
"$FT" campaign-merge s0 s1 s0/results.csv --out merged > merge.out 2>&1
cat merge.out
grep -q "$n0" merge.out || { echo "FAIL: merge did not report $n0 duplicate rows"; exit 1; }
# same rows as the unsharded campaign, ignoring route_seconds (CPU time) and row order
strip() { python3 -c 'import csv,sys
r=list(csv.DictReader(open(sys.argv[1])))
for x in r: x.pop("route_seconds")
print("\n".join(sorted(",".join(x.values()) for x in r)))' "$1"; }
diff <(strip all/results.csv) <(strip merged/results.csv) || { echo "FAIL: merged shards differ from the whole campaign"; exit 1; }
[ -s merged/summary.txt ] && ls merged/plots/*.svg > /dev/null || { echo "FAIL: no summary/plots"; exit 1; }
if "$FT" campaign-merge s0 nonexistent --out bad > bad.out 2>&1; then echo "FAIL: merge of a missing dir succeeded"; exit 1; fi
cat bad.out
[ ! -e bad ] || { echo "FAIL: failed merge left an output directory"; exit 1; }
echo "PASS: $n0 + $n1 rows merged"
