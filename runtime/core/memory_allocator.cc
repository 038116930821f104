#include "runtime/core/memory_allocator.h"

#include "runtime/core/error_detail.h"

namespace edgefleet {

void* MemoryAllocator::Allocate(size_t size, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    SetErrorDetail("allocation alignment %zu is not a power of two", alignment);
    return nullptr;
  }
  const uintptr_t start = reinterpret_cast<uintptr_t>(base_) + used_;
  const uintptr_t aligned = (start + alignment - 1) & ~(alignment - 1);
  const size_t padding = aligned - start;
  if (padding > size_ - used_ || size > size_ - used_ - padding) {
    SetErrorDetail("memory allocation failed: %zu bytes requested, %zu of %zu available", size,
                   size_ - used_, size_);
    return nullptr;
  }
  used_ += padding + size;
  if (used_ > peak_) peak_ = used_;
  return reinterpret_cast<void*>(aligned);
}

}  // namespace edgefleet
