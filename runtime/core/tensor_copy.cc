#include "runtime/core/tensor_copy.h"

#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {

Error CopyTensorData(const Tensor& src, Tensor& dst) {
  EF_CHECK_OR_RETURN(src.dtype() == dst.dtype() && src.dim() == dst.dim(), Error::kInvalidArgument,
                     "tensor copy: dtype or rank mismatch");
  for (int d = 0; d < src.dim(); ++d) {
    EF_CHECK_OR_RETURN(src.size(d) == dst.size(d), Error::kInvalidArgument,
                       "tensor copy: size mismatch in dimension %d", d);
  }
  if (src.numel() == 0) return Error::kOk;
  EF_CHECK_OR_RETURN(src.data() != nullptr && dst.data() != nullptr, Error::kInvalidArgument,
                     "tensor copy: missing data");
  const size_t element = ElementSize(src.dtype());
  bool same_layout = true;
  for (int d = 0; d < src.dim(); ++d) {
    same_layout = same_layout && (src.size(d) <= 1 || src.stride(d) == dst.stride(d));
  }
  if (same_layout) {
    memmove(dst.mutable_data(), src.data(), src.nbytes());
    return Error::kOk;
  }
  // Walk the logical index space in row-major order.
  int32_t index[kMaxTensorRank] = {};
  const uint8_t* in = static_cast<const uint8_t*>(src.data());
  uint8_t* out = static_cast<uint8_t*>(dst.mutable_data());
  for (int64_t n = 0; n < src.numel(); ++n) {
    int64_t src_offset = 0, dst_offset = 0;
    for (int d = 0; d < src.dim(); ++d) {
      src_offset += static_cast<int64_t>(index[d]) * src.stride(d);
      dst_offset += static_cast<int64_t>(index[d]) * dst.stride(d);
    }
    memcpy(out + dst_offset * element, in + src_offset * element, element);
    for (int d = src.dim() - 1; d >= 0; --d) {
      if (++index[d] < src.size(d)) break;
      index[d] = 0;
    }
  }
  return Error::kOk;
}

}  // namespace edgefleet
