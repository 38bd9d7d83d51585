#!/usr/bin/env bash
# scripts/kns_throughput.py --quick (seed 002 Table 3.3, docs/kns.md "Throughput per switching
# element"): the 16-node KNS and mesh under the thesis' Preset A router reach the thesis' saturation
# throughput within 10 %, their switching elements are the thesis' (272, 400), and the KNS keeps
# the higher throughput per switching element; a bad --only is refused with exit 2.
#   kns_throughput_test.sh SCRIPT FTROUTE
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
script=$1 ft=$2
out=$(python3 "$script" --ftroute "$ft" --quick)
echo "$out"
python3 - "$out" <<'PY'
import re, sys
rows = {}
for line in sys.argv[1].splitlines():
    c = [x.strip() for x in line.strip().strip("|").split("|")]
    if len(c) == 7 and c[1].startswith("`"):
        rows[c[1].split("`")[1]] = c
assert set(rows) == {"kns:4,2", "mesh:4x4"}, rows.keys()
for spec, se in (("kns:4,2", "272 (272)"), ("mesh:4x4", "400 (400)")):
    c = rows[spec]
    assert c[2] == se, (spec, c[2])
    ratio = float(c[5])
    assert 0.9 <= ratio <= 1.1, (spec, "throughput / thesis", ratio)
per_se = {s: float(rows[s][6].split()[0]) for s in rows}
assert per_se["kns:4,2"] > per_se["mesh:4x4"] * 1.3, per_se
print("kns_throughput_test: ok")
PY
rc=0
python3 "$script" --ftroute "$ft" --only 'kns:9,9' 2>/dev/null || rc=$?
[ "$rc" = 2 ] || { echo "kns_throughput_test: --only with an unknown spec: exit $rc, want 2"; exit 1; }
