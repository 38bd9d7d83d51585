#!/usr/bin/env python3
"""Runs every input of tests/data/bad/ (scripts/gen_bad_corpus.py) through ftroute route,
check, export and sim (BookSim2 configs: sim --booksim-config only), each under `timeout`-like
limits (30 s, 1 GiB address space).

A malformed input ("bad" in MANIFEST.tsv) must make every command:
  * exit with 1 or 2 (never a signal, never a timeout, never 0),
  * print exactly one error line ("ftroute <cmd>: ...", warnings aside) that names the input
    file and its line (file:N:), a switch/port ("NODE"[P], switch ...), or says what is wrong
    with the whole file (empty, a directory, no nodes, ...),
  * print no bare exception name (std::..., bad_alloc, stoi, basic_string, ...),
  * leave no output file behind (each command runs in an empty directory).
A valid-but-odd input ("ok": CRLF, blank lines, comments, GUID-only names) must give the same
exit code as its pristine base file for every command (route: 0).

usage: bad_corpus_test.py FTROUTE SOURCE_DIR SCRATCH_DIR [-j N] [--only REGEX] [--no-as-limit] [--sample N]
(the ASan build of scripts/test.sh passes --no-as-limit, as ASan's shadow memory needs more address
space than the limit, and --sample 4, every 4th input, as each ASan process starts slowly)
"""
import argparse
import concurrent.futures as cf
import os
import re
import resource
import shutil
import subprocess
import sys
import threading

AS_LIMIT = 1 << 30
TIMEOUT = 30  # per command; a hang fails, a loaded machine does not
BARE = re.compile(r"std::|bad_alloc|basic_string|\bstoi\b|\bstoull?\b|\bstol\b|vector::|out_of_range|"
                  r"invalid_argument|terminate called|Segmentation|Aborted|what\(\)")
WHOLE_FILE = re.compile(r"empty file|is a directory|no nodes|no forwarding table|file too large|no links|"
                        r"cannot open")
ERR = re.compile(r"^ftroute [a-z-]+: (?!warning:)")


NO_AS_LIMIT = False  # --no-as-limit: ASan builds reserve terabytes of shadow address space


def limits():
    if not NO_AS_LIMIT:
        resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def commands(role, f, base, src):
    """The four commands for one input file `f` (absolute)."""
    fab, dump = (base.split(",") + [None])[:2]
    fab = os.path.join(src, fab)
    dump = os.path.join(src, dump) if dump else os.path.join(src, "tests/data/lft/2sw4hca.opensm-lfts.dump")
    sim = ["--measure", "100", "--warmup", "10", "--load", "0.1", "--csv", "out.csv"]
    if role == "net":
        return {
            "route": ["route", "-e", "ft-minhop", f, "-o", "out.dump"],
            "check": ["check", "-f", f, "-l", dump],
            "export": ["export", "-f", f, "-l", dump, "--to", "dump_fts", "-o", "out.txt"],
            "sim": ["sim", "--fabric", f, "--engine", "ft-minhop"] + sim,
        }
    if role == "lft":
        return {
            "route": ["route", "-e", "lft-file", "--opt", "file=" + f, fab, "-o", "out.dump"],
            "check": ["check", "-f", fab, "-l", f],
            "export": ["export", "-f", fab, "-l", f, "--to", "opensm-lfts", "-o", "out.dump"],
            "sim": ["sim", "--fabric", fab, "--lfts", f] + sim,
        }
    if role == "booksim":  # a BookSim2 config: only `sim --booksim-config` reads it
        return {"sim": ["sim", "--booksim-config", f] + sim}
    opt = "--" + role  # --sl / --sl2vl
    return {
        "route": ["route", "-e", "lft-file", "--opt", f"file={dump},{role}={f}", fab, "-o", "out.dump"],
        "check": ["check", "-f", fab, "-l", dump, opt, f],
        "export": ["export", "-f", fab, "-l", dump, opt, f, "--to", "ibdmchk", "-o", "outdir"],
        "sim": ["sim", "--fabric", fab, "--lfts", dump, opt, f] + sim,
    }


def run(ftroute, args, cwd):
    for e in os.listdir(cwd):
        p = os.path.join(cwd, e)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    try:
        p = subprocess.run([ftroute] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, preexec_fn=limits)
        rc = p.returncode
        err = p.stderr.decode("latin-1")
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    left = sorted(os.listdir(cwd))
    return rc, err, left


