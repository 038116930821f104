// Fuzz target (b): Program::Load, then for each method (up to four)
// Method::Load into exact-size arenas capped at 64 MiB per method (larger
// programs are skipped), seeded inputs matching MethodMeta, one Execute and
// a read of every output byte. Portable kernels are registered once.

#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  edgefleet::fuzz::ExerciseProgram(data, size, edgefleet::fuzz::Limits{},
                                   edgefleet::fuzz::HashBytes(data, size));
  return 0;
}
