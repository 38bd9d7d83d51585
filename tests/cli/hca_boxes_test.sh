#!/usr/bin/env bash
# scripts/hca_boxes.py (seed 003's Fig. 4 statistic, docs/REPRODUCTION.md): the per-HCA
# consumption bandwidth boxes of a results.csv written here with known figures, averaged over the
# routed runs (a refused run does not count), in Gbyte/s; the summary line; the refusals (no
# per-HCA columns, no such engine or level).
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
script=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
csv=$scratch/results.csv
python3 - "$csv" <<'PY'
import csv, sys
cols = ["fabric", "engine", "link_failures", "switch_failures", "seed", "status",
        "sim_hca_min", "sim_hca_q1", "sim_hca_median", "sim_hca_q3", "sim_hca_max"]
rows = []
for seed, d in ((1, 0.0), (2, 0.02)):  # two seeds: the box is their mean
    rows.append(["fattree:16,2", "opensm:ftree", "0", 0, seed, "ok", 0.4 + d, 0.5 + d, 0.6 + d, 0.7 + d, 0.8 + d])
    rows.append(["fattree:16,2", "opensm:ftree", "1%", 0, seed, "ok", 0.2 + d, 0.3 + d, 0.45 + d, 0.7 + d, 0.8 + d])
rows.append(["fattree:16,2", "opensm:ftree", "1%", 0, 3, "refused", "", "", "", "", ""])
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(cols)
    w.writerows(rows)
PY
table=$(python3 "$script" "$csv")
grep -q '^| fattree:16,2 | opensm:ftree | 0 | 2/2 | 1.64 | 2.04 | 2.44 | 2.84 | 3.24 | +0.0 % |$' <<<"$table" || { echo "FAIL: 0 row: $table"; exit 1; }
grep -q '^| fattree:16,2 | opensm:ftree | 1% | 2/3 | 0.84 | 1.24 | 1.84 | 2.84 | 3.24 | -24.6 % |$' <<<"$table" || { echo "FAIL: 1% row: $table"; exit 1; }
out=$(python3 "$script" "$csv" --summary opensm:ftree 1%)
want="opensm:ftree with 1% failed: median 1.84 GB/s (-24.6 %), first quartile -39.2 %, minimum -48.8 % against fault-free (2 of 3 runs routed)"
[ "$out" = "$want" ] || { echo "FAIL: summary: $out"; exit 1; }
if err=$(python3 "$script" "$csv" --summary opensm:dfsssp 1% 2>&1); then echo "FAIL: unknown engine accepted"; exit 1; fi
grep -q 'no routed run of opensm:dfsssp on fattree:16,2 at 0 failures' <<<"$err" || { echo "FAIL: $err"; exit 1; }
echo "fabric,engine,link_failures,status" > "$scratch/old.csv"
if err=$(python3 "$script" "$scratch/old.csv" 2>&1); then echo "FAIL: file without per-HCA columns accepted"; exit 1; fi
grep -q 'no per-HCA columns' <<<"$err" || { echo "FAIL: $err"; exit 1; }
echo "hca_boxes: ok"
