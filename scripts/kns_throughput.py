#!/usr/bin/env python3
"""KNS throughput per switching element against the other topologies (seed 002, Tables 3.3/3.4
throughput columns; docs/kns.md "Throughput per switching element"): for each topology, a
saturation sweep in flitsim with the thesis' Preset A router (`--preset penaranda-a`: 256-flit
packets, 2-packet queues, 20 cycles per routing decision, 8-cycle links, one VC where the engine
needs one), uniform traffic, deterministic routing; throughput = the highest accepted rate of the
sweep (flits/cycle/node), base latency = average packet latency at a load of 0.005; switching
elements = the sum over the generated fabric's switches of (ports)^2 (the thesis' Table 3.2
model: a d-port switch is d x d elements); next to the thesis' figures.

  scripts/kns_throughput.py [--nodes 16|4096] [--only LABEL,..] [--warmup C --measure C]
        [--ftroute build/cli/ftroute] [--out FILE] [--quick]

--nodes 16 (the default) takes about 10 s; --nodes 4096 takes hours (each sweep point of a
4,096-node fabric takes about a minute of CPU). --quick: the 16-node KNS and mesh only, short
windows (a smoke test).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# label, `ftroute gen` spec, engine, sweep (from:to:step), thesis base latency, throughput, switching elements
ROWS = {
    16: [
        ("4-ary 2-direct 1-indirect", "kns:4,2", "kns", "0.45:0.8:0.05", 375.48, 0.66259, 272),
        ("torus 4x4", "torus:4x4", "ft-dor", "0.45:0.8:0.05", 345.30, 0.63534, 400),
        ("mesh 4x4", "mesh:4x4", "ft-dor", "0.45:0.8:0.05", 360.38, 0.57466, 400),
        ("fat tree arity 2, 4 stages", "fattree:2,4", "ftree-misroute", "0.45:0.8:0.05", 415.57, 0.65030, 512),
        ("fat tree arity 4, 2 stages", "fattree:4,2", "ftree-misroute", "0.45:0.8:0.05", 327.46, 0.62456, 512),
    ],
    4096: [
        ("64-ary 2-direct 1-indirect", "kns:64,2", "kns", "0.35:0.55:0.05", 389.29, 0.44818, 561152),
        ("fat tree arity 4, 6 stages", "fattree:4,6", "ftree-misroute", "0.35:0.55:0.05", 561.23, 0.43872, 393216),
        ("fat tree arity 16, 3 stages", "fattree:16,3", "ftree-misroute", "0.35:0.55:0.05", 388.45, 0.41601, 786432),
        ("torus 64x64", "torus:64x64", "ft-dor", "0.04:0.12:0.02", 1292.88, 0.07323, 102400),
        ("mesh 64x64", "mesh:64x64", "ft-dor", "0.03:0.09:0.015", 1606.12, 0.05084, 102400),
    ],
}


def switching_elements(net):
    """Sum of (ports)^2 over the switches of an ibsim .net file."""
    total = 0
    with open(net) as f:
        for line in f:
            m = re.match(r'Switch\s+(\d+)\s+"', line)
            if m:
                total += int(m.group(1)) ** 2
    return total


def sim(a, net, engine, extra):
    cmd = [a.ftroute, "sim", net, "--engine", engine, "--preset", "penaranda-a", "--pattern", "uniform",
           "--json"] + extra
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {' '.join(cmd)}\n{p.stderr[-1500:]}")
    return json.loads(p.stdout[p.stdout.index("{"):])["points"]


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ftroute", default=os.path.join(here, "build", "cli", "ftroute"))
    ap.add_argument("--nodes", type=int, default=16, choices=sorted(ROWS))
    ap.add_argument("--only", help="gen specs of the rows to run, separated by ';' (e.g. 'kns:4,2;mesh:4x4')")
    ap.add_argument("--warmup", type=int)
    ap.add_argument("--measure", type=int)
    ap.add_argument("--out")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if not os.access(a.ftroute, os.X_OK):
        print(f"kns_throughput: ftroute binary not found: {a.ftroute} (build it or pass --ftroute)", file=sys.stderr)
        return 2
    rows = ROWS[a.nodes]
    if a.quick:
        rows = [r for r in rows if r[1] in ("kns:4,2", "mesh:4x4")]
        a.warmup, a.measure = a.warmup or 5000, a.measure or 20000
    if a.only:
        want = a.only.split(";")
        rows = [r for r in rows if r[1] in want]
        if len(rows) != len(want):
            print(f"kns_throughput: --only '{a.only}' names none of {', '.join(r[1] for r in ROWS[a.nodes])}",
                  file=sys.stderr)
            return 2
    warm = a.warmup or (20000 if a.nodes == 16 else 10000)
    meas = a.measure or (60000 if a.nodes == 16 else 20000)
    lines = ["| topology | fabric, engine | switching elements (thesis) | base latency (thesis) | throughput (thesis) | "
             "ours / thesis | throughput per switching element (thesis) |", "|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for label, spec, engine, sweep, t_lat, t_thr, t_se in rows:
            net = os.path.join(tmp, "f.net")
            p = subprocess.run([a.ftroute, "gen", spec, "-o", net], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
            if p.returncode != 0:
                print(f"kns_throughput: ftroute gen {spec} failed:\n{p.stdout}", file=sys.stderr)
                return 1
            se = switching_elements(net)
            try:
                base = sim(a, net, engine, ["--load", "0.005", "--warmup", str(warm // 4), "--measure", str(meas)])
                pts = sim(a, net, engine, ["--sweep", sweep, "--warmup", str(warm), "--measure", str(meas)])
            except (RuntimeError, ValueError, KeyError) as e:
                print(f"kns_throughput: {e}", file=sys.stderr)
                return 1
            thr = max(pt["accepted"] for pt in pts)
            lat = base[0]["latency"]["avg"]
            line = (f"| {label} | `{spec}`, {engine} | {se:,} ({t_se:,}) | {lat:.1f} ({t_lat}) | "
                    f"{thr:.4f} ({t_thr}) | {thr / t_thr:.3f} | {thr / se:.3g} ({t_thr / t_se:.3g}) |")
            lines.append(line)
            print(line, flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
