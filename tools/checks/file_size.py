#!/usr/bin/env python3
"""The file-size check: no source or documentation file is over 600 lines
(docs/architecture.md, "House rules"). A longer file holds more than one
concept; split it along them. ctest house.file_size runs the check
(tools/checks/file_size_test.py, with a deliberately long file that must
fail).

Files: every file under ROOT outside build/, hidden folders and
node_modules (the walk of tools/checks/layering.py and format.sh) whose
name ends in one of SOURCE_SUFFIXES or is in SOURCE_NAMES: C++, Python,
shell, CMake, schemas, Markdown. Data (test inputs, reference outputs,
fixtures, configuration in textproto, JSON or YAML) is not source and is
not checked.

Usage: file_size.py [ROOT]   (exit 0: clean; 1: files over the limit, listed)
Standard library only.
"""

import os
import sys

MAX_LINES = 600
SOURCE_SUFFIXES = (".h", ".cc", ".c", ".py", ".sh", ".cmake", ".proto", ".fbs", ".md")
SOURCE_NAMES = ("CMakeLists.txt", "Makefile", "Dockerfile")
SKIP_DIRS = {"build", "node_modules"}


def source_files(root):
    """Paths (relative to root, sorted) of the files the check covers."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for name in filenames:
            if name.endswith(SOURCE_SUFFIXES) or name in SOURCE_NAMES:
                found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(found)


def count_lines(path):
    """Lines as `wc -l` counts them, plus a last line without a newline."""
    with open(path, "rb") as f:
        data = f.read()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    files = source_files(root)
    long = [(path, n) for path in files
            for n in [count_lines(os.path.join(root, path))] if n > MAX_LINES]
    for path, n in long:
        print(f"{path}: {n} lines, over {MAX_LINES}: split it along its concepts")
    if long:
        print(f"file_size: {len(long)} file(s) over {MAX_LINES} lines ({len(files)} files checked)")
        return 1
    print(f"file_size: clean ({len(files)} files checked, none over {MAX_LINES} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
