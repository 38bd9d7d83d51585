#!/usr/bin/env python3
"""FT-DRB's "performance" under the thesis' failure set-ups (seed 000, docs/ftdrb.md "The 4-ary
3-tree uniform row", "Spatial fault shapes", "Dynamic faults"): switch-to-switch links fail during
the run, the fabric keeps its fault-free LFTs (no re-route), sources run the FT-DRB source
(`--lid-policy ftdrb`) and switches escape-route packets that meet a dead port
(`--fault-policy escape`). For each fault set the same run (same traffic seed) is made without
faults; performance = fault-free latency / faulty latency (the thesis metric, spec §6.4).

  scripts/ftdrb_thesis_faults.py [--gen fattree:4,3] [--faults 12 | --shape line|square|L|U --size K]
        [--sets 30] [--load 0.02] [--pattern uniform] [--fail-at 0.5|random|start]
        [--duration permanent|F] [--warmup 1000] [--measure 8000]
        [--sim-args "..."] [--ftroute build/cli/ftroute] [--print-faults]

Which links fail (set i is drawn with Python's random.Random(1000 + i), redrawn until the
switches stay connected):
  --faults F        F random switch-to-switch links;
  --shape S --size K  a spatial fault region on a 2-D torus or mesh (`--gen torus:AxB`, switches
                    "Sx_y"): the links tracing the shape, K links per side, at a random place and
                    rotation: line = K links in a row; L = two sides of a KxK square meeting at a
                    corner (2K links); U = three sides (3K); square = all four sides (4K; the links
                    around a KxK block of switches, whose inside keeps its own links).
When they fail and for how long (cycles counted from the start of the run; the measured window
is [warmup, warmup + measure)):
  --fail-at X       X in [0, 1]: every link at warmup + X * measure (0.5: the middle of the
                    window); start: at cycle 1 (before the warm-up: faults present from the
                    start, the thesis' "start time 0"); random: each link at its own random cycle
                    of the window;
  --duration D      permanent (default), or a fraction F: each link comes back after a random
                    number of cycles in [1, F * measure] (the thesis' transient faults: F = 0.1).
Prints one line per fault set and a summary (mean, median, quartiles, min, max of the per-set
performance; the ratio of the mean latencies; packets dropped in the measured windows: packets
that met a dead port and had no escape LID; fault sets whose run deadlocked, left out of the
figures). The traffic seed of set i is i + 1. --print-faults prints each set's links and exits
without simulating. Exit 1 if a run fails, 2 on a usage error.
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


def grid_of(switches, links):
    """(A, B) of a 2-D torus or mesh (`ftroute gen torus:AxB` / `mesh:AxB`: switches named Sx_y,
    every link between neighbours in one coordinate), else None."""
    xy = {sw: re.fullmatch(r'S(\d+)_(\d+)', sw) for sw in switches}
    if not xy or not all(xy.values()):
        return None
    xy = {sw: (int(m.group(1)), int(m.group(2))) for sw, m in xy.items()}
    A, B = max(x for x, _ in xy.values()) + 1, max(y for _, y in xy.values()) + 1
    for (a, _), (b, _) in links:
        (xa, ya), (xb, yb) = xy[a], xy[b]
        dx, dy = (xa - xb) % A, (ya - yb) % B
        if not ((dy == 0 and dx in (1, A - 1)) or (dx == 0 and dy in (1, B - 1))):
            return None
    return A, B


def shape_links(shape, k, rng, by_ends, dims):
    """The links tracing `shape` (K links per side) at a random place and rotation, as link keys
    (values of `by_ends`: frozenset of the two switches -> link key); None where a side would leave
    a mesh or a link is missing."""
    A, B = dims
    x0, y0 = rng.randrange(A), rng.randrange(B)
    rot = rng.randrange(4)
    # unit steps along the shape's two axes after the rotation
    u = [(1, 0), (0, 1), (-1, 0), (0, -1)][rot]
    v = [(0, 1), (-1, 0), (0, -1), (1, 0)][rot]
    def seg(px, py, d):  # K links from (px, py) in direction d
        out = []
        for i in range(k):
            a = (px + i * d[0], py + i * d[1])
            b = (a[0] + d[0], a[1] + d[1])
            out.append((a, b))
        return out
    corner = (x0 + k * v[0], y0 + k * v[1])  # the square's corners: (x0, y0), +K u, +K v, +K u +K v
    far = (x0 + k * u[0], y0 + k * u[1])
    sides = {"line": [seg(x0, y0, u)],
             "L": [seg(x0, y0, u), seg(x0, y0, v)],
             "U": [seg(x0, y0, u), seg(x0, y0, v), seg(far[0], far[1], v)],
             "square": [seg(x0, y0, u), seg(x0, y0, v), seg(far[0], far[1], v), seg(corner[0], corner[1], u)]}[shape]
    out = []
    for side in sides:
        for a, b in side:
            ka = f"S{a[0] % A}_{a[1] % B}"
            kb = f"S{b[0] % A}_{b[1] % B}"
            key = by_ends.get(frozenset((ka, kb)))
            if key is None:
                return None  # off a mesh's edge, or a missing link
            out.append(key)
    return out if len(set(out)) == len(out) else None


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
    ap.add_argument("--shape", choices=["line", "square", "L", "U"])
    ap.add_argument("--size", type=int, default=8, help="links per side of --shape")
    ap.add_argument("--sets", type=int, default=30)
    ap.add_argument("--load", default="0.02")
    ap.add_argument("--pattern", default="uniform")
    ap.add_argument("--fail-at", default="0.5", help="fraction of the measured window (0 = its start), start or random")
    ap.add_argument("--duration", default="permanent", help="permanent or F: back after U[1, F * measure] cycles")
    ap.add_argument("--print-faults", action="store_true", help="print each set's links and exit")
    ap.add_argument("--json", help="also write the summary (and every set's figures) to this file")
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--measure", type=int, default=8000)
    ap.add_argument("--sim-args", default="--engine ftdrb --lmc 2 --lid-policy ftdrb --fault-policy escape")
    a = ap.parse_args()
    if not os.access(a.ftroute, os.X_OK):
        print(f"ftdrb_thesis_faults: ftroute binary not found: {a.ftroute} (build it or pass --ftroute)",
              file=sys.stderr)
        return 2
    fail_frac = None
    if a.fail_at not in ("start", "random"):
        try:
            fail_frac = float(a.fail_at)
        except ValueError:
            fail_frac = -1.0
        if not 0 <= fail_frac <= 1:
            print(f"ftdrb_thesis_faults: --fail-at must be a fraction in [0, 1], start or random, not '{a.fail_at}'",
                  file=sys.stderr)
            return 2
    dur_frac = None
    if a.duration != "permanent":
        try:
            dur_frac = float(a.duration)
        except ValueError:
            dur_frac = -1.0
        if not 0 < dur_frac <= 1:
            print(f"ftdrb_thesis_faults: --duration must be permanent or a fraction in (0, 1], not '{a.duration}'",
                  file=sys.stderr)
            return 2
    if a.sets < 2 or a.faults < 1 or a.size < 1:
        print("ftdrb_thesis_faults: need --sets >= 2, --faults >= 1, --size >= 1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        net = os.path.join(tmp, "fabric.net")
        p = subprocess.run([a.ftroute, "gen", a.gen, "-o", net], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if p.returncode != 0:
            print(f"ftdrb_thesis_faults: ftroute gen {a.gen} failed:\n{p.stdout}", file=sys.stderr)
            return 2
        links, switches = switch_links(net)
        dims = grid_of(switches, links)
        by_ends = {frozenset((x[0], y[0])): (x, y) for x, y in links}
        if a.shape and dims is None:
            print(f"ftdrb_thesis_faults: --shape needs a 2-D torus or mesh (switches named Sx_y), not {a.gen}",
                  file=sys.stderr)
            return 2
        if not a.shape and a.faults >= len(links):
            print(f"ftdrb_thesis_faults: --faults {a.faults} >= {len(links)} switch links", file=sys.stderr)
            return 2
        fail_cycle = 1 if a.fail_at == "start" else a.warmup + int(fail_frac * a.measure) if fail_frac is not None else None
        base = a.sim_args.split() + ["--pattern", a.pattern, "--load", a.load, "--warmup", str(a.warmup),
                                     "--measure", str(a.measure)]
        what = f"{'an' if a.shape == 'L' else 'a'} {a.shape} of {a.size} links per side" if a.shape else f"{a.faults}"
        when = f"at cycle {fail_cycle}" if fail_cycle is not None else \
            f"at random cycles of the window [{a.warmup}, {a.warmup + a.measure})"
        how = "permanently" if dur_frac is None else f"for random spells of 1-{int(dur_frac * a.measure)} cycles"
        print(f"{a.gen}: {len(links)} switch links, {what} fail {when} {how}; {a.pattern} at {a.load}; "
              f"ftroute sim {' '.join(base)}")
        perf, l0s, l1s, drops, measured, deadlocked = [], [], [], 0, 0, []
        for i in range(a.sets):
            rng = random.Random(1000 + i)
            for _ in range(1000):
                dead = shape_links(a.shape, a.size, rng, by_ends, dims) if a.shape else rng.sample(links, a.faults)
                if dead is not None and connected(links, set(dead), switches):
                    break
            else:
                print(f"ftdrb_thesis_faults: no connected set of {what} faults found", file=sys.stderr)
                return 2
            fails = []
            for (sw, port), (peer, pport) in sorted(dead):
                at = fail_cycle if fail_cycle is not None else a.warmup + rng.randrange(a.measure)
                fails += ["--fail", f'{at}:"{sw}"[{port}]']
                if dur_frac is not None:
                    fails += ["--recover", f'{at + 1 + rng.randrange(max(1, int(dur_frac * a.measure)))}:"{sw}"[{port}]']
            if a.print_faults:
                print(f"set {i}: " + " ".join(f'"{sw}"[{port}]-"{peer}"[{pport}]' for (sw, port), (peer, pport) in sorted(dead))
                      + " | " + " ".join(fails))
                continue
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
        if a.print_faults:
            return 0
        if len(perf) < 2:
            print(f"ftdrb_thesis_faults: {len(deadlocked)} of {a.sets} fault sets deadlocked", file=sys.stderr)
            return 1
        q = statistics.quantiles(perf, n=4)
        print(f"performance over {len(perf)} fault sets ({len(deadlocked)} deadlocked: {deadlocked}): mean {100 * statistics.mean(perf):.1f} %, median "
              f"{100 * statistics.median(perf):.1f} %, quartiles {100 * q[0]:.1f}-{100 * q[2]:.1f} %, min "
              f"{100 * min(perf):.1f} %, max {100 * max(perf):.1f} %; mean latency {statistics.mean(l0s):.1f} / "
              f"{statistics.mean(l1s):.1f} = {100 * statistics.mean(l0s) / statistics.mean(l1s):.1f} %; dropped "
              f"{drops} of {measured} measured packets ({100 * drops / max(measured, 1):.1f} %)")
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"gen": a.gen, "faults": None if a.shape else a.faults, "shape": a.shape,
                           "size": a.size if a.shape else None, "fail_at": a.fail_at, "duration": a.duration,
                           "pattern": a.pattern, "load": a.load, "sim_args": a.sim_args, "sets": a.sets,
                           "deadlocked": deadlocked, "performance": perf, "mean": statistics.mean(perf),
                           "median": statistics.median(perf), "q1": q[0], "q3": q[2], "min": min(perf),
                           "max": max(perf), "latency_fault_free": statistics.mean(l0s),
                           "latency_faulty": statistics.mean(l1s), "dropped": drops, "measured": measured},
                          f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
