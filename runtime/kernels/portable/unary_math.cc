// Pointwise math kernels: sigmoid, tanh, exp, sqrt, rsqrt (floating
// results; integer inputs are converted), neg and abs (same dtype).

#include <cmath>

#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/unary_kernel.h"

namespace edgefleet {
namespace portable {
namespace {

// self, out, ret with a floating result.
template <typename Op>
void FloatingMathOp(KernelContext& ctx, Span<EValue*> raw, const char* name,
                    Op op) {
  KernelArgs args(ctx, name, raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  FloatingUnary(args, *in, *out, op);
}

}  // namespace

void SigmoidOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::sigmoid.out", [](auto x) {
    using T = decltype(x);
    return T(1) / (T(1) + std::exp(-x));
  });
}

void TanhOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::tanh.out",
                 [](auto x) { return std::tanh(x); });
}

void ExpOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::exp.out",
                 [](auto x) { return std::exp(x); });
}

void SqrtOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::sqrt.out",
                 [](auto x) { return std::sqrt(x); });
}

void RsqrtOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::rsqrt.out", [](auto x) {
    using T = decltype(x);
    return T(1) / std::sqrt(x);
  });
}

void NegOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::neg.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  RealUnary(args, *in, in->dtype(), *out, [](auto x) { return WrapNeg(x); });
}

void AbsOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::abs.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  // abs(INT_MIN) wraps to INT_MIN, as in PyTorch.
  RealUnary(args, *in, in->dtype(), *out, [](auto x) {
    return x < decltype(x)(0) ? WrapNeg(x) : x;
  });
}

}  // namespace portable
}  // namespace edgefleet
