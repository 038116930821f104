// Python scalar arithmetic of symbolic shapes: executorch_prim::*.Scalar
// (add, sub, mul, floordiv, truediv, mod, comparisons, sym_max/min,
// sym_float/int, ceil, round, trunc, neg, sym_not, sym_ite) plus
// floordiv.int and mod.int, on Int / Double / Bool values.
//
// The last argument is the result slot, overwritten with a new EValue. An
// int op int stays int (wrapping on overflow); floor division and modulo
// round toward -inf as in Python; division by zero fails the call.

#include <cmath>

#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace portable {
namespace {

// A Python number: int (bools count as ints) or float.
struct Number {
  bool is_int;
  int64_t i;
  double d;  // the value as double in both cases
};

bool ReadNumber(KernelArgs& args, size_t index, Number* n) {
  const Scalar s = args.GetScalar(index);
  *n = {s.kind != Scalar::Kind::kDouble, s.i, s.AsDouble()};
  return args.ok();
}

// Stores `v` into the result slot (the last argument).
void SetResult(KernelArgs& args, size_t index, const EValue& v) {
  EValue* out = args.GetRaw(index);
  if (out != nullptr) *out = v;
}

enum class Op {
  kAdd,
  kSub,
  kMul,
  kFloorDiv,
  kTrueDiv,
  kMod,
  kMax,
  kMin,
  kEq,
  kGt,
  kLt,
  kGe,
  kLe,
};

// Python a // b and a % b for ints. REQUIRES: b != 0.
int64_t FloorDiv(int64_t a, int64_t b) {
  if (b == -1) return WrapNeg(a);
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorMod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Python float a // b and a % b. REQUIRES: b != 0.
double FloorDivDouble(double a, double b) {
  const double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(0.0, a / b);
  double floor_div = std::floor(div);
  if (div - floor_div > 0.5) floor_div += 1;
  return floor_div;
}
double FloorModDouble(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && (r < 0) != (b < 0)) r += b;
  if (r == 0) r = std::copysign(0.0, b);
  return r;
}

// a, b, result.
void BinaryPrim(KernelContext& ctx, Span<EValue*> raw, const char* name, Op op, bool ints_only) {
  KernelArgs args(ctx, name, raw, 3);
  Number a, b;
  if (!ReadNumber(args, 0, &a) || !ReadNumber(args, 1, &b)) return;
  const bool ints = a.is_int && b.is_int;
  if (ints_only && !ints) {
    args.Fail(Error::kInvalidArgument, "operands must be Int");
    return;
  }
  const bool divides = op == Op::kFloorDiv || op == Op::kTrueDiv || op == Op::kMod;
  if (divides && (ints ? b.i == 0 : b.d == 0)) {
    args.Fail(Error::kInvalidArgument, "division by zero");
    return;
  }
  EValue result;
  switch (op) {
    case Op::kAdd:
      result = ints ? EValue::FromInt(WrapAdd(a.i, b.i)) : EValue::FromDouble(a.d + b.d);
      break;
    case Op::kSub:
      result = ints ? EValue::FromInt(WrapSub(a.i, b.i)) : EValue::FromDouble(a.d - b.d);
      break;
    case Op::kMul:
      result = ints ? EValue::FromInt(WrapMul(a.i, b.i)) : EValue::FromDouble(a.d * b.d);
      break;
    case Op::kFloorDiv:
      result =
          ints ? EValue::FromInt(FloorDiv(a.i, b.i)) : EValue::FromDouble(FloorDivDouble(a.d, b.d));
      break;
    case Op::kTrueDiv:
      result = EValue::FromDouble(a.d / b.d);
      break;
    case Op::kMod:
      result =
          ints ? EValue::FromInt(FloorMod(a.i, b.i)) : EValue::FromDouble(FloorModDouble(a.d, b.d));
      break;
    case Op::kMax:
      result =
          ints ? EValue::FromInt(a.i > b.i ? a.i : b.i) : EValue::FromDouble(std::fmax(a.d, b.d));
      break;
    case Op::kMin:
      result =
          ints ? EValue::FromInt(a.i < b.i ? a.i : b.i) : EValue::FromDouble(std::fmin(a.d, b.d));
      break;
    case Op::kEq:
      result = EValue::FromBool(ints ? a.i == b.i : a.d == b.d);
      break;
    case Op::kGt:
      result = EValue::FromBool(ints ? a.i > b.i : a.d > b.d);
      break;
    case Op::kLt:
      result = EValue::FromBool(ints ? a.i < b.i : a.d < b.d);
      break;
    case Op::kGe:
      result = EValue::FromBool(ints ? a.i >= b.i : a.d >= b.d);
      break;
    case Op::kLe:
      result = EValue::FromBool(ints ? a.i <= b.i : a.d <= b.d);
      break;
  }
  SetResult(args, 2, result);
}

enum class UnaryOp { kNeg, kFloat, kInt, kCeil, kRound, kTrunc, kNot };

// a, result.
void UnaryPrim(KernelContext& ctx, Span<EValue*> raw, const char* name, UnaryOp op) {
  KernelArgs args(ctx, name, raw, 2);
  Number a;
  if (!ReadNumber(args, 0, &a)) return;
  EValue result;
  if (op == UnaryOp::kNeg) {
    result = a.is_int ? EValue::FromInt(WrapNeg(a.i)) : EValue::FromDouble(-a.d);
  } else if (op == UnaryOp::kFloat) {
    result = EValue::FromDouble(a.d);
  } else if (op == UnaryOp::kNot) {
    result = EValue::FromBool(a.is_int ? a.i == 0 : a.d == 0);
  } else if (a.is_int) {
    result = EValue::FromInt(a.i);
  } else {
    // int(), math.ceil, round (half to even) and math.trunc give ints.
    double v = a.d;
    if (op == UnaryOp::kCeil) v = std::ceil(v);
    if (op == UnaryOp::kRound) v = std::nearbyint(v);
    v = std::trunc(v);
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {
      args.Fail(Error::kInvalidArgument, "%g does not fit an Int", a.d);
      return;
    }
    result = EValue::FromInt(static_cast<int64_t>(v));
  }
  SetResult(args, 1, result);
}

}  // namespace

void PrimAddScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::add.Scalar", Op::kAdd, false);
}

void PrimSubScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::sub.Scalar", Op::kSub, false);
}

void PrimMulScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::mul.Scalar", Op::kMul, false);
}

void PrimFloorDivScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::floordiv.Scalar", Op::kFloorDiv, false);
}

void PrimTrueDivScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::truediv.Scalar", Op::kTrueDiv, false);
}

void PrimModScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::mod.Scalar", Op::kMod, false);
}

void PrimEqScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::eq.Scalar", Op::kEq, false);
}

void PrimGtScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::gt.Scalar", Op::kGt, false);
}

void PrimLtScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::lt.Scalar", Op::kLt, false);
}

void PrimGeScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::ge.Scalar", Op::kGe, false);
}

void PrimLeScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::le.Scalar", Op::kLe, false);
}

void PrimSymMaxScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::sym_max.Scalar", Op::kMax, false);
}

void PrimSymMinScalar(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::sym_min.Scalar", Op::kMin, false);
}

void PrimFloorDivInt(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::floordiv.int", Op::kFloorDiv, true);
}

void PrimModInt(KernelContext& ctx, Span<EValue*> args) {
  BinaryPrim(ctx, args, "executorch_prim::mod.int", Op::kMod, true);
}

void PrimNegScalar(KernelContext& ctx, Span<EValue*> args) {
  UnaryPrim(ctx, args, "executorch_prim::neg.Scalar", UnaryOp::kNeg);
}

void PrimSymFloatScalar(KernelContext& ctx, Span<EValue*> args) {
  UnaryPrim(ctx, args, "executorch_prim::sym_float.Scalar", UnaryOp::kFloat);
}

void PrimSymIntScalar(KernelContext& ctx, Span<EValue*> args) {
  UnaryPrim(ctx, args, "executorch_prim::sym_int.Scalar", UnaryOp::kInt);
}

void PrimCeilScalar(KernelContext& ctx, Span<EValue*> args) {
  UnaryPrim(ctx, args, "executorch_prim::ceil.Scalar", UnaryOp::kCeil);
}

void PrimRoundScalar(KernelContext& ctx, Span<EValue*> args) {
  UnaryPrim(ctx, args, "executorch_prim::round.Scalar", UnaryOp::kRound);
}

void PrimTruncScalar(KernelContext& ctx, Span<EValue*> args) {
  UnaryPrim(ctx, args, "executorch_prim::trunc.Scalar", UnaryOp::kTrunc);
}

void PrimSymNotScalar(KernelContext& ctx, Span<EValue*> args) {
  UnaryPrim(ctx, args, "executorch_prim::sym_not.Scalar", UnaryOp::kNot);
}

void PrimSymIteScalar(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "executorch_prim::sym_ite.Scalar", raw, 4);
  Number b;
  if (!ReadNumber(args, 0, &b)) return;
  const bool condition = b.is_int ? b.i != 0 : b.d != 0;
  EValue* chosen = args.GetRaw(condition ? 1 : 2);
  if (chosen == nullptr || !chosen->is_scalar()) {
    args.Fail(Error::kInvalidArgument, "branches must be scalars");
    return;
  }
  SetResult(args, 3, *chosen);
}

}  // namespace portable
}  // namespace edgefleet
