#!/usr/bin/env bash
# scripts/xordet_hotspot.py --quick (seed 002's hot-spot, docs/kns.md "XORDET and a hot-spot"):
# with the hot sources idle every configuration accepts the same background traffic; with them
# sending, XORDET's classes keep more of it than one class, at a lower background latency.
#   xordet_hotspot_test.sh SCRIPT FTROUTE
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
out=$(python3 "$1" --ftroute "$2" --quick)
echo "$out"
python3 - "$out" <<'PY'
import re, sys
rows = {}
for line in sys.argv[1].splitlines():
    m = re.match(r"\| (1 \(Hybrid-DOR, one VL\)|XORDET \d) \| ([\d.]+) \((\d+) %\), ([\d.]+) \| ([\d.]+) \((\d+) %\), ([\d.]+) \|", line)
    if m:
        rows[m.group(1)] = [float(x) for x in m.groups()[1:]]
assert set(rows) == {"1 (Hybrid-DOR, one VL)", "XORDET 4"}, rows
one, x4 = rows["1 (Hybrid-DOR, one VL)"], rows["XORDET 4"]
assert abs(one[0] - x4[0]) < 0.01 * one[0], ("idle hot sources: the same background", one, x4)
assert x4[3] > one[3] + 0.01, ("XORDET keeps more background traffic", one, x4)
assert x4[5] < one[5] / 2, ("XORDET's background latency", one, x4)
print("xordet_hotspot_test: ok")
PY
