// Activation kernels: relu, hardtanh, clamp, hardswish, hardsigmoid, gelu.
// NaN inputs propagate, as in PyTorch.

#include <cmath>
#include <cstring>

#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/unary_kernel.h"

namespace edgefleet {
namespace portable {
namespace {

// Clamps x into [lo, hi] (either bound optional); NaN stays NaN and
// lo > hi gives hi, as torch.clamp.
template <typename T>
T Clamp(T x, bool has_lo, T lo, bool has_hi, T hi) {
  if (IsNan(x)) return x;
  if (has_lo && x < lo) x = lo;
  if (has_hi && x > hi) x = hi;
  return x;
}

// Shared body of clamp and hardtanh: self, min, max, out, ret.
void ClampKernel(KernelArgs& args, bool optional_bounds) {
  Tensor* in = args.GetTensor(0);
  Scalar lo{Scalar::Kind::kInt, 0, 0.0};
  Scalar hi = lo;
  bool has_lo = true;
  bool has_hi = true;
  if (optional_bounds) {
    has_lo = args.GetOptionalScalar(1, &lo);
    has_hi = args.GetOptionalScalar(2, &hi);
  } else {
    lo = args.GetScalar(1);
    hi = args.GetScalar(2);
  }
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (!has_lo && !has_hi) {
    args.Fail(Error::kInvalidArgument, "min and max are both None");
    return;
  }
  TypeOperand operands[3] = {{in->dtype(), in->dim(), false}};
  int count = 1;
  if (has_lo) operands[count++] = {ScalarDtype(lo), 0, true};
  if (has_hi) operands[count++] = {ScalarDtype(hi), 0, true};
  const ScalarType compute = IsElementType(in->dtype()) ? ResultType(operands, count) : in->dtype();
  RealUnary(args, *in, compute, *out, [=](auto x) {
    using T = decltype(x);
    return Clamp(x, has_lo, ScalarTo<T>(lo), has_hi, ScalarTo<T>(hi));
  });
}

bool StringIs(Span<const char> s, const char* text) {
  return s.size() == std::strlen(text) && std::memcmp(s.data(), text, s.size()) == 0;
}

}  // namespace

void ReluOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::relu.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  RealUnary(args, *in, in->dtype(), *out,
            [](auto x) { return x < decltype(x)(0) ? decltype(x)(0) : x; });
}

void HardtanhOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::hardtanh.out", raw, 5);
  ClampKernel(args, /*optional_bounds=*/false);
}

void ClampOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::clamp.out", raw, 5);
  ClampKernel(args, /*optional_bounds=*/true);
}

void HardswishOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::hardswish.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  // x * relu6(x + 3) / 6
  FloatingUnary(args, *in, *out, [](auto x) {
    using T = decltype(x);
    return x * Clamp<T>(x + T(3), true, T(0), true, T(6)) / T(6);
  });
}

void HardsigmoidOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::hardsigmoid.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  // relu6(x + 3) / 6
  FloatingUnary(args, *in, *out, [](auto x) {
    using T = decltype(x);
    return Clamp<T>(x + T(3), true, T(0), true, T(6)) / T(6);
  });
}

void GeluOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::gelu.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  Span<const char> approximate;
  const bool has_mode = args.GetOptionalString(1, &approximate);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (!has_mode || StringIs(approximate, "none")) {
    // 0.5 * x * (1 + erf(x / sqrt(2)))
    FloatingUnary(args, *in, *out, [](auto x) {
      using T = decltype(x);
      return T(0.5) * x * (T(1) + std::erf(x * T(M_SQRT1_2)));
    });
  } else if (StringIs(approximate, "tanh")) {
    // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
    FloatingUnary(args, *in, *out, [](auto x) {
      using T = decltype(x);
      const T kBeta = T(M_SQRT2 * M_2_SQRTPI * 0.5);
      const T inner = kBeta * (x + T(0.044715) * x * x * x);
      return T(0.5) * x * (T(1) + std::tanh(inner));
    });
  } else {
    args.Fail(Error::kInvalidArgument, "approximate must be 'none' or 'tanh', got '%.*s'",
              static_cast<int>(approximate.size()), approximate.data());
  }
}

}  // namespace portable
}  // namespace edgefleet
