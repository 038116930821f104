// aten::atan2.out: elementwise atan2(self, other) with broadcasting; integer
// and bool operands promote to float32, as in PyTorch.

#include <cmath>

#include "runtime/kernels/portable/binary_prepare.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace portable {

void Atan2Out(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::atan2.out", raw, 4);
  Tensor* self = args.GetTensor(0);
  Tensor* other = args.GetTensor(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  const Operand a(*self);
  const Operand b(*other);
  ScalarType common;
  if (!PrepareBinaryOut(args, a, b, *out, &common)) return;
  if (!IsFloatingType(common)) common = ScalarType::kFloat;
  if (!CheckCastToOut(args, common, *out)) return;
  SwitchFloating(ComputeType(common), [&](auto tag) {
    using T = decltype(tag);
    BinaryLoop<T>(a.view(), b.view(), StridedView::Of(*out),
                  [](T y, T x) { return std::atan2(y, x); });
  });
}

}  // namespace portable
}  // namespace edgefleet
