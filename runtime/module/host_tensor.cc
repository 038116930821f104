#include "runtime/module/host_tensor.h"

#include <cstring>
#include <new>

#include "runtime/core/error_detail.h"
#include "runtime/core/tensor_copy.h"

namespace edgefleet {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kSlackBytes = 64;

}  // namespace

void HostTensor::AlignedFree::operator()(uint8_t* p) const {
  ::operator delete[](p, std::align_val_t{kAlignment});
}

HostTensor::HostTensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order,
                       std::unique_ptr<uint8_t[], AlignedFree> data)
    : sizes_(std::move(sizes)),
      dim_order_(std::move(dim_order)),
      strides_(sizes_.size()),
      data_(std::move(data)),
      tensor_(dtype, static_cast<int>(sizes_.size()), sizes_.data(), dim_order_.data(),
              strides_.data(), data_.get(), ShapeDynamism::kStatic) {}

Result<std::unique_ptr<HostTensor>> HostTensor::Create(ScalarType dtype, Span<const int32_t> sizes,
                                                       Span<const uint8_t> dim_order) {
  EF_CHECK_OR_RETURN(sizes.size() <= static_cast<size_t>(kMaxTensorRank), Error::kInvalidArgument,
                     "tensor rank %zu exceeds %d", sizes.size(), kMaxTensorRank);
  std::vector<uint8_t> order(dim_order.begin(), dim_order.end());
  if (order.empty()) {
    for (size_t d = 0; d < sizes.size(); ++d) order.push_back(static_cast<uint8_t>(d));
  }
  EF_CHECK_OR_RETURN(order.size() == sizes.size() &&
                         IsValidDimOrder(Span<const uint8_t>(order.data(), order.size())),
                     Error::kInvalidArgument, "invalid dim order for a rank-%zu tensor",
                     sizes.size());
  const int64_t numel = CheckedNumel(sizes);
  uint64_t nbytes = 0;
  EF_CHECK_OR_RETURN(
      numel >= 0 &&
          !__builtin_mul_overflow(static_cast<uint64_t>(numel), ElementSize(dtype), &nbytes) &&
          nbytes <= SIZE_MAX - kSlackBytes,
      Error::kInvalidArgument, "invalid tensor size (negative or overflowing)");
  const size_t allocation = static_cast<size_t>(nbytes) + kSlackBytes;
  std::unique_ptr<uint8_t[], AlignedFree> data(new (std::align_val_t{kAlignment}, std::nothrow)
                                                   uint8_t[allocation]);
  EF_CHECK_OR_RETURN(data != nullptr, Error::kMemoryAllocationFailed,
                     "cannot allocate %zu bytes for a tensor", allocation);
  memset(data.get(), 0, allocation);
  return std::unique_ptr<HostTensor>(new HostTensor(
      dtype, std::vector<int32_t>(sizes.begin(), sizes.end()), std::move(order), std::move(data)));
}

Result<std::unique_ptr<HostTensor>> HostTensor::FromBytes(ScalarType dtype,
                                                          Span<const int32_t> sizes,
                                                          Span<const uint8_t> bytes) {
  EF_ASSIGN_OR_RETURN(std::unique_ptr<HostTensor> host, Create(dtype, sizes));
  EF_CHECK_OR_RETURN(host->tensor().nbytes() == bytes.size(), Error::kInvalidArgument,
                     "%zu data bytes do not match the shape (%zu bytes)", bytes.size(),
                     host->tensor().nbytes());
  if (!bytes.empty()) memcpy(host->data_.get(), bytes.data(), bytes.size());
  return host;
}

Result<std::unique_ptr<HostTensor>> HostTensor::CopyOf(const Tensor& tensor) {
  EF_ASSIGN_OR_RETURN(std::unique_ptr<HostTensor> host, Create(tensor.dtype(), tensor.sizes()));
  EF_RETURN_IF_ERROR(CopyTensorData(tensor, host->tensor()));
  return host;
}

std::string DescribeTensor(ScalarType dtype, Span<const int32_t> sizes) {
  std::string out = ScalarTypeName(dtype);
  out += '[';
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (d > 0) out += ',';
    out += std::to_string(sizes[d]);
  }
  out += ']';
  return out;
}

}  // namespace edgefleet
