// Pointwise math kernels: sigmoid, tanh, exp, log, sin, cos, erf, sqrt,
// rsqrt (floating results; integer inputs are converted), neg, abs and the
// roundings floor, ceil, round (half to even), trunc (same dtype; identity
// for integers).

#include <cmath>
#include <type_traits>

#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/unary_kernel.h"

namespace edgefleet {
namespace portable {
namespace {

// self, out, ret with a floating result.
template <typename Op>
void FloatingMathOp(KernelContext& ctx, Span<EValue*> raw, const char* name, Op op) {
  KernelArgs args(ctx, name, raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  FloatingUnary(args, *in, *out, op);
}

// self, out, ret; rounding in the input's dtype (integers unchanged).
template <typename Op>
void RoundingOp(KernelContext& ctx, Span<EValue*> raw, const char* name, Op op) {
  KernelArgs args(ctx, name, raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  RealUnary(args, *in, in->dtype(), *out, [op](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      return op(x);
    } else {
      return x;
    }
  });
}

}  // namespace

void SigmoidOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::sigmoid.out", [](auto x) {
    using T = decltype(x);
    return T(1) / (T(1) + std::exp(-x));
  });
}

void TanhOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::tanh.out", [](auto x) { return std::tanh(x); });
}

void ExpOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::exp.out", [](auto x) { return std::exp(x); });
}

void LogOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::log.out", [](auto x) { return std::log(x); });
}

void SinOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::sin.out", [](auto x) { return std::sin(x); });
}

void CosOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::cos.out", [](auto x) { return std::cos(x); });
}

void ErfOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::erf.out", [](auto x) { return std::erf(x); });
}

void SqrtOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingMathOp(ctx, args, "aten::sqrt.out", [](auto x) { return std::sqrt(x); });
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
  // abs(INT_MIN) wraps to INT_MIN, and abs(-0.0) is +0.0, as in PyTorch.
  RealUnary(args, *in, in->dtype(), *out, [](auto x) {
    if constexpr (std::is_integral_v<decltype(x)>) {
      return x < decltype(x)(0) ? WrapNeg(x) : x;
    } else {
      return std::fabs(x);
    }
  });
}

void FloorOut(KernelContext& ctx, Span<EValue*> args) {
  RoundingOp(ctx, args, "aten::floor.out", [](auto x) { return std::floor(x); });
}

void CeilOut(KernelContext& ctx, Span<EValue*> args) {
  RoundingOp(ctx, args, "aten::ceil.out", [](auto x) { return std::ceil(x); });
}

void RoundOut(KernelContext& ctx, Span<EValue*> args) {
  RoundingOp(ctx, args, "aten::round.out", [](auto x) { return std::nearbyint(x); });
}

void TruncOut(KernelContext& ctx, Span<EValue*> args) {
  RoundingOp(ctx, args, "aten::trunc.out", [](auto x) { return std::trunc(x); });
}

}  // namespace portable
}  // namespace edgefleet
