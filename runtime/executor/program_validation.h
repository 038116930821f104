// Semantic validation of a verified program flatbuffer (internal to the
// executor; includes the generated schema header).
//
// The flatbuffers verifier guarantees that every table, vector and string
// lies inside the buffer. ValidateProgram then checks everything the
// executor will trust later: every index (values, operators, delegates,
// segments, constants, instructions, jump targets) is in range and points
// at a value of the right kind; every tensor has a valid dtype, rank <= 16,
// non-negative sizes, a valid dim order, a byte size that does not overflow,
// and data that lies inside its constant segment or planned arena; every
// segment lies inside the file. After it succeeds, Method::Load may index
// without further range checks.

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_PROGRAM_VALIDATION_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_PROGRAM_VALIDATION_H_

#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/format/program_generated.h"

namespace edgefleet {
namespace internal {

struct ProgramLayout {
  uint64_t file_size;
  uint64_t segment_base_offset;    // 0 when the file has no segments
  uint64_t constant_segment_size;  // bytes of the loaded constant segment
};

// True if every vector of 8-byte elements (offsets, buffer sizes, int and
// double lists) is 8-byte aligned: the flatbuffers verifier checks vectors
// for 4-byte alignment only, and reading misaligned elements is undefined.
// REQUIRES: `program` passed the flatbuffers verifier.
bool WideVectorsAligned(const edgefleet_fb::Program& program);

// Errors: kInvalidProgram with a detail "invalid program: <what>".
Error ValidateProgram(const edgefleet_fb::Program& program, const ProgramLayout& layout);

}  // namespace internal
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_PROGRAM_VALIDATION_H_
