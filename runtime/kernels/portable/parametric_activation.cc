// Activations with parameters: elu (alpha, scale, input_scale), leaky_relu
// (negative_slope) and glu (halves along a dim: a * sigmoid(b)). Floating
// dtypes only, as in PyTorch (float16 and bfloat16 computed in float32).

#include <cmath>

#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/unary_kernel.h"

namespace edgefleet {
namespace portable {
namespace {

bool CheckFloating(KernelArgs& args, const Tensor& in, const Tensor& out) {
  if (!IsFloatingType(in.dtype()) || in.dtype() != out.dtype()) {
    args.Fail(Error::kInvalidArgument,
              "needs floating input and out of the same dtype, got %s -> %s",
              ScalarTypeName(in.dtype()), ScalarTypeName(out.dtype()));
    return false;
  }
  return true;
}

}  // namespace

void EluOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::elu.out", raw, 6);
  Tensor* in = args.GetTensor(0);
  const double alpha = args.GetDouble(1);
  const double scale = args.GetDouble(2);
  const double input_scale = args.GetDouble(3);
  Tensor* out = args.GetTensor(4);
  if (!args.ok() || !CheckFloating(args, *in, *out)) return;
  FloatingUnary(args, *in, *out, [=](auto x) {
    using T = decltype(x);
    if (x > T(0)) return static_cast<T>(x * static_cast<T>(scale));
    return static_cast<T>(static_cast<T>(alpha * scale) *
                          std::expm1(x * static_cast<T>(input_scale)));
  });
}

void LeakyReluOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::leaky_relu.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  const double slope = args.GetDouble(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok() || !CheckFloating(args, *in, *out)) return;
  FloatingUnary(args, *in, *out, [slope](auto x) {
    using T = decltype(x);
    return x > T(0) ? x : static_cast<T>(x * static_cast<T>(slope));
  });
}

void GluOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::glu.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  const int64_t dim_arg = args.GetInt(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok() || !CheckFloating(args, *in, *out)) return;
  int dim = 0;
  if (in->dim() == 0 || !NormalizeDim(dim_arg, in->dim(), &dim)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim_arg), in->dim());
    return;
  }
  if (in->size(dim) % 2 != 0) {
    args.Fail(Error::kInvalidArgument,
              "halving dimension must be even, but dimension %d is size %d", dim, in->size(dim));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  for (int d = 0; d < in->dim(); ++d) sizes[d] = in->size(d);
  const int64_t half = in->size(dim) / 2;
  sizes[dim] = static_cast<int32_t>(half);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(in->dim())}, "out")) {
    return;
  }
  StridedView a = StridedView::Of(*in);
  StridedView b = a;
  a.Narrow(dim, 0, half);
  b.Narrow(dim, half, half);
  SwitchFloating(ComputeType(in->dtype()), [&](auto tag) {
    using T = decltype(tag);
    BinaryLoop<T>(a, b, StridedView::Of(*out),
                  [](T x, T y) { return static_cast<T>(x / (T(1) + std::exp(-y))); });
  });
}

}  // namespace portable
}  // namespace edgefleet
