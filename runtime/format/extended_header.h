// The ExecuTorch extended header ("eh00") that may follow a program's
// flatbuffer identifier.
//
// Layout (little-endian), at byte 8 of the file:
//   8..11  "eh00"
//   12..15 uint32 header length (>= 24; the exporter writes 32)
//   16..23 uint64 program_size: flatbuffer bytes, counted from offset 0
//   24..31 uint64 segment_base_offset: absolute offset of the first segment
//   32..39 uint64 segment_data_size (only if the length is >= 32)
// The exporter writes the header only when the file has segments.

#ifndef EDGEFLEET_RUNTIME_FORMAT_EXTENDED_HEADER_H_
#define EDGEFLEET_RUNTIME_FORMAT_EXTENDED_HEADER_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"

namespace edgefleet {

struct ExtendedHeader {
  static constexpr size_t kOffset = 8;
  // Bytes of the file head to read before parsing.
  static constexpr size_t kNumHeadBytes = 64;
  static constexpr size_t kMinimumLength = 24;

  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;  // 0 when the header predates the field

  // Parses the header from the first `size` bytes of a file.
  // Errors: kNotFound if the magic is absent (a file without segments),
  // kInvalidProgram if the magic is present but the header is malformed.
  static Result<ExtendedHeader> Parse(const void* data, size_t size);
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_FORMAT_EXTENDED_HEADER_H_
