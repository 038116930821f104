// Copies of strided views of the input: aten::diagonal_copy.out (the
// diagonal of two dims, appended as the last dim), narrow_copy.out (a
// slice along one dim) and unfold_copy.out (sliding windows along one dim,
// the window appended as the last dim). Any dtype and dim order.

#include <algorithm>

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Resizes out to the view's shape and copies the view into it.
void CopyViewOut(KernelArgs& args, const StridedView& view, Tensor& out) {
  if (view.dtype != out.dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(view.dtype), ScalarTypeName(out.dtype()));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  if (!ToTensorSizes(view.dim, view.sizes, sizes)) {
    args.Fail(Error::kInvalidArgument, "result too large");
    return;
  }
  if (!args.ResizeOut(out, {sizes, static_cast<size_t>(view.dim)}, "out")) {
    return;
  }
  if (out.numel() > 0) CopyView(view, StridedView::Of(out));
}

bool Dim(KernelArgs& args, int64_t dim, int rank, int* d) {
  if (rank == 0 || !NormalizeDim(dim, rank, d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), rank);
    return false;
  }
  return true;
}

}  // namespace

void DiagonalCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::diagonal_copy.out", raw, 6);
  Tensor* in = args.GetTensor(0);
  const int64_t offset = args.GetInt(1);
  const int64_t dim1_arg = args.GetInt(2);
  const int64_t dim2_arg = args.GetInt(3);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  int d1 = 0, d2 = 0;
  if (in->dim() < 2 || !Dim(args, dim1_arg, in->dim(), &d1) ||
      !Dim(args, dim2_arg, in->dim(), &d2) || d1 == d2) {
    if (args.ok()) {
      args.Fail(Error::kInvalidArgument, "needs two distinct dims of a tensor of rank >= 2");
    }
    return;
  }
  StridedView v = StridedView::Of(*in);
  const int64_t n1 = v.sizes[d1], n2 = v.sizes[d2];
  const int64_t s1 = v.strides[d1], s2 = v.strides[d2];
  int64_t length = offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2);
  if (length < 0) length = 0;
  if (length > 0) {
    const int64_t start = offset >= 0 ? offset * s2 : -offset * s1;
    v.data += start * static_cast<int64_t>(ElementSize(v.dtype));
  }
  v.Select(std::max(d1, d2), 0);
  v.Select(std::min(d1, d2), 0);
  v.Insert(v.dim, length, s1 + s2);
  CopyViewOut(args, v, *out);
}

void NarrowCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::narrow_copy.out", raw, 6);
  Tensor* in = args.GetTensor(0);
  const int64_t dim_arg = args.GetInt(1);
  int64_t start = args.GetInt(2);
  const int64_t length = args.GetInt(3);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  int d = 0;
  if (!Dim(args, dim_arg, in->dim(), &d)) return;
  const int64_t n = in->size(d);
  if (start < 0) start += n;
  if (start < 0 || start > n || length < 0 || length > n - start) {
    args.Fail(Error::kInvalidArgument, "start (%lld) + length (%lld) exceeds dimension size (%lld)",
              static_cast<long long>(start), static_cast<long long>(length),
              static_cast<long long>(n));
    return;
  }
  StridedView v = StridedView::Of(*in);
  v.Narrow(d, start, length);
  CopyViewOut(args, v, *out);
}

void UnfoldCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::unfold_copy.out", raw, 6);
  Tensor* in = args.GetTensor(0);
  const int64_t dim_arg = args.GetInt(1);
  const int64_t size = args.GetInt(2);
  const int64_t step = args.GetInt(3);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  StridedView v = StridedView::Of(*in);
  int d = 0;
  if (in->dim() == 0) {
    v.Insert(0, 1, 1);  // a 0-dim tensor unfolds as a [1] one
  } else if (!Dim(args, dim_arg, in->dim(), &d)) {
    return;
  }
  const int64_t n = v.sizes[d];
  if (size < 0 || size > n || step <= 0) {
    args.Fail(Error::kInvalidArgument, "size (%lld) must be in [0, %lld] and step (%lld) > 0",
              static_cast<long long>(size), static_cast<long long>(n),
              static_cast<long long>(step));
    return;
  }
  const int64_t stride = v.strides[d];
  v.sizes[d] = (n - size) / step + 1;
  v.strides[d] = stride * step;
  v.Insert(v.dim, size, stride);
  if (in->dim() == 0) v.Select(0, 0);
  CopyViewOut(args, v, *out);
}

}  // namespace portable
}  // namespace edgefleet
