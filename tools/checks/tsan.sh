#!/usr/bin/env bash
# ThreadSanitizer over the runtime's threads: configures the `tsan` preset
# (GCC, -fsanitize=thread, RelWithDebInfo, no service, benchmarks or
# fuzzers), builds the optimized kernels' and the XNNPACK delegate's test
# binaries (in that preset they hold only the threaded tests) and runs the
# tests that use threads: the kernel thread pool (exactly-once
# tasks, concurrent and nested callers, pinning), every parallel kernel at
# 1, 2, 3 and 4 threads (parallel_determinism_test.cc) and the pthreadpool
# entry points XNNPACK's operators run through (method_threadpool_test.cc).
# Any data race, lock-order inversion or thread leak TSan reports fails the
# run (halt_on_error). .ci/run runs it.
#
# The system pthreadpool (Debian's libpthreadpool, which handles the pools
# other libraries create) is not built with TSan, so TSan cannot see how it
# hands tasks over and would report its workers' writes as races: the test
# that runs on it is left to the ordinary run.
#
# Usage: tools/checks/tsan.sh   (JOBS, default 2: parallel compiles)
# To see it fail, add a plain (non-atomic) counter that every task
# increments to ThreadPool::RunTasks (runtime/kernels/optimized/
# thread_pool.cc): TSan reports "WARNING: ThreadSanitizer: data race ...
# in edgefleet::optimized::ThreadPool::RunTasks()" and the script exits
# non-zero.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build/tsan
cmake --preset tsan >/dev/null
cmake --build "$build" --target ef_optimized_kernels_test ef_xnnpack_test -j "${JOBS:-2}"
# halt_on_error: the first report fails the test; second_deadlock_stack:
# both stacks of a lock-order inversion.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 history_size=4"
ctest --test-dir "$build" --output-on-failure \
  -R '^(optimized\.(ThreadPoolTest|ParallelDeterminism)|MethodThreadpool|PthreadpoolRunner)\.' \
  -E 'OtherPoolsGoToTheSystemPthreadpool'
echo "tsan: clean"
