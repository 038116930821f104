// aten::where.self_out: out = condition ? self : other, with the three
// tensors broadcast together (PyTorch rules) and self/other promoted to
// their result type (torch.result_type), then converted to out's dtype.
// The condition must be bool (or uint8, which older exports produce).

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

template <typename CT>
void WhereLoop(const StridedView& cond, const StridedView& a, const StridedView& b,
               const StridedView& out) {
  const StridedView* const views[4] = {&cond, &a, &b, &out};
  StridedLoop<4> loop = BroadcastLoop<4>(out.dim, out.sizes, views);
  loop.Coalesce();
  // Runs of the innermost dim: both sides converted to CT, then chosen.
  const LoadRunFn<CT> load_a = GetRunLoader<CT>(a.dtype);
  const LoadRunFn<CT> load_b = GetRunLoader<CT>(b.dtype);
  const StoreRunFn<CT> store = GetRunStorer<CT>(out.dtype);
  const int64_t ea = static_cast<int64_t>(ElementSize(a.dtype));
  const int64_t eb = static_cast<int64_t>(ElementSize(b.dtype));
  const int64_t eo = static_cast<int64_t>(ElementSize(out.dtype));
  const int last = loop.dim - 1;
  int64_t stride[4] = {};
  for (int k = 0; k < 4 && loop.dim > 0; ++k) stride[k] = loop.strides[k][last];
  const uint8_t* c = reinterpret_cast<const uint8_t*>(cond.data);
  CT xa[kRunBlock], xb[kRunBlock];
  ForEachRun(loop, kRunBlock, [&](const int64_t* o, int64_t n) {
    load_a(a.data + o[1] * ea, stride[1], n, xa);
    load_b(b.data + o[2] * eb, stride[2], n, xb);
    for (int64_t i = 0; i < n; ++i) xa[i] = c[o[0] + i * stride[0]] != 0 ? xa[i] : xb[i];
    store(xa, n, out.data + o[3] * eo, stride[3]);
  });
}

}  // namespace

void WhereSelfOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::where.self_out", raw, 5);
  Tensor* cond = args.GetTensor(0);
  Tensor* self = args.GetTensor(1);
  Tensor* other = args.GetTensor(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (cond->dtype() != ScalarType::kBool && cond->dtype() != ScalarType::kByte) {
    args.Fail(Error::kInvalidArgument, "condition must be bool, got %s",
              ScalarTypeName(cond->dtype()));
    return;
  }
  if (!IsElementType(self->dtype()) || !IsElementType(other->dtype()) ||
      !IsElementType(out->dtype())) {
    args.Fail(Error::kNotSupported, "unsupported dtypes %s, %s -> %s",
              ScalarTypeName(self->dtype()), ScalarTypeName(other->dtype()),
              ScalarTypeName(out->dtype()));
    return;
  }
  const StridedView c = StridedView::Of(*cond);
  const StridedView a = StridedView::Of(*self);
  const StridedView b = StridedView::Of(*other);
  StridedView ab;
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  if (!BroadcastShapes(a, b, &ab.dim, ab.sizes) || !BroadcastShapes(c, ab, &dim, shape)) {
    args.Fail(Error::kInvalidArgument, "shapes %s, %s and %s do not broadcast", FormatSizes(c).text,
              FormatSizes(a).text, FormatSizes(b).text);
    return;
  }
  const TypeOperand operands[2] = {{self->dtype(), self->dim(), false},
                                   {other->dtype(), other->dim(), false}};
  const ScalarType common = ResultType(operands, 2);
  if (!CanCast(common, out->dtype())) {
    args.Fail(Error::kInvalidArgument,
              "result type %s can't be cast to the "
              "output dtype %s",
              ScalarTypeName(common), ScalarTypeName(out->dtype()));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  ToTensorSizes(dim, shape, sizes);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(dim)}, "out")) return;
  SwitchAll(ComputeType(common),
            [&](auto tag) { WhereLoop<decltype(tag)>(c, a, b, StridedView::Of(*out)); });
}

}  // namespace portable
}  // namespace edgefleet
