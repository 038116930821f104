// MethodMeta: what a method needs and produces, read before anything is
// allocated: inputs and outputs (kind, dtype, shape, dim order), the sizes
// of the planned memory arenas, operators, delegates, and how much method
// allocator memory Method::Load will need.
//
// A MethodMeta is a view into its Program and must not outlive it.
// Thread-safe (immutable).

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_METHOD_META_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_METHOD_META_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace edgefleet_fb {
struct ExecutionPlan;
}  // namespace edgefleet_fb

namespace edgefleet {

struct TensorInfo {
  ScalarType dtype;
  Span<const int32_t> sizes;  // export-time (upper-bound) shape
  Span<const uint8_t> dim_order;
  ShapeDynamism dynamism;
  size_t nbytes;  // at the export-time shape
  bool is_memory_planned;
};

class MethodMeta {
 public:
  explicit MethodMeta(const edgefleet_fb::ExecutionPlan* plan) : plan_(plan) {}

  const char* name() const;

  size_t num_inputs() const;
  // Errors (all accessors taking an index): kInvalidArgument if out of range.
  Result<Tag> input_tag(size_t i) const;
  // Errors: kInvalidArgument if out of range, kInvalidType if not a tensor.
  Result<TensorInfo> input_tensor_info(size_t i) const;

  size_t num_outputs() const;
  Result<Tag> output_tag(size_t i) const;
  Result<TensorInfo> output_tensor_info(size_t i) const;

  // Planned arenas, 0-based (the file's memory_id minus one).
  size_t num_planned_buffers() const;
  Result<int64_t> planned_buffer_size(size_t i) const;

  size_t num_operators() const;
  // Writes "name.overload" (or "name") into `buffer`; returns false if it
  // does not fit. REQUIRES: i < num_operators().
  bool operator_name(size_t i, char* buffer, size_t size) const;

  size_t num_backends() const;
  const char* backend_name(size_t i) const;  // REQUIRES: i < num_backends()

  size_t num_instructions() const;

  // Upper bound of the method allocator bytes Method::Load uses for this
  // method's values, tensors, argument lists and instruction table
  // (delegates may need more for their own state).
  size_t method_allocator_bytes() const;

 private:
  Result<Tag> value_tag(size_t value_index) const;
  Result<TensorInfo> tensor_info(size_t value_index) const;

  const edgefleet_fb::ExecutionPlan* plan_;
};

// The runtime Tag of a value of flatbuffer union type `type`.
Tag TagForValueType(uint8_t type);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_METHOD_META_H_
