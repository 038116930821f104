// sign (same dtype; bool is its own sign; NaN gives 0) and the classifiers isnan and
// isinf (bool results; always false for integer and bool inputs).

#include <cmath>

#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/unary_kernel.h"

namespace edgefleet {
namespace portable {
namespace {

// self, out, ret: out (bool) = pred(self) evaluated in double.
template <typename Pred>
void ClassifyOp(KernelContext& ctx, Span<EValue*> raw, const char* name, Pred pred) {
  KernelArgs args(ctx, name, raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok() || !PrepareUnaryOut(args, *in, *out)) return;
  if (out->dtype() != ScalarType::kBool) {
    args.Fail(Error::kInvalidArgument, "out must be bool, got %s", ScalarTypeName(out->dtype()));
    return;
  }
  UnaryLoop<double>(StridedView::Of(*in), StridedView::Of(*out),
                    [&pred](double x) { return pred(x) ? 1.0 : 0.0; });
}

}  // namespace

void SignOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::sign.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  if (in->dtype() == ScalarType::kBool) {
    if (!PrepareUnaryOut(args, *in, *out)) return;
    if (out->dtype() != ScalarType::kBool) {
      args.Fail(Error::kInvalidArgument, "out must be bool for a bool input");
      return;
    }
    UnaryLoop<bool>(StridedView::Of(*in), StridedView::Of(*out), [](bool x) { return x; });
    return;
  }
  RealUnary(args, *in, in->dtype(), *out, [](auto x) {
    using T = decltype(x);
    return static_cast<T>((T(0) < x) - (x < T(0)));  // NaN -> 0, as torch
  });
}

void IsnanOut(KernelContext& ctx, Span<EValue*> args) {
  ClassifyOp(ctx, args, "aten::isnan.out", [](double x) { return std::isnan(x); });
}

void IsinfOut(KernelContext& ctx, Span<EValue*> args) {
  ClassifyOp(ctx, args, "aten::isinf.out", [](double x) { return std::isinf(x); });
}

}  // namespace portable
}  // namespace edgefleet
