// Tensor: shape, dim order, strides and a data pointer; owns none of them.
//
// A Tensor never owns memory. Its metadata arrays (sizes, dim order, strides)
// and the Tensor object itself come from the method allocator; its data lives
// in a planned arena, in the program's constant segment, or in caller memory.
// Not thread-safe: a Tensor belongs to one Method, used by one thread at a
// time.
//
// Shapes follow the .pte format: sizes are int32, dim order is a permutation
// of [0, dim) listing dimensions from outermost to innermost in memory, and
// strides (in elements) are derived from sizes and dim order.

#ifndef EDGEFLEET_RUNTIME_CORE_TENSOR_H_
#define EDGEFLEET_RUNTIME_CORE_TENSOR_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace edgefleet {

// Highest rank the runtime accepts (as the real runtime).
inline constexpr int kMaxTensorRank = 16;

enum class ShapeDynamism : uint8_t {
  kStatic = 0,        // shape fixed at export
  kDynamicBound = 1,  // any shape of the same rank within the planned numel
  kDynamicUnbound = 2,
};

class Tensor {
 public:
  // REQUIRES: `sizes`, `dim_order`, `strides` each point at `dim` writable
  // elements that outlive the Tensor; dim <= kMaxTensorRank; dim_order is a
  // permutation of [0, dim); the shape's numel fits in int64. `numel_bound`
  // is the capacity of `data` in elements.
  Tensor(ScalarType dtype, int dim, int32_t* sizes, uint8_t* dim_order, int32_t* strides,
         void* data, ShapeDynamism dynamism);

  ScalarType dtype() const { return dtype_; }
  int dim() const { return dim_; }
  int64_t numel() const { return numel_; }
  int64_t numel_bound() const { return numel_bound_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * ElementSize(dtype_); }
  ShapeDynamism dynamism() const { return dynamism_; }

  Span<const int32_t> sizes() const { return {sizes_, static_cast<size_t>(dim_)}; }
  Span<const uint8_t> dim_order() const { return {dim_order_, static_cast<size_t>(dim_)}; }
  Span<const int32_t> strides() const { return {strides_, static_cast<size_t>(dim_)}; }
  // REQUIRES: 0 <= d < dim().
  int32_t size(int d) const { return sizes_[d]; }
  int32_t stride(int d) const { return strides_[d]; }

  void* mutable_data() const { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data_);
  }
  void set_data(void* data) { data_ = data; }

  // True if the dim order is the identity (row-major contiguous).
  bool IsDefaultDimOrder() const;

  // Changes the shape. STATIC tensors accept only their current shape;
  // DYNAMIC_BOUND tensors accept the same rank with numel <= numel_bound().
  // Errors: kNotSupported (static shape change), kInvalidArgument (rank
  // mismatch, negative size, bound exceeded). Records an error detail.
  Error Resize(Span<const int32_t> new_sizes);

  // Sets numel_bound() (capacity in elements). Used when the tensor's backing
  // memory is bound, e.g. planned memory sized for the export-time shape.
  void set_numel_bound(int64_t bound) { numel_bound_ = bound; }

  // Copies dim order and strides from `other` (same rank), keeping sizes.
  // Used by view-like kernels. REQUIRES: other.dim() == dim().
  void CopyDimOrderFrom(const Tensor& other);

 private:
  void RecomputeStrides();

  ScalarType dtype_;
  int dim_;
  int32_t* sizes_;
  uint8_t* dim_order_;
  int32_t* strides_;
  void* data_;
  int64_t numel_ = 1;
  int64_t numel_bound_ = 0;
  ShapeDynamism dynamism_;
};

// Product of `sizes`, or -1 if a size is negative or the product overflows
// int64.
int64_t CheckedNumel(Span<const int32_t> sizes);

// True if `dim_order` is a permutation of [0, dim_order.size()).
bool IsValidDimOrder(Span<const uint8_t> dim_order);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_TENSOR_H_
