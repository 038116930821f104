// Mutations of .pte files, shared by the structure-aware fuzz target and the
// mutation campaign.
//
// MutateStructured unpacks a file with the flatbuffers object API, edits
// fields inside it (sizes, offsets, indices, dtypes, union tags, dim orders,
// allocation info, operator names, instruction arguments, segments), packs
// it again and re-attaches the original segment data behind an "eh00"
// header. MutateRaw edits bytes (bit flips, truncation, insertion,
// deletion, interesting integers). Both are deterministic functions of the
// generator state. Thread-compatible.
//
// Note: the object API packs empty vectors and strings as absent fields, so
// a round trip turns a 0-d tensor's empty `sizes` into a missing one (which
// validation rejects); raw mutation still covers such programs.

#ifndef EDGEFLEET_FUZZ_PTE_MUTATOR_H_
#define EDGEFLEET_FUZZ_PTE_MUTATOR_H_

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace edgefleet {
namespace fuzz {

using MutationRng = std::mt19937_64;

// Applies `num_edits` field edits. Returns the name of the last edit
// ("tensor.sizes", ...), or nullptr (file unchanged) if `file` does not
// verify as a program.
const char* MutateStructured(std::vector<uint8_t>* file, MutationRng& rng, int num_edits);

// Applies one byte-level edit; returns its name ("bit_flip", ...).
const char* MutateRaw(std::vector<uint8_t>* file, MutationRng& rng);

// True if `data` verifies as a program flatbuffer (the head, with or
// without extended header, up to the declared program size).
bool IsStructurallyValid(const uint8_t* data, size_t size);

}  // namespace fuzz
}  // namespace edgefleet

#endif  // EDGEFLEET_FUZZ_PTE_MUTATOR_H_
