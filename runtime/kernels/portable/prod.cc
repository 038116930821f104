// aten::prod.out (every element) and aten::prod.int_out (one dim, keepdim):
// the product in out's dtype. Floating products accumulate in double,
// integer products in int64 (wrapping); an empty product is 1.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/reduce_util.h"

namespace edgefleet {
namespace portable {
namespace {

void ProdKernel(KernelArgs& args, const Tensor& in, Span<const int64_t> dims, bool all,
                bool keepdim, bool has_dtype, int64_t dtype, Tensor& out) {
  if (!IsElementType(in.dtype()) || !IsElementType(out.dtype())) {
    args.Fail(Error::kNotSupported, "unsupported dtypes %s -> %s", ScalarTypeName(in.dtype()),
              ScalarTypeName(out.dtype()));
    return;
  }
  if (has_dtype && dtype != static_cast<int64_t>(out.dtype())) {
    args.Fail(Error::kInvalidArgument, "dtype %lld does not match out (%s)",
              static_cast<long long>(dtype), ScalarTypeName(out.dtype()));
    return;
  }
  if (IsFloatingType(in.dtype()) && !IsFloatingType(out.dtype())) {
    args.Fail(Error::kInvalidArgument, "floating input needs a floating out");
    return;
  }
  ReducePlan plan;
  if (!PlanReduction(args, in, dims, all, keepdim, out, &plan)) return;
  const char* x = in.data_as<const char>();
  char* y = out.data_as<char>();
  const int64_t in_elem = static_cast<int64_t>(ElementSize(in.dtype()));
  const int64_t out_elem = static_cast<int64_t>(ElementSize(out.dtype()));
  const auto run = [&](auto acc_tag) {
    using Acc = decltype(acc_tag);
    const LoadFn<Acc> load = GetLoader<Acc>(in.dtype());
    const StoreFn<Acc> store = GetStorer<Acc>(out.dtype());
    ForEachOffset(plan.kept, [&](const int64_t* o) {
      Acc acc = 1;
      ForEachOffset(plan.reduced, [&](const int64_t* r) {
        acc = WrapMul(acc, load(x + (o[0] + r[0]) * in_elem));
      });
      store(acc, y + o[1] * out_elem);
    });
  };
  if (IsFloatingType(out.dtype())) {
    run(double{});
  } else {
    run(int64_t{});
  }
}

}  // namespace

void ProdOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::prod.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  int64_t dtype = 0;
  const bool has_dtype = args.GetOptionalInt(1, &dtype);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  ProdKernel(args, *in, {}, /*all=*/true, /*keepdim=*/false, has_dtype, dtype, *out);
}

void ProdIntOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::prod.int_out", raw, 6);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  const bool keepdim = args.GetBool(2);
  int64_t dtype = 0;
  const bool has_dtype = args.GetOptionalInt(3, &dtype);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  ProdKernel(args, *in, {&dim, 1}, /*all=*/false, keepdim, has_dtype, dtype, *out);
}

}  // namespace portable
}  // namespace edgefleet
