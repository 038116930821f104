#include "test/util/pte_writer.h"

#include <cstring>

namespace edgefleet {
namespace testing {
namespace {

constexpr size_t kHeaderLength = 32;

void PutU32(std::vector<uint8_t>& out, size_t at, uint32_t v) { memcpy(&out[at], &v, 4); }
void PutU64(std::vector<uint8_t>& out, size_t at, uint64_t v) { memcpy(&out[at], &v, 8); }

}  // namespace

std::vector<uint8_t> WritePte(const edgefleet_fb::ProgramT& program,
                              const std::vector<uint8_t>& segment_data, bool extended_header) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(edgefleet_fb::Program::Pack(fbb, &program), "ET12");
  std::vector<uint8_t> flat(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  if (!extended_header && segment_data.empty()) return flat;

  // Offsets inside a flatbuffer are relative, so splicing the header in at
  // byte 8 only moves the root offset.
  std::vector<uint8_t> out(flat.begin(), flat.begin() + 8);
  uint32_t root;
  memcpy(&root, out.data(), 4);
  PutU32(out, 0, root + kHeaderLength);
  out.resize(8 + kHeaderLength, 0);
  memcpy(&out[8], "eh00", 4);
  PutU32(out, 12, kHeaderLength);
  out.insert(out.end(), flat.begin() + 8, flat.end());
  const uint64_t program_size = out.size();
  const uint64_t base = segment_data.empty() ? 0
                                             : (program_size + kPteSegmentAlignment - 1) /
                                                   kPteSegmentAlignment * kPteSegmentAlignment;
  out.resize(base > program_size ? base : program_size, 0);
  out.insert(out.end(), segment_data.begin(), segment_data.end());
  PutU64(out, 16, program_size);
  PutU64(out, 24, base);
  PutU64(out, 32, segment_data.size());
  return out;
}

}  // namespace testing
}  // namespace edgefleet
