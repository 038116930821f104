// Whole-tensor copies and fills: clone, _to_copy, the dim-order ops
// (_clone_dim_order, _to_dim_order_copy), full, full_like and
// scalar_tensor. The output's dim order
// is the program's choice; these kernels write according to out's strides,
// which is how a dim-order conversion happens.

#include "runtime/kernels/portable/copy_util.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Resizes out to in's shape and copies, converting dtype if allowed.
void CopyInto(KernelArgs& args, const Tensor& in, Tensor& out,
              bool convert_dtype) {
  if (!convert_dtype && in.dtype() != out.dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in.dtype()), ScalarTypeName(out.dtype()));
    return;
  }
  if (!args.ResizeOut(out, in.sizes(), "out")) return;
  if (!CopyView(StridedView::Of(in), StridedView::Of(out))) {
    args.Fail(Error::kNotSupported, "cannot convert %s to %s",
              ScalarTypeName(in.dtype()), ScalarTypeName(out.dtype()));
  }
}

// self, non_blocking, dim_order?, out, ret. A given dim_order must be out's.
void DimOrderCopy(KernelContext& ctx, Span<EValue*> raw, const char* name,
                  bool convert_dtype) {
  KernelArgs args(ctx, name, raw, 5);
  Tensor* in = args.GetTensor(0);
  args.GetBool(1);  // non_blocking: copies are synchronous
  Span<const int64_t> dim_order;
  const bool has_dim_order = args.GetOptionalIntList(2, &dim_order);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (has_dim_order) {
    bool same = dim_order.size() == static_cast<size_t>(out->dim());
    for (size_t i = 0; same && i < dim_order.size(); ++i) {
      same = dim_order[i] == out->dim_order()[i];
    }
    if (!same) {
      args.Fail(Error::kInvalidArgument,
                "dim_order does not match the out tensor's dim order");
      return;
    }
  }
  CopyInto(args, *in, *out, convert_dtype);
}

}  // namespace

void CloneOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::clone.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  int64_t memory_format = 0;
  args.GetOptionalInt(1, &memory_format);  // out's dim order decides layout
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  CopyInto(args, *in, *out, /*convert_dtype=*/false);
}

void ToCopyOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_to_copy.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  args.GetBool(1);  // non_blocking: copies are synchronous
  int64_t memory_format = 0;
  args.GetOptionalInt(2, &memory_format);  // out's dim order decides layout
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  CopyInto(args, *in, *out, /*convert_dtype=*/true);
}

void CloneDimOrderOut(KernelContext& ctx, Span<EValue*> args) {
  DimOrderCopy(ctx, args, "dim_order_ops::_clone_dim_order.out",
               /*convert_dtype=*/false);
}

void ToDimOrderCopyOut(KernelContext& ctx, Span<EValue*> args) {
  DimOrderCopy(ctx, args, "dim_order_ops::_to_dim_order_copy.out",
               /*convert_dtype=*/true);
}

void FullOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::full.out", raw, 4);
  Span<const int64_t> size = args.GetIntList(0);
  const Scalar value = args.GetScalar(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  int32_t sizes[kMaxTensorRank];
  if (size.size() > static_cast<size_t>(kMaxTensorRank) ||
      !ToTensorSizes(static_cast<int>(size.size()), size.data(), sizes)) {
    args.Fail(Error::kInvalidArgument, "invalid size");
    return;
  }
  if (!args.ResizeOut(*out, {sizes, size.size()}, "out")) return;
  if (!FillView(StridedView::Of(*out), value)) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported",
              ScalarTypeName(out->dtype()));
  }
}

void FullLikeOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::full_like.out", raw, 5);
  Tensor* in = args.GetTensorAnyData(0);  // only the shape is read
  const Scalar value = args.GetScalar(1);
  int64_t memory_format = 0;
  args.GetOptionalInt(2, &memory_format);  // out's dim order decides layout
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  if (!FillView(StridedView::Of(*out), value)) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported",
              ScalarTypeName(out->dtype()));
  }
}

void ScalarTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::scalar_tensor.out", raw, 3);
  const Scalar value = args.GetScalar(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  if (!args.ResizeOut(*out, {}, "out")) return;
  if (!FillView(StridedView::Of(*out), value)) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported",
              ScalarTypeName(out->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet
