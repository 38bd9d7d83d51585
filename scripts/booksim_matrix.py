#!/usr/bin/env python3
"""The BookSim2 validation matrix (issue 21; docs/flitsim.md "Validation against BookSim2").
Called by scripts/validate_booksim.sh, which finds or builds the BookSim2 binary.

For every configuration it writes one BookSim2 config file (OUT/cfg/NAME.cfg), runs it in BookSim2
at every load (`booksim NAME.cfg injection_rate=L`) and in flitsim with the very same file
(`ftroute sim --booksim-config NAME.cfg --load L --json` + --flitsim-args), and writes
  OUT/matrix.csv        one row per (configuration, load): both simulators' offered, accepted, latency
  OUT/matrix.md         per configuration: zero-load latency, latency below 70 % of saturation,
                        saturation throughput, each with its relative difference and the target
  OUT/svg/NAME.svg      latency vs offered and accepted vs offered, both simulators overlaid
  OUT/logs/             every command's output

usage: booksim_matrix.py --booksim EXE --ftroute EXE --out DIR [--quick] [--only REGEX]
                         [--flitsim-args "..."] [--booksim-args "key=value ..."] [--timeout S]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time

# Every run lets BookSim2 measure exactly three sample periods after three warm-up periods
# (stopping thresholds that always pass) and keep going past saturation (latency_thres), so both
# simulators measure the same window: warm-up 3 x sample_period, measurement 3 x sample_period.
COMMON = {
    "injection_rate_uses_flits": "1",
    "latency_thres": "1000000000.0",
    "stopping_thres": "1000000000.0",
    "acc_stopping_thres": "1000000000.0",
    "warmup_periods": "3",
    "sample_period": "1000",
    "max_samples": "10",
}

# Loads per traffic (flits/node/cycle): from near zero to past the channel-load bound (uniform on a
# k x k mesh 4/k; transpose and bit reversal on the 8x8 mesh with XY routing 1/7: k-1 flows share
# the link into a diagonal switch; tornado 1/3: three flows per link; uniform on the 8x8 torus 1.0
# (2 VCs get well below); the fat tree has full bisection, ejection and head-of-line blocking limit it).
LOADS = {
    "mesh8_uniform": ([0.02, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.55], [0.02, 0.15, 0.25, 0.3, 0.45]),
    "mesh8_perm": ([0.02, 0.05, 0.08, 0.1, 0.12, 0.14, 0.17, 0.22], [0.02, 0.06, 0.1, 0.13, 0.2]),
    "tornado": ([0.02, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.45], [0.02, 0.12, 0.2, 0.28, 0.4]),
    "torus8_uniform": ([0.02, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85], [0.02, 0.2, 0.4, 0.6, 0.85]),
    "mesh16_uniform": ([0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3], [0.02, 0.1, 0.18, 0.3]),
    "tree": ([0.02, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.95], [0.02, 0.3, 0.5, 0.7, 0.95]),
}


def cfg(name, topo, k, n, vcs, pkt, traffic, loads, quick, buf=None):
    keys = {"topology": topo, "k": str(k), "n": str(n),
            "routing_function": "nca" if topo == "fattree" else "dim_order",
            "num_vcs": str(vcs), "vc_buf_size": str(buf if buf else max(8, 4 * pkt)),
            "packet_size": str(pkt), "traffic": traffic}
    return {"name": name, "keys": keys, "loads": LOADS[loads][1 if quick else 0]}


def matrix(quick):
    """The full matrix; --quick keeps the configurations marked q (a few minutes on an idle box)."""
    full = []
    # 8x8 mesh, uniform: 1 and 2 VCs x 1, 4 and 16-flit packets (VC buffers 4 packets, >= 8 flits)
    for vcs in (1, 2):
        for pkt in (1, 4, 16):
            # vc1_p16 is the issue's configuration (64-flit buffers; tests/data/booksim/mesh8_uniform_vc1_p16.cfg)
            full.append(((vcs, pkt) in ((2, 4), (1, 16)), f"mesh8_uniform_vc{vcs}_p{pkt}", "mesh", 8, 2, vcs, pkt,
                         "uniform", "mesh8_uniform", None))
    for tr, lo in (("transpose", "mesh8_perm"), ("bitrev", "mesh8_perm"), ("tornado", "tornado")):
        full.append((tr == "transpose", f"mesh8_{tr}_vc2_p4", "mesh", 8, 2, 2, 4, tr, lo, None))
    # 8x8 torus (dimension order needs 2 VCs: dateline classes; channels take 2 cycles in BookSim2)
    for pkt in (1, 4, 16):
        full.append((pkt == 4, f"torus8_uniform_vc2_p{pkt}", "torus", 8, 2, 2, pkt, "uniform", "torus8_uniform", None))
    full.append((False, "torus8_tornado_vc2_p4", "torus", 8, 2, 2, 4, "tornado", "tornado", None))
    # odd radix: no distance-k/2 ties, which BookSim2 breaks at random per packet and LFTs cannot
    full.append((False, "torus7_uniform_vc2_p4", "torus", 7, 2, 2, 4, "uniform", "torus8_uniform", None))
    full.append((False, "mesh16_uniform_vc2_p4", "mesh", 16, 2, 2, 4, "uniform", "mesh16_uniform", None))
    # fat trees: BookSim2's fattree is the k-ary n-tree; its nca routing picks up ports at random
    for vcs in (1, 2):
        full.append((vcs == 2, f"tree8x2_uniform_vc{vcs}_p4", "fattree", 8, 2, vcs, 4, "uniform", "tree", None))
    full.append((False, "tree8x3_uniform_vc2_p4", "fattree", 8, 3, 2, 4, "uniform", "tree", None))
    # control: a 1-level tree (one switch) has no up ports, so the up-port choice cannot matter
    full.append((False, "tree8x1_uniform_vc2_p4", "fattree", 8, 1, 2, 4, "uniform", "tree", None))
    return [cfg(name, topo, k, n, vcs, pkt, tr, lo, quick, buf)
            for q, name, topo, k, n, vcs, pkt, tr, lo, buf in full if q or not quick]


def write_cfg(path, c):
    with open(path, "w") as f:
        f.write(f"// {c['name']}: written by scripts/booksim_matrix.py (BookSim2 syntax; also read by\n")
        f.write("// `ftroute sim --booksim-config`)\n")
        for k, v in list(c["keys"].items()) + list(COMMON.items()):
            f.write(f"{k} = {v};\n")


NUM = r"([-+0-9.eE]+|nan|inf|-nan)"


def parse_booksim(text):
    """Overall statistics of a BookSim2 run (or the last sample period's if it gave up)."""
    def grab(label, overall):
        pat = re.compile(re.escape(label) + r"\s*=\s*" + NUM + (r" \(1 samples\)" if overall else r"\s*$"), re.M)
        v = pat.findall(text)
        return float(v[-1]) if v else None
    r = {"bs_latency": grab("Packet latency average", True),
         "bs_net_latency": grab("Network latency average", True),
         "bs_accepted": grab("Accepted flit rate average", True),
         "bs_offered": grab("Injected flit rate average", True),
         "bs_hops": grab("Hops average", True)}
    r["bs_complete"] = r["bs_latency"] is not None
    if not r["bs_complete"]:  # saturated run stopped while draining: the measured phases' figures
        r["bs_latency"] = grab("Packet latency average", False)
        r["bs_accepted"] = grab("Accepted flit rate average", False)
        r["bs_offered"] = grab("Injected flit rate average", False)
    m = re.search(r"Time taken is (\d+) cycles", text)
    r["bs_cycles"] = int(m.group(1)) if m else None
    return r


def run_booksim(cmd, log, timeout, load):
    """BookSim2, reading its output as it comes: past saturation (the measured phases accepted
    < 95 % of the offered load) it is stopped when it starts draining the measured packets, which
    would take a long time and only yields the latency of a saturated network; the accepted rate
    of the measured phases is then complete (their last 'Accepted flit rate average=' line)."""
    t0 = time.time()
    p = subprocess.Popen(["nice", "stdbuf", "-oL"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors="replace")
    lines, stopped = [], False
    acc = re.compile(r"^Accepted flit rate average= " + NUM)
    last_acc = None
    for line in p.stdout:
        lines.append(line)
        m = acc.match(line)
        if m:
            last_acc = float(m.group(1))
        if line.startswith("Draining all recorded packets") and last_acc is not None and last_acc < 0.95 * load:
            p.kill()
            stopped = True
            break
        if time.time() - t0 > timeout:
            p.kill()
            stopped = True
            break
    p.wait()
    out = "".join(lines)
    dt = time.time() - t0
    with open(log, "w") as f:
        f.write("$ " + " ".join(cmd) + f"\n# rc={p.returncode} wall={dt:.2f}s stopped_while_draining={stopped}\n" + out)
    return (0 if stopped else p.returncode), out, dt


def run(cmd, log, timeout):
    t0 = time.time()
    try:
        p = subprocess.run(["nice"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, errors="replace")
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), -9
    dt = time.time() - t0
    with open(log, "w") as f:
        f.write("$ " + " ".join(cmd) + f"\n# rc={rc} wall={dt:.2f}s\n" + out)
    return rc, out, dt


def rel(a, b):
    if a is None or b is None or b == 0:
        return None
    return (a - b) / b


def fmt(x, d=3):
    return "-" if x is None else f"{x:.{d}f}"


def pct(x):
    return "-" if x is None else f"{100 * x:+.1f} %"


def summarize(name, rows):
    """Zero-load latency (lowest load), latency at loads below 70 % of BookSim2's saturation,
    saturation throughput (highest accepted over the sweep)."""
    rows = [r for r in rows if r.get("bs_latency") is not None and r.get("fs_latency") is not None]
    if not rows:
        return None
    z = min(rows, key=lambda r: r["load"])
    bs_sat = max(r["bs_accepted"] for r in rows)
    fs_sat = max(r["fs_accepted"] for r in rows)
    # saturation is reached only if some point accepts clearly less than it was offered
    saturated = any(r["bs_accepted"] < 0.95 * r["load"] for r in rows)
    below = [r for r in rows if r["load"] <= 0.7 * bs_sat and r is not z]
    worst = max(below, key=lambda r: abs(rel(r["fs_latency"], r["bs_latency"]))) if below else None
    return {"name": name, "zero_load": z["load"], "bs_zl": z["bs_latency"], "fs_zl": z["fs_latency"],
            "zl_diff": rel(z["fs_latency"], z["bs_latency"]),
            "lat_worst_load": worst["load"] if worst else None,
            "lat_worst_diff": rel(worst["fs_latency"], worst["bs_latency"]) if worst else None,
            "bs_sat": bs_sat, "fs_sat": fs_sat, "sat_diff": rel(fs_sat, bs_sat) if saturated else None,
            "saturated": saturated}


def svg(path, name, rows):
    W, H, PL, PB, PT = 900, 380, 60, 45, 40
    pw = (W - 3 * PL) / 2
    ph = H - PB - PT
    xs = [r["load"] for r in rows]
    xmax = max(xs + [0.1]) * 1.05
    lats = [v for r in rows for v in (r.get("bs_latency"), r.get("fs_latency")) if v is not None]
    lmax = min(max(lats + [1]) * 1.05, 4 * min(lats + [1]) + 400)
    amax = xmax
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="16" text-anchor="middle" font-size="13">{name}: BookSim2 (blue, circles) vs flitsim (red, squares)</text>']

    def panel(x0, ymax, key, ylabel, diag):
        def X(v):
            return x0 + pw * v / xmax

        def Y(v):
            return PT + ph - ph * min(v, ymax) / ymax
        out.append(f'<rect x="{x0}" y="{PT}" width="{pw}" height="{ph}" fill="none" stroke="black"/>')
        for i in range(6):
            xv, yv = xmax * i / 5, ymax * i / 5
            out.append(f'<text x="{X(xv)}" y="{PT + ph + 14}" text-anchor="middle">{xv:.2f}</text>')
            out.append(f'<text x="{x0 - 4}" y="{Y(yv) + 4}" text-anchor="end">{yv:.3g}</text>')
        out.append(f'<text x="{x0 + pw / 2}" y="{H - 8}" text-anchor="middle">offered (flits/node/cycle)</text>')
        out.append(f'<text x="{x0 + 4}" y="{PT - 6}">{ylabel}</text>')
        if diag:
            out.append(f'<line x1="{X(0)}" y1="{Y(0)}" x2="{X(min(xmax, ymax))}" y2="{Y(min(xmax, ymax))}" '
                       'stroke="#bbb" stroke-dasharray="4,3"/>')
        for pre, color, mark in (("bs", "#1f5fbf", "c"), ("fs", "#c0302a", "s")):
            pts = [(X(r["load"]), Y(r[pre + key])) for r in rows if r.get(pre + key) is not None]
            if len(pts) > 1:
                out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5" points="' +
                           " ".join(f"{a:.1f},{b:.1f}" for a, b in pts) + '"/>')
            for a, b in pts:
                out.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{color}"/>' if mark == "c" else
                           f'<rect x="{a - 3:.1f}" y="{b - 3:.1f}" width="6" height="6" fill="{color}"/>')
    panel(PL, lmax, "_latency", "packet latency (cycles)", False)
    panel(2 * PL + pw, amax, "_accepted", "accepted (flits/node/cycle)", True)
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def run_point(a, c, path, load, seed, extra):
    """One point in both simulators; seed None = each simulator's default seed (BookSim2's 0, which
    --booksim-config passes on to flitsim). Returns (row, BookSim2 seconds, flitsim seconds)."""
    row = {}
    tag = "" if seed is None else f"_s{seed}"
    lg = os.path.join(a.out, "logs", f"{c['name']}_{load:.3f}{tag}")
    # the near-zero load point is measured 10x longer in both (few packets per period there,
    # and the zero-load target is 2 %)
    zl = load <= 0.05 and load == c["loads"][0]
    bs_seed = [] if seed is None else [f"seed={seed}"]
    fs_seed = [] if seed is None else ["--seed", str(seed)]
    rc, out, dt_bs = run_booksim([a.booksim, path, f"injection_rate={load}"] + (["sample_period=10000"] if zl else [])
                                 + bs_seed + a.booksim_args.split(), lg + ".booksim.txt", a.timeout, load)
    row.update(parse_booksim(out))
    row["bs_rc"], row["bs_seconds"] = rc, round(dt_bs, 2)
    cmd = [a.ftroute, "sim", "--booksim-config", path, "--load", str(load), "--json"] + \
        (["--warmup", "30000", "--measure", "30000"] if zl else []) + fs_seed + extra
    rc, out, dt_fs = run(cmd, lg + ".flitsim.txt", a.timeout)
    row["fs_rc"], row["fs_seconds"] = rc, round(dt_fs, 2)
    try:
        j = json.loads(out[out.index("{"):])
        p = j["points"][0]
        row.update({"fs_latency": p["latency"]["avg"], "fs_net_latency": p["latency"]["avg_network"],
                    "fs_accepted": p["accepted"], "fs_offered": p["offered"], "fs_hops": p["avg_hops"],
                    "fs_drained": p["drained"], "fs_cycles": p["cycles"]})
    except (ValueError, KeyError, IndexError):
        row.update({"fs_latency": None, "fs_accepted": None})
    return row, dt_bs, dt_fs


