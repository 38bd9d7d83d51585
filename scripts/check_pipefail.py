#!/usr/bin/env python3
"""Under `set -o pipefail`, a pipeline whose reader stops early fails at random.

`X | grep -q P`, `X | head -1` and friends close the pipe as soon as they have what they need;
if X writes again after that it dies of SIGPIPE, and with pipefail the whole pipeline fails -
but only when X's output is larger than the pipe buffer or the scheduler lets the reader finish
first. That is how integration.install failed one CI run in a few: `dpkg-deb -c DEB | grep -q`
under load ("dpkg-deb: error: tar subprocess was killed by signal (Broken pipe)").

This check scans every shell script of the repository that turns pipefail on and names each
line where an early-exiting reader follows a `|`. Write instead:
  X | grep P > /dev/null      (grep without -q reads all of its input)
  X | sed -n 1p               (instead of | head -1 / head -n 1)
  grep -q P FILE / grep -m1 P FILE   (no pipe at all)
Usage: check_pipefail.py REPO_ROOT | FILE   (exit 1 and one line per finding; a FILE is checked
whatever its name: tests/data/lint/early_reader.sh.in shows the check catches each form)
"""
import pathlib
import re
import sys

# After a `|` (not `||`): `head`, or `grep` whose options (before the pattern) include -q/-m
# (alone or in a cluster such as -qx) or --quiet/--silent/--max-count.
EARLY_READER = re.compile(
    r"(?<!\|)\|(?!\|)\s*(?:head\b|grep(?:\s+-(?!-)[A-Za-z0-9]+)*?"
    r"\s+(?:-(?!-)[A-Za-z0-9]*[qm][A-Za-z0-9]*|--quiet|--silent|--max-count)\b)")
SKIP_DIRS = {".git", "build", "third_party"}


def scripts(root: pathlib.Path):
    if root.is_file():
        yield root, root.name
        return
    for p in sorted(root.rglob("*.sh")):
        rel = p.relative_to(root)
        if rel.parts and (rel.parts[0] in SKIP_DIRS or rel.parts[0].startswith("build")):
            continue
        yield p, rel


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    findings = []
    checked = 0
    for path, rel in scripts(root):
        text = path.read_text(errors="replace")
        if "pipefail" not in text:
            continue
        checked += 1
        for no, line in enumerate(text.splitlines(), 1):
            code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
            if EARLY_READER.search(code):
                findings.append(f"{rel}:{no}: early-exiting reader after '|' under pipefail: {line.strip()}")
    for f in findings:
        print(f)
    print(f"check_pipefail: {checked} pipefail scripts, {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
