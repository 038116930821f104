// PlannedMemory: the arenas that memory-planned tensors live in.
//
// The exporter assigns every activation, input and output a (buffer, offset)
// inside arenas whose sizes the program records. PlannedMemory only maps
// (buffer id, offset, size) to a pointer, with bounds checks; the caller owns
// the arenas. Not thread-safe; a Method holds one for its lifetime.

#ifndef EDGEFLEET_RUNTIME_CORE_PLANNED_MEMORY_H_
#define EDGEFLEET_RUNTIME_CORE_PLANNED_MEMORY_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace edgefleet {

class PlannedMemory {
 public:
  // `buffers[i]` is arena i (0-based; the file's memory_id i+1).
  explicit PlannedMemory(Span<Span<uint8_t>> buffers) : buffers_(buffers) {}

  // Address of [offset, offset + size) in arena `buffer_id`.
  // Errors: kInvalidProgram if the id or range is out of bounds.
  Result<uint8_t*> Address(size_t buffer_id, uint64_t offset, size_t size) const;

  size_t num_buffers() const { return buffers_.size(); }
  Span<uint8_t> buffer(size_t i) const { return buffers_[i]; }

 private:
  Span<Span<uint8_t>> buffers_;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_PLANNED_MEMORY_H_
