#include "runtime/executor/program.h"

#include <cstring>

#include "runtime/core/error_detail.h"
#include "runtime/executor/program_validation.h"
#include "runtime/format/extended_header.h"
#include "runtime/format/program_generated.h"

namespace edgefleet {
namespace {

// flatbuffers verifier limits: generous for real programs, bounded for
// hostile ones (verification time is linear in the tables visited).
constexpr flatbuffers::uoffset_t kMaxVerifierDepth = 64;
constexpr flatbuffers::uoffset_t kMaxVerifierTables = 10 * 1000 * 1000;

}  // namespace

Program::Program(DataLoader* loader, FreeableBuffer program_data, uint64_t segment_base_offset,
                 bool has_extended_header, const edgefleet_fb::Program* program)
    : loader_(loader),
      program_data_(std::move(program_data)),
      segment_base_offset_(segment_base_offset),
      has_extended_header_(has_extended_header),
      program_(program) {}

Result<Program> Program::Load(DataLoader* loader) {
  EF_CHECK_OR_RETURN(loader != nullptr, Error::kInvalidArgument, "no data loader");
  EF_ASSIGN_OR_RETURN(const size_t file_size, loader->Size());
  EF_CHECK_OR_RETURN(file_size >= 8, Error::kInvalidProgram,
                     "invalid program: file of %zu bytes is too small", file_size);

  // The head: identifier and optional extended header.
  const size_t head_size =
      file_size < ExtendedHeader::kNumHeadBytes ? file_size : ExtendedHeader::kNumHeadBytes;
  uint64_t program_size = file_size;
  uint64_t segment_base_offset = 0;
  bool has_header = false;
  {
    EF_ASSIGN_OR_RETURN(FreeableBuffer head,
                        loader->Load(0, head_size, SegmentInfo{SegmentInfo::Type::kProgram}));
    const char* id = static_cast<const char*>(head.data()) + 4;
    EF_CHECK_OR_RETURN(memcmp(id, "ET12", 4) == 0, Error::kInvalidProgram,
                       "invalid program: identifier '%.4s' is not 'ET12'%s", id,
                       id[0] == 'E' && id[1] == 'T' ? " (incompatible version)" : "");
    Result<ExtendedHeader> header = ExtendedHeader::Parse(head.data(), head.size());
    if (header.ok()) {
      has_header = true;
      program_size = header->program_size;
      segment_base_offset = header->segment_base_offset;
      EF_CHECK_OR_RETURN(program_size >= 8 && program_size <= file_size, Error::kInvalidProgram,
                         "invalid program: program size %llu outside the file of %zu bytes",
                         static_cast<unsigned long long>(program_size), file_size);
      uint64_t end;
      EF_CHECK_OR_RETURN(
          !__builtin_add_overflow(segment_base_offset, header->segment_data_size, &end) &&
              end <= file_size && (segment_base_offset == 0 || segment_base_offset >= program_size),
          Error::kInvalidProgram,
          "invalid program: file size is too small for the segments its header declares");
    } else if (header.error() != Error::kNotFound) {
      return header.error();
    }
  }

  EF_ASSIGN_OR_RETURN(FreeableBuffer data,
                      loader->Load(0, program_size, SegmentInfo{SegmentInfo::Type::kProgram}));
  EF_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(data.data()) % alignof(std::max_align_t) == 0,
                     Error::kInvalidProgram, "invalid program: buffer is not 16-byte aligned");
  const uint8_t* bytes = static_cast<const uint8_t*>(data.data());
  flatbuffers::Verifier verifier(bytes, data.size(), kMaxVerifierDepth, kMaxVerifierTables);
  EF_CHECK_OR_RETURN(edgefleet_fb::VerifyProgramBuffer(verifier), Error::kInvalidProgram,
                     "invalid program: flatbuffer verification failed (truncated or "
                     "corrupt file)");
  const edgefleet_fb::Program* fb = edgefleet_fb::GetProgram(bytes);
  Program program(loader, std::move(data), segment_base_offset, has_header, fb);

