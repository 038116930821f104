#include "runtime/kernels/portable/unary_kernel.h"

namespace edgefleet {
namespace portable {

bool PrepareUnaryOut(KernelArgs& args, const Tensor& in, Tensor& out) {
  if (!IsElementType(in.dtype()) || !IsElementType(out.dtype())) {
    args.Fail(Error::kNotSupported, "unsupported dtypes %s -> %s", ScalarTypeName(in.dtype()),
              ScalarTypeName(out.dtype()));
    return false;
  }
  return args.ResizeOut(out, in.sizes(), "out");
}

}  // namespace portable
}  // namespace edgefleet
