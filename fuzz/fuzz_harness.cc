// AlignedBuffer, one-time runtime setup and InspectProgram (program and
// method metadata oracles).

#include "fuzz/fuzz_harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "runtime/core/tensor.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/platform/log.h"

namespace edgefleet {
namespace fuzz {
namespace {

constexpr size_t kBufferAlignment = 64;

void CheckTensorInfo(const TensorInfo& info, const char* what, size_t i) {
  EF_FUZZ_INVARIANT(IsValidScalarType(static_cast<int>(info.dtype)), "%s %zu: dtype %d", what, i,
                    static_cast<int>(info.dtype));
  EF_FUZZ_INVARIANT(info.sizes.size() <= static_cast<size_t>(kMaxTensorRank), "%s %zu: rank %zu",
                    what, i, info.sizes.size());
  EF_FUZZ_INVARIANT(info.dim_order.size() == info.sizes.size() && IsValidDimOrder(info.dim_order),
                    "%s %zu: dim order does not match the sizes", what, i);
  const int64_t numel = CheckedNumel(info.sizes);
  EF_FUZZ_INVARIANT(numel >= 0, "%s %zu: negative or overflowing numel", what, i);
  EF_FUZZ_INVARIANT(info.nbytes == static_cast<size_t>(numel) * ElementSize(info.dtype),
                    "%s %zu: nbytes %zu inconsistent with the shape", what, i, info.nbytes);
}

void InspectMethod(const MethodMeta& meta) {
  EF_FUZZ_INVARIANT(meta.name() != nullptr, "method without a name");
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    Result<Tag> tag = meta.input_tag(i);
    EF_FUZZ_INVARIANT(tag.ok(), "input_tag(%zu) failed on an accepted program", i);
    Result<TensorInfo> info = meta.input_tensor_info(i);
    EF_FUZZ_INVARIANT(info.ok() == (*tag == Tag::kTensor),
                      "input_tensor_info(%zu) disagrees with input_tag", i);
    if (info.ok()) CheckTensorInfo(*info, "input", i);
  }
  EF_FUZZ_INVARIANT(meta.input_tag(meta.num_inputs()).error() == Error::kInvalidArgument,
                    "input_tag past the end did not fail");
  EF_FUZZ_INVARIANT(!meta.input_tensor_info(meta.num_inputs()).ok(),
                    "input_tensor_info past the end did not fail");
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    Result<Tag> tag = meta.output_tag(i);
    EF_FUZZ_INVARIANT(tag.ok(), "output_tag(%zu) failed on an accepted program", i);
    Result<TensorInfo> info = meta.output_tensor_info(i);
    EF_FUZZ_INVARIANT(info.ok() == (*tag == Tag::kTensor),
                      "output_tensor_info(%zu) disagrees with output_tag", i);
    if (info.ok()) CheckTensorInfo(*info, "output", i);
  }
  EF_FUZZ_INVARIANT(meta.output_tag(meta.num_outputs()).error() == Error::kInvalidArgument,
                    "output_tag past the end did not fail");
  for (size_t i = 0; i < meta.num_planned_buffers(); ++i) {
    Result<int64_t> size = meta.planned_buffer_size(i);
    EF_FUZZ_INVARIANT(size.ok() && *size >= 0, "planned buffer %zu size invalid", i);
  }
  EF_FUZZ_INVARIANT(!meta.planned_buffer_size(meta.num_planned_buffers()).ok(),
                    "planned_buffer_size past the end did not fail");
  for (size_t i = 0; i < meta.num_operators(); ++i) {
    char small[8], large[512];
    (void)meta.operator_name(i, small, sizeof(small));
    EF_FUZZ_INVARIANT(strnlen(small, sizeof(small)) < sizeof(small),
                      "operator_name(%zu) did not terminate a short buffer", i);
    if (meta.operator_name(i, large, sizeof(large))) {
      EF_FUZZ_INVARIANT(strlen(large) < sizeof(large), "operator_name(%zu) overflow", i);
    }
  }
  for (size_t i = 0; i < meta.num_backends(); ++i) {
    EF_FUZZ_INVARIANT(meta.backend_name(i) != nullptr, "backend_name(%zu) is null", i);
  }
  (void)meta.num_instructions();
  EF_FUZZ_INVARIANT(meta.method_allocator_bytes() > 0, "method_allocator_bytes() is 0");
}

}  // namespace

void AlignedBuffer::Free::operator()(uint8_t* p) const {
  ::operator delete[](p, std::align_val_t{kBufferAlignment});
}

AlignedBuffer::AlignedBuffer(const uint8_t* data, size_t size)
    : data_(new (std::align_val_t{kBufferAlignment}) uint8_t[size == 0 ? 1 : size]), size_(size) {
  if (size > 0) memcpy(data_.get(), data, size);
}

void InitRuntimeOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    SetMinLogLevel(LogLevel::kError);
    Error error = RegisterPortableKernels();
    if (error == Error::kOk) error = RegisterOptimizedKernels(/*max_threads=*/1);
    if (error == Error::kOk) error = RegisterXnnpackBackend();
    if (error != Error::kOk) {
      fprintf(stderr, "kernel registration failed: %s\n", ErrorName(error));
      abort();
    }
  });
}

uint64_t HashBytes(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

void InspectProgram(const Program& program) {
  (void)program.has_extended_header();
  EF_FUZZ_INVARIANT(program.program_size() >= 8, "program size %llu",
                    static_cast<unsigned long long>(program.program_size()));
  for (size_t i = 0; i < program.num_segments(); ++i) {
    const SegmentInfoView s = program.segment(i);
    Result<FreeableBuffer> data = program.LoadSegment(i, SegmentInfo{});
    EF_FUZZ_INVARIANT(data.ok() && data->size() == s.size,
                      "segment %zu validated but cannot be loaded", i);
  }
  EF_FUZZ_INVARIANT(!program.LoadSegment(program.num_segments(), SegmentInfo{}).ok(),
                    "LoadSegment past the end did not fail");
  (void)program.constant_segment_size();
  (void)program.uses_deprecated_constant_buffer();
  for (size_t i = 0; i < program.num_named_data(); ++i) {
    const char* key = program.named_data_key(i);
    EF_FUZZ_INVARIANT(key != nullptr, "named data key %zu is null", i);
    Result<FreeableBuffer> data = program.GetData(key);
    EF_FUZZ_INVARIANT(data.ok(), "named data '%s' validated but cannot be loaded", key);
  }
  EF_FUZZ_INVARIANT(program.GetData("\x01no such key").error() == Error::kNotFound,
                    "GetData of a missing key did not return kNotFound");
  EF_FUZZ_INVARIANT(program.method_meta("\x01no such method").error() == Error::kNotFound,
                    "method_meta of a missing method did not return kNotFound");
  for (size_t m = 0; m < program.num_methods(); ++m) {
    const char* name = program.method_name(m);
    EF_FUZZ_INVARIANT(name != nullptr, "method %zu has no name", m);
    Result<MethodMeta> meta = program.method_meta(name);
    EF_FUZZ_INVARIANT(meta.ok(), "method_meta('%s') failed on an accepted program", name);
    InspectMethod(*meta);
  }
}

}  // namespace fuzz
}  // namespace edgefleet
