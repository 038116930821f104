#!/usr/bin/env python3
"""ctest house.layering: the repository passes tools/checks/layering.py, and
a tree with one deliberate violation of each kind fails it with a message
naming the violation."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CHECK = os.path.join(HERE, "layering.py")

# A small tree that breaks every rule once.
BROKEN = {
    "runtime/core/tensor.h": '#include "runtime/kernels/kernel_registry.h"\n',
    "runtime/kernels/kernel_registry.h": '#include "runtime/core/tensor.h"\n',
    "runtime/executor/method.cc": '#include "service/status_mapping.h"\n',
    "runtime/executor/plan.h": '#include "runtime/format/program_generated.h"\n',
    "runtime/module/module.cc": '#include <grpcpp/grpcpp.h>\n#include "runtime/executor/plan.h"\n',
    "runtime/newpart/thing.cc": '#include "runtime/core/tensor.h"\n',
    "loadtest/stats/quantile.cc": '#include "runtime/core/tensor.h"\n',
    "service/status_mapping.h": "",
    "runtime/tools/CMakeLists.txt": "ef_cc_library(NAME ef_run_lib RUNTIME SRCS a.cc)\n",
    "service/CMakeLists.txt": "ef_cc_library(NAME ef_service SRCS b.cc DEPS ef_run_lib)\n",
    "docs/architecture.md": "<!-- target-graph -->\n- `ef_service` → `ef_proto`\n"
                            "- `ef_ghost`\n<!-- /target-graph -->\n",
}

EXPECTED = [
    "runtime/core/tensor.h:1: runtime/core includes runtime/kernels/kernel_registry.h",
    "runtime/executor/method.cc:1: runtime/executor includes service/status_mapping.h",
    "runtime/module/module.cc:1: runtime code includes <grpcpp/grpcpp.h>",
    "runtime/module/module.cc:2: runtime/executor/plan.h carries a generated flatbuffer header",
    "runtime/newpart/thing.cc: component runtime/newpart has no row",
    "loadtest/stats/quantile.cc:1: loadtest/stats includes runtime/core/tensor.h",
    "CMake: ef_service (service) links ef_run_lib (runtime/tools)",
    "docs/architecture.md: `ef_service` → `ef_proto` is not a CMake link",
    "docs/architecture.md: `ef_ghost` is not a CMake target",
    "docs/architecture.md: the target graph omits `ef_run_lib`",
]


def run(root):
    return subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True,
                          timeout=120)


class LayeringTest(unittest.TestCase):
    def test_repository_is_clean(self):
        result = run(ROOT)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_each_violation_is_reported(self):
        with tempfile.TemporaryDirectory() as tree:
            for path, text in BROKEN.items():
                os.makedirs(os.path.dirname(os.path.join(tree, path)), exist_ok=True)
                with open(os.path.join(tree, path), "w", encoding="utf-8") as f:
                    f.write(text)
            result = run(tree)
        self.assertEqual(result.returncode, 1, result.stdout)
        for expected in EXPECTED:
            self.assertIn(expected, result.stdout)
        # The kernel registry may use the core: that line is not a violation.
        self.assertNotIn("runtime/kernels/kernel_registry.h:1", result.stdout)


if __name__ == "__main__":
    unittest.main()
