// Bitwise kernels on integer and bool tensors: and, or, xor (Tensor and
// Scalar variants), not, and the shifts. Operands are promoted as in
// PyTorch; floating operands are refused. Shifts by a negative amount or by
// at least the bit width give 0 (left) or the sign fill (right), as ATen.

#include <climits>
#include <type_traits>

#include "runtime/kernels/portable/binary_prepare.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/unary_kernel.h"

namespace edgefleet {
namespace portable {
namespace {

enum class BitOp { kAnd, kOr, kXor, kLeftShift, kRightShift };

template <typename T>
T LeftShift(T a, T b) {
  constexpr int64_t kBits = sizeof(T) * CHAR_BIT;
  const int64_t shift = static_cast<int64_t>(b);
  if (shift < 0 || shift >= kBits) return T(0);
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << shift));
}

template <typename T>
T RightShift(T a, T b) {
  constexpr int64_t kMax = sizeof(T) * CHAR_BIT - std::is_signed_v<T>;
  const int64_t shift = static_cast<int64_t>(b);
  if (shift < 0 || shift >= kMax) {
    if constexpr (std::is_signed_v<T>) return static_cast<T>(a >> kMax);
    return T(0);
  }
  return static_cast<T>(a >> shift);
}

void BitwiseKernel(KernelArgs& args, const Operand& a, const Operand& b, BitOp op, Tensor& out) {
  ScalarType common;
  if (!PrepareBinaryOut(args, a, b, out, &common)) return;
  const bool shift = op == BitOp::kLeftShift || op == BitOp::kRightShift;
  if (IsFloatingType(common) || (shift && common == ScalarType::kBool)) {
    args.Fail(Error::kInvalidArgument, "not supported for %s operands", ScalarTypeName(common));
    return;
  }
  if (!CheckCastToOut(args, common, out)) return;
  SwitchAll(common, [&](auto tag) {
    using T = decltype(tag);
    const StridedView ov = StridedView::Of(out);
    if constexpr (std::is_same_v<T, bool>) {
      BinaryLoop<T>(a.view(), b.view(), ov, [op](T x, T y) {
        switch (op) {
          case BitOp::kAnd:
            return x && y;
          case BitOp::kOr:
            return x || y;
          default:
            return x != y;
        }
      });
    } else if constexpr (std::is_integral_v<T>) {
      BinaryLoop<T>(a.view(), b.view(), ov, [op](T x, T y) {
        switch (op) {
          case BitOp::kAnd:
            return static_cast<T>(x & y);
          case BitOp::kOr:
            return static_cast<T>(x | y);
          case BitOp::kXor:
            return static_cast<T>(x ^ y);
          case BitOp::kLeftShift:
            return LeftShift(x, y);
          case BitOp::kRightShift:
            return RightShift(x, y);
        }
        return T(0);
      });
    }
  });
}

// self, other (Tensor or Scalar), out, ret.
void BitwiseOp(KernelContext& ctx, Span<EValue*> raw, const char* name, BitOp op,
               bool scalar_other) {
  KernelArgs args(ctx, name, raw, 4);
  Tensor* self = args.GetTensor(0);
  Tensor* other = scalar_other ? nullptr : args.GetTensor(1);
  const Scalar other_scalar = scalar_other ? args.GetScalar(1) : Scalar{};
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (scalar_other) {
    BitwiseKernel(args, Operand(*self), Operand(other_scalar), op, *out);
  } else {
    BitwiseKernel(args, Operand(*self), Operand(*other), op, *out);
  }
}

}  // namespace

void BitwiseAndTensorOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_and.Tensor_out", BitOp::kAnd, false);
}
void BitwiseAndScalarOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_and.Scalar_out", BitOp::kAnd, true);
}
void BitwiseOrTensorOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_or.Tensor_out", BitOp::kOr, false);
}
void BitwiseOrScalarOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_or.Scalar_out", BitOp::kOr, true);
}
void BitwiseXorTensorOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_xor.Tensor_out", BitOp::kXor, false);
}
void BitwiseXorScalarOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_xor.Scalar_out", BitOp::kXor, true);
}
void BitwiseLeftShiftTensorOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_left_shift.Tensor_out", BitOp::kLeftShift, false);
}
void BitwiseLeftShiftTensorScalarOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_left_shift.Tensor_Scalar_out", BitOp::kLeftShift, true);
}
void BitwiseRightShiftTensorOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_right_shift.Tensor_out", BitOp::kRightShift, false);
}
void BitwiseRightShiftTensorScalarOut(KernelContext& ctx, Span<EValue*> args) {
  BitwiseOp(ctx, args, "aten::bitwise_right_shift.Tensor_Scalar_out", BitOp::kRightShift, true);
}

void BitwiseNotOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::bitwise_not.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok() || !PrepareUnaryOut(args, *in, *out)) return;
  if (IsFloatingType(in->dtype()) || !CheckCastToOut(args, in->dtype(), *out)) {
    if (args.ok()) {
      args.Fail(Error::kInvalidArgument, "not supported for %s inputs",
                ScalarTypeName(in->dtype()));
    }
    return;
  }
  SwitchAll(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      UnaryLoop<T>(StridedView::Of(*in), StridedView::Of(*out), [](T x) { return !x; });
    } else if constexpr (std::is_integral_v<T>) {
      UnaryLoop<T>(StridedView::Of(*in), StridedView::Of(*out),
                   [](T x) { return static_cast<T>(~x); });
    }
  });
}

}  // namespace portable
}  // namespace edgefleet
