#!/usr/bin/env bash
# Clang's thread-safety analysis of service/ and loadtest/: configures the
# `thread-safety` preset (clang++-14, -Wthread-safety
# -Werror=thread-safety, -O0, no tests) and compiles every object file of
# the libraries and binaries under service/ and loadtest/, linking nothing
# (the analysis runs in the compiler; the generated protocol headers are
# made on the way). A member marked EF_GUARDED_BY(mu_) touched without mu_,
# a call to an EF_REQUIRES function without the lock, or an EF_EXCLUDES
# function called with it held fails the build (common/mutex.h,
# common/thread_annotations.h). .ci/run runs it.
#
# Usage: tools/checks/thread_safety.sh   (JOBS, default 2: parallel compiles)
# To see it fail, delete the `MutexLock lock(&mu_);` line in
# ComputeSlots::Release (service/compute_slots.cc) and run it: clang reports
# "error: reading variable 'free_' requires holding mutex 'mu_'
# [-Werror,-Wthread-safety-analysis]" and the script exits 1.
# ctest house.thread_safety checks the annotations themselves on small files.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build/thread-safety
cmake --preset thread-safety >/dev/null
mapfile -t objects < <(ninja -C "$build" -t targets all |
  sed -n -E 's#^((service|loadtest)(/[^:]*)?/CMakeFiles/[^:]+\.o): .*#\1#p' | LC_ALL=C sort)
if (( ${#objects[@]} == 0 )); then
  echo "thread-safety: no object files of service/ or loadtest/ in $build" >&2
  exit 2
fi
ninja -C "$build" -j "${JOBS:-2}" "${objects[@]}"
echo "thread-safety: clean (${#objects[@]} files of service/ and loadtest/ analysed)"
