// PteImage: a .pte file unpacked with the flatbuffers object API, plus the
// segment bytes that follow the flatbuffer. Internal to fuzz/ (it exposes
// the generated schema header). Not thread-safe.

#ifndef EDGEFLEET_FUZZ_PTE_IMAGE_H_
#define EDGEFLEET_FUZZ_PTE_IMAGE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/format/program_generated.h"

namespace edgefleet {
namespace fuzz {

struct PteImage {
  edgefleet_fb::ProgramT program;
  // Bytes from the segment base offset to the end of the file; segment
  // offsets in `program` are relative to its start.
  std::vector<uint8_t> segment_data;
  bool extended_header = false;
};

// Verifies and unpacks `data`. Returns false if it is not a program.
bool UnpackPte(const uint8_t* data, size_t size, PteImage* image);

// Serializes the way the exporter lays files out: flatbuffer with "ET12",
// an "eh00" header spliced in at byte 8 (when requested or when there is
// segment data), then the segment data at a 128-byte-aligned base.
std::vector<uint8_t> PackPte(const PteImage& image);

}  // namespace fuzz
}  // namespace edgefleet

#endif  // EDGEFLEET_FUZZ_PTE_IMAGE_H_
