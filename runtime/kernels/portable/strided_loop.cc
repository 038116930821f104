#include "runtime/kernels/portable/strided_loop.h"

#include <cstdio>

namespace edgefleet {
namespace portable {

StridedView StridedView::Of(const Tensor& t) {
  StridedView v;
  v.data = static_cast<char*>(t.mutable_data());
  v.dtype = t.dtype();
  v.dim = t.dim();
  for (int d = 0; d < v.dim; ++d) {
    v.sizes[d] = t.size(d);
    v.strides[d] = t.stride(d);
  }
  return v;
}

int64_t StridedView::numel() const {
  int64_t n = 1;
  for (int d = 0; d < dim; ++d) n *= sizes[d];
  return n;
}

void StridedView::Narrow(int d, int64_t start, int64_t length) {
  if (length > 0) {
    data += start * strides[d] * static_cast<int64_t>(ElementSize(dtype));
  }
  sizes[d] = length;
}

void StridedView::Select(int d, int64_t index) {
  data += index * strides[d] * static_cast<int64_t>(ElementSize(dtype));
  for (int i = d; i + 1 < dim; ++i) {
    sizes[i] = sizes[i + 1];
    strides[i] = strides[i + 1];
  }
  --dim;
}

void StridedView::Insert(int d, int64_t size, int64_t stride) {
  for (int i = dim; i > d; --i) {
    sizes[i] = sizes[i - 1];
    strides[i] = strides[i - 1];
  }
  sizes[d] = size;
  strides[d] = stride;
  ++dim;
}

bool BroadcastShapes(const StridedView& a, const StridedView& b, int* dim, int64_t* shape) {
  const int n = a.dim > b.dim ? a.dim : b.dim;
  for (int d = 0; d < n; ++d) {
    const int da = d - (n - a.dim);
    const int db = d - (n - b.dim);
    const int64_t sa = da < 0 ? 1 : a.sizes[da];
    const int64_t sb = db < 0 ? 1 : b.sizes[db];
    if (sa != sb && sa != 1 && sb != 1) return false;
    shape[d] = sa == 1 ? sb : sa;
  }
  *dim = n;
  return true;
}

SizesText FormatSizes(int dim, const int64_t* sizes) {
  SizesText out;
  size_t used = 0;
  out.text[used++] = '[';
  for (int d = 0; d < dim && used < sizeof(out.text); ++d) {
    used += static_cast<size_t>(snprintf(out.text + used, sizeof(out.text) - used, "%s%lld",
                                         d == 0 ? "" : ", ", static_cast<long long>(sizes[d])));
  }
  if (used + 2 <= sizeof(out.text)) {
    out.text[used++] = ']';
    out.text[used] = '\0';
  } else {
    out.text[sizeof(out.text) - 1] = '\0';
  }
  return out;
}

bool ToTensorSizes(int dim, const int64_t* sizes, int32_t* out) {
  for (int d = 0; d < dim; ++d) {
    if (sizes[d] < 0 || sizes[d] > INT32_MAX) return false;
    out[d] = static_cast<int32_t>(sizes[d]);
  }
  return true;
}

}  // namespace portable
}  // namespace edgefleet
