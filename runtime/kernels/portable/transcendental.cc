// Pointwise transcendental kernels with floating results (integer and bool
// inputs are converted, as in PyTorch): tan, the inverse trigonometric and
// (inverse) hyperbolic functions, expm1, log1p, log2, log10, reciprocal and
// logit (with its optional eps clamp).

#include <cmath>

#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/unary_kernel.h"

namespace edgefleet {
namespace portable {
namespace {

// self, out, ret with a floating result.
template <typename Op>
void FloatingOp(KernelContext& ctx, Span<EValue*> raw, const char* name, Op op) {
  KernelArgs args(ctx, name, raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  FloatingUnary(args, *in, *out, op);
}

}  // namespace

void TanOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::tan.out", [](auto x) { return std::tan(x); });
}

void AsinOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::asin.out", [](auto x) { return std::asin(x); });
}

void AcosOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::acos.out", [](auto x) { return std::acos(x); });
}

void AtanOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::atan.out", [](auto x) { return std::atan(x); });
}

void SinhOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::sinh.out", [](auto x) { return std::sinh(x); });
}

void CoshOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::cosh.out", [](auto x) { return std::cosh(x); });
}

void AsinhOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::asinh.out", [](auto x) { return std::asinh(x); });
}

void AcoshOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::acosh.out", [](auto x) { return std::acosh(x); });
}

void AtanhOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::atanh.out", [](auto x) { return std::atanh(x); });
}

void Expm1Out(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::expm1.out", [](auto x) { return std::expm1(x); });
}

void Log1pOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::log1p.out", [](auto x) { return std::log1p(x); });
}

void Log2Out(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::log2.out", [](auto x) { return std::log2(x); });
}

void Log10Out(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::log10.out", [](auto x) { return std::log10(x); });
}

void ReciprocalOut(KernelContext& ctx, Span<EValue*> args) {
  FloatingOp(ctx, args, "aten::reciprocal.out", [](auto x) { return decltype(x)(1) / x; });
}

void LogitOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::logit.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  Scalar eps_scalar;
  const bool has_eps = args.GetOptionalScalar(1, &eps_scalar);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  const double eps = has_eps ? ScalarTo<double>(eps_scalar) : 0.0;
  FloatingUnary(args, *in, *out, [has_eps, eps](auto x) {
    using T = decltype(x);
    if (has_eps) {
      const T lo = static_cast<T>(eps);
      const T hi = static_cast<T>(1.0 - eps);
      x = x < lo ? lo : (x > hi ? hi : x);  // NaN stays NaN
    }
    return std::log(x / (T(1) - x));
  });
}

}  // namespace portable
}  // namespace edgefleet
