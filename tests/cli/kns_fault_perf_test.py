#!/usr/bin/env python3
"""scripts/kns_fault_perf.py --quick (seed 002 ch. 6, docs/REPRODUCTION.md "The thesis' router"): an
8-ary 2-D KNS with 5 % of its links failed, 2 sets, each simulated with the thesis' per-pair
intermediate routers (random and lowest-numbered ties) and with the kns engine. The script itself
refuses a run that dropped a packet; here: every variant loses throughput against the fault-free
network, lowest-numbered ties (the detours piled onto the same routers) lose more than random
ones, and bad options exit 2. With `--length minimal-first --sl-spread` only the two rows of the
thesis' router are printed, both losing throughput.

  kns_fault_perf_test.py FTROUTE SCRIPT
"""
import re
import subprocess
import sys

FT, SCRIPT = sys.argv[1], sys.argv[2]


def run(args):
    return subprocess.run([sys.executable, SCRIPT, "--ftroute", FT] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


p = run(["--quick"])
print(p.stdout, p.stderr)
assert p.returncode == 0, p.returncode
loss = {m.group(1): float(m.group(2)) for m in re.finditer(
    r"^\| (thesis' router, random ties|thesis' router, lowest-numbered ties|IB: kns trees and VL layers) \| ([-+0-9.]+) % \|$",
    p.stdout, re.M)}
assert len(loss) == 3, loss
assert all(v < 0 for v in loss.values()), loss
assert loss["thesis' router, lowest-numbered ties"] < loss["thesis' router, random ties"], loss
# The two readings of what the thesis leaves open: both rows of the thesis' router, no IB row
# (its SL2VL tables do not combine with the spread), and both recorded in the header.
p = run(["--quick", "--length", "minimal-first", "--sl-spread"])
assert p.returncode == 0, (p.returncode, p.stderr)
assert "waypoints --length minimal-first, --sl-spread 3" in p.stdout, p.stdout
rows = re.findall(r"^\| (thesis' router, [a-z -]+ ties|IB: kns trees and VL layers) \| ([-+0-9.]+) % \|$", p.stdout, re.M)
assert [r[0] for r in rows] == ["thesis' router, random ties", "thesis' router, lowest-numbered ties"], rows
assert all(float(r[1]) < 0 for r in rows), rows
for bad in (["--kns", "8"], ["--levels", "0"], ["--sets", "0"], ["--jobs", "0"], ["--length", "longest"]):
    rc = run(bad).returncode
    assert rc == 2, (bad, rc)
print("kns_fault_perf_test: ok")
