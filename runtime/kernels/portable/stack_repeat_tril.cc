// Shape-building copies: aten::stack.out (tensors of one shape joined
// along a new dim; inputs are converted to out's dtype as torch promotes),
// repeat.out (tiling, with leading dims added when repeats is longer than
// the rank) and tril.out (lower triangle of the last two dims, the rest
// zero). Any dim order.

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {

void StackOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::stack.out", raw, 4);
  Span<Tensor* const> tensors = args.GetTensorList(0);
  const int64_t dim_arg = args.GetInt(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (tensors.empty()) {
    args.Fail(Error::kInvalidArgument, "expects a non-empty TensorList");
    return;
  }
  const Tensor& first = *tensors[0];
  int d = 0;
  if (first.dim() + 1 > kMaxTensorRank || !NormalizeDim(dim_arg, first.dim() + 1, &d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim_arg), first.dim() + 1);
    return;
  }
  for (const Tensor* t : tensors) {
    bool same = t->dim() == first.dim() && t != out;
    for (int i = 0; same && i < t->dim(); ++i) {
      same = t->size(i) == first.size(i);
    }
    if (!same || !IsElementType(t->dtype()) || !CanCast(t->dtype(), out->dtype())) {
      args.Fail(Error::kInvalidArgument,
                "stack expects each tensor to be equal size and castable to "
                "out (%s); got %s %s",
                ScalarTypeName(out->dtype()), ScalarTypeName(t->dtype()),
                FormatSizes(StridedView::Of(*t)).text);
      return;
    }
  }
  if (tensors.size() > static_cast<size_t>(INT32_MAX)) {
    args.Fail(Error::kInvalidArgument, "too many tensors");
    return;
  }
  int32_t sizes[kMaxTensorRank];
  for (int i = 0, j = 0; i <= first.dim(); ++i) {
    sizes[i] = i == d ? static_cast<int32_t>(tensors.size()) : first.size(j++);
  }
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(first.dim() + 1)}, "out")) {
    return;
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    StridedView dst = StridedView::Of(*out);
    dst.Select(d, static_cast<int64_t>(i));
    if (dst.numel() > 0 && !CopyView(StridedView::Of(*tensors[i]), dst)) {
      args.Fail(Error::kNotSupported, "cannot convert %s to %s",
                ScalarTypeName(tensors[i]->dtype()), ScalarTypeName(out->dtype()));
      return;
    }
  }
}

void RepeatOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::repeat.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> repeats = args.GetIntList(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  const int rank = static_cast<int>(repeats.size());
  if (repeats.size() < static_cast<size_t>(in->dim()) || rank > kMaxTensorRank) {
    args.Fail(Error::kInvalidArgument,
              "number of repeat dims (%zu) can not be smaller than the "
              "number of tensor dims (%d)",
              repeats.size(), in->dim());
    return;
  }
  if (in->dtype() != out->dtype() || in == out) {
    args.Fail(Error::kInvalidArgument,
              "out must be a distinct tensor of the "
              "input's dtype");
    return;
  }
  // The input padded with leading size-1 dims to the repeats' length.
  StridedView src = StridedView::Of(*in);
  while (src.dim < rank) src.Insert(0, 1, 0);
  int64_t shape[kMaxTensorRank];
  int64_t tiles = 1;
  for (int d = 0; d < rank; ++d) {
    if (repeats[d] < 0) {
      args.Fail(Error::kInvalidArgument, "repeats must be >= 0, got %lld",
                static_cast<long long>(repeats[d]));
      return;
    }
    shape[d] = src.sizes[d] * repeats[d];
    tiles *= repeats[d];
  }
  int32_t sizes[kMaxTensorRank];
  if (!ToTensorSizes(rank, shape, sizes)) {
    args.Fail(Error::kInvalidArgument, "result too large");
    return;
  }
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(rank)}, "out")) {
    return;
  }
  if (out->numel() == 0) return;
  // One copy per tile; tile t's index along d is a mixed-radix digit of t.
  for (int64_t t = 0; t < tiles; ++t) {
    StridedView dst = StridedView::Of(*out);
    int64_t rest = t;
    for (int d = rank - 1; d >= 0; --d) {
      dst.Narrow(d, (rest % repeats[d]) * src.sizes[d], src.sizes[d]);
      rest /= repeats[d];
    }
    CopyView(src, dst);
  }
}

void TrilOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::tril.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  const int64_t diagonal = args.GetInt(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (in->dim() < 2 || in->dtype() != out->dtype() || !IsElementType(in->dtype())) {
    args.Fail(Error::kInvalidArgument,
              "needs a tensor of rank >= 2 and out of its dtype (got rank "
              "%d, %s -> %s)",
              in->dim(), ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  if (out->numel() == 0) return;
  const int row_dim = in->dim() - 2;
  const int64_t rows = in->size(row_dim);
  const int64_t cols = in->size(row_dim + 1);
  const Scalar zero{Scalar::Kind::kInt, 0, 0.0};
  for (int64_t i = 0; i < rows; ++i) {
    // Row i keeps columns [0, i + diagonal] (clamped to [0, cols]).
    int64_t keep = i + diagonal + 1;
    keep = keep < 0 ? 0 : (keep > cols ? cols : keep);
    StridedView src = StridedView::Of(*in);
    StridedView dst = StridedView::Of(*out);
    src.Select(row_dim, i);
    dst.Select(row_dim, i);
    if (keep > 0) {
      StridedView s = src, t = dst;
      s.Narrow(row_dim, 0, keep);
      t.Narrow(row_dim, 0, keep);
      if (in != out) CopyView(s, t);
    }
    if (keep < cols) {
      dst.Narrow(row_dim, keep, cols - keep);
      FillView(dst, zero);
    }
  }
}

}  // namespace portable
}  // namespace edgefleet
