#include "runtime/backends/xnnpack/payload_header.h"

#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace xnnpack {
namespace {

constexpr size_t kMagicOffset = 4;
constexpr size_t kMinHeaderSize = 30;

uint64_t ReadLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

Result<PayloadSections> ParsePayload(const void* payload, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(payload);
  PayloadSections out;
  if (bytes == nullptr || size < kMagicOffset + 4 ||
      std::memcmp(bytes + kMagicOffset, "XH00", 4) != 0) {
    out.flatbuffer = bytes;
    out.flatbuffer_size = size;
    return out;
  }
  EF_CHECK_OR_RETURN(size >= kMinHeaderSize, Error::kInvalidProgram,
                     "xnnpack payload: header truncated (%zu bytes)", size);
  const uint64_t header_size = ReadLe(bytes + 8, 2);
  const uint64_t fb_offset = ReadLe(bytes + 10, 4);
  const uint64_t fb_size = ReadLe(bytes + 14, 4);
  const uint64_t cd_offset = ReadLe(bytes + 18, 4);
  const uint64_t cd_size = ReadLe(bytes + 22, 8);
  EF_CHECK_OR_RETURN(header_size >= kMinHeaderSize && header_size <= size, Error::kInvalidProgram,
                     "xnnpack payload: header length %llu invalid",
                     static_cast<unsigned long long>(header_size));
  EF_CHECK_OR_RETURN(fb_offset >= header_size && fb_size <= size && fb_offset <= size - fb_size,
                     Error::kInvalidProgram,
                     "xnnpack payload: flatbuffer [%llu, +%llu) outside the %zu-byte payload",
                     static_cast<unsigned long long>(fb_offset),
                     static_cast<unsigned long long>(fb_size), size);
  EF_CHECK_OR_RETURN(cd_size <= size && cd_offset <= size - cd_size, Error::kInvalidProgram,
                     "xnnpack payload: constant data [%llu, +%llu) outside the %zu-byte payload",
                     static_cast<unsigned long long>(cd_offset),
                     static_cast<unsigned long long>(cd_size), size);
  EF_CHECK_OR_RETURN(
      cd_size == 0 || cd_offset >= fb_offset + fb_size || cd_offset + cd_size <= fb_offset,
      Error::kInvalidProgram, "xnnpack payload: constant data overlaps the flatbuffer");
  out.has_header = true;
  out.flatbuffer = bytes + fb_offset;
  out.flatbuffer_size = fb_size;
  out.constant_data = bytes + cd_offset;
  out.constant_data_size = cd_size;
  return out;
}

}  // namespace xnnpack
}  // namespace edgefleet
