// Fuzz target (a): Program::Load with full verification (flatbuffers
// verifier + semantic validation) over arbitrary bytes, then every Program
// and MethodMeta accessor of every method, with consistency checks
// (fuzz_harness.h). No method is initialized.

#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  edgefleet::fuzz::ExerciseProgram(data, size, edgefleet::fuzz::Limits{}, /*seed=*/0,
                                   /*run_methods=*/false);
  return 0;
}