def seed_range(r, sim):
    lo, hi = r.get(sim + "_latency_min"), r.get(sim + "_latency_max")
    return "" if lo is None else f" [{fmt(lo, 1)}-{fmt(hi, 1)}]"


MEAN_KEYS = ("bs_offered", "bs_accepted", "bs_latency", "bs_net_latency", "bs_hops", "fs_offered", "fs_accepted",
             "fs_latency", "fs_net_latency", "fs_hops", "bs_seconds", "fs_seconds")


def merge_seeds(runs):
    """One row per point: the mean over the seeds of every figure (None if a seed gave none), the
    seeds' lowest and highest packet latency, complete/drained only if every seed's was."""
    if len(runs) == 1:
        return runs[0]
    row = {"seeds": len(runs)}
    for k in MEAN_KEYS:
        v = [r.get(k) for r in runs]
        row[k] = None if any(x is None for x in v) else sum(v) / len(v)
    for sim in ("bs", "fs"):
        v = [r.get(sim + "_latency") for r in runs]
        if all(x is not None for x in v):
            row[sim + "_latency_min"], row[sim + "_latency_max"] = min(v), max(v)
    row["bs_complete"] = all(r.get("bs_complete") for r in runs)
    row["fs_drained"] = all(r.get("fs_drained", True) for r in runs)
    row["bs_cycles"] = sum(r.get("bs_cycles") or 0 for r in runs)
    row["fs_cycles"] = sum(r.get("fs_cycles") or 0 for r in runs)
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--booksim", required=True)
    ap.add_argument("--ftroute", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--flitsim-args", default="")
    ap.add_argument("--booksim-args", default="")
    ap.add_argument("--loads", default="", help="comma-separated loads instead of each configuration's sweep")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--seeds", type=int, default=1,
                    help="run every point with seeds 0..N-1 in both simulators and report the means and the "
                         "seeds' latency range (default 1: each simulator's default seed)")
    a = ap.parse_args()
    for d in ("cfg", "svg", "logs"):
        os.makedirs(os.path.join(a.out, d), exist_ok=True)
    mat = [c for c in matrix(a.quick) if re.search(a.only, c["name"])]
    if a.loads:
        loads = sorted(float(x) for x in a.loads.split(","))
        for c in mat:
            c["loads"] = loads
    if not mat:
        print("booksim_matrix: no configuration matches --only " + a.only, file=sys.stderr)
        return 2
    extra = a.flitsim_args.split()
    if a.seeds < 1:
        print("booksim_matrix: --seeds must be >= 1", file=sys.stderr)
        return 2
    seeds = [None] if a.seeds == 1 else list(range(a.seeds))
    all_rows, summaries = [], []
    bs_time = fs_time = 0.0
    bs_cycles = fs_cycles = 0
    for c in mat:
        path = os.path.join(a.out, "cfg", c["name"] + ".cfg")
        write_cfg(path, c)
        rows = []
        for load in c["loads"]:
            row = {"config": c["name"], "load": load}
            runs = []
            for seed in seeds:
                r1, dt_bs, dt_fs = run_point(a, c, path, load, seed, extra)
                bs_time += dt_bs
                fs_time += dt_fs
                bs_cycles += r1.get("bs_cycles") or 0
                fs_cycles += r1.get("fs_cycles") or 0
                runs.append(r1)
            row.update(merge_seeds(runs))
            rows.append(row)
            print(f"{c['name']:32s} load {load:.3f}: BookSim2 lat {fmt(row.get('bs_latency'), 1):>8s} acc "
                  f"{fmt(row.get('bs_accepted'))} | flitsim lat {fmt(row.get('fs_latency'), 1):>8s} acc "
                  f"{fmt(row.get('fs_accepted'))}", flush=True)
        all_rows += rows
        s = summarize(c["name"], rows)
        if s:
            summaries.append(s)
        svg(os.path.join(a.out, "svg", c["name"] + ".svg"), c["name"], rows)
    cols = ["config", "load", "bs_offered", "bs_accepted", "bs_latency", "bs_net_latency", "bs_hops", "bs_complete",
            "fs_offered", "fs_accepted", "fs_latency", "fs_net_latency", "fs_hops", "fs_drained", "bs_seconds",
            "fs_seconds", "bs_cycles", "fs_cycles", "seeds", "bs_latency_min", "bs_latency_max", "fs_latency_min",
            "fs_latency_max"]
    with open(os.path.join(a.out, "matrix.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols, extrasaction="ignore")
        w.writeheader()
        for r in all_rows:
            w.writerow(r)
    with open(os.path.join(a.out, "matrix.md"), "w") as f:
        f.write("| configuration | zero-load latency BookSim2 / flitsim (diff, target 2 %) | worst latency diff "
                "below 70 % of saturation (at load; target 5 %) | saturation throughput BookSim2 / flitsim "
                "(diff, target 5 %) |\n|---|---|---|---|\n")
        for s in summaries:
            sat = (f"{fmt(s['bs_sat'])} / {fmt(s['fs_sat'])} ({pct(s['sat_diff'])})" if s["saturated"] else
                   f"not reached ({fmt(s['bs_sat'])} / {fmt(s['fs_sat'])})")
            f.write(f"| {s['name']} | {fmt(s['bs_zl'], 1)} / {fmt(s['fs_zl'], 1)} ({pct(s['zl_diff'])}) | "
                    f"{pct(s['lat_worst_diff'])} (at {fmt(s['lat_worst_load'], 2)}) | {sat} |\n")
        f.write("\nPer load (latency in cycles, rates in flits/node/cycle):\n\n| configuration | load | BookSim2 "
                "accepted | flitsim accepted | BookSim2 latency | flitsim latency |\n|---|---|---|---|---|---|\n")
        for r in all_rows:
            f.write(f"| {r['config']} | {r['load']:.2f} | {fmt(r.get('bs_accepted'))} | {fmt(r.get('fs_accepted'))} "
                    f"| {fmt(r.get('bs_latency'), 1)}{seed_range(r, 'bs')}{'' if r.get('bs_complete') else ' (unstable)'} | "
                    f"{fmt(r.get('fs_latency'), 1)}{seed_range(r, 'fs')}{'' if r.get('fs_drained', True) else ' (not drained)'} |\n")
        if a.seeds > 1:
            f.write(f"\nEvery figure is the mean of seeds 0-{a.seeds - 1} in each simulator; [lowest-highest] "
                    "packet latency of the seeds.\n")
        f.write(f"\nBookSim2: {bs_cycles} cycles in {bs_time:.0f} s wall; flitsim: {fs_cycles} cycles in "
                f"{fs_time:.0f} s wall (incl. process start and fabric build).\n")
    print(open(os.path.join(a.out, "matrix.md")).read().split("\nPer load")[0])
    bad = [r for r in all_rows if r.get("bs_latency") is None or r.get("fs_latency") is None]
    if bad:
        print(f"booksim_matrix: {len(bad)} points without a result (see {a.out}/logs)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
