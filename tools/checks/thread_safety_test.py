#!/usr/bin/env python3
"""ctest house.thread_safety: the annotated Mutex (common/mutex.h) under
clang's thread-safety analysis. A class that follows its lock discipline
compiles with -Werror=thread-safety and runs (a waiter is woken, a timed
wait returns); each deliberate violation fails to compile with clang's
message naming the variable or function and the mutex.
tools/checks/thread_safety.sh runs the same analysis over service/ and
loadtest/ (.ci/run)."""

import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CLANG = os.environ.get("CLANGXX", "clang++-14")
FLAGS = ["-std=c++17", "-Wthread-safety", "-Werror=thread-safety", "-I", ROOT]

COUNTER = """
#include <chrono>
#include <thread>
#include "common/mutex.h"

namespace edgefleet {

class Counter {
 public:
  void Add() EF_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    AddLocked();
    cv_.NotifyAll();
  }
  int WaitForPositive() EF_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    while (n_ <= 0) cv_.Wait(&mu_);
    return n_;
  }
  int Poll() EF_EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    if (n_ == 0) cv_.WaitFor(&mu_, std::chrono::milliseconds(5));
    return n_;
  }
  %(extra)s

 private:
  void AddLocked() EF_REQUIRES(mu_) { ++n_; }
  Mutex mu_;
  CondVar cv_;
  int n_ EF_GUARDED_BY(mu_) = 0;
};

%(function)s

}  // namespace edgefleet

int main() {
  edgefleet::Counter counter;
  if (counter.Poll() != 0) return 1;  // nobody adds: the timed wait returns
  std::thread adder([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    counter.Add();
  });
  const int seen = counter.WaitForPositive();
  adder.join();
  return seen == 1 ? 0 : 2;
}
"""

# (name, extra member, extra function, expected clang message)
VIOLATIONS = [
    ("read_without_lock", "int Peek() { return n_; }", "",
     "reading variable 'n_' requires holding mutex 'mu_'"),
    ("write_without_lock", "void Reset() { n_ = 0; }", "",
     "writing variable 'n_' requires holding mutex 'mu_' exclusively"),
    ("requires_without_lock", "void Bump() { AddLocked(); }", "",
     "calling function 'AddLocked' requires holding mutex 'mu_' exclusively"),
    ("excludes_with_lock_held", "void Twice() EF_EXCLUDES(mu_) { MutexLock lock(&mu_); Add(); }",
     "", "cannot call function 'Add' while mutex 'mu_' is held"),
    ("wait_without_lock", "void Sleep() { cv_.Wait(&mu_); }", "",
     "calling function 'Wait' requires holding mutex 'mu_' exclusively"),
    # The pattern of service/health_probe.cc: state shared with a callback.
    ("lambda_without_lock", "",
     "void Signal() {\n"
     "  struct Outcome { Mutex mu; bool done EF_GUARDED_BY(mu) = false; } outcome;\n"
     "  auto callback = [&] { outcome.done = true; };\n"
     "  callback();\n"
     "}",
     "writing variable 'done' requires holding mutex 'outcome.mu' exclusively"),
]


def compile_source(directory, name, extra, function, output=None):
    path = os.path.join(directory, name + ".cc")
    with open(path, "w", encoding="utf-8") as f:
        f.write(COUNTER % {"extra": extra, "function": function})
    args = [CLANG, *FLAGS, path, "-pthread"]
    args += ["-o", output] if output else ["-fsyntax-only"]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


class ThreadSafetyTest(unittest.TestCase):
    def setUp(self):
        self.assertIsNotNone(shutil.which(CLANG),
                             f"{CLANG} not found (deploy/install-deps.sh installs clang-14)")
        self.dir = tempfile.mkdtemp(prefix="thread_safety_test_")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_disciplined_class_compiles_and_runs(self):
        binary = os.path.join(self.dir, "counter")
        result = compile_source(self.dir, "counter", "", "", output=binary)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        run = subprocess.run([binary], capture_output=True, timeout=60)
        self.assertEqual(run.returncode, 0)

    def test_each_violation_fails(self):
        for name, extra, function, message in VIOLATIONS:
            with self.subTest(name):
                result = compile_source(self.dir, name, extra, function)
                self.assertNotEqual(result.returncode, 0, name)
                self.assertIn(message, result.stderr)
                self.assertIn("[-Werror,-Wthread-safety", result.stderr)


if __name__ == "__main__":
    unittest.main()
