#include "runtime/core/tensor.h"

#include <cstdint>

#include "runtime/core/error_detail.h"

namespace edgefleet {

int64_t CheckedNumel(Span<const int32_t> sizes) {
  int64_t numel = 1;
  for (int32_t s : sizes) {
    if (s < 0) return -1;
    if (__builtin_mul_overflow(numel, static_cast<int64_t>(s), &numel)) {
      return -1;
    }
  }
  return numel;
}

bool IsValidDimOrder(Span<const uint8_t> dim_order) {
  if (dim_order.size() > static_cast<size_t>(kMaxTensorRank)) return false;
  bool seen[kMaxTensorRank] = {};
  for (uint8_t d : dim_order) {
    if (d >= dim_order.size() || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

Tensor::Tensor(ScalarType dtype, int dim, int32_t* sizes, uint8_t* dim_order, int32_t* strides,
               void* data, ShapeDynamism dynamism)
    : dtype_(dtype),
      dim_(dim),
      sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data),
      dynamism_(dynamism) {
  numel_ = CheckedNumel(this->sizes());
  numel_bound_ = numel_;
  RecomputeStrides();
}

bool Tensor::IsDefaultDimOrder() const {
  for (int i = 0; i < dim_; ++i) {
    if (dim_order_[i] != i) return false;
  }
  return true;
}

void Tensor::RecomputeStrides() {
  // Innermost dimension (last in dim order) has stride 1.
  // Strides of a tensor with elements fit int32 (numel does); a tensor
  // with a zero size may have huge other sizes: its strides saturate (no
  // element is ever addressed through them).
  int64_t stride = 1;
  for (int i = dim_ - 1; i >= 0; --i) {
    const int d = dim_order_[i];
    strides_[d] = static_cast<int32_t>(stride);
    const int64_t size = sizes_[d] > 1 ? sizes_[d] : 1;
    stride = stride > INT32_MAX / size ? INT32_MAX : stride * size;
  }
}

void Tensor::CopyDimOrderFrom(const Tensor& other) {
  for (int i = 0; i < dim_; ++i) dim_order_[i] = other.dim_order_[i];
  RecomputeStrides();
}

Error Tensor::Resize(Span<const int32_t> new_sizes) {
  EF_CHECK_OR_RETURN(new_sizes.size() == static_cast<size_t>(dim_), Error::kInvalidArgument,
                     "cannot resize a rank-%d tensor to rank %zu", dim_, new_sizes.size());
  bool same = true;
  for (int i = 0; i < dim_; ++i) same = same && sizes_[i] == new_sizes[i];
  if (same) return Error::kOk;
  EF_CHECK_OR_RETURN(dynamism_ != ShapeDynamism::kStatic, Error::kNotSupported,
                     "tensor has a static shape and cannot be resized");
  const int64_t numel = CheckedNumel(new_sizes);
  EF_CHECK_OR_RETURN(numel >= 0, Error::kInvalidArgument,
                     "invalid tensor size (negative or overflowing)");
  EF_CHECK_OR_RETURN(numel <= numel_bound_, Error::kInvalidArgument,
                     "new shape has %lld elements, above the bound of %lld",
                     static_cast<long long>(numel), static_cast<long long>(numel_bound_));
  for (int i = 0; i < dim_; ++i) sizes_[i] = new_sizes[i];
  numel_ = numel;
  RecomputeStrides();
  return Error::kOk;
}

}  // namespace edgefleet