def check_bad(rel, f, cmd, rc, err, left):
    problems = []
    if rc not in (1, 2):
        problems.append(f"exit {rc} (expected 1 or 2)")
    errs = [l for l in err.splitlines() if ERR.match(l)]
    if len(errs) != 1:
        problems.append(f"{len(errs)} error lines (expected 1)")
    for l in errs[:1]:
        names_file = f in l
        where = re.search(re.escape(f) + r":\d+:", l) or re.search(r'"[^"]*"\[\d+\]|switch|port \d+', l) or \
            (names_file and WHOLE_FILE.search(l))
        if not names_file:
            problems.append("the error line does not name the file")
        elif not where:
            problems.append("the error line names no line, switch or port")
    if BARE.search(err):
        problems.append("bare exception name / crash text")
    if left:
        problems.append(f"left behind: {' '.join(left)}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ftroute")
    ap.add_argument("src")
    ap.add_argument("scratch")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--no-as-limit", action="store_true")
    ap.add_argument("--sample", type=int, default=1, help="every N-th input only (the ASan build: slow starts)")
    a = ap.parse_args()
    global NO_AS_LIMIT
    NO_AS_LIMIT = a.no_as_limit
    corpus = os.path.join(a.src, "tests/data/bad")
    rows = []
    with open(os.path.join(corpus, "MANIFEST.tsv")) as m:
        for line in m:
            if line.startswith("#") or not line.strip():
                continue
            rel, role, base, expect, what = line.rstrip("\n").split("\t")
            if a.only and not re.search(a.only, rel):
                continue
            rows.append((rel, role, base, expect, what))
    rows = [r for i, r in enumerate(rows) if i % a.sample == 0 or (r[3] == "ok" and r[4] == "as written")]
    shutil.rmtree(a.scratch, ignore_errors=True)
    os.makedirs(a.scratch)
    local = threading.local()
    counter = iter(range(1 << 30))
    lock = threading.Lock()

    def workdir():
        if not hasattr(local, "d"):
            with lock:
                local.d = os.path.join(a.scratch, "w%d" % next(counter))
            os.makedirs(local.d)
        return local.d

    baseline = {}  # (role, base, cmd) -> exit code of the pristine base

    def base_rc(role, base, cmd):
        key = (role, base, cmd)
        if key not in baseline:
            fab, dump = (base.split(",") + [None])[:2]
            pristine = {"net": fab, "lft": dump, "booksim": fab}.get(role)
            if role in ("sl", "sl2vl"):  # the pristine files are the corpus' "as written" ones
                pristine = next(r for r in rows if r[1] == role and r[4] == "as written")[0]
                pristine = os.path.join("tests/data/bad", pristine)
            rc, _, _ = run(a.ftroute, commands(role, os.path.join(a.src, pristine), base, a.src)[cmd], workdir())
            baseline[key] = rc
        return baseline[key]

    def one(row):
        rel, role, base, expect, what = row
        f = os.path.join(corpus, rel)
        out = []
        for cmd, args in commands(role, f, base, a.src).items():
            rc, err, left = run(a.ftroute, args, workdir())
            if expect == "bad":
                probs = check_bad(rel, f, cmd, rc, err, left)
            else:
                want = base_rc(role, base, cmd)
                probs = [] if rc == want and (cmd != "route" or rc == 0) else [f"exit {rc}, pristine base: {want}"]
            if probs:
                out.append(f"FAIL {rel} ({what}) {cmd}: {'; '.join(probs)}\n    ftroute {' '.join(args)}\n" +
                           "".join("    | " + l + "\n" for l in err.splitlines()[:4]))
        return out

    # baselines first (serially: they are shared)
    for r in rows:
        if r[3] == "ok":
            for cmd in commands(r[1], "", r[2], a.src):
                base_rc(r[1], r[2], cmd)
    failures = []
    with cf.ThreadPoolExecutor(max_workers=a.j) as ex:
        for res in ex.map(one, rows):
            failures += res
    for f in failures:
        sys.stdout.write(f)
    nbad = sum(1 for r in rows if r[3] == "bad")
    print(f"{len(rows)} inputs ({nbad} malformed, {len(rows) - nbad} valid-but-odd) x their commands: "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
