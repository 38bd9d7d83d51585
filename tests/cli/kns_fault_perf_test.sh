#!/usr/bin/env bash
# scripts/kns_fault_perf.py --quick (seed 002 ch. 6, docs/REPRODUCTION.md "The thesis' router"): an
# 8-ary 2-D KNS with 5 % of its links failed, 2 sets, each simulated with the thesis' per-pair
# intermediate routers (random and lowest-numbered ties) and with the kns engine. The script itself
# refuses a run that dropped a packet; here: every variant loses throughput against the fault-free
# network, lowest-numbered ties (the detours piled onto the same routers) lose more than random
# ones, and bad options exit 2.
#   kns_fault_perf_test.sh SCRIPT FTROUTE
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
script=$1 ft=$2
out=$(python3 "$script" --ftroute "$ft" --quick)
echo "$out"
python3 - "$out" <<'PY'
import re, sys
loss = {}
for line in sys.argv[1].splitlines():
    m = re.match(r"\| (thesis' router, random ties|thesis' router, lowest-numbered ties|IB: kns trees and VL layers) \| ([-+0-9.]+) % \|$", line)
    if m:
        loss[m.group(1)] = float(m.group(2))
assert len(loss) == 3, loss
assert all(v < 0 for v in loss.values()), loss
assert loss["thesis' router, lowest-numbered ties"] < loss["thesis' router, random ties"], loss
print("kns_fault_perf_test: ok")
PY
for bad in "--kns 8" "--levels 0" "--sets 0"; do
  rc=0
  # shellcheck disable=SC2086
  python3 "$script" --ftroute "$ft" $bad > /dev/null 2>&1 || rc=$?
  [ "$rc" = 2 ] || { echo "kns_fault_perf_test: $bad: exit $rc, want 2"; exit 1; }
done
