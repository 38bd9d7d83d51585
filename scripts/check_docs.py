#!/usr/bin/env python3
"""The docs stand alone: nothing points outside the project, and the README reads in a terminal.

Reported (one line per finding, file:line):
  * in every Markdown file (README.md, docs/**/*.md, the folders' README.md): paths that exist only
    on the machine the text was written on - `../shared/...`, `shared/seeds/...`, `shared/docs/...`,
    `/work/...`, `/home/...`, `/root/...`, `/tmp/...` (write `/path/to/booksim2`, `$PWD/dir` or a
    full reference to the paper instead; the papers are in docs/REFERENCES.md, their specs in
    docs/specs/);
  * in the other project sources (C++, shell, Python, CMake): the same paths except `/tmp/` (a
    program may well use /tmp);
  * in the top-level README.md: any line over 120 characters.
Test data (tests/data/), build directories, third_party/ and this script are not scanned.

Usage: check_docs.py REPO_ROOT          (exit 1 on any finding)
       check_docs.py --expect-marked FILE   (FILE is checked like README.md; exit 0 only if the
findings are exactly the lines marked "caught": tests/data/lint/doc_violations.md.in)
"""
import pathlib
import re
import sys

from lint_fixture import compare_marked

MAX_README_LINE = 120
# A path starting a word (not `$out/work/x`, not `docs/tmp/x`).
MACHINE = r"(?<![\w$}./-])/(?:work|home|root)/"
OUTSIDE = re.compile(r"\.\./shared\b|(?<![\w/.-])shared/(?:seeds|docs)\b|" + MACHINE)
OUTSIDE_DOCS = re.compile(OUTSIDE.pattern + r"|(?<![\w$}./-])/tmp/")
SOURCE_EXT = {".cpp", ".hpp", ".h", ".c", ".sh", ".py", ".cmake", ".in"}
SKIP_TOP = {".git", "third_party"}


def files(root: pathlib.Path):
    for p in sorted(root.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(root)
        top = rel.parts[0]
        if top in SKIP_TOP or top.startswith("build") or rel.parts[:2] == ("tests", "data"):
            continue
        if p.resolve() == pathlib.Path(__file__).resolve():
            continue  # this file names the patterns
        if p.suffix == ".md":
            yield p, rel, "doc"
        elif p.suffix in SOURCE_EXT or p.name == "CMakeLists.txt":
            yield p, rel, "source"


def check(path: pathlib.Path, rel, kind: str, readme: bool):
    out = []
    pattern = OUTSIDE_DOCS if kind == "doc" else OUTSIDE
    for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = pattern.search(line)
        if m:
            out.append((no, f"{rel}:{no}: points outside the project ('{m.group(0)}'): {line.strip()[:160]}"))
        if readme and len(line) > MAX_README_LINE:
            out.append((no, f"{rel}:{no}: line of {len(line)} characters (README: at most {MAX_README_LINE})"))
    return out


def main() -> int:
    args = sys.argv[1:]
    if args and args[0] == "--expect-marked":
        path = pathlib.Path(args[1])
        found = check(path, path.name, "doc", readme=True)
        for _, f in found:
            print(f)
        lines = path.read_text(errors="replace").splitlines()
        want = {i for i, l in enumerate(lines, 1) if "<!-- caught" in l}
        got = {no for no, _ in found}
        return compare_marked("check_docs", path.name, lines, want, got)
    root = pathlib.Path(args[0] if args else ".").resolve()
    findings, n = [], 0
    for path, rel, kind in files(root):
        n += 1
        findings += [f for _, f in check(path, rel, kind, readme=(str(rel) == "README.md"))]
    for f in findings:
        print(f)
    print(f"check_docs: {n} files, {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
