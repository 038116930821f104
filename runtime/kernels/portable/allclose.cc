// aten::allclose.out and aten::allclose.Tensor, the real runtime's custom
// ops (custom_ops.yaml) with torch.allclose's semantics, writing the answer
// to a one-element bool tensor (out, or the functional variant's return
// value): true when every element of self is close to other's after
// broadcasting, as ATen's isclose: a == b (in the element type), or NaN and
// NaN with equal_nan, or |a - b| finite and <= atol + |rtol * b|, computed
// in the element type for floating tensors and in float32 for integer and
// bool ones (as ATen casts them). With rtol == atol == 0 only equality
// counts. dummy_param only tells the custom op from the native one.

#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

template <typename T>
bool ElementsClose(const StridedLoop<2>& loop, const T* a, const T* b, double rtol, double atol,
                   bool equal_nan) {
  using V = OpMath<T>;  // float16 and bfloat16 compare as float32
  using C = std::conditional_t<std::is_floating_point_v<V>, V, float>;
  const C crtol = static_cast<C>(rtol), catol = static_cast<C>(atol);
  bool all = true;
  ForEachOffset(loop, [&](const int64_t* o) {
    const V x = Convert<V>(a[o[0]]), y = Convert<V>(b[o[1]]);
    bool close = x == y;
    if (!close && equal_nan) close = IsNan(x) && IsNan(y);
    if (!close && !(rtol == 0 && atol == 0)) {
      const C actual = std::abs(static_cast<C>(x) - static_cast<C>(y));
      const C allowed = catol + std::abs(crtol * static_cast<C>(y));
      close = std::isfinite(actual) && actual <= allowed;
    }
    all = all && close;
  });
  return all;
}

// allclose with the answer in args[out_index].
void Allclose(KernelArgs& args, size_t out_index) {
  Tensor* self = args.GetTensor(0);
  Tensor* other = args.GetTensor(1);
  const double rtol = args.GetDouble(2);
  const double atol = args.GetDouble(3);
  const bool equal_nan = args.GetBool(4);
  args.GetBool(5);  // dummy_param
  Tensor* out = args.GetTensor(out_index);
  if (!args.ok()) return;
  if (self->dtype() != other->dtype() || !IsElementType(self->dtype())) {
    args.Fail(Error::kInvalidArgument, "self (%s) and other (%s) must have the same basic dtype",
              ScalarTypeName(self->dtype()), ScalarTypeName(other->dtype()));
    return;
  }
  if (out->dtype() != ScalarType::kBool || out->numel() != 1) {
    args.Fail(Error::kInvalidArgument,
              "out must be a one-element bool tensor, got %s with %lld "
              "elements",
              ScalarTypeName(out->dtype()), static_cast<long long>(out->numel()));
    return;
  }
  if (!(rtol >= 0) || !(atol >= 0)) {
    args.Fail(Error::kInvalidArgument, "rtol (%g) and atol (%g) must be >= 0", rtol, atol);
    return;
  }
  const StridedView a = StridedView::Of(*self), b = StridedView::Of(*other);
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  if (!BroadcastShapes(a, b, &dim, shape)) {
    args.Fail(Error::kInvalidArgument, "self %s and other %s do not broadcast", FormatSizes(a).text,
              FormatSizes(b).text);
    return;
  }
  const StridedView* const views[2] = {&a, &b};
  const StridedLoop<2> loop = BroadcastLoop<2>(dim, shape, views);
  bool result = true;
  SwitchElement(self->dtype(), [&](auto tag) {
    using T = decltype(tag);
    result = ElementsClose<T>(loop, self->data_as<const T>(), other->data_as<const T>(), rtol, atol,
                              equal_nan);
  });
  *out->data_as<bool>() = result;
}

}  // namespace

void AllcloseOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::allclose.out", raw, 8);
  Allclose(args, 6);
}

void AllcloseTensor(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::allclose.Tensor", raw, 7);
  Allclose(args, 6);
}

}  // namespace portable
}  // namespace edgefleet
