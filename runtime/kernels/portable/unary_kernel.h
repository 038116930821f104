// Shared bodies of the one-input elementwise kernels (`self, ..., out`):
// argument checks, output resize and the dtype switch. The per-op part is
// a generic functor `op(x)` evaluated in the compute type.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_UNARY_KERNEL_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_UNARY_KERNEL_H_

#include "runtime/core/tensor.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"

namespace edgefleet {
namespace portable {

// Resizes out to in's shape after checking both dtypes are element types.
// Returns args.ok().
bool PrepareUnaryOut(KernelArgs& args, const Tensor& in, Tensor& out);

// out = op(in) computed in out's floating dtype (float32 for float16 and
// bfloat16); `in` may be any element type (integers are converted, as
// torch.exp(int_tensor) gives float32).
template <typename Op>
void FloatingUnary(KernelArgs& args, const Tensor& in, Tensor& out, Op op) {
  if (!PrepareUnaryOut(args, in, out)) return;
  const bool ok = SwitchFloating(ComputeType(out.dtype()), [&](auto tag) {
    using CT = decltype(tag);
    UnaryLoop<CT>(StridedView::Of(in), StridedView::Of(out),
                  [&op](CT x) { return static_cast<CT>(op(x)); });
  });
  if (!ok) {
    args.Fail(Error::kInvalidArgument, "out must be a floating dtype, got %s",
              ScalarTypeName(out.dtype()));
  }
}

// out = op(in) computed in ComputeType(compute) (`compute`: a real, non-bool
// dtype that can be cast to out's dtype).
template <typename Op>
void RealUnary(KernelArgs& args, const Tensor& in, ScalarType compute, Tensor& out, Op op) {
  if (!PrepareUnaryOut(args, in, out)) return;
  if (!CanCast(compute, out.dtype())) {
    args.Fail(Error::kInvalidArgument,
              "result type %s can't be cast to the "
              "output dtype %s",
              ScalarTypeName(compute), ScalarTypeName(out.dtype()));
    return;
  }
  const bool ok = SwitchReal(ComputeType(compute), [&](auto tag) {
    using CT = decltype(tag);
    UnaryLoop<CT>(StridedView::Of(in), StridedView::Of(out),
                  [&op](CT x) { return static_cast<CT>(op(x)); });
  });
  if (!ok) {
    args.Fail(Error::kInvalidArgument, "not supported for %s inputs", ScalarTypeName(compute));
  }
}

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_UNARY_KERNEL_H_
