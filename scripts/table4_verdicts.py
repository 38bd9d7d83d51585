#!/usr/bin/env python3
"""Seed 003's Table IV, ours against the paper's, from a campaign's results.csv.

Domke, Hoefler and Matsuoka, "Fail-in-Place Network Design: Interaction between Topology,
Routing Algorithm and Failures", SC 2014, Table IV: for each of Table III's artificial fabrics
and each OpenSM routing engine, o = deadlock-free, r = routing failed, d = deadlock detected.

Ours, per (fabric, engine) run of `ftroute campaign ... --link-failures 0 --seeds 1`:
  r  OpenSM's engine failed and OpenSM fell back to its built-in minhop (column `fallback`)
  o  the engine routed every pair, loop-free, and the channel dependency graph is acyclic on
     every VL with the SLs OpenSM gave the paths (the paper found deadlocks by simulation; a CDG
     cycle is the static condition for one)
  d  it routed, but the CDG has a cycle on some VL
  u  it routed, but some pair is unreachable or loops (not a class of the paper)

usage: table4_verdicts.py RESULTS.CSV [--summary]
  prints the matrix as a markdown table (cells that differ from the paper in bold), or with
  --summary one line: how many cells match, and which differ. Exit 1 if the file lacks a cell.
"""
import csv
import sys

ENGINES = ["opensm:ftree", "opensm:updn", "opensm:dor", "opensm:torus-2QoS",
           "opensm:minhop", "opensm:sssp", "opensm:dfsssp", "opensm:lash"]
# Table III's fabrics as `ftroute gen` specs, with the paper's Table IV row (engines as above)
PAPER = [
    ("2-D mesh(5,5)", "mesh:5x5,11,links=6", "r r o o d d o o"),
    ("3-D mesh(3,3,3)", "mesh:3x3x3,10,links=4", "r r o o d d o o"),
    ("2-D torus(5,5)", "torus:5x5,11,links=6", "r r d o d d o o"),
    ("3-D torus(3,3,3)", "torus:3x3x3,10,links=4", "r r o o d d o o"),
    ("Kautz(2,4)", "kautz:2,4,11,6", "r r d r d d o o"),
    ("16-ary 2-tree", "fattree:16,2", "o o o r o o o o"),
    ("XGFT(1,22,11)", "xgft:1,22,11,12", "o o o r o o o o"),
    ("Dragonfly(10,5,5,4)", "dragonfly:10,5,5,4,7", "r r d r d d o o"),
    ("Random", "random:32,16,8,1", "r r o r d d o o"),
]


def verdict(row):
    if row["status"] != "ok":
        return "?"
    if row["fallback"] == "1":
        return "r"
    if int(row["unreachable"]) or int(row["looping"]):
        return "u"
    return "o" if row["cdg_acyclic"] == "1" else "d"


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    ours = {}
    with open(argv[1], newline="") as f:
        for row in csv.DictReader(f):
            if row["link_failures"] == "0" and row["switch_failures"] == "0":
                ours[(row["fabric"], row["engine"])] = verdict(row)
    missing = [(spec, e) for _, spec, _ in PAPER for e in ENGINES if (spec, e) not in ours]
    if missing:
        print(f"{argv[1]}: no run for {len(missing)} cells, e.g. {missing[0][0]} / {missing[0][1]}", file=sys.stderr)
        return 1
    lines = ["| Table III fabric (`--gen`) | " + " | ".join(e.split(":", 1)[1] for e in ENGINES) + " |",
             "|---|" + "---|" * len(ENGINES)]
    match, diffs = 0, []
    for name, spec, letters in PAPER:
        cells = []
        for e, p in zip(ENGINES, letters.split()):
            o = ours[(spec, e)]
            if o == p:
                match += 1
                cells.append(o)
            else:
                cells.append(f"**{o}** (paper {p})")
                diffs.append(f"{name} {e.split(':', 1)[1]}: {o} (paper {p})")
        lines.append(f"| {name} (`{spec}`) | " + " | ".join(cells) + " |")
    total = len(PAPER) * len(ENGINES)
    if "--summary" in argv[2:]:
        print(f"{match} of {total} cells as the paper's" + (f"; differ: {'; '.join(diffs)}" if diffs else ""))
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
