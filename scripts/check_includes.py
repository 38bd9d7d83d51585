#!/usr/bin/env python3
"""The dependency rule of docs/ARCHITECTURE.md: a folder includes only folders below it.

Reads every #include "..." of the C++ sources and headers under the top-level folders, finds the
file it names the way the build does (the including file's own folder, then every library's
include directories), and fails when that file lives in a folder whose level is not lower than the
including folder's (same folder is fine). Prints one line per violation, "file:line: ...", and
exits 1; exit 0 when the rule holds. Angle-bracket includes (system, gtest, OpenSM) are not
project files and are skipped; a quoted "ftroute/..." include that matches no project header is
an error too (it would silently resolve elsewhere).

Second rule: a component's interface is its include/ folder. Another folder (tests/ aside) may
include only headers under some include/ directory; anything else is private to its folder.

usage: check_includes.py [SOURCE_DIR]     (ctest: architecture.include_rule, label unit)
       check_includes.py --self-test      (ctest: architecture.include_rule_catches)
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
    "routing_engines/engines/kns/include",
    "routing_engines/engines/ftree_misroute/include",
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


def scan(src):
    """(problems, #include lines checked) for the tree at src."""
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
                        elif here != "tests" and "/include/" not in os.path.relpath(target, src):
                            # a component's interface is its include/ folder; the rest is private to it
                            problems.append(
                                f"{rel}:{lineno}: {here}/ includes \"{name}\", a header private to {there}/ "
                                f"({os.path.relpath(target, src)}): include the component's public headers "
                                f"(<component>/include/ftroute/...) only")
    return problems, checked


def self_test():
    """A tree with one violation of each rule and the allowed cases beside them."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

        write("routing_engines/engines/kns/kns_private.hpp", "int a;\n")
        write("routing_engines/engines/kns/include/ftroute/kns/kns_public.hpp", "int b;\n")
        write("routing_engines/engines/kns/kns.cpp", '#include "kns/kns_private.hpp"\n')  # own folder
        write("cli/uses_private.cpp", '#include "kns/kns_private.hpp"\n')                   # violation
        write("cli/uses_public.cpp", '#include "ftroute/kns/kns_public.hpp"\n')
        write("tests/unit/uses_private_test.cpp", '#include "kns/kns_private.hpp"\n')       # tests may
        write("check/include/ftroute/low.hpp", '#include "ftroute/kns/kns_public.hpp"\n')    # violation: up
        problems, _ = scan(root)
    want = ["cli/uses_private.cpp:1", "check/include/ftroute/low.hpp:1"]
    got = sorted(p.split(": ", 1)[0] for p in problems)
    ok = got == sorted(want)
    print(f"check_includes --self-test: {'OK' if ok else 'FAIL'} (want {sorted(want)}, got {got})")
    for p in problems:
        print("  " + p)
    return 0 if ok else 1


def main(argv):
    if argv[:1] == ["--self-test"]:
        return self_test()
    src = os.path.abspath(argv[0] if argv else os.path.join(os.path.dirname(__file__), ".."))
    problems, checked = scan(src)
    for p in problems:
        print(p)
    print(f"check_includes: {checked} #include lines, {len(problems)} violations of the dependency rule")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
