"""The project's own directories, for the lint scripts (check_file_size.py, check_test_map.py).

walk(root, skip_top) yields (dirpath, rel_dir, filenames) like os.walk, in sorted order, without
the top-level directories in skip_top, the top-level build* directories and any configured build
directory (one holding a CMakeCache.txt) anywhere.
"""
import os


def walk(root, skip_top):
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in skip_top and not d.startswith("build")]
        # a configured build directory anywhere (e.g. out/, sys-*/): not project sources
        dirnames[:] = sorted(d for d in dirnames if not os.path.isfile(os.path.join(dirpath, d, "CMakeCache.txt")))
        yield dirpath, rel_dir, sorted(filenames)
