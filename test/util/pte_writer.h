// WritePte: serializes a program the way the real exporter lays out .pte
// files — flatbuffer with identifier "ET12", an "eh00" extended header
// spliced in at byte 8 (when asked for, or when there is segment data), then
// the segment data at a 128-byte-aligned base. Used by ProgramBuilder and by
// the structure-aware fuzzer. Thread-safe (no shared state).

#ifndef EDGEFLEET_TEST_UTIL_PTE_WRITER_H_
#define EDGEFLEET_TEST_UTIL_PTE_WRITER_H_

#include <cstdint>
#include <vector>

#include "runtime/format/program_generated.h"

namespace edgefleet {
namespace testing {

// Alignment of the segment base and of each segment the exporter writes.
inline constexpr uint64_t kPteSegmentAlignment = 128;

// `segment_data` holds every segment at its `DataSegment.offset` (relative
// to the segment base); `program` must already list those segments.
std::vector<uint8_t> WritePte(const edgefleet_fb::ProgramT& program,
                              const std::vector<uint8_t>& segment_data, bool extended_header);

}  // namespace testing
}  // namespace edgefleet

#endif  // EDGEFLEET_TEST_UTIL_PTE_WRITER_H_
