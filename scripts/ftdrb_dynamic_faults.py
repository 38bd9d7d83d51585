#!/usr/bin/env python3
"""FT-DRB under the thesis' dynamic faults (seed 000, docs/ftdrb.md "Dynamic faults"): for each
topology and traffic pattern, 10 % of the switch-to-switch links fail (a) permanently from the
middle of the measured window, (b) permanently from a random cycle of the window, (c) for a random
spell of up to 10 % of the window from a random cycle (the thesis' transient faults). The tables are
never re-routed. Methods (the same fault sets and traffic seeds for each):
  ftdrb         FT-DRB source + escape paths, every path on VL 0 (`ftdrb deadlock=recovery`) and
                NAC for deadlock recovery: the thesis' set-up, escape paths plus NAC instead of VLs;
  ftdrb-layers  the same on the engine's deadlock-free VL layers, without NAC (LMC 2 needs 9-12
                VLs on the 8x8 torus and more than 15 on the 16x16 one, which is left out);
  single        one path per destination (base LID), packets meeting a dead link dropped until
                the subnet manager re-routes (after the window): single path without FT-DRB.
Runs scripts/ftdrb_thesis_faults.py per cell and prints one markdown table (performance =
fault-free / faulty latency, mean over the fault sets with the lowest set in brackets; lost =
measured packets dropped).

  scripts/ftdrb_dynamic_faults.py [--sets 30] [--load 0.02] [--topos torus:8x8=12,...]
        [--patterns uniform,...] [--methods ftdrb,ftdrb-layers,single] [--out FILE] [--quick]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
METHODS = {
    "ftdrb": "--engine ftdrb --opt deadlock=recovery --lmc 2 --lid-policy ftdrb --fault-policy escape --nac",
    "ftdrb-layers": "--engine ftdrb --opt max_vls=15 --lmc 2 --lid-policy ftdrb --fault-policy escape",
    "single": "--engine ftdrb --opt deadlock=recovery --lmc 2 --lid-policy base --fault-policy drop --nac",
}
SCHEDULES = [("permanent, from 50 %", ["--fail-at", "0.5"]),
             ("permanent, random start", ["--fail-at", "random"]),
             ("transient (random start, 1-10 % of the window)", ["--fail-at", "random", "--duration", "0.1"])]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ftroute", default=os.path.join(os.path.dirname(HERE), "build", "cli", "ftroute"))
    ap.add_argument("--sets", type=int, default=30)
    ap.add_argument("--load", default="0.02")
    ap.add_argument("--topos", default="torus:8x8=12,torus:16x16=51,fattree:4,3=12",
                    help="SPEC=FAULTS,... (the thesis' 10 %%: 12 / 51 / 12 links)")
    ap.add_argument("--patterns", default="uniform,bitrev,butterfly,shuffle,transpose,complement")
    ap.add_argument("--methods", default="ftdrb,ftdrb-layers,single")
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--measure", type=int, default=8000)
    ap.add_argument("--out", help="write the table here too")
    ap.add_argument("--quick", action="store_true", help="torus:8x8 and uniform, 3 sets, short windows (a smoke test)")
    a = ap.parse_args()
    if a.quick:
        a.sets, a.topos, a.patterns, a.warmup, a.measure = 3, "torus:8x8=12", "uniform", 300, 2000
    topos = []
    # SPEC=FAULTS pairs; a SPEC may itself contain commas (fattree:4,3), so split on '=' first
    parts = a.topos.split("=")
    spec = parts[0]
    for p in parts[1:]:
        faults, _, rest = p.partition(",")
        if not faults.isdigit() or not spec:
            print(f"ftdrb_dynamic_faults: --topos must be SPEC=FAULTS,..., not '{a.topos}'", file=sys.stderr)
            return 2
        topos.append((spec, int(faults)))
        spec = rest
    if spec or not topos:
        print(f"ftdrb_dynamic_faults: --topos must be SPEC=FAULTS,..., not '{a.topos}'", file=sys.stderr)
        return 2
    methods = a.methods.split(",")
    for m in methods:
        if m not in METHODS:
            print(f"ftdrb_dynamic_faults: unknown method '{m}' (known: {', '.join(METHODS)})", file=sys.stderr)
            return 2
    head = "| topology (failed links) | pattern | schedule | " + " | ".join(
        f"{m}: performance (lowest set), lost" for m in methods) + " |"
    lines = [head, "|" + "---|" * (3 + len(methods))]
    print(lines[0] + "\n" + lines[1], flush=True)
    refused = {}  # (spec, method) -> cell, where the engine refused the fabric (more VLs than 15)
    with tempfile.TemporaryDirectory() as tmp:
        for spec, faults in topos:
            for pattern in a.patterns.split(","):
                for sname, sargs in SCHEDULES:
                    cells = []
                    for m in methods:
                        if (spec, m) in refused:
                            cells.append(refused[(spec, m)])
                            continue
                        out = os.path.join(tmp, "s.json")
                        cmd = [sys.executable, os.path.join(HERE, "ftdrb_thesis_faults.py"), "--ftroute", a.ftroute,
                               "--gen", spec, "--faults", str(faults), "--sets", str(a.sets), "--load", a.load,
                               "--pattern", pattern, "--warmup", str(a.warmup), "--measure", str(a.measure),
                               "--sim-args", METHODS[m], "--json", out] + sargs
                        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                        if p.returncode != 0 or not os.path.exists(out):
                            if "virtual layers" in p.stderr:  # the layers do not fit: the same in every cell
                                refused[(spec, m)] = "- (more than 15 VLs)"
                                cells.append(refused[(spec, m)])
                            else:
                                cells.append(f"failed (exit {p.returncode}: {p.stderr.strip()[-200:]})")
                            continue
                        with open(out) as f:
                            r = json.load(f)
                        os.remove(out)
                        dl = f", {len(r['deadlocked'])} deadlocked" if r["deadlocked"] else ""
                        cells.append(f"{100 * r['mean']:.1f} % ({100 * r['min']:.1f} %), "
                                     f"{100 * r['dropped'] / max(r['measured'], 1):.2f} %{dl}")
                    line = f"| {spec} ({faults}) | {pattern} | {sname} | " + " | ".join(cells) + " |"
                    lines.append(line)
                    print(line, flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
