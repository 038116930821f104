// Tensor primitive ops of dynamic-shape programs: shape queries
// (aten::sym_size.int, aten::sym_numel) and executorch_prim::et_view.default,
// a view whose output aliases its input's memory. Not out-variant ops: the
// last argument is the result slot, which sym_size / sym_numel overwrite with
// an Int EValue.

#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"
#include "runtime/kernels/portable/view_shape.h"

namespace edgefleet {
namespace portable {
namespace {

// Stores `v` into the result slot `index`.
void SetResult(KernelArgs& args, size_t index, const EValue& v) {
  EValue* out = args.GetRaw(index);
  if (out != nullptr) *out = v;
}

}  // namespace

void SymSizeInt(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::sym_size.int", raw, 3);
  Tensor* in = args.GetTensorAnyData(0);
  const int64_t dim = args.GetInt(1);
  if (!args.ok()) return;
  int d = 0;
  if (in->dim() == 0 || !NormalizeDim(dim, in->dim(), &d)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim), in->dim());
    return;
  }
  SetResult(args, 2, EValue::FromInt(in->size(d)));
}

void SymNumel(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::sym_numel", raw, 2);
  Tensor* in = args.GetTensorAnyData(0);
  if (!args.ok()) return;
  SetResult(args, 1, EValue::FromInt(in->numel()));
}

void EtViewDefault(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "executorch_prim::et_view.default", raw, 3);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> size = args.GetIntList(1);
  Tensor* out = args.GetTensorAnyData(2);
  if (!args.ok()) return;
  if (in->dtype() != out->dtype() || !in->IsDefaultDimOrder() || !out->IsDefaultDimOrder()) {
    args.Fail(Error::kInvalidArgument,
              "needs equal dtypes and contiguous "
              "(default dim order) tensors");
    return;
  }
  int64_t sizes64[kMaxTensorRank];
  int32_t sizes[kMaxTensorRank];
  if (!InferViewShape(args, size, in->numel(), sizes64)) return;
  ToTensorSizes(static_cast<int>(size.size()), sizes64, sizes);
  // The output aliases the input: its capacity becomes the input's (and
  // stays its own if the resize fails).
  const int64_t own_bound = out->numel_bound();
  out->set_numel_bound(in->numel_bound());
  const Error error = out->Resize({sizes, size.size()});
  if (error != Error::kOk) {
    out->set_numel_bound(own_bound);
    args.Fail(error, "cannot resize out to %s",
              FormatSizes(static_cast<int>(size.size()), sizes64).text);
    return;
  }
  out->set_data(in->mutable_data());
}

}  // namespace portable
}  // namespace edgefleet
