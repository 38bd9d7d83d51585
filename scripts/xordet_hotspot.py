#!/usr/bin/env python3
"""XORDET against deterministic routing under the thesis' hot-spot (seed 002 Ch 9-11, Figs. 9.9 and
10.4; docs/kns.md "XORDET and a hot-spot"): on the 256-node 16-ary 2-direct 1-indirect KNS, 25 %
of the nodes send only to one hot node while the others send uniformly to every node but it
(`ftroute sim --pattern hotspot --hot-sources 0.25`), under the thesis' Preset C router
(`--preset penaranda-c`: 16-flit packets, 4-packet queues, 4-cycle pipeline). For 1 destination
class (Hybrid-DOR on one VL) and XORDET with 2, 4 and 8 classes, the background's accepted traffic
(flits per background source and cycle) and latency, with the hot sources idle, sending at the
ejection bandwidth in total (1/64 flits/cycle each) and at 0.4 flits/cycle each.

  scripts/xordet_hotspot.py [--load 0.3] [--classes 1,2,4,8] [--hot-loads 0,0.015625,0.4]
        [--gen kns:16,2] [--warmup 5000 --measure 10000] [--ftroute build/cli/ftroute] [--out FILE] [--quick]

--quick: kns:8,2 (64 nodes; hot loads 0 and 0.4, 1 and 4 classes, short windows), a smoke test.
"""
import argparse
import json
import os
import subprocess
import sys


def run(a, classes, hot_load):
    opt = "xordet=0" if classes == 1 else f"xordet=1,vls={classes},max_vls=15"
    cmd = [a.ftroute, "sim", "--gen", a.gen, "--engine", "kns", "--opt", opt, "--preset", "penaranda-c",
           "--pattern", "hotspot", "--hot-sources", "0.25", "--hot-load", str(hot_load), "--load", a.load,
           "--warmup", str(a.warmup), "--measure", str(a.measure), "--max-drain", str(2 * a.measure), "--json"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {' '.join(cmd)}\n{p.stderr[-1500:]}")
    pt = json.loads(p.stdout[p.stdout.index("{"):])["points"][0]
    return pt["background"]["accepted"], pt["background"]["latency_avg"], pt["accepted"]


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ftroute", default=os.path.join(here, "build", "cli", "ftroute"))
    ap.add_argument("--gen", default="kns:16,2")
    ap.add_argument("--load", default="0.3")
    ap.add_argument("--classes", default="1,2,4,8")
    ap.add_argument("--hot-loads", default="0,0.015625,0.4")
    ap.add_argument("--warmup", type=int, default=5000)
    ap.add_argument("--measure", type=int, default=10000)
    ap.add_argument("--out")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if a.quick:
        a.gen, a.classes, a.hot_loads, a.warmup, a.measure = "kns:8,2", "1,4", "0,0.4", 1000, 3000
    if not os.access(a.ftroute, os.X_OK):
        print(f"xordet_hotspot: ftroute binary not found: {a.ftroute} (build it or pass --ftroute)", file=sys.stderr)
        return 2
    try:
        classes = [int(c) for c in a.classes.split(",")]
        hot_loads = [float(h) for h in a.hot_loads.split(",")]
    except ValueError:
        print("xordet_hotspot: --classes and --hot-loads are comma-separated numbers", file=sys.stderr)
        return 2
    if any(c not in (1, 2, 4, 8) for c in classes) or hot_loads[0] != 0:
        print("xordet_hotspot: classes are 1, 2, 4 or 8; the first hot load must be 0 (the reference)", file=sys.stderr)
        return 2
    lines = ["| classes | " + " | ".join(f"hot sources at {h:g}: background accepted (vs idle), latency" for h in hot_loads) + " |",
             "|---|" + "---|" * len(hot_loads)]
    print("\n".join(lines), flush=True)
    for c in classes:
        cells, ref = [], None
        for h in hot_loads:
            try:
                acc, lat, _ = run(a, c, h)
            except (RuntimeError, ValueError, KeyError) as e:
                print(f"xordet_hotspot: {e}", file=sys.stderr)
                return 1
            if ref is None:
                ref = acc
            cells.append(f"{acc:.4f} ({100 * acc / ref:.0f} %), {lat:.1f}")
        line = f"| {'1 (Hybrid-DOR, one VL)' if c == 1 else f'XORDET {c}'} | " + " | ".join(cells) + " |"
        lines.append(line)
        print(line, flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
