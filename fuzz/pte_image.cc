#include "fuzz/pte_image.h"

#include <cstring>

#include "fuzz/pte_mutator.h"
#include "runtime/executor/program_validation.h"
#include "runtime/format/extended_header.h"
#include "test/util/pte_writer.h"

namespace edgefleet {
namespace fuzz {
namespace {

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

// Verifies an aligned copy of the flatbuffer region into `copy`.
bool Verify(const uint8_t* data, uint64_t program_size, std::vector<uint8_t>* copy) {
  copy->assign(data, data + program_size);
  flatbuffers::Verifier verifier(copy->data(), copy->size(), 64, 1000000);
  return edgefleet_fb::VerifyProgramBuffer(verifier) &&
         // Misaligned 64-bit vectors would make the object API read out of
         // alignment (UB); such files are left to byte mutation.
         internal::WideVectorsAligned(*edgefleet_fb::GetProgram(copy->data()));
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
  return testing::WritePte(image.program, image.segment_data, image.extended_header);
}

}  // namespace fuzz
}  // namespace edgefleet
