#!/usr/bin/env python3
"""The dependency rule of docs/ARCHITECTURE.md: a folder includes only folders below it.

Reads every #include "..." of the C++ sources and headers under the top-level folders, finds the
file it names the way the build does (the including file's own folder, then every library's
include directories), and fails when that file lives in a folder whose level is not lower than the
including folder's (same folder is fine). Prints one line per violation, "file:line: ...", and
exits 1; exit 0 when the rule holds. Angle-bracket includes (system, gtest, OpenSM) are not
project files and are skipped; a quoted "ftroute/..." include that matches no project header is
an error too (it would silently resolve elsewhere).

usage: check_includes.py [SOURCE_DIR]     (ctest: architecture.include_rule, label unit)
"""
import os
import re
import sys

# Folder -> level. A folder may include its own files and folders of a strictly lower level.
LEVELS = {
    "fabric": 0,            # fabric model, .net I/O, routing result, engine interface
    "ibsim_topologies": 1,  # generators, shipped fabrics, mesh/torus recognition
    "lft_export": 2,        # LFT / SL / SL2VL file formats
    "check": 3,             # route walk, CDG + cycle search, validators
    "routing_engines": 4,   # engines (one folder per paper) + registry
    "flitsim": 5,           # flit simulator (+ FT-DRB source, NAC, FT-DRB evaluation)
    "report": 5,            # pictures of a routed fabric (check --svg)
    "campaign": 6,          # fail-in-place campaigns
    "plugin": 6,            # libftroute.so + its OpenSM-free adapter
    "cli": 7,               # the ftroute command
    "bench": 7,             # benchmarks
    "tests": 8,             # unit + integration tests
}

# Include roots, as the CMake targets export them (target_include_directories).
INCLUDE_ROOTS = [
    "fabric/include",
    "ibsim_topologies/include",
    "lft_export/include",
    "check/include",
    "routing_engines/include",
    "routing_engines/engines",
    "routing_engines/engines/dqr/include",
    "flitsim/include",
    "report/include",
    "campaign/include",
    "plugin",
    "cli",
    "bench",
    "tests/integration",
]

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(rel):
    return rel.split("/", 1)[0]


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    problems = []
    checked = 0
    for top in sorted(LEVELS):
        for dirpath, dirnames, filenames in os.walk(os.path.join(src, top)):
            dirnames[:] = sorted(d for d in dirnames if d != "data")  # tests/data: inputs, not code
            for fn in sorted(filenames):
                if not fn.endswith((".cpp", ".hpp", ".h", ".cc", ".inc")):
                    continue
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, src)
                here = folder_of(rel)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        checked += 1
                        name = m.group(1)
                        candidates = [os.path.join(dirpath, name)] + [os.path.join(src, r, name) for r in INCLUDE_ROOTS]
                        target = next((c for c in candidates if os.path.isfile(c)), None)
                        if target is None:
                            if name.startswith("ftroute/"):
                                problems.append(f"{rel}:{lineno}: #include \"{name}\" matches no project header")
                            continue
                        there = folder_of(os.path.relpath(target, src))
                        if there == here:
                            continue
                        if there not in LEVELS:
                            problems.append(f"{rel}:{lineno}: #include \"{name}\" is in {there}/, which has no level")
                        elif LEVELS[there] >= LEVELS[here]:
                            problems.append(
                                f"{rel}:{lineno}: {here}/ (level {LEVELS[here]}) includes \"{name}\" from {there}/ "
                                f"(level {LEVELS[there]}): a folder includes only folders below it")
    for p in problems:
        print(p)
    print(f"check_includes: {checked} #include lines, {len(problems)} violations of the dependency rule")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
