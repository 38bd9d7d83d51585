#!/usr/bin/env python3
"""scripts/ftdrb_thesis_faults.py and scripts/ftdrb_dynamic_faults.py (docs/ftdrb.md "Spatial fault
shapes", "Dynamic faults"): the shapes' links read back as the shapes (a line, an L, a U, a square
of K links per side, in a row or column of a torus or mesh), the fault schedules (start, random
cycles in the window, random spells), bad options refused with exit 2, and the dynamic table's
smoke run: FT-DRB's escape paths lose fewer packets than one path per destination.

  ftdrb_faults_test.py FTROUTE SCRIPTS_DIR
"""
import collections
import re
import subprocess
import sys

FT, SCRIPTS = sys.argv[1], sys.argv[2]
FAULTS = f"{SCRIPTS}/ftdrb_thesis_faults.py"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args):
    return subprocess.run([sys.executable, FAULTS, "--ftroute", FT] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def sets_of(out):
    """[(links [((sw, port), (peer, pport))], schedule args)] of --print-faults output."""
    res = []
    for line in out.splitlines():
        m = re.match(r"set \d+: (.*) \| (.*)$", line)
        if not m:
            continue
        links = [((a, int(p)), (b, int(q))) for a, p, b, q in
                 re.findall(r'"([^"]+)"\[(\d+)\]-"([^"]+)"\[(\d+)\]', m.group(1))]
        res.append((links, m.group(2).split()))
    return res


def xy(name):
    m = re.fullmatch(r"S(\d+)_(\d+)", name)
    return int(m.group(1)), int(m.group(2))


def shape_ok(shape, k, links, A, B):
    """The links form the shape: sides of K links, each in one row or column, joined at corners."""
    ends = [(xy(a[0]), xy(b[0])) for a, b in links]
    deg = collections.Counter()
    for p, q in ends:
        deg[p] += 1
        deg[q] += 1
    # straight sides: a maximal run of links in one row (or column) through degree-2 nodes that
    # continue in the same direction
    horiz = [e for e in ends if e[0][1] == e[1][1]]
    vert = [e for e in ends if e[0][0] == e[1][0]]
    if len(horiz) + len(vert) != len(ends):
        return "a link joins switches that differ in both coordinates"
    rows = collections.Counter(e[0][1] for e in horiz)
    cols = collections.Counter(e[0][0] for e in vert)
    sides = sorted(list(rows.values()) + list(cols.values()))
    want = {"line": [k], "L": [k, k], "U": [k, k, k], "square": [k, k, k, k]}[shape]
    if sides != want:
        return f"sides of {sides} links, want {want}"
    odd = [p for p, d in deg.items() if d == 1]
    nodes = len(deg)
    expect_odd = {"line": 2, "L": 2, "U": 2, "square": 0}[shape]
    expect_nodes = {"line": k + 1, "L": 2 * k + 1, "U": 3 * k + 1, "square": 4 * k}[shape]
    if len(odd) != expect_odd or nodes != expect_nodes or max(deg.values()) > 2:
        return f"{nodes} switches, {len(odd)} ends, degrees up to {max(deg.values())}: not one {shape}"
    return None


for gen, A, B in (("torus:16x16", 16, 16), ("mesh:12x10", 12, 10)):
    for shape in ("line", "L", "U", "square"):
        k = 4
        p = run(["--gen", gen, "--shape", shape, "--size", str(k), "--sets", "6", "--print-faults",
                 "--fail-at", "start"])
        check(p.returncode == 0, f"{gen} {shape}: exit {p.returncode}: {p.stderr}")
        sets = sets_of(p.stdout)
        check(len(sets) == 6, f"{gen} {shape}: {len(sets)} sets printed")
        places = set()
        for links, sched in sets:
            why = shape_ok(shape, k, links, A, B)
            check(why is None, f"{gen} {shape}: {why}: {links}")
            check(all(s == "--fail" or s.startswith("1:") for s in sched), f"{gen} {shape}: --fail-at start: {sched}")
            places.add(tuple(sorted(links)))
        check(len(places) >= 5, f"{gen} {shape}: the sets do not move around: {len(places)} distinct")

# random start and spells: each link fails inside the window and comes back 1..F*measure later
p = run(["--gen", "torus:8x8", "--faults", "5", "--sets", "4", "--print-faults", "--fail-at", "random",
         "--duration", "0.1", "--warmup", "500", "--measure", "2000"])
check(p.returncode == 0, f"random/transient: exit {p.returncode}: {p.stderr}")
for links, sched in sets_of(p.stdout):
    check(len(links) == 5, f"random faults: {len(links)} links")
    fails = {m.group(2): int(m.group(1)) for m in (re.match(r'(\d+):(.*)', s) for s in sched[1::2]) if m}
    kinds = sched[0::2]
    check(kinds.count("--fail") == 5 and kinds.count("--recover") == 5, f"schedule: {sched}")
    for i in range(0, len(sched), 4):
        c0, port = sched[i + 1].split(":", 1)
        c1, port1 = sched[i + 3].split(":", 1)
        check(port == port1 and 500 <= int(c0) < 2500 and 1 <= int(c1) - int(c0) <= 200,
              f"spell {sched[i:i + 4]} not inside the window or longer than 10 %")

# refusals: exit 2 and one reason
for args, what in ((["--gen", "fattree:4,3", "--shape", "L"], "Sx_y"),
                   (["--gen", "torus:8x8", "--fail-at", "later"], "--fail-at"),
                   (["--gen", "torus:8x8", "--duration", "0"], "--duration"),
                   (["--gen", "torus:8x8", "--size", "0", "--shape", "line"], "--size")):
    p = run(args)
    check(p.returncode == 2 and what in p.stderr, f"{args}: exit {p.returncode}, stderr {p.stderr!r}")

# the dynamic table's smoke run: FT-DRB keeps packets single path loses
p = subprocess.run([sys.executable, f"{SCRIPTS}/ftdrb_dynamic_faults.py", "--ftroute", FT, "--quick"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
check(p.returncode == 0, f"dynamic --quick: exit {p.returncode}: {p.stderr}")
rows = [l for l in p.stdout.splitlines() if l.startswith("| torus:8x8")]
check(len(rows) == 3, f"dynamic --quick: {len(rows)} rows:\n{p.stdout}")
for row in rows:
    cells = [c.strip() for c in row.strip("|").split("|")]
    lost = [float(re.search(r"([\d.]+) %$", c).group(1)) for c in cells[3:]]
    perf = [float(re.match(r"([\d.]+) %", c).group(1)) for c in cells[3:]]
    check(len(lost) == 3 and lost[2] > lost[0], f"single path should lose more than FT-DRB: {row}")
    check(all(90 <= x <= 110 for x in perf), f"performance out of range: {row}")
    if "permanent" in cells[2]:
        check(lost[2] > 5, f"permanent faults without re-route: single path loses little: {row}")

print("ftdrb_faults_test:", "FAILED" if failures else "ok", f"({len(failures)} failures)")
sys.exit(1 if failures else 0)
