#include "runtime/format/extended_header.h"

#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace {

uint32_t ReadU32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, sizeof(v));  // little-endian hosts only, as the format
  return v;
}

uint64_t ReadU64(const uint8_t* p) {
  uint64_t v;
  memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace

Result<ExtendedHeader> ExtendedHeader::Parse(const void* data, size_t size) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  if (size < kOffset + 8 || memcmp(bytes + kOffset, "eh00", 4) != 0) {
    return Error::kNotFound;
  }
  const uint32_t length = ReadU32(bytes + kOffset + 4);
  EF_CHECK_OR_RETURN(length >= kMinimumLength, Error::kInvalidProgram,
                     "invalid program: extended header length %u below %zu", length,
                     kMinimumLength);
  EF_CHECK_OR_RETURN(size >= kOffset + length || size >= kOffset + 32, Error::kInvalidProgram,
                     "invalid program: extended header truncated");
  EF_CHECK_OR_RETURN(size >= kOffset + kMinimumLength, Error::kInvalidProgram,
                     "invalid program: extended header truncated");
  ExtendedHeader header;
  header.program_size = ReadU64(bytes + kOffset + 8);
  header.segment_base_offset = ReadU64(bytes + kOffset + 16);
  if (length >= 32 && size >= kOffset + 32) {
    header.segment_data_size = ReadU64(bytes + kOffset + 24);
  }
  return header;
}

}  // namespace edgefleet
