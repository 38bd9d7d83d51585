#!/usr/bin/env python3
"""KNS throughput under link faults, the thesis' router against the InfiniBand mapping (seed 002,
thesis ch. 6; docs/REPRODUCTION.md "KNS under faults", "The thesis' router").

For each failure level, SETS fault sets (`ftroute gen kns:K,N --fail-links F --seed S
--keep-connected`, S = 1..SETS), each simulated three ways, uniform traffic at offered load 1.0:

  * thesis' router, random ties: `ftroute kns-waypoints --ties random --seed S` (the thesis'
    per-pair intermediate routers) replayed by `ftroute sim --waypoints` over the fault-free
    Hybrid-DOR tables with 3 VCs (one per leg);
  * thesis' router, lowest-numbered ties (`--ties first`);
  * IB: the kns engine on the faulty fabric (destination-based IN trees, a VL layer per path).

The loss is 1 - mean(accepted) / fault-free accepted (the fault-free tables, same traffic).

  scripts/kns_fault_perf.py [--kns K,N] [--levels 1,3,5] [--sets 10] [--warmup C --measure C]
        [--jobs 2] [--ftroute build/cli/ftroute] [--quick] [--length minimal-first] [--sl-spread]

Two readings of what the thesis leaves open (docs/REPRODUCTION.md "The thesis' router"):
`--length minimal-first` passes to kns-waypoints (without a minimal path, any path with the fewest
INs); `--sl-spread` runs the fault-free and the thesis' router runs with `sim --sl-spread 3` (each
packet on a random VC its legs leave free); the IB row is then left out (its SL2VL tables).

Default: the thesis' 32-ary 2-D network at 1 / 3 / 5 % (20 / 61 / 102 of its 2,048 links), 10 sets,
2 at once (the time is in docs/REPRODUCTION.md). `--kns 10,3` is the 3-D one (30 / 90 / 150 of 3,000). --quick: an 8-ary
2-D KNS at 5 %, 2 sets, short windows (a smoke test, a few seconds). Prints a markdown table.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

THESIS = {(32, 2): {1: -1.0, 3: -3.8, 5: -6.5}, (10, 3): {1: -9.0, 3: -13.0, 5: -15.0}}
VARIANTS = ("thesis' router, random ties", "thesis' router, lowest-numbered ties", "IB: kns trees and VL layers")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("kns_fault_perf: %s failed (exit %d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-400:]))
    return p.stdout


def accepted(out):
    """The accepted rate of one `ftroute sim` run, which must have delivered every packet."""
    m = re.search(r"accepted ([0-9.]+) flits/node/cycle", out)
    if not m:
        sys.exit("kns_fault_perf: no 'accepted' line in:\n" + out)
    if not re.search(r"^packets: generated \d+ = delivered \d+ \+ dropped 0 ", out, re.M):
        sys.exit("kns_fault_perf: packets were dropped (a path into a failed link?):\n" + out)
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kns", default="32,2", help="K,N of the k-ary n-direct 1-indirect KNS (default 32,2)")
    ap.add_argument("--levels", default="1,3,5", help="failed links in %% of the router-crossbar links")
    ap.add_argument("--sets", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=500)
    ap.add_argument("--measure", type=int, default=3000)
    ap.add_argument("--ftroute", default=os.path.join(os.path.dirname(__file__), "..", "build", "cli", "ftroute"))
    ap.add_argument("--jobs", type=int, default=2, help="fault sets simulated at once (default 2)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--length", choices=("shortest", "minimal-first"), default="shortest",
                    help="kns-waypoints --length (default shortest)")
    ap.add_argument("--sl-spread", action="store_true", help="thesis' router runs with sim --sl-spread 3")
    a = ap.parse_args()
    if a.quick:
        a.kns, a.levels, a.sets, a.warmup, a.measure = "8,2", "5", 2, 200, 1500
    try:
        k, n = (int(x) for x in a.kns.split(","))
        levels = [float(x) for x in a.levels.split(",")]
    except ValueError:
        ap.error("--kns K,N and --levels P,P,.. take numbers")
    if k < 2 or n < 1 or a.sets < 1 or a.jobs < 1 or any(not 0 < p < 100 for p in levels):
        ap.error("need k >= 2, n >= 1, --sets >= 1, --jobs >= 1 and levels between 0 and 100 %")
    links = k ** n * n
    sim = ["sim", "--pattern", "uniform", "--load", "1.0", "--warmup", str(a.warmup), "--measure", str(a.measure)]
    with tempfile.TemporaryDirectory(prefix="kns_fault_perf_") as d:
        ok, dor = os.path.join(d, "ok.net"), os.path.join(d, "dor.lfts")
        run([a.ftroute, "gen", "kns:%d,%d" % (k, n), "-o", ok])
        run([a.ftroute, "route", "-e", "kns", ok, "-o", dor])
        spread = ["--sl-spread", "3"] if a.sl_spread else []
        free = accepted(run([a.ftroute] + sim + ["--fabric", ok, "--lfts", dor, "--vcs", "3"] + spread))
        def one_set(p, faults, s):  # accepted rate of each variant on fault set s
            f, w = os.path.join(d, "f%g_%d.net" % (p, s)), os.path.join(d, "w%g_%d.txt" % (p, s))
            run([a.ftroute, "gen", "kns:%d,%d" % (k, n), "--fail-links", str(faults), "--seed", str(s),
                 "--keep-connected", "-o", f])
            r = []
            for ties in ("random", "first"):
                run([a.ftroute, "kns-waypoints", f, "-o", w, "--ties", ties, "--seed", str(s), "--length", a.length])
                r.append(accepted(run([a.ftroute] + sim + ["--fabric", f, "--lfts", dor, "--waypoints", w, "--vcs", "3"] + spread)))
            if not a.sl_spread:  # (the kns engine's SL2VL tables: no spread)
                r.append(accepted(run([a.ftroute] + sim + ["--fabric", f, "--engine", "kns", "--opt", "max_vls=15"])))
            return r

        rows = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for p in levels:
                faults = max(1, round(links * p / 100))
                per_set = list(pool.map(lambda s: one_set(p, faults, s), range(1, a.sets + 1)))
                rows.append((p, faults, [100.0 * (sum(x[i] for x in per_set) / a.sets / free - 1) for i in range(len(per_set[0]))]))
    th = THESIS.get((k, n), {})
    print("%d-ary %d-direct 1-indirect KNS (%d links), %d sets per level, fault-free %.4f flits/node/cycle, "
          "waypoints --length %s%s" % (k, n, links, a.sets, free, a.length, ", --sl-spread 3" if a.sl_spread else ""))
    print()
    print("| routing | " + " | ".join("%g %% (%d faults)" % (p, f) for p, f, _ in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for i, v in enumerate(VARIANTS[:len(rows[0][2])]):
        print("| %s | %s |" % (v, " | ".join("%+.1f %%" % r[2][i] for r in rows)))
    if th:
        print("| **thesis** | %s |" % " | ".join(("%+.1f %%" % th[p]) if p in th else "-" for p, _, _ in rows))


if __name__ == "__main__":
    main()
