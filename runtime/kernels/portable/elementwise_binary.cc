// Binary arithmetic kernels: add, sub, mul, div (tensor and Scalar
// variants, div rounding modes), fmod, remainder, pow, maximum, minimum.
// PyTorch broadcasting and type promotion; the computation runs in the
// promoted dtype and is cast to out's dtype.

#include <algorithm>
#include <cmath>

#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace portable {
namespace {

enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kDivTrunc,
  kDivFloor,
  kFmod,
  kRemainder,
  kPow,
  kMaximum,
  kMinimum,
};

// ATen's integer pow: exponentiation by squaring (wrapping); a negative
// exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise.
template <typename T>
T PowInteger(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return exp % 2 == 0 ? 1 : -1;
      return 0;
    }
  }
  T result = 1;
  while (exp != 0) {
    if (exp & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    exp = static_cast<T>(exp >> 1);
  }
  return result;
}

// fmod (sign of the dividend) or remainder (sign of the divisor) of
// integers. REQUIRES: b != 0.
template <typename T>
T ModInteger(T a, T b, bool python_style) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;  // also INT_MIN % -1, which would trap
  }
  T r = static_cast<T>(a % b);
  if constexpr (std::is_signed_v<T>) {
    if (python_style && r != 0 && ((r < 0) != (b < 0))) r = WrapAdd(r, b);
  }
  return r;
}

// Floor division of floating values as PyTorch computes it (exact for
// results that are integers; sign of zero follows a / b).
template <typename T>
T FloorDivFloating(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(T(0), a / b);
  T floor_div = std::floor(div);
  if (div - floor_div > T(0.5)) floor_div += 1;
  return floor_div;
}

