// Comparisons and logical ops: {eq,ne,lt,le,gt,ge}.{Scalar,Tensor}_out,
// logical_not.out and logical_{and,or,xor}.out. Operands broadcast and
// compare in their promoted dtype (torch.result_type); the boolean result is
// converted to out's dtype (usually bool). NaN compares unequal to
// everything; for the logical ops every non-zero value (and NaN) is true.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class LogicalOp { kAnd, kOr, kXor };

template <typename T>
bool Compare(CompareOp op, T a, T b) {
  switch (op) {
    case CompareOp::kEq:
      return a == b;
    case CompareOp::kNe:
      return a != b;
    case CompareOp::kLt:
      return a < b;
    case CompareOp::kLe:
      return a <= b;
    case CompareOp::kGt:
      return a > b;
    case CompareOp::kGe:
      return a >= b;
  }
  return false;
}

// Resizes out to the broadcast shape of a and b. Returns args.ok().
bool PrepareBroadcastOut(KernelArgs& args, const StridedView& a, const StridedView& b,
                         Tensor& out) {
  if (!IsElementType(a.dtype) || !IsElementType(b.dtype) || !IsElementType(out.dtype())) {
    args.Fail(Error::kNotSupported, "unsupported dtypes %s, %s -> %s", ScalarTypeName(a.dtype),
              ScalarTypeName(b.dtype), ScalarTypeName(out.dtype()));
    return false;
  }
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  int32_t sizes[kMaxTensorRank];
  if (!BroadcastShapes(a, b, &dim, shape)) {
    args.Fail(Error::kInvalidArgument, "shapes %s and %s do not broadcast", FormatSizes(a).text,
              FormatSizes(b).text);
    return false;
  }
  ToTensorSizes(dim, shape, sizes);
  return args.ResizeOut(out, {sizes, static_cast<size_t>(dim)}, "out");
}

void CompareKernel(KernelArgs& args, const Operand& a, const Operand& b, CompareOp op,
                   Tensor& out) {
  if (!PrepareBroadcastOut(args, a.view(), b.view(), out)) return;
  const TypeOperand operands[2] = {a.type(), b.type()};
  const ScalarType common = ResultType(operands, 2);
  SwitchAll(ComputeType(common), [&](auto tag) {
    using CT = decltype(tag);
    // The result is computed as 0/1 in CT and converted to out's dtype.
    BinaryLoop<CT>(a.view(), b.view(), StridedView::Of(out),
                   [op](CT x, CT y) { return static_cast<CT>(Compare(op, x, y)); });
  });
}

// self, other (Tensor or Scalar), out, ret.
void CompareOpKernel(KernelContext& ctx, Span<EValue*> raw, const char* name, CompareOp op,
                     bool scalar_other) {
  KernelArgs args(ctx, name, raw, 4);
  Tensor* self = args.GetTensor(0);
  Tensor* other = scalar_other ? nullptr : args.GetTensor(1);
  const Scalar other_scalar = scalar_other ? args.GetScalar(1) : Scalar{Scalar::Kind::kInt, 0, 0.0};
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (scalar_other) {
    CompareKernel(args, Operand(*self), Operand(other_scalar), op, *out);
  } else {
    CompareKernel(args, Operand(*self), Operand(*other), op, *out);
  }
}

// self, other, out, ret.
void LogicalKernel(KernelContext& ctx, Span<EValue*> raw, const char* name, LogicalOp op) {
  KernelArgs args(ctx, name, raw, 4);
  Tensor* self = args.GetTensor(0);
  Tensor* other = args.GetTensor(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  const StridedView a = StridedView::Of(*self);
  const StridedView b = StridedView::Of(*other);
  if (!PrepareBroadcastOut(args, a, b, *out)) return;
  BinaryLoop<bool>(a, b, StridedView::Of(*out), [op](bool x, bool y) {
    switch (op) {
      case LogicalOp::kAnd:
        return x && y;
      case LogicalOp::kOr:
        return x || y;
      case LogicalOp::kXor:
        return x != y;
    }
    return false;
  });
}

}  // namespace

#define EF_COMPARE_KERNELS(Name, name, op)                              \
  void Name##ScalarOut(KernelContext& ctx, Span<EValue*> args) {        \
    CompareOpKernel(ctx, args, "aten::" name ".Scalar_out", op, true);  \
  }                                                                     \
  void Name##TensorOut(KernelContext& ctx, Span<EValue*> args) {        \
    CompareOpKernel(ctx, args, "aten::" name ".Tensor_out", op, false); \
  }

EF_COMPARE_KERNELS(Eq, "eq", CompareOp::kEq)
EF_COMPARE_KERNELS(Ne, "ne", CompareOp::kNe)
EF_COMPARE_KERNELS(Lt, "lt", CompareOp::kLt)
EF_COMPARE_KERNELS(Le, "le", CompareOp::kLe)
EF_COMPARE_KERNELS(Gt, "gt", CompareOp::kGt)
EF_COMPARE_KERNELS(Ge, "ge", CompareOp::kGe)
#undef EF_COMPARE_KERNELS

void LogicalAndOut(KernelContext& ctx, Span<EValue*> args) {
  LogicalKernel(ctx, args, "aten::logical_and.out", LogicalOp::kAnd);
}
void LogicalOrOut(KernelContext& ctx, Span<EValue*> args) {
  LogicalKernel(ctx, args, "aten::logical_or.out", LogicalOp::kOr);
}
void LogicalXorOut(KernelContext& ctx, Span<EValue*> args) {
  LogicalKernel(ctx, args, "aten::logical_xor.out", LogicalOp::kXor);
}

void LogicalNotOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::logical_not.out", raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  if (!IsElementType(in->dtype()) || !IsElementType(out->dtype())) {
    args.Fail(Error::kNotSupported, "unsupported dtypes %s -> %s", ScalarTypeName(in->dtype()),
              ScalarTypeName(out->dtype()));
    return;
  }
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  UnaryLoop<bool>(StridedView::Of(*in), StridedView::Of(*out), [](bool x) { return !x; });
}

}  // namespace portable
}  // namespace edgefleet
