// Fuzz target (h): structure-aware XNNPACK payloads. Inputs are delegate
// payloads; the custom mutator unpacks the payload's flatbuffer with the
// object API and edits fields (xnnpack_payload_mutator.h: value ids, dims,
// datatypes, externals, constant indices, quantization, node operands and
// parameters, node order and type, the constant table), then frames it
// again with the original constant region. One mutation in four is
// libFuzzer's own byte-level one. The body is the raw target's: decode,
// compile, execute once.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz/xnnpack_payload_harness.h"
#include "fuzz/xnnpack_payload_mutator.h"

// Provided by libFuzzer; weak so that the replay build links without it.
extern "C" __attribute__((weak)) size_t LLVMFuzzerMutate(uint8_t* data, size_t size,
                                                         size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  using namespace edgefleet::fuzz;
  MutationRng rng(seed);
  if (rng() % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::vector<uint8_t> payload(data, data + size);
  if (MutatePayloadFields(&payload, rng, 1 + static_cast<int>(rng() % 3)) == nullptr ||
      payload.size() > max_size) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  memcpy(data, payload.data(), payload.size());
  return payload.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  edgefleet::fuzz::ExercisePayload(data, size, nullptr);
  return 0;
}