  // Size of the constant segment, if the program uses one; validated to lie
  // inside the file by ValidateProgram.
  const auto* constants = fb->constant_segment();
  const bool uses_segment =
      constants != nullptr && constants->offsets() != nullptr && constants->offsets()->size() > 1;
  uint64_t constant_size = 0;
  if (uses_segment) {
    EF_CHECK_OR_RETURN(
        fb->segments() != nullptr && constants->segment_index() < fb->segments()->size(),
        Error::kInvalidProgram, "invalid program: constant segment index out of range");
    constant_size = fb->segments()->Get(constants->segment_index())->size();
  }
  EF_RETURN_IF_ERROR(
      internal::ValidateProgram(*fb, {file_size, segment_base_offset, constant_size}));
  if (uses_segment) {
    EF_ASSIGN_OR_RETURN(
        program.constant_segment_,
        program.LoadSegment(constants->segment_index(), SegmentInfo{SegmentInfo::Type::kConstant}));
  }
  return program;
}

size_t Program::num_methods() const { return program_->execution_plan()->size(); }

const char* Program::method_name(size_t i) const {
  return program_->execution_plan()->Get(static_cast<uint32_t>(i))->name()->c_str();
}

Result<const edgefleet_fb::ExecutionPlan*> Program::plan(const char* name) const {
  for (const auto* plan : *program_->execution_plan()) {
    if (strcmp(plan->name()->c_str(), name) == 0) return plan;
  }
  EF_FAIL(Error::kNotFound, "method '%s' not found", name);
}

Result<MethodMeta> Program::method_meta(const char* name) const {
  EF_ASSIGN_OR_RETURN(const edgefleet_fb::ExecutionPlan* p, plan(name));
  return MethodMeta(p);
}

size_t Program::num_segments() const {
  return program_->segments() ? program_->segments()->size() : 0;
}

SegmentInfoView Program::segment(size_t i) const {
  const auto* s = program_->segments()->Get(static_cast<uint32_t>(i));
  return {segment_base_offset_ + s->offset(), s->size()};
}

bool Program::uses_deprecated_constant_buffer() const {
  return constant_segment_.size() == 0 && program_->constant_buffer() != nullptr &&
         program_->constant_buffer()->size() > 1;
}

size_t Program::num_named_data() const {
  return program_->named_data() ? program_->named_data()->size() : 0;
}

const char* Program::named_data_key(size_t i) const {
  return program_->named_data()->Get(static_cast<uint32_t>(i))->key()->c_str();
}

Result<FreeableBuffer> Program::GetData(const char* key) const {
  for (size_t i = 0; i < num_named_data(); ++i) {
    const auto* entry = program_->named_data()->Get(static_cast<uint32_t>(i));
    if (strcmp(entry->key()->c_str(), key) == 0) {
      return LoadSegment(entry->segment_index(), SegmentInfo{SegmentInfo::Type::kConstant});
    }
  }
  EF_FAIL(Error::kNotFound, "named data '%s' not found", key);
}

Result<FreeableBuffer> Program::LoadSegment(size_t index, const SegmentInfo& info) const {
  EF_CHECK_OR_RETURN(index < num_segments(), Error::kInvalidArgument,
                     "segment %zu out of range (%zu segments)", index, num_segments());
  const SegmentInfoView s = segment(index);
  SegmentInfo with_index = info;
  with_index.segment_index = index;
  return loader_->Load(s.offset, s.size, with_index);
}

Result<const uint8_t*> Program::ConstantData(uint32_t index, size_t nbytes) const {
  if (constant_segment_.size() > 0) {
    const uint64_t offset = program_->constant_segment()->offsets()->Get(index);
    EF_CHECK_OR_RETURN(
        offset <= constant_segment_.size() && nbytes <= constant_segment_.size() - offset,
        Error::kInvalidProgram, "invalid program: constant offset past end of segment");
    return static_cast<const uint8_t*>(constant_segment_.data()) + offset;
  }
  const auto* buffers = program_->constant_buffer();
  EF_CHECK_OR_RETURN(buffers != nullptr && index < buffers->size(), Error::kInvalidProgram,
                     "invalid program: constant index %u out of range", index);
  return buffers->Get(index)->storage()->data();
}

Error Program::LoadMutableData(uint32_t index, size_t nbytes, void* dst) const {
  const auto* entry = program_->mutable_data_segments()->Get(0);
  const uint64_t offset = entry->offsets()->Get(index);
  EF_ASSIGN_OR_RETURN(
      FreeableBuffer segment,
      LoadSegment(entry->segment_index(), SegmentInfo{SegmentInfo::Type::kMutable}));
  EF_CHECK_OR_RETURN(offset <= segment.size() && nbytes <= segment.size() - offset,
                     Error::kInvalidProgram,
                     "invalid program: mutable data offset past end of segment");
  memcpy(dst, static_cast<const uint8_t*>(segment.data()) + offset, nbytes);
  return Error::kOk;
}

}  // namespace edgefleet