// Integer division with rounding toward zero (`floor` = false) or -inf.
// REQUIRES: b != 0. INT_MIN / -1 wraps, as in PyTorch.
template <typename T>
T DivInteger(T a, T b, bool floor) {
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return WrapNeg(a);
    T q = static_cast<T>(a / b);
    if (floor && static_cast<T>(a % b) != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}

template <typename CT>
bool Compute(BinaryOp op, const Scalar& alpha_scalar, const StridedView& a, const StridedView& b,
             const StridedView& out) {
  const CT alpha = ScalarTo<CT>(alpha_scalar);
  bool div_by_zero = false;
  switch (op) {
    case BinaryOp::kAdd:
      BinaryLoop<CT>(a, b, out, [alpha](CT x, CT y) {
        if constexpr (std::is_same_v<CT, bool>)
          return x || (alpha && y);
        else
          return WrapAdd(x, WrapMul(alpha, y));
      });
      break;
    case BinaryOp::kSub:
      BinaryLoop<CT>(a, b, out, [alpha](CT x, CT y) { return WrapSub(x, WrapMul(alpha, y)); });
      break;
    case BinaryOp::kMul:
      BinaryLoop<CT>(a, b, out, [](CT x, CT y) {
        if constexpr (std::is_same_v<CT, bool>)
          return x && y;
        else
          return WrapMul(x, y);
      });
      break;
    case BinaryOp::kDiv:
    case BinaryOp::kDivTrunc:
    case BinaryOp::kDivFloor:
      if constexpr (std::is_floating_point_v<CT>) {
        if (op == BinaryOp::kDiv) {
          BinaryLoop<CT>(a, b, out, [](CT x, CT y) { return x / y; });
        } else if (op == BinaryOp::kDivTrunc) {
          BinaryLoop<CT>(a, b, out, [](CT x, CT y) { return std::trunc(x / y); });
        } else {
          BinaryLoop<CT>(a, b, out, FloorDivFloating<CT>);
        }
      } else if constexpr (!std::is_same_v<CT, bool>) {
        const bool floor = op == BinaryOp::kDivFloor;
        BinaryLoop<CT>(a, b, out, [&div_by_zero, floor](CT x, CT y) {
          if (y == 0) {
            div_by_zero = true;
            return CT(0);
          }
          return DivInteger(x, y, floor);
        });
      }
      break;
    case BinaryOp::kFmod:
    case BinaryOp::kRemainder:
      if constexpr (std::is_floating_point_v<CT>) {
        const bool python_style = op == BinaryOp::kRemainder;
        BinaryLoop<CT>(a, b, out, [python_style](CT x, CT y) {
          CT r = std::fmod(x, y);
          if (python_style && r != 0 && ((y < 0) != (r < 0))) r += y;
          return r;
        });
      } else if constexpr (!std::is_same_v<CT, bool>) {
        const bool python_style = op == BinaryOp::kRemainder;
        BinaryLoop<CT>(a, b, out, [&div_by_zero, python_style](CT x, CT y) {
          if (y == 0) {
            div_by_zero = true;
            return CT(0);
          }
          return ModInteger(x, y, python_style);
        });
      }
      break;
    case BinaryOp::kPow:
      if constexpr (std::is_floating_point_v<CT>) {
        BinaryLoop<CT>(a, b, out, [](CT x, CT y) { return std::pow(x, y); });
      } else if constexpr (!std::is_same_v<CT, bool>) {
        BinaryLoop<CT>(a, b, out, PowInteger<CT>);
      }
      break;
    case BinaryOp::kMaximum:
    case BinaryOp::kMinimum: {
      const bool is_max = op == BinaryOp::kMaximum;
      BinaryLoop<CT>(a, b, out, [is_max](CT x, CT y) {
        if (IsNan(x) || IsNan(y)) return IsNan(x) ? x : y;
        return (is_max ? x > y : x < y) ? x : y;
      });
      break;
    }
  }
  return !div_by_zero;
}

void BinaryKernel(KernelArgs& args, const Operand& a, const Operand& b, const Scalar& alpha,
                  BinaryOp op, Tensor& out) {
  const StridedView& av = a.view();
  const StridedView& bv = b.view();
  if (!IsElementType(av.dtype) || !IsElementType(bv.dtype) || !IsElementType(out.dtype())) {
    args.Fail(Error::kNotSupported, "unsupported dtypes %s, %s -> %s", ScalarTypeName(av.dtype),
              ScalarTypeName(bv.dtype), ScalarTypeName(out.dtype()));
    return;
  }
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  int32_t sizes[kMaxTensorRank];
  if (!BroadcastShapes(av, bv, &dim, shape)) {
    args.Fail(Error::kInvalidArgument, "shapes %s and %s do not broadcast", FormatSizes(av).text,
              FormatSizes(bv).text);
    return;
  }
  ToTensorSizes(dim, shape, sizes);
  if (!args.ResizeOut(out, {sizes, static_cast<size_t>(dim)}, "out")) return;

  const TypeOperand operands[2] = {a.type(), b.type()};
  ScalarType common = ResultType(operands, 2);
  if (op == BinaryOp::kDiv && !IsFloatingType(common)) {
    common = ScalarType::kFloat;  // true division of integers
  }
  if (common == ScalarType::kBool &&
      (op == BinaryOp::kSub || op == BinaryOp::kDivTrunc || op == BinaryOp::kDivFloor ||
       op == BinaryOp::kFmod || op == BinaryOp::kRemainder || op == BinaryOp::kPow)) {
    args.Fail(Error::kInvalidArgument, "not supported for two bool operands");
    return;
  }
  if (!CanCast(common, out.dtype())) {
    args.Fail(Error::kInvalidArgument,
              "result type %s can't be cast to the "
              "output dtype %s",
              ScalarTypeName(common), ScalarTypeName(out.dtype()));
    return;
  }
  if (alpha.kind == Scalar::Kind::kBool && common != ScalarType::kBool) {
    args.Fail(Error::kInvalidArgument, "bool alpha needs a bool result");
    return;
  }
  if (alpha.kind == Scalar::Kind::kDouble && !IsFloatingType(common)) {
    args.Fail(Error::kInvalidArgument, "alpha must not be floating for integral inputs");
    return;
  }
  bool ok = true;
  SwitchAll(ComputeType(common), [&](auto tag) {
    ok = Compute<decltype(tag)>(op, alpha, av, bv, StridedView::Of(out));
  });
  if (!ok) args.Fail(Error::kInvalidArgument, "integer division by zero");
}

constexpr Scalar kOne = {Scalar::Kind::kInt, 1, 1.0};

// Tensor-tensor op with an alpha argument: self, other, alpha, out, ret.
void TensorAlphaOp(KernelContext& ctx, Span<EValue*> raw, const char* name, BinaryOp op) {
  KernelArgs args(ctx, name, raw, 5);
  Tensor* self = args.GetTensor(0);
  Tensor* other = args.GetTensor(1);
  const Scalar alpha = args.GetScalar(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  BinaryKernel(args, Operand(*self), Operand(*other), alpha, op, *out);
}

// Tensor-Scalar op with an alpha argument: self, other, alpha, out, ret.
void ScalarAlphaOp(KernelContext& ctx, Span<EValue*> raw, const char* name, BinaryOp op) {
  KernelArgs args(ctx, name, raw, 5);
  Tensor* self = args.GetTensor(0);
  const Scalar other = args.GetScalar(1);
  const Scalar alpha = args.GetScalar(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  BinaryKernel(args, Operand(*self), Operand(other), alpha, op, *out);
}

// self, other (Tensor or Scalar), out, ret.
void PlainOp(KernelContext& ctx, Span<EValue*> raw, const char* name, BinaryOp op,
             bool scalar_other) {
  KernelArgs args(ctx, name, raw, 4);
  Tensor* self = args.GetTensor(0);
  Tensor* other = scalar_other ? nullptr : args.GetTensor(1);
  const Scalar other_scalar = scalar_other ? args.GetScalar(1) : kOne;
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (scalar_other) {
    BinaryKernel(args, Operand(*self), Operand(other_scalar), kOne, op, *out);
  } else {
    BinaryKernel(args, Operand(*self), Operand(*other), kOne, op, *out);
  }
}

}  // namespace

void AddOut(KernelContext& ctx, Span<EValue*> args) {
  TensorAlphaOp(ctx, args, "aten::add.out", BinaryOp::kAdd);
}
void SubOut(KernelContext& ctx, Span<EValue*> args) {
  TensorAlphaOp(ctx, args, "aten::sub.out", BinaryOp::kSub);
}
void AddScalarOut(KernelContext& ctx, Span<EValue*> args) {
  ScalarAlphaOp(ctx, args, "aten::add.Scalar_out", BinaryOp::kAdd);
}
void SubScalarOut(KernelContext& ctx, Span<EValue*> args) {
  ScalarAlphaOp(ctx, args, "aten::sub.Scalar_out", BinaryOp::kSub);
}
void MulOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::mul.out", BinaryOp::kMul, false);
}
void MulScalarOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::mul.Scalar_out", BinaryOp::kMul, true);
}
void DivOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::div.out", BinaryOp::kDiv, false);
}
void DivScalarOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::div.Scalar_out", BinaryOp::kDiv, true);
}

void FmodTensorOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::fmod.Tensor_out", BinaryOp::kFmod, false);
}
void FmodScalarOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::fmod.Scalar_out", BinaryOp::kFmod, true);
}
void RemainderTensorOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::remainder.Tensor_out", BinaryOp::kRemainder, false);
}
void RemainderScalarOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::remainder.Scalar_out", BinaryOp::kRemainder, true);
}
void PowTensorTensorOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::pow.Tensor_Tensor_out", BinaryOp::kPow, false);
}
void PowTensorScalarOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::pow.Tensor_Scalar_out", BinaryOp::kPow, true);
}
void MaximumOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::maximum.out", BinaryOp::kMaximum, false);
}
void MinimumOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::minimum.out", BinaryOp::kMinimum, false);
}

// The division op for an optional rounding_mode argument; fails (and
// returns kDiv) for an unknown mode.
BinaryOp DivMode(KernelArgs& args, bool has_mode, Span<const char> mode) {
  if (!has_mode) return BinaryOp::kDiv;
  const auto is = [&mode](const char* s, size_t n) {
    return mode.size() == n && std::equal(mode.begin(), mode.end(), s);
  };
  if (is("trunc", 5)) return BinaryOp::kDivTrunc;
  if (is("floor", 5)) return BinaryOp::kDivFloor;
  args.Fail(Error::kInvalidArgument, "rounding_mode must be None, 'trunc' or 'floor', got '%.*s'",
            static_cast<int>(mode.size()), mode.data());
  return BinaryOp::kDiv;
}

void DivOutMode(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::div.out_mode", raw, 5);
  Tensor* self = args.GetTensor(0);
  Tensor* other = args.GetTensor(1);
  Span<const char> mode;
  const bool has_mode = args.GetOptionalString(2, &mode);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  const BinaryOp op = DivMode(args, has_mode, mode);
  if (!args.ok()) return;
  BinaryKernel(args, Operand(*self), Operand(*other), kOne, op, *out);
}

void DivScalarModeOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::div.Scalar_mode_out", raw, 5);
  Tensor* self = args.GetTensor(0);
  const Scalar other = args.GetScalar(1);
  Span<const char> mode;
  const bool has_mode = args.GetOptionalString(2, &mode);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  const BinaryOp op = DivMode(args, has_mode, mode);
  if (!args.ok()) return;
  BinaryKernel(args, Operand(*self), Operand(other), kOne, op, *out);
}

void FloorDivideOut(KernelContext& ctx, Span<EValue*> args) {
  PlainOp(ctx, args, "aten::floor_divide.out", BinaryOp::kDivFloor, false);
}

// other - alpha * self.
void RsubScalarOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::rsub.Scalar_out", raw, 5);
  Tensor* self = args.GetTensor(0);
  const Scalar other = args.GetScalar(1);
  const Scalar alpha = args.GetScalar(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  BinaryKernel(args, Operand(other), Operand(*self), alpha, BinaryOp::kSub, *out);
}

// Scalar base, tensor exponent.
void PowScalarOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::pow.Scalar_out", raw, 4);
  const Scalar base = args.GetScalar(0);
  Tensor* exponent = args.GetTensor(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  BinaryKernel(args, Operand(base), Operand(*exponent), kOne, BinaryOp::kPow, *out);
}

}  // namespace portable
}  // namespace edgefleet
