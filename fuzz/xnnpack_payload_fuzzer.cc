// Fuzz target (g): XNNPACK delegate payloads as raw bytes. The input is the
// processed blob an XnnpackBackend DelegateCall hands to the backend (XH00
// header, XN00/XN01 flatbuffer, constant region); it is decoded, compiled
// and executed once on zero-filled tensors (xnnpack_payload_harness.h).
// Named constants come from a synthetic map sized by the payload's own
// constant table. Seeds: the payloads of test/fixtures/*/model_xnnpack.pte
// (edgefleet-fuzz-xnnpack-seeds).

#include <cstddef>
#include <cstdint>

#include "fuzz/xnnpack_payload_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  edgefleet::fuzz::ExercisePayload(data, size, nullptr);
  return 0;
}
