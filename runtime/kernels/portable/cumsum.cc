// aten::cumsum.out: inclusive prefix sums along one dim, in out's dtype
// (which must match `dtype` when given). Floating sums accumulate in double,
// integer sums in int64 (wrapping), as ATen's CPU kernel.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {

void CumsumOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::cumsum.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  const int64_t dim_arg = args.GetInt(1);
  int64_t dtype = 0;
  const bool has_dtype = args.GetOptionalInt(2, &dtype);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  if (!IsElementType(in->dtype()) || !IsElementType(out->dtype()) ||
      out->dtype() == ScalarType::kBool ||
      (IsFloatingType(in->dtype()) && !IsFloatingType(out->dtype()))) {
    args.Fail(Error::kInvalidArgument, "can't accumulate %s into %s", ScalarTypeName(in->dtype()),
              ScalarTypeName(out->dtype()));
    return;
  }
  if (has_dtype && dtype != static_cast<int64_t>(out->dtype())) {
    args.Fail(Error::kInvalidArgument, "dtype %lld does not match out (%s)",
              static_cast<long long>(dtype), ScalarTypeName(out->dtype()));
    return;
  }
  int dim = 0;
  if (!NormalizeDim(dim_arg, in->dim(), &dim)) {
    args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
              static_cast<long long>(dim_arg), in->dim());
    return;
  }
  if (!args.ResizeOut(*out, in->sizes(), "out")) return;
  if (in->numel() == 0) return;
  StridedView iv = StridedView::Of(*in);
  StridedView ov = StridedView::Of(*out);
  int64_t length = 1, in_step = 0, out_step = 0;
  if (in->dim() > 0) {
    length = iv.sizes[dim];
    in_step = iv.strides[dim];
    out_step = ov.strides[dim];
    iv.Select(dim, 0);
    ov.Select(dim, 0);
  }
  const StridedView* const views[2] = {&iv, &ov};
  StridedLoop<2> rows = BroadcastLoop<2>(iv.dim, iv.sizes, views);
  const int64_t in_elem = static_cast<int64_t>(ElementSize(in->dtype()));
  const int64_t out_elem = static_cast<int64_t>(ElementSize(out->dtype()));
  const auto run = [&](auto acc_tag) {
    using Acc = decltype(acc_tag);
    const LoadFn<Acc> load = GetLoader<Acc>(in->dtype());
    const StoreFn<Acc> store = GetStorer<Acc>(out->dtype());
    ForEachOffset(rows, [&](const int64_t* o) {
      Acc acc = 0;
      for (int64_t i = 0; i < length; ++i) {
        acc = WrapAdd(acc, load(iv.data + (o[0] + i * in_step) * in_elem));
        store(acc, ov.data + (o[1] + i * out_step) * out_elem);
      }
    });
  };
  if (IsFloatingType(out->dtype())) {
    run(double{});
  } else {
    run(int64_t{});
  }
}

}  // namespace portable
}  // namespace edgefleet
