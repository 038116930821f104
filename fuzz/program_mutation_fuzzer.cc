// Fuzz target (c): structure-aware. Inputs are .pte files; the custom
// mutator unpacks the input with the flatbuffers object API (or, if it does
// not verify, starts from one of the embedded ProgramBuilder seeds) and
// edits fields inside the program: sizes, offsets, indices, dtypes, union
// tags, dim orders, allocation info, operator names (including every
// registered kernel name), instruction arguments, segments. One mutation in
// four is libFuzzer's own byte-level mutation, so near-valid layouts are
// explored too. The body runs load + init + execute like (b), alternating
// kernel preference and executing twice (state carried between runs).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz/fuzz_harness.h"
#include "fuzz/pte_mutator.h"
#include "fuzz/seed_programs.h"

// Provided by libFuzzer; weak so that the replay build links without it.
extern "C" __attribute__((weak)) size_t LLVMFuzzerMutate(uint8_t* data, size_t size,
                                                         size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  using namespace edgefleet::fuzz;
  InitRuntimeOnce();  // Registered kernel names feed operator-name edits.
  MutationRng rng(seed);
  if (rng() % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::vector<uint8_t> file(data, data + size);
  if (!IsStructurallyValid(file.data(), file.size())) {
    static const std::vector<SeedProgram> seeds = BuildSeedPrograms();
    file = seeds[rng() % seeds.size()].bytes;
  }
  MutateStructured(&file, rng, 1 + static_cast<int>(rng() % 4));
  if (file.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  memcpy(data, file.data(), file.size());
  return file.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgefleet::fuzz;
  const uint64_t seed = HashBytes(data, size);
  Limits limits;
  limits.executions = 2;
  limits.kernels = seed & 1 ? edgefleet::KernelPreference::kPortableOnly
                            : edgefleet::KernelPreference::kOptimizedFirst;
  ExerciseProgram(data, size, limits, seed);
  return 0;
}
