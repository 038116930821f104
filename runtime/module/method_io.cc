#include "runtime/module/method_io.h"

#include "runtime/core/error_detail.h"
#include "runtime/core/tensor_copy.h"

namespace edgefleet {
namespace {

// A default-dim-order tensor over caller memory (shape copied, data not).
class ContiguousView {
 public:
  // REQUIRES: sizes.size() <= kMaxTensorRank.
  ContiguousView(ScalarType dtype, Span<const int32_t> sizes, void* data)
      : rank_(Describe(sizes)),
        tensor_(dtype, rank_, sizes_, order_, strides_, data, ShapeDynamism::kStatic) {}
  Tensor& tensor() { return tensor_; }

 private:
  // Fills the shape arrays; returns the rank.
  int Describe(Span<const int32_t> sizes) {
    const int rank = static_cast<int>(sizes.size());
    int32_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      sizes_[d] = sizes[d];
      order_[d] = static_cast<uint8_t>(d);
      strides_[d] = stride;
      stride *= sizes[d];
    }
    return rank;
  }

  int32_t sizes_[kMaxTensorRank] = {};
  uint8_t order_[kMaxTensorRank] = {};
  int32_t strides_[kMaxTensorRank] = {};
  int rank_;
  Tensor tensor_;
};

}  // namespace

Error CopyToContiguous(const Tensor& tensor, Span<uint8_t> dst) {
  EF_CHECK_OR_RETURN(dst.size() == tensor.nbytes(), Error::kInvalidArgument,
                     "destination of %zu bytes for a tensor of %zu", dst.size(), tensor.nbytes());
  ContiguousView view(tensor.dtype(), tensor.sizes(), dst.data());
  return CopyTensorData(tensor, view.tensor());
}

Error InputBinder::Bind(Method& method, size_t i, ScalarType dtype, Span<const int32_t> sizes,
                        Span<const uint8_t> bytes) {
  EF_CHECK_OR_RETURN(sizes.size() <= static_cast<size_t>(kMaxTensorRank), Error::kInvalidArgument,
                     "input %zu: rank %zu exceeds %d", i, sizes.size(), kMaxTensorRank);
  EF_ASSIGN_OR_RETURN(const TensorInfo info, method.meta().input_tensor_info(i));
  if (held_.size() <= i) held_.resize(i + 1);
  held_[i].reset();
  const int64_t numel = CheckedNumel(sizes);
  uint64_t nbytes = 0;
  EF_CHECK_OR_RETURN(
      numel >= 0 &&
          !__builtin_mul_overflow(static_cast<uint64_t>(numel), ElementSize(dtype), &nbytes) &&
          nbytes == bytes.size(),
      Error::kInvalidArgument, "input %zu: %zu bytes do not match %s", i, bytes.size(),
      DescribeTensor(dtype, sizes).c_str());
  // The view is only read (SetInput copies a planned input from it).
  ContiguousView view(dtype, sizes, const_cast<uint8_t*>(bytes.data()));
  const bool same_rank = info.dim_order.size() == sizes.size();
  if (info.is_memory_planned || !same_rank) {
    return method.SetInput(i, EValue::FromTensor(&view.tensor()));
  }
  EF_ASSIGN_OR_RETURN(held_[i], HostTensor::Create(dtype, sizes, info.dim_order));
  EF_RETURN_IF_ERROR(CopyTensorData(view.tensor(), held_[i]->tensor()));
  return method.SetInput(i, held_[i]->value());
}

}  // namespace edgefleet
