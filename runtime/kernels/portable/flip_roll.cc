// aten::flip.out (reverse along dims) and aten::roll.out (cyclic shift along
// dims, or of the flattened tensor when dims is empty). Any dtype (elements
// are moved as bytes) and dim order; out has the input's shape and dtype.

#include <cstring>

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

bool PrepareSameShape(KernelArgs& args, const Tensor& in, Tensor& out) {
  if (in.dtype() != out.dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in.dtype()), ScalarTypeName(out.dtype()));
    return false;
  }
  if (&in == &out) {
    args.Fail(Error::kInvalidArgument, "out must not be the input");
    return false;
  }
  return args.ResizeOut(out, in.sizes(), "out");
}

// The element offset of logical (row-major) index `flat` in view v.
int64_t OffsetOf(const StridedView& v, int64_t flat) {
  int64_t offset = 0;
  for (int d = v.dim - 1; d >= 0; --d) {
    offset += (flat % v.sizes[d]) * v.strides[d];
    flat /= v.sizes[d];
  }
  return offset;
}

}  // namespace

void FlipOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::flip.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims = args.GetIntList(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok() || !PrepareSameShape(args, *in, *out)) return;
  StridedView src = StridedView::Of(*in);
  bool seen[kMaxTensorRank] = {};
  for (int64_t dim : dims) {
    int d = 0;
    if (!NormalizeDim(dim, in->dim(), &d) || (in->dim() > 0 && seen[d])) {
      args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d or repeated",
                static_cast<long long>(dim), in->dim());
      return;
    }
    if (in->dim() == 0) continue;
    seen[d] = true;
    // Start at the last element of d and walk backwards.
    if (src.sizes[d] > 0) {
      src.data +=
          (src.sizes[d] - 1) * src.strides[d] * static_cast<int64_t>(ElementSize(src.dtype));
    }
    src.strides[d] = -src.strides[d];
  }
  if (out->numel() > 0) CopyView(src, StridedView::Of(*out));
}

void RollOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::roll.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> shifts = args.GetIntList(1);
  Span<const int64_t> dims = args.GetIntList(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok() || !PrepareSameShape(args, *in, *out)) return;
  const bool flat = dims.empty();
  if (flat ? shifts.size() != 1 : shifts.size() != dims.size()) {
    args.Fail(Error::kInvalidArgument, "shifts (%zu) and dims (%zu) must align", shifts.size(),
              dims.size());
    return;
  }
  const StridedView src = StridedView::Of(*in);
  const StridedView dst = StridedView::Of(*out);
  const size_t elem = ElementSize(in->dtype());
  const int64_t numel = in->numel();
  if (numel == 0) return;
  if (flat) {
    // Roll the flattened tensor: out[i] = in[(i - shift) mod numel].
    const int64_t shift = ((shifts[0] % numel) + numel) % numel;
    for (int64_t i = 0; i < numel; ++i) {
      const int64_t from = (i - shift + numel) % numel;
      std::memcpy(dst.data + OffsetOf(dst, i) * static_cast<int64_t>(elem),
                  src.data + OffsetOf(src, from) * static_cast<int64_t>(elem), elem);
    }
    return;
  }
  int64_t shift_of[kMaxTensorRank] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    int d = 0;
    if (in->dim() == 0 || !NormalizeDim(dims[i], in->dim(), &d)) {
      args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
                static_cast<long long>(dims[i]), in->dim());
      return;
    }
    const int64_t n = src.sizes[d];
    shift_of[d] = (((shift_of[d] + shifts[i]) % n) + n) % n;
  }
  // Each dim splits into two blocks, [0, n - s) -> [s, n) and
  // [n - s, n) -> [0, s); copy every combination of blocks.
  const int rank = in->dim();
  for (int64_t mask = 0; mask < (int64_t{1} << rank); ++mask) {
    StridedView from = src;
    StridedView to = dst;
    bool skip = false;
    for (int d = 0; d < rank && !skip; ++d) {
      const int64_t n = src.sizes[d];
      const int64_t s = shift_of[d];  // 0 <= s < n
      if ((mask >> d) & 1) {
        skip = s == 0;  // an unshifted dim has only the first block
        from.Narrow(d, n - s, s);
        to.Narrow(d, 0, s);
      } else {
        from.Narrow(d, 0, n - s);
        to.Narrow(d, s, n - s);
      }
    }
    if (!skip) CopyView(from, to);
  }
}

}  // namespace portable
}  // namespace edgefleet
