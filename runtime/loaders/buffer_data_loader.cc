#include "runtime/loaders/buffer_data_loader.h"

#include "runtime/core/error_detail.h"

namespace edgefleet {

Result<FreeableBuffer> BufferDataLoader::Load(size_t offset, size_t size,
                                              const SegmentInfo& /*info*/) {
  EF_CHECK_OR_RETURN(offset <= size_ && size <= size_ - offset, Error::kInvalidArgument,
                     "range [%zu, +%zu) outside the %zu-byte buffer", offset, size, size_);
  bytes_read_.fetch_add(size);
  return FreeableBuffer(data_ + offset, size, nullptr);
}

}  // namespace edgefleet
