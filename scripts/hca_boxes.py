#!/usr/bin/env python3
"""Seed 003's Fig. 4 statistic from a campaign's results.csv: the consumption bandwidth of every
HCA under uniform random injection, as a box (minimum, quartiles, maximum over the HCAs of a run,
columns sim_hca_*), averaged over the seeds as the paper does ("avg. values for three seeds"), per
fabric, engine and failure level, in Gbyte/s (one flit per cycle at an HCA = 4 GB/s, 4X QDR).

usage: scripts/hca_boxes.py RESULTS.csv [--summary ENGINE LEVEL]

Prints a Markdown table. With --summary, one line for docs/REPRODUCTION.md: the change of the
median, the first quartile and the minimum of ENGINE at failure level LEVEL (as written in the
link_failures column, e.g. 2 or 1%) against its fault-free box, on the first fabric listed.
Runs that were not routed or not simulated do not count (the paper keeps deadlock-free runs).
Exit 1 with a message on a file without the sim_hca_* columns or without the runs asked for.
"""
import csv
import statistics
import sys

COLS = ["sim_hca_min", "sim_hca_q1", "sim_hca_median", "sim_hca_q3", "sim_hca_max"]
GBPS = 4.0  # Gbyte/s per flit per cycle (4X QDR)


def die(msg):
    print(f"hca_boxes.py: {msg}", file=sys.stderr)
    sys.exit(1)


def level_key(text):
    t = text.rstrip("%")
    try:
        return (text.endswith("%"), float(t))
    except ValueError:
        return (True, float("inf"))


def main(argv):
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 1
    path = args[0]
    summary = None
    if len(args) > 1:
        if args[1] != "--summary" or len(args) != 4:
            die("usage: hca_boxes.py RESULTS.csv [--summary ENGINE LEVEL]")
        summary = (args[2], args[3])
    try:
        with open(path, newline="") as fh:
            rows = list(csv.DictReader(fh))
    except OSError as e:
        die(f"{path}: {e.strerror}")
    if not rows or not set(COLS + ["fabric", "engine", "link_failures", "status"]) <= set(rows[0].keys()):
        die(f"{path}: no per-HCA columns ({', '.join(COLS)}): a campaign with a steady-injection --pattern "
            "(uniform) written by this ftroute")
    boxes, total, fabrics = {}, {}, []
    for r in rows:
        key = (r["fabric"], r["engine"], r["link_failures"])
        total[key] = total.get(key, 0) + 1
        if r["fabric"] not in fabrics:
            fabrics.append(r["fabric"])
        if r["status"] != "ok" or r.get("sim_hca_median", "") == "":
            continue
        boxes.setdefault(key, []).append([float(r[c]) * GBPS for c in COLS])
    if not boxes:
        die(f"{path}: no routed, simulated run with per-HCA figures")

    def mean_box(key):
        runs = boxes[key]
        return [statistics.mean(b[i] for b in runs) for i in range(5)]

    if summary:
        engine, level = summary
        fab = fabrics[0]
        base, at = (fab, engine, "0"), (fab, engine, level)
        for k in (base, at):
            if k not in boxes:
                die(f"{path}: no routed run of {engine} on {fab} at {k[2]} failures")
        b0, b1 = mean_box(base), mean_box(at)
        ch = [100 * (b1[i] / b0[i] - 1) if b0[i] else float("nan") for i in range(5)]
        print(f"{engine} with {level} failed: median {b1[2]:.2f} GB/s ({ch[2]:+.1f} %), first quartile {ch[1]:+.1f} %, "
              f"minimum {ch[0]:+.1f} % against fault-free ({len(boxes[at])} of {total[at]} runs routed)")
        return 0
    print("Consumption bandwidth per HCA, Gbyte/s: min / first quartile / median / third quartile / max over the "
          "HCAs, mean over the routed runs (seeds)")
    print()
    print("| fabric | engine | failures | routed | min | q1 | median | q3 | max | median vs 0 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for key in sorted(boxes, key=lambda k: (fabrics.index(k[0]), k[1], level_key(k[2]))):
        b = mean_box(key)
        base = (key[0], key[1], "0")
        vs = f"{100 * (b[2] / mean_box(base)[2] - 1):+.1f} %" if base in boxes and mean_box(base)[2] else "-"
        print(f"| {key[0]} | {key[1]} | {key[2]} | {len(boxes[key])}/{total[key]} | " +
              " | ".join(f"{x:.2f}" for x in b) + f" | {vs} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
