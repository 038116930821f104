#include "runtime/backends/xnnpack/aligned_flatbuffer.h"

#include <cstring>

namespace edgefleet {
namespace xnnpack {

AlignedFlatbuffer::AlignedFlatbuffer(const uint8_t* data, size_t size) : data_(data), size_(size) {
  if (data == nullptr || reinterpret_cast<uintptr_t>(data) % kAlignment == 0) return;
  copy_.reset(new uint64_t[(size + sizeof(uint64_t) - 1) / sizeof(uint64_t)]);
  std::memcpy(copy_.get(), data, size);
  data_ = reinterpret_cast<const uint8_t*>(copy_.get());
}

}  // namespace xnnpack
}  // namespace edgefleet
