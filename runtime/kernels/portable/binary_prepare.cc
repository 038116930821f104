#include "runtime/kernels/portable/binary_prepare.h"

namespace edgefleet {
namespace portable {

bool PrepareBinaryOut(KernelArgs& args, const Operand& a, const Operand& b, Tensor& out,
                      ScalarType* common) {
  const StridedView& av = a.view();
  const StridedView& bv = b.view();
  if (!IsElementType(av.dtype) || !IsElementType(bv.dtype) || !IsElementType(out.dtype())) {
    args.Fail(Error::kNotSupported, "unsupported dtypes %s, %s -> %s", ScalarTypeName(av.dtype),
              ScalarTypeName(bv.dtype), ScalarTypeName(out.dtype()));
    return false;
  }
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  int32_t sizes[kMaxTensorRank];
  if (!BroadcastShapes(av, bv, &dim, shape)) {
    args.Fail(Error::kInvalidArgument, "shapes %s and %s do not broadcast", FormatSizes(av).text,
              FormatSizes(bv).text);
    return false;
  }
  if (!ToTensorSizes(dim, shape, sizes)) {
    args.Fail(Error::kInvalidArgument, "broadcast shape too large");
    return false;
  }
  if (!args.ResizeOut(out, {sizes, static_cast<size_t>(dim)}, "out")) {
    return false;
  }
  const TypeOperand operands[2] = {a.type(), b.type()};
  *common = ResultType(operands, 2);
  return true;
}

bool CheckCastToOut(KernelArgs& args, ScalarType result, const Tensor& out) {
  if (!CanCast(result, out.dtype())) {
    args.Fail(Error::kInvalidArgument, "result type %s can't be cast to the output dtype %s",
              ScalarTypeName(result), ScalarTypeName(out.dtype()));
  }
  return args.ok();
}

}  // namespace portable
}  // namespace edgefleet
