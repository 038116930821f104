#include "fuzz/pte_image.h"

#include <cstring>

#include "fuzz/pte_mutator.h"
#include "runtime/format/extended_header.h"

namespace edgefleet {
namespace fuzz {
namespace {

constexpr uint64_t kSegmentAlignment = 128;
constexpr size_t kHeaderLength = 32;

uint64_t AlignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// The flatbuffer region of `data` and where segments start (0: none).
bool Locate(const uint8_t* data, size_t size, uint64_t* program_size, uint64_t* segment_base,
            bool* has_header) {
  if (size < 8 || memcmp(data + 4, "ET12", 4) != 0) return false;
  *program_size = size;
  *segment_base = 0;
  *has_header = false;
  Result<ExtendedHeader> header = ExtendedHeader::Parse(data, size);
  if (header.ok()) {
    if (header->program_size < 8 || header->program_size > size ||
        header->segment_base_offset > size) {
      return false;
    }
    *program_size = header->program_size;
    *segment_base = header->segment_base_offset;
    *has_header = true;
  } else if (header.error() != Error::kNotFound) {
    return false;
  }
  return true;
}

// The flatbuffers verifier checks vectors for 4-byte alignment only; the
// object API would read misaligned 64-bit elements (undefined behaviour that
// UBSan reports inside the mutator). Such files are left to byte mutation.
template <typename V>
bool Aligned8(const V* v) {
  return v == nullptr || reinterpret_cast<uintptr_t>(v->Data()) % 8 == 0;
}

bool WideVectorsAligned(const edgefleet_fb::Program& p) {
  if (p.constant_segment() != nullptr && !Aligned8(p.constant_segment()->offsets())) return false;
  if (p.mutable_data_segments() != nullptr) {
    for (const auto* m : *p.mutable_data_segments()) {
      if (m != nullptr && !Aligned8(m->offsets())) return false;
    }
  }
  if (p.execution_plan() == nullptr) return true;
  for (const auto* plan : *p.execution_plan()) {
    if (plan == nullptr) continue;
    if (!Aligned8(plan->non_const_buffer_sizes())) return false;
    if (plan->values() == nullptr) continue;
    for (const auto* v : *plan->values()) {
      if (v == nullptr) continue;
      if (const auto* l = v->val_as_IntList(); l != nullptr && !Aligned8(l->items())) return false;
      if (const auto* l = v->val_as_DoubleList(); l != nullptr && !Aligned8(l->items())) return false;
    }
  }
  return true;
}

// Verifies an aligned copy of the flatbuffer region into `copy`.
bool Verify(const uint8_t* data, uint64_t program_size, std::vector<uint8_t>* copy) {
  copy->assign(data, data + program_size);
  flatbuffers::Verifier verifier(copy->data(), copy->size(), 64, 1000000);
  return edgefleet_fb::VerifyProgramBuffer(verifier) &&
         WideVectorsAligned(*edgefleet_fb::GetProgram(copy->data()));
}

// The object API cannot pack a union whose type names a known member but
// whose value is absent (a verified buffer may hold one: type set, offset
// missing). Such unions become NONE; unknown type values are kept (they pack
// as a bare type byte, which validation must reject).
template <typename Union>
void ClearEmpty(Union& u, int num_members) {
  const int type = static_cast<int>(u.type);
  if (u.value == nullptr && type >= 1 && type <= num_members) u.Reset();
}

void Normalize(edgefleet_fb::ProgramT& program) {
  for (auto& plan : program.execution_plan) {
    if (plan == nullptr) continue;
    for (auto& value : plan->values) {
      if (value != nullptr) ClearEmpty(value->val, 11);
    }
    for (auto& chain : plan->chains) {
      if (chain == nullptr) continue;
      for (auto& instruction : chain->instructions) {
        if (instruction != nullptr) ClearEmpty(instruction->instr_args, 5);
      }
    }
  }
}

void PutU32(std::vector<uint8_t>& out, size_t at, uint32_t v) { memcpy(&out[at], &v, 4); }
void PutU64(std::vector<uint8_t>& out, size_t at, uint64_t v) { memcpy(&out[at], &v, 8); }

}  // namespace

bool IsStructurallyValid(const uint8_t* data, size_t size) {
  uint64_t program_size, segment_base;
  bool has_header;
  std::vector<uint8_t> copy;
  return Locate(data, size, &program_size, &segment_base, &has_header) &&
         Verify(data, program_size, &copy);
}

bool UnpackPte(const uint8_t* data, size_t size, PteImage* image) {
  uint64_t program_size, segment_base;
  bool has_header;
  if (!Locate(data, size, &program_size, &segment_base, &has_header)) return false;
  std::vector<uint8_t> copy;
  if (!Verify(data, program_size, &copy)) return false;
  image->program = edgefleet_fb::ProgramT();
  edgefleet_fb::GetProgram(copy.data())->UnPackTo(&image->program);
  Normalize(image->program);
  image->extended_header = has_header;
  image->segment_data.clear();
  if (segment_base > 0) image->segment_data.assign(data + segment_base, data + size);
  return true;
}

std::vector<uint8_t> PackPte(const PteImage& image) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(edgefleet_fb::Program::Pack(fbb, &image.program), "ET12");
  std::vector<uint8_t> flat(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  if (!image.extended_header && image.segment_data.empty()) return flat;

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
  const uint64_t base =
      image.segment_data.empty() ? 0 : AlignUp(program_size, kSegmentAlignment);
  out.resize(base > program_size ? base : program_size, 0);
  out.insert(out.end(), image.segment_data.begin(), image.segment_data.end());
  PutU64(out, 16, program_size);
  PutU64(out, 24, base);
  PutU64(out, 32, image.segment_data.size());
  return out;
}

}  // namespace fuzz
}  // namespace edgefleet
