#include "runtime/core/planned_memory.h"

#include "runtime/core/error_detail.h"

namespace edgefleet {

Result<uint8_t*> PlannedMemory::Address(size_t buffer_id, uint64_t offset, size_t size) const {
  EF_CHECK_OR_RETURN(buffer_id < buffers_.size(), Error::kInvalidProgram,
                     "invalid program: planned memory id %zu out of range (%zu "
                     "arenas)",
                     buffer_id + 1, buffers_.size());
  const Span<uint8_t> arena = buffers_[buffer_id];
  EF_CHECK_OR_RETURN(offset <= arena.size() && size <= arena.size() - offset,
                     Error::kInvalidProgram,
                     "invalid program: planned tensor [%llu, +%zu) past end of "
                     "arena %zu (%zu bytes)",
                     static_cast<unsigned long long>(offset), size, buffer_id + 1, arena.size());
  return arena.data() + offset;
}

}  // namespace edgefleet
