#!/usr/bin/env python3
"""No source file over 1,000 lines outside the tests: a file that long has seams a reader expects
to find as separate files (docs/ARCHITECTURE.md, "File size").

Counts the lines of every C++ source and header (.cpp, .hpp, .h, .cc, .inc) of the project and
prints one line per file over the limit, "file: N lines (at most 1000 outside tests/)", then a
summary; exit 1 when any file is over, 0 otherwise. Not counted: tests/ (unit and integration
tests, their data), build directories (top-level folders named build*, and any folder holding a
CMakeCache.txt), third_party/, .git/.

usage: check_file_size.py [--max-lines N] [REPO_ROOT]   (ctest: architecture.file_size)
       check_file_size.py --self-test                   (ctest: architecture.file_size_catches)
  --self-test builds a small tree in a temporary folder (a file of exactly the limit, one line
  over it, a long file under tests/ and one in a build folder) and exits 0 only if exactly the
  file over the limit is reported, with its line count.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import project_tree  # noqa: E402  (the project's directories, shared with the other lint script)

MAX_LINES = 1000
EXTENSIONS = (".cpp", ".hpp", ".h", ".cc", ".inc")
SKIP_TOP = {".git", "tests", "third_party"}


def count_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def oversized(root, limit):
    """(relative path, line count) of every counted file over limit, sorted by path."""
    found = []
    for dirpath, _, filenames in project_tree.walk(root, SKIP_TOP):
        for fn in filenames:
            if not fn.endswith(EXTENSIONS):
                continue
            path = os.path.join(dirpath, fn)
            n = count_lines(path)
            if n > limit:
                found.append((os.path.relpath(path, root), n))
    return sorted(found)


def report(root, limit):
    found = oversized(root, limit)
    for rel, n in found:
        print(f"{rel}: {n} lines (at most {limit} outside tests/): split it along its seams")
    print(f"check_file_size: {len(found)} source file(s) over {limit} lines")
    return found


def self_test():
    limit = MAX_LINES
    with tempfile.TemporaryDirectory() as root:
        def write(rel, n, newline_at_end=True):
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("\n".join(f"int x{i};" for i in range(n)) + ("\n" if newline_at_end else ""))

        write("check/at_limit.cpp", limit)
        write("check/over.cpp", limit + 1, newline_at_end=False)  # the last line counts too
        write("plugin/small.hpp", 10)
        write("tests/unit/long_test.cpp", 3 * limit)
        write("build/gen/long.cpp", 3 * limit)
        write("out/CMakeCache.txt", 1)
        write("out/gen/long.cpp", 3 * limit)
        found = report(root, limit)
    want = [("check/over.cpp", limit + 1)]
    ok = found == want
    print(f"check_file_size --self-test: {'OK' if ok else 'FAIL'} (want {want}, got {found})")
    return 0 if ok else 1


def main(argv):
    limit = MAX_LINES
    args = list(argv)
    if args[:1] == ["--self-test"]:
        return self_test()
    if args[:1] == ["--max-lines"]:
        limit = int(args[1])
        args = args[2:]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    return 1 if report(root, limit) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
