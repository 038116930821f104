// aten::mean.dtype_out: the mean of every element, in out's floating dtype
// (which must match `dtype` when given). Accumulates in double.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/reduce_util.h"

namespace edgefleet {
namespace portable {

void MeanDtypeOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::mean.dtype_out", raw, 4);
  Tensor* in = args.GetTensor(0);
  int64_t dtype = 0;
  const bool has_dtype = args.GetOptionalInt(1, &dtype);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  if (!IsElementType(in->dtype()) || !IsFloatingType(out->dtype())) {
    args.Fail(Error::kInvalidArgument, "mean needs a floating out, got %s -> %s",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  if (has_dtype && dtype != static_cast<int64_t>(out->dtype())) {
    args.Fail(Error::kInvalidArgument, "dtype %lld does not match out (%s)",
              static_cast<long long>(dtype), ScalarTypeName(out->dtype()));
    return;
  }
  if (!has_dtype && !IsFloatingType(in->dtype())) {
    args.Fail(Error::kInvalidArgument, "mean of %s input needs an explicit floating dtype",
              ScalarTypeName(in->dtype()));
    return;
  }
  ReducePlan plan;
  if (!PlanReduction(args, *in, {}, true, false, *out, &plan)) return;
  const LoadFn<double> load = GetLoader<double>(in->dtype());
  const char* x = in->data_as<const char>();
  const int64_t elem = static_cast<int64_t>(ElementSize(in->dtype()));
  double sum = 0;
  ForEachOffset(plan.reduced, [&](const int64_t* r) { sum += load(x + r[0] * elem); });
  GetStorer<double>(out->dtype())(sum / static_cast<double>(plan.count), out->data_as<char>());
}

}  // namespace portable
}  // namespace edgefleet
