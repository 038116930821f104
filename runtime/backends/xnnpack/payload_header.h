// The XH00 header in front of an XNNPACK delegate payload.
//
// Layout (little-endian): bytes 4..7 "XH00", 8..9 header length (>= 30),
// 10..13 flatbuffer offset, 14..17 flatbuffer size, 18..21 constant data
// offset, 22..29 constant data size. Without the magic, the whole payload is a
// bare flatbuffer (legacy files whose constants live in the graph's
// `constant_buffer`). Pure parsing, no allocation; thread-compatible.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_PAYLOAD_HEADER_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_PAYLOAD_HEADER_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/result.h"

namespace edgefleet {
namespace xnnpack {

struct PayloadSections {
  bool has_header = false;  // false: legacy bare flatbuffer
  const uint8_t* flatbuffer = nullptr;
  size_t flatbuffer_size = 0;
  const uint8_t* constant_data = nullptr;  // null without a header
  size_t constant_data_size = 0;
};

// Splits `payload` into its flatbuffer and constant-data region. Errors:
// kInvalidProgram when a section lies outside the payload, the sections
// overlap, or the header is shorter than its fields.
Result<PayloadSections> ParsePayload(const void* payload, size_t size);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_PAYLOAD_HEADER_H_
