// Field-level mutation of XNNPACK delegate payloads, for the structure-aware
// fuzz target: the payload's flatbuffer is unpacked with the object API of
// the delegate's schema (xnnpack_graph.fbs), fields are edited (value ids,
// dims, datatypes, external ids and flags, constant indices, quantization
// scales and channel dims, node operand ids and parameters, perm / shape /
// slice lists, node order and type within one table layout, num_externs,
// the constant table's offsets, sizes and keys), then it is packed again and
// framed behind an XH00 header with the original constant region. Every
// edit is a deterministic function of the generator state.
// Thread-compatible.

#ifndef EDGEFLEET_FUZZ_XNNPACK_PAYLOAD_MUTATOR_H_
#define EDGEFLEET_FUZZ_XNNPACK_PAYLOAD_MUTATOR_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz/pte_mutator.h"  // MutationRng

namespace edgefleet {
namespace fuzz {

// Applies `num_edits` field edits to `payload`. Returns the name of the last
// edit ("value.dims", ...), or nullptr (payload unchanged) when the payload
// does not parse and verify.
const char* MutatePayloadFields(std::vector<uint8_t>* payload, MutationRng& rng, int num_edits);

}  // namespace fuzz
}  // namespace edgefleet

#endif  // EDGEFLEET_FUZZ_XNNPACK_PAYLOAD_MUTATOR_H_
