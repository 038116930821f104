#!/usr/bin/env python3
"""ctest house.format: the repository passes tools/checks/format.sh, and on a
small tree the check fails naming a deliberately mis-formatted file and a
stale line of the pending list, skips a pending file, and `--fix` formats
everything and deletes the list so that the whole tree is checked."""

import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CHECK = os.path.join(HERE, "format.sh")

FORMATTED = "int Add(int a, int b) { return a + b; }\n"
# Over 100 columns, two statements on a line, a misplaced brace.
MISFORMATTED = ("int Sum(int a,int b){int s=a+b;return s;}\n"
                "void Long(int first_argument_name, int second_argument_name, "
                "int third_argument_name, int fourth);\n")


def run(root, *flags):
    return subprocess.run(["bash", CHECK, *flags, root], capture_output=True, text=True,
                          timeout=600)


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


class FormatTest(unittest.TestCase):
    def setUp(self):
        self.tree = tempfile.mkdtemp(prefix="format_test_")
        shutil.copy(os.path.join(ROOT, ".clang-format"), self.tree)
        write(self.tree, "service/good.cc", FORMATTED)
        # Not looked at: build output and hidden folders.
        write(self.tree, "build/default/generated.h", MISFORMATTED)
        write(self.tree, ".cache/x.cc", MISFORMATTED)

    def tearDown(self):
        shutil.rmtree(self.tree)

    def test_repository_is_clean(self):
        result = run(ROOT)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_misformatted_file_fails_by_name(self):
        write(self.tree, "runtime/bad.h", MISFORMATTED)
        result = run(self.tree)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        lines = result.stdout.splitlines()
        self.assertIn("runtime/bad.h: not formatted (run tools/checks/format.sh --fix, "
                      "or clang-format-14 -i runtime/bad.h)", lines)
        self.assertEqual(lines[-1], "format: 1 problem(s) (2 files checked, 0 pending)")
        self.assertNotIn("good.cc", result.stdout)
        self.assertNotIn("generated.h", result.stdout)

    def test_pending_list_skips_and_only_shrinks(self):
        write(self.tree, "runtime/bad.h", MISFORMATTED)
        write(self.tree, "tools/checks/format_pending.txt",
              "# comment\nruntime/bad.h\n")
        result = run(self.tree)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("format: clean (1 files checked, 1 pending reformat)", result.stdout)

        # A listed file that is formatted, or gone, fails.
        write(self.tree, "tools/checks/format_pending.txt",
              "runtime/bad.h\nservice/good.cc\nloadtest/gone.cc\n")
        result = run(self.tree)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(result.stdout.splitlines()[:2], [
            "tools/checks/format_pending.txt: loadtest/gone.cc does not exist; remove the line",
            "tools/checks/format_pending.txt: service/good.cc is formatted; remove the line",
        ])

    def test_fix_formats_everything_and_drops_the_list(self):
        write(self.tree, "runtime/bad.h", MISFORMATTED)
        write(self.tree, "loadtest/new.cc", MISFORMATTED)
        write(self.tree, "tools/checks/format_pending.txt", "runtime/bad.h\n")
        self.assertEqual(run(self.tree).returncode, 1)  # loadtest/new.cc is not pending

        result = run(self.tree, "--fix")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tree, "tools/checks/format_pending.txt")))
        self.assertEqual(read(self.tree, "service/good.cc"), FORMATTED)
        self.assertTrue(read(self.tree, "runtime/bad.h").startswith(
            "int Sum(int a, int b) {\n  int s = a + b;\n  return s;\n}\n"))
        self.assertEqual(read(self.tree, "build/default/generated.h"), MISFORMATTED)

        result = run(self.tree)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("format: clean (3 files checked, 0 pending reformat)", result.stdout)


if __name__ == "__main__":
    unittest.main()
