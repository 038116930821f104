// Reshaping copies: view_copy, unsqueeze_copy, squeeze_copy (dim and dims).
// The elements keep their logical (row-major) order; only the shape
// changes. Input and output may have different dim orders.

#include <cstring>

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"
#include "runtime/kernels/portable/view_shape.h"

namespace edgefleet {
namespace portable {
namespace {

// Resizes out to `sizes` and copies `in` into it in logical order.
void ReshapeInto(KernelArgs& args, const Tensor& in, int dim, const int64_t* sizes, Tensor& out) {
  if (in.dtype() != out.dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in.dtype()), ScalarTypeName(out.dtype()));
    return;
  }
  int32_t out_sizes[kMaxTensorRank];
  if (!ToTensorSizes(dim, sizes, out_sizes)) {
    args.Fail(Error::kInvalidArgument, "output size out of range");
    return;
  }
  if (!args.ResizeOut(out, {out_sizes, static_cast<size_t>(dim)}, "out")) {
    return;
  }
  if (out.numel() != in.numel()) {
    args.Fail(Error::kInvalidArgument,
              "shape %s has %lld elements, input "
              "has %lld",
              FormatSizes(dim, sizes).text, static_cast<long long>(out.numel()),
              static_cast<long long>(in.numel()));
    return;
  }
  if (in.IsDefaultDimOrder() && out.IsDefaultDimOrder()) {  // logical order is memory order
    if (in.nbytes() > 0) std::memmove(out.mutable_data(), in.data(), in.nbytes());
    return;
  }
  CopyReshaped(StridedView::Of(in), StridedView::Of(out));
}

// Squeezes the dims marked in `mask` that have size 1 and copies.
void SqueezeInto(KernelArgs& args, const Tensor& in, const bool* mask, Tensor& out) {
  int64_t sizes[kMaxTensorRank];
  int dim = 0;
  for (int d = 0; d < in.dim(); ++d) {
    if (!(mask[d] && in.size(d) == 1)) sizes[dim++] = in.size(d);
  }
  ReshapeInto(args, in, dim, sizes, out);
}

}  // namespace

void ViewCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::view_copy.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> size = args.GetIntList(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  int64_t sizes[kMaxTensorRank];
  if (!InferViewShape(args, size, in->numel(), sizes)) return;
  ReshapeInto(args, *in, static_cast<int>(size.size()), sizes, *out);
}

void UnsqueezeCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::unsqueeze_copy.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  int d = 0;
  if (in->dim() >= kMaxTensorRank || !NormalizeDim(dim, in->dim() + 1, &d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), in->dim());
    return;
  }
  int64_t sizes[kMaxTensorRank];
  for (int i = 0, j = 0; i <= in->dim(); ++i) {
    sizes[i] = i == d ? 1 : in->size(j++);
  }
  ReshapeInto(args, *in, in->dim() + 1, sizes, *out);
}

void SqueezeCopyDimOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::squeeze_copy.dim_out", raw, 4);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  int d = 0;
  if (!NormalizeDim(dim, in->dim(), &d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), in->dim());
    return;
  }
  bool mask[kMaxTensorRank] = {};
  mask[d] = true;
  SqueezeInto(args, *in, mask, *out);
}

void SqueezeCopyDimsOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::squeeze_copy.dims_out", raw, 4);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims = args.GetIntList(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  bool mask[kMaxTensorRank] = {};
  for (int64_t dim : dims) {
    int d = 0;
    if (!NormalizeDim(dim, in->dim(), &d)) {
      args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
                static_cast<long long>(dim), in->dim());
      return;
    }
    mask[d] = true;
  }
  SqueezeInto(args, *in, mask, *out);
}

}  // namespace portable
}  // namespace edgefleet
