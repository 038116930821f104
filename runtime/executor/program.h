// Program: a verified, loaded .pte file.
//
// Program::Load reads the file head and the flatbuffer through a DataLoader,
// always runs the flatbuffers verifier and the semantic validation of
// program_validation.h, and loads the constant segment. Methods are then
// described by MethodMeta and instantiated by Method::Load.
//
// Ownership: the Program owns the buffers it loaded; the DataLoader is
// borrowed and must outlive the Program. Thread safety: a loaded Program is
// immutable, so any number of threads may use it (and create Methods from
// it) concurrently, provided its DataLoader's Load() is thread-safe (the
// buffer and mmap loaders are; the file loader serializes internally).

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_PROGRAM_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_PROGRAM_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/data_loader.h"
#include "runtime/core/freeable_buffer.h"
#include "runtime/core/named_data_map.h"
#include "runtime/core/result.h"
#include "runtime/executor/method_meta.h"

namespace edgefleet_fb {
struct Program;
struct ExecutionPlan;
}  // namespace edgefleet_fb

namespace edgefleet {

// One appended data segment, as recorded by the program.
struct SegmentInfoView {
  uint64_t offset;  // absolute file offset
  uint64_t size;
};

class Program final : public NamedDataMap {
 public:
  // Loads and verifies a program. Errors: kInvalidProgram for anything
  // malformed (with a detail naming what), kNotSupported for valid but
  // unsupported features, loader errors as they come.
  static Result<Program> Load(DataLoader* loader);

  Program(Program&&) noexcept = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program() override = default;

  size_t num_methods() const;
  // REQUIRES: i < num_methods().
  const char* method_name(size_t i) const;
  // Errors: kNotFound if there is no method `name`.
  Result<MethodMeta> method_meta(const char* name) const;

  // Layout facts for inspection tools.
  bool has_extended_header() const { return has_extended_header_; }
  uint64_t program_size() const { return program_data_.size(); }
  size_t num_segments() const;
  SegmentInfoView segment(size_t i) const;  // REQUIRES: i < num_segments()
  // Bytes of the constant segment and of deprecated inline constants.
  uint64_t constant_segment_size() const { return constant_segment_.size(); }
  bool uses_deprecated_constant_buffer() const;
  size_t num_named_data() const;
  const char* named_data_key(size_t i) const;  // REQUIRES: i < num_named_data()

  // NamedDataMap: named data (e.g. delegate weights) stored in segments.
  Result<FreeableBuffer> GetData(const char* key) const override;

  // Bytes of an appended segment (delegate payloads). Errors:
  // kInvalidArgument for an index out of range.
  Result<FreeableBuffer> LoadSegment(size_t index, const SegmentInfo& info) const;

  // For Method: the verified flatbuffer structures and constant lookup.
  const edgefleet_fb::Program* flatbuffer() const { return program_; }
  Result<const edgefleet_fb::ExecutionPlan*> plan(const char* name) const;
  // Constant bytes for data_buffer_idx `index` (validated at load).
  Result<const uint8_t*> ConstantData(uint32_t index, size_t nbytes) const;
  // Initial value of a planned mutable tensor, from mutable_data_segments[0].
  Error LoadMutableData(uint32_t index, size_t nbytes, void* dst) const;
  // The loader the program reads from.
  DataLoader* loader() const { return loader_; }

 private:
  Program(DataLoader* loader, FreeableBuffer program_data, uint64_t segment_base_offset,
          bool has_extended_header, const edgefleet_fb::Program* program);

  DataLoader* loader_;
  FreeableBuffer program_data_;
  FreeableBuffer constant_segment_;
  uint64_t segment_base_offset_;
  bool has_extended_header_;
  const edgefleet_fb::Program* program_;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_PROGRAM_H_
