// aten::clamp.Tensor_out: clamp(self, min?, max?) with tensor bounds that
// broadcast with self. The result type is torch.result_type over self and
// the given bounds; NaN in self (or in a bound) propagates.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Grows the broadcast shape (dim, shape) by `v`; false if incompatible.
bool BroadcastInto(const StridedView& v, int* dim, int64_t* shape) {
  StridedView acc;
  acc.dim = *dim;
  for (int d = 0; d < *dim; ++d) acc.sizes[d] = shape[d];
  return BroadcastShapes(acc, v, dim, shape);
}

}  // namespace

void ClampTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::clamp.Tensor_out", raw, 5);
  Tensor* in = args.GetTensor(0);
  Tensor* min = args.GetOptionalTensor(1);
  Tensor* max = args.GetOptionalTensor(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (min == nullptr && max == nullptr) {
    args.Fail(Error::kInvalidArgument, "at least one of 'min' or 'max' must not be None");
    return;
  }
  const Tensor* tensors[3] = {in, min, max};
  TypeOperand types[3];
  int num_types = 0;
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  for (const Tensor* t : tensors) {
    if (t == nullptr) continue;
    if (!IsElementType(t->dtype())) {
      args.Fail(Error::kNotSupported, "unsupported dtype %s", ScalarTypeName(t->dtype()));
      return;
    }
    const StridedView v = StridedView::Of(*t);
    if (!BroadcastInto(v, &dim, shape)) {
      args.Fail(Error::kInvalidArgument, "shape %s does not broadcast", FormatSizes(v).text);
      return;
    }
    types[num_types++] = {t->dtype(), t->dim(), false};
  }
  const ScalarType common = ResultType(types, num_types);
  if (common == ScalarType::kBool || !IsElementType(out->dtype()) ||
      !CanCast(common, out->dtype())) {
    args.Fail(Error::kInvalidArgument, "result type %s can't be written to %s",
              ScalarTypeName(common), ScalarTypeName(out->dtype()));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  if (!ToTensorSizes(dim, shape, sizes) ||
      !args.ResizeOut(*out, {sizes, static_cast<size_t>(dim)}, "out")) {
    if (args.ok()) args.Fail(Error::kInvalidArgument, "shape too large");
    return;
  }
  const StridedView views[4] = {
      StridedView::Of(*in), min ? StridedView::Of(*min) : StridedView::Of(*in),
      max ? StridedView::Of(*max) : StridedView::Of(*in), StridedView::Of(*out)};
  const StridedView* const ptrs[4] = {&views[0], &views[1], &views[2], &views[3]};
  StridedLoop<4> loop = BroadcastLoop<4>(dim, shape, ptrs);
  loop.Coalesce();
  SwitchReal(ComputeType(common), [&](auto tag) {
    using T = decltype(tag);
    LoadFn<T> load[3];
    int64_t elem[4];
    for (int k = 0; k < 4; ++k) {
      elem[k] = static_cast<int64_t>(ElementSize(views[k].dtype));
      if (k < 3) load[k] = GetLoader<T>(views[k].dtype);
    }
    const StoreFn<T> store = GetStorer<T>(out->dtype());
    ForEachOffset(loop, [&](const int64_t* o) {
      T x = load[0](views[0].data + o[0] * elem[0]);
      if (min != nullptr && !IsNan(x)) {
        const T lo = load[1](views[1].data + o[1] * elem[1]);
        if (IsNan(lo) || x < lo) x = lo;
      }
      if (max != nullptr && !IsNan(x)) {
        const T hi = load[2](views[2].data + o[2] * elem[2]);
        if (IsNan(hi) || x > hi) x = hi;
      }
      store(x, views[3].data + o[3] * elem[3]);
    });
  });
}

}  // namespace portable
}  // namespace edgefleet
