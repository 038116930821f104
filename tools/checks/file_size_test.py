#!/usr/bin/env python3
"""ctest house.file_size: the repository passes tools/checks/file_size.py,
and on a small tree the check fails naming a deliberately long source file
and a long document, while files at the limit, data files and build output
pass."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CHECK = os.path.join(HERE, "file_size.py")


def run(root):
    return subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True,
                          timeout=120)


def write(root, path, lines, newline_at_end=True):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    text = "\n".join(f"// line {i}" for i in range(lines))
    with open(full, "w", encoding="utf-8") as f:
        f.write(text + ("\n" if newline_at_end else ""))


class FileSizeTest(unittest.TestCase):
    def setUp(self):
        self.tree = tempfile.mkdtemp(prefix="file_size_test_")
        write(self.tree, "runtime/core/at_limit.cc", 600)
        write(self.tree, "tools/short.py", 10)
        # Not looked at: data, build output, hidden folders.
        write(self.tree, "test/fixtures/reference.json", 5000)
        write(self.tree, "deploy/host_profile.textproto", 5000)
        write(self.tree, "build/default/generated.h", 5000)
        write(self.tree, ".cache/models/x.py", 5000)

    def tearDown(self):
        shutil.rmtree(self.tree)

    def test_repository_is_clean(self):
        result = run(ROOT)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_small_tree_is_clean(self):
        result = run(self.tree)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(result.stdout.strip(),
                         "file_size: clean (2 files checked, none over 600 lines)")

    def test_long_files_fail_by_name(self):
        write(self.tree, "service/too_long.cc", 601)
        # The last line counts without its newline too.
        write(self.tree, "docs/too_long.md", 601, newline_at_end=False)
        write(self.tree, "loadtest/CMakeLists.txt", 700)
        result = run(self.tree)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(result.stdout.splitlines(), [
            "docs/too_long.md: 601 lines, over 600: split it along its concepts",
            "loadtest/CMakeLists.txt: 700 lines, over 600: split it along its concepts",
            "service/too_long.cc: 601 lines, over 600: split it along its concepts",
            "file_size: 3 file(s) over 600 lines (5 files checked)",
        ])


if __name__ == "__main__":
    unittest.main()
