#!/usr/bin/env bash
# scripts/table4_verdicts.py (seed 003's Table IV, docs/REPRODUCTION.md): the class of every cell
# from a campaign's results.csv (r: OpenSM fell back; o: CDG acyclic; d: CDG cycle; u: a pair
# unreachable or looping), compared with the paper's. Built on a results.csv written here: every
# cell as the paper's, then one changed in each way, then one missing.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
script=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
csv=$scratch/results.csv
python3 - "$csv" <<'PY'
import csv, sys
fabrics = [("mesh:5x5,11,links=6", "r r o o d d o o"), ("mesh:3x3x3,10,links=4", "r r o o d d o o"),
           ("torus:5x5,11,links=6", "r r d o d d o o"), ("torus:3x3x3,10,links=4", "r r o o d d o o"),
           ("kautz:2,4,11,6", "r r d r d d o o"), ("fattree:16,2", "o o o r o o o o"),
           ("xgft:1,22,11,12", "o o o r o o o o"), ("dragonfly:10,5,5,4,7", "r r d r d d o o"),
           ("random:32,16,8,1", "r r o r d d o o")]
engines = ["ftree", "updn", "dor", "torus-2QoS", "minhop", "sssp", "dfsssp", "lash"]
cols = ["fabric", "engine", "link_failures", "switch_failures", "seed", "status", "fallback",
        "unreachable", "looping", "cdg_acyclic"]
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(cols)
    for spec, letters in fabrics:
        for e, v in zip(engines, letters.split()):
            w.writerow([spec, "opensm:" + e, 0, 0, 1, "ok", int(v == "r"), 0, 0, int(v == "o")])
    # a faulted run of the same pair must not count
    w.writerow(["fattree:16,2", "opensm:dor", 2, 0, 1, "ok", 0, 0, 0, 0])
PY
out=$(python3 "$script" "$csv" --summary)
[ "$out" = "72 of 72 cells as the paper's" ] || { echo "FAIL: all-matching summary: $out"; exit 1; }
table=$(python3 "$script" "$csv")
[ "$(grep -c '^| ' <<<"$table")" = 10 ] || { echo "FAIL: table rows: $table"; exit 1; }
# dor on the Dragonfly acyclic (o, paper d); sssp on the 16-ary 2-tree with an unreachable pair (u)
sed -i -e 's/^"dragonfly:10,5,5,4,7",opensm:dor,0,0,1,ok,0,0,0,0$/"dragonfly:10,5,5,4,7",opensm:dor,0,0,1,ok,0,0,0,1/' \
       -e 's/^"fattree:16,2",opensm:sssp,0,0,1,ok,0,0,0,1$/"fattree:16,2",opensm:sssp,0,0,1,ok,0,3,0,1/' "$csv"
out=$(python3 "$script" "$csv" --summary)
want="70 of 72 cells as the paper's; differ: 16-ary 2-tree sssp: u (paper o); Dragonfly(10,5,5,4) dor: o (paper d)"
[ "$out" = "$want" ] || { echo "FAIL: summary with two differences: $out"; exit 1; }
table=$(python3 "$script" "$csv")
grep -q '| \*\*o\*\* (paper d) |' <<<"$table" || { echo "FAIL: the differing cell is not bold"; exit 1; }
# a fallback is "r" whatever the CDG says
sed -i 's/^"fattree:16,2",opensm:ftree,0,0,1,ok,0,0,0,1$/"fattree:16,2",opensm:ftree,0,0,1,ok,1,0,0,1/' "$csv"
out=$(python3 "$script" "$csv" --summary)
grep -q "16-ary 2-tree ftree: r (paper o)" <<<"$out" || { echo "FAIL: fallback not r: $out"; exit 1; }
# a missing cell: exit 1 and the cell named
grep -v '^"random:32,16,8,1",opensm:lash,' "$csv" > "$scratch/missing.csv"
if err=$(python3 "$script" "$scratch/missing.csv" --summary 2>&1); then echo "FAIL: missing cell accepted"; exit 1; fi
grep -q "random:32,16,8,1 / opensm:lash" <<<"$err" || { echo "FAIL: missing cell not named: $err"; exit 1; }
echo "table4_verdicts: ok"
