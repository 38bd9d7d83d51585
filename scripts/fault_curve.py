#!/usr/bin/env python3
"""Seed 001's Fig. 3 statistics from a campaign's results.csv: per fault count, the runs the
engine routed (the paper keeps only the runs that neither deadlocked nor disconnected), their
mean throughput and its change against the fault-free point, the step from the previous fault
count per fault, and the mean latency (packet latency and network latency) against the fault-free point.

usage: scripts/fault_curve.py RESULTS.csv [--engine NAME] [--summary saturated|unsaturated]

Prints a Markdown table. With --summary, one line instead, for docs/REPRODUCTION.md:
  saturated:   the change at the first fault, the change per fault from 0 to 3 faults and over
               the last five counts measured, the latency ratios at the largest count;
  unsaturated: the largest fault count up to which the mean stays within 0.5 % of fault-free,
               and the change at the largest count.
Exit 1 with a message on a file that is not a campaign's results.csv or holds no routed run.
"""
import csv
import statistics
import sys


def die(msg):
    print(f"fault_curve.py: {msg}", file=sys.stderr)
    sys.exit(1)


def main(argv):
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 1
    path, engine, summary = args[0], None, None
    i = 1
    while i < len(args):
        if args[i] == "--engine" and i + 1 < len(args):
            engine = args[i + 1]
            i += 2
        elif args[i] == "--summary" and i + 1 < len(args) and args[i + 1] in ("saturated", "unsaturated"):
            summary = args[i + 1]
            i += 2
        else:
            die(f"unknown or incomplete option '{args[i]}' (see --help)")
    try:
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as e:
        die(f"{path}: {e.strerror}")
    need = {"engine", "link_failures", "status", "simulated", "sim_accepted", "sim_latency"}
    if not rows or not need <= set(rows[0].keys()):
        die(f"{path}: not a campaign results.csv (columns {', '.join(sorted(need))} needed)")
    engines = sorted({r["engine"] for r in rows})
    if engine is None:
        if len(engines) != 1:
            die(f"{path}: several engines ({', '.join(engines)}): pick one with --engine")
        engine = engines[0]
    by, total = {}, {}
    for r in rows:
        if r["engine"] != engine:
            continue
        try:
            k = int(r["link_failures"])
        except ValueError:
            die(f"{path}: link_failures '{r['link_failures']}' is not a count")
        total[k] = total.get(k, 0) + 1
        if r["status"] == "ok" and r["simulated"] == "1":
            by.setdefault(k, []).append(r)
    if 0 not in by:
        die(f"{path}: no routed, simulated fault-free run of {engine}")

    def mean(k, col):
        vals = [float(r[col]) for r in by[k] if r.get(col, "") != ""]
        return statistics.mean(vals) if vals else float("nan")

    t0, l0, n0 = mean(0, "sim_accepted"), mean(0, "sim_latency"), mean(0, "sim_net_latency")
    ks = sorted(by)
    thr = {k: mean(k, "sim_accepted") for k in ks}
    change = {k: 100 * (thr[k] / t0 - 1) for k in ks}
    if summary == "saturated":
        if len(ks) < 3:
            die(f"{path}: the saturated summary needs at least three fault counts")
        k3 = max(k for k in ks if k <= 3) if ks[1] <= 3 else ks[1]
        kmax = ks[-1]
        kfrom = ks[max(1, len(ks) - 6)]
        first = change[k3] / k3
        last = (change[kmax] - change[kfrom]) / (kmax - kfrom)
        print(f"first fault {change[ks[1]]:+.1f} %, {first:+.1f} %/fault over 0-{k3} and {last:+.1f} %/fault over "
              f"{kfrom}-{kmax}, {change[kmax]:+.1f} % at {kmax}; latency at {kmax}: "
              f"{mean(kmax, 'sim_net_latency') / n0:.2f}x network, {mean(kmax, 'sim_latency') / l0:.2f}x packet; "
              f"routed runs {sum(len(v) for v in by.values())} of {sum(total.values())}")
        return 0
    if summary == "unsaturated":
        flat = 0
        for k in ks:
            if abs(change[k]) > 0.5:
                break
            flat = k
        print(f"within 0.5 % of fault-free up to {flat} faults, {change[ks[-1]]:+.1f} % at {ks[-1]}; "
              f"routed runs {sum(len(v) for v in by.values())} of {sum(total.values())}")
        return 0
    print(f"{engine}: runs routed and simulated per fault count; mean over them")
    print()
    print("| faults | routed | throughput | vs 0 | per fault since the last count | packet latency | vs 0 | network latency | vs 0 |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    prev = None
    for k in ks:
        lat, net = mean(k, "sim_latency"), mean(k, "sim_net_latency")
        step = "" if prev is None else f"{(change[k] - change[prev]) / (k - prev):+.1f} %"
        print(f"| {k} | {len(by[k])}/{total[k]} | {thr[k]:.4f} | {change[k]:+.1f} % | {step} | {lat:.1f} | "
              f"{lat / l0:.2f}x | {net:.1f} | {net / n0:.2f}x |")
        prev = k
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
