// Shared body of the XNNPACK payload fuzz targets: an XnnpackBackend
// delegate payload (the bytes a DelegateCall hands to the backend's Init) is
// decoded (DecodeGraph), compiled (XnnpackDelegate::Create, on the calling thread) and
// executed on zero-filled tensors shaped like the graph's external values;
// for every other input (by hash) executed again with smaller input shapes
// (the delegate's reshape and rebuild), then with the declared shapes,
// which must succeed again.
//
// Named data: SyntheticNamedData answers every key the payload's constant
// table names with a buffer of the declared size (bounded) whose every
// 4-byte word is the float 0.0625 (so scales kept in named data are valid), so
// named-weight payloads reach compilation without the program they came
// from. Oracles beyond the sanitizers: a rejected payload fails with one of
// the documented errors and an "xnnpack" error detail; an accepted graph is
// internally consistent (ids in range, inputs and outputs external).
// EF_FUZZ_VERBOSE=1 prints the stage each input stopped at, with the error
// detail. Thread-compatible.

#ifndef EDGEFLEET_FUZZ_XNNPACK_PAYLOAD_HARNESS_H_
#define EDGEFLEET_FUZZ_XNNPACK_PAYLOAD_HARNESS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/core/named_data_map.h"

namespace edgefleet {
namespace fuzz {

struct PayloadLimits {
  // Total bytes SyntheticNamedData hands out; a key declared larger is
  // "not found" (which the decoder reports as a missing constant).
  size_t named_bytes = 16u << 20;
  // Execute only when the graph's non-constant values need at most this
  // many bytes in total (the run's inputs and outputs are allocated here).
  size_t execute_bytes = 64u << 20;
};

// How far a payload got.
enum class PayloadStage : uint8_t { kDecode, kCreate, kExecute, kSkipped, kDone };

class SyntheticNamedData final : public NamedDataMap {
 public:
  // Collects the named keys of `payload`'s constant table (nothing if it is
  // not a verifiable payload), at most `max_bytes` in total.
  SyntheticNamedData(const uint8_t* payload, size_t size, size_t max_bytes);
  Result<FreeableBuffer> GetData(const char* key) const override;

 private:
  std::map<std::string, std::unique_ptr<uint8_t[]>> blobs_;
  std::map<std::string, size_t> sizes_;
};

// Decode + Create + Execute. `named` may be null: then a SyntheticNamedData
// built from the payload is used.
PayloadStage ExercisePayload(const uint8_t* data, size_t size, const NamedDataMap* named,
                             const PayloadLimits& limits = {});

}  // namespace fuzz
}  // namespace edgefleet

#endif  // EDGEFLEET_FUZZ_XNNPACK_PAYLOAD_HARNESS_H_
