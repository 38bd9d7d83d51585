#!/usr/bin/env python3
"""FT-DRB's "performance" under the thesis' failure set-up (seed 000, docs/ftdrb.md "The 4-ary
3-tree uniform row"): F random switch-to-switch links fail permanently in the middle of the
measured window, the fabric keeps its fault-free LFTs (no re-route), sources run the FT-DRB
source (`--lid-policy ftdrb`) and switches escape-route packets that meet a dead port
(`--fault-policy escape`). For each fault set the same run (same traffic seed) is made without
faults; performance = fault-free latency / faulty latency (the thesis metric, spec §6.4).

  scripts/ftdrb_thesis_faults.py [--gen fattree:4,3] [--faults 12] [--sets 30] [--load 0.02]
        [--pattern uniform] [--fail-at 0.5] [--warmup 1000] [--measure 8000]
        [--sim-args "..."] [--ftroute build/cli/ftroute]

Prints one line per fault set and a summary (mean, median, quartiles, min, max of the per-set
performance; the ratio of the mean latencies; packets dropped in the measured windows: packets
that met a dead port and had no escape LID; fault sets whose run deadlocked, left out of the
figures). Fault set i is drawn with Python's random.Random(1000
+ i) among the switch-to-switch links, redrawn until the switches stay connected; the traffic seed
of set i is i + 1. Exit 1 if a run fails, 2 on a usage error.
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile


def switch_links(net):
    """Unordered switch-to-switch links of an ibsim .net file as ((sw, port), (sw, port))."""
    links, cur = set(), None
    with open(net) as f:
        for line in f:
            m = re.match(r'Switch\s+\d+\s+"([^"]+)"', line)
            if m:
                cur = m.group(1)
                continue
            if line[:1].isalpha():  # any other node header (Hca, Ca): its ports are not switch links
                cur = None
                continue
            m = re.match(r'\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
            if m and cur:
                links.add(tuple(sorted([(cur, int(m.group(1))), (m.group(2), int(m.group(3)))])))
    switches = {s for s in re.findall(r'^Switch\s+\d+\s+"([^"]+)"', open(net).read(), re.M)}
    return sorted(l for l in links if l[0][0] in switches and l[1][0] in switches), switches


def connected(links, dead, switches):
    adj = {}
    for a, b in links:
        if (a, b) not in dead:
            adj.setdefault(a[0], set()).add(b[0])
            adj.setdefault(b[0], set()).add(a[0])
    start = next(iter(switches))
    seen, todo = {start}, [start]
    while todo:
        for v in adj.get(todo.pop(), ()):
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return seen == switches


def sim(a, net, args):
    cmd = ["nice", a.ftroute, "sim", net, "--json"] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 3):  # 3: the run deadlocked (its JSON says where)
        raise RuntimeError(f"exit {p.returncode}: {' '.join(cmd)}\n{p.stderr[-2000:]}")
    pt = json.loads(p.stdout[p.stdout.index("{"):])["points"][0]
    return (pt["latency"]["avg"], pt["measured"]["dropped"], pt["measured"]["packets"], pt["avg_hops"],
            pt["deadlock"]["detected"])


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ftroute", default=os.path.join(here, "build", "cli", "ftroute"))
    ap.add_argument("--gen", default="fattree:4,3")
    ap.add_argument("--faults", type=int, default=12)
    ap.add_argument("--sets", type=int, default=30)
    ap.add_argument("--load", default="0.02")
    ap.add_argument("--pattern", default="uniform")
    ap.add_argument("--fail-at", type=float, default=0.5, help="fraction of the measured window (0 = its start)")
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--measure", type=int, default=8000)
    ap.add_argument("--sim-args", default="--engine ftdrb --lmc 2 --lid-policy ftdrb --fault-policy escape")
    a = ap.parse_args()
    if not os.access(a.ftroute, os.X_OK):
        print(f"ftdrb_thesis_faults: ftroute binary not found: {a.ftroute} (build it or pass --ftroute)",
              file=sys.stderr)
        return 2
    if a.sets < 2 or a.faults < 1 or not 0 <= a.fail_at <= 1:
        print("ftdrb_thesis_faults: need --sets >= 2, --faults >= 1, 0 <= --fail-at <= 1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        net = os.path.join(tmp, "fabric.net")
        p = subprocess.run([a.ftroute, "gen", a.gen, "-o", net], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if p.returncode != 0:
            print(f"ftdrb_thesis_faults: ftroute gen {a.gen} failed:\n{p.stdout}", file=sys.stderr)
            return 2
        links, switches = switch_links(net)
        if a.faults >= len(links):
            print(f"ftdrb_thesis_faults: --faults {a.faults} >= {len(links)} switch links", file=sys.stderr)
            return 2
        fail_cycle = max(1, a.warmup + int(a.fail_at * a.measure))
        base = a.sim_args.split() + ["--pattern", a.pattern, "--load", a.load, "--warmup", str(a.warmup),
                                     "--measure", str(a.measure)]
        print(f"{a.gen}: {len(links)} switch links, {a.faults} fail at cycle {fail_cycle}; {a.pattern} at {a.load}; "
              f"ftroute sim {' '.join(base)}")
        perf, l0s, l1s, drops, measured, deadlocked = [], [], [], 0, 0, []
        for i in range(a.sets):
            rng = random.Random(1000 + i)
            for _ in range(1000):
                dead = set(rng.sample(links, a.faults))
                if connected(links, dead, switches):
                    break
            else:
                print(f"ftdrb_thesis_faults: no connected set of {a.faults} faults found", file=sys.stderr)
                return 2
            fails = []
            for (sw, port), _ in sorted(dead):
                fails += ["--fail", f'{fail_cycle}:"{sw}"[{port}]']
            try:
                l0, _, _, h0, dl0 = sim(a, net, base + ["--seed", str(i + 1)])
                l1, d1, m1, h1, dl1 = sim(a, net, base + ["--seed", str(i + 1)] + fails)
            except (RuntimeError, ValueError, KeyError, IndexError) as e:
                print(f"ftdrb_thesis_faults: {e}", file=sys.stderr)
                return 1
            if dl0 or dl1:
                deadlocked.append(i)
                print(f"set {i}: DEADLOCK in the {'fault-free' if dl0 else 'faulty'} run (not in the summary)",
                      flush=True)
                continue
            perf.append(l0 / l1)
            l0s.append(l0)
            l1s.append(l1)
            drops += d1
            measured += m1
            print(f"set {i}: fault-free {l0:.2f} cycles ({h0:.2f} hops), faulty {l1:.2f} ({h1:.2f} hops, "
                  f"{d1} of {m1} measured dropped): {100 * l0 / l1:.1f} %", flush=True)
        if len(perf) < 2:
            print(f"ftdrb_thesis_faults: {len(deadlocked)} of {a.sets} fault sets deadlocked", file=sys.stderr)
            return 1
        q = statistics.quantiles(perf, n=4)
        print(f"performance over {len(perf)} fault sets ({len(deadlocked)} deadlocked: {deadlocked}): mean {100 * statistics.mean(perf):.1f} %, median "
              f"{100 * statistics.median(perf):.1f} %, quartiles {100 * q[0]:.1f}-{100 * q[2]:.1f} %, min "
              f"{100 * min(perf):.1f} %, max {100 * max(perf):.1f} %; mean latency {statistics.mean(l0s):.1f} / "
              f"{statistics.mean(l1s):.1f} = {100 * statistics.mean(l0s) / statistics.mean(l1s):.1f} %; dropped "
              f"{drops} of {measured} measured packets ({100 * drops / max(measured, 1):.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
