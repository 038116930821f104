// Variance over a list of dims: aten::var.out (unbiased flag),
// var.correction_out and var_mean.correction_out (correction, default 1).
// An absent or empty dim list reduces every dim. Floating dtypes only
// (float16 and bfloat16 included); two passes in double. The divisor is max(0, N - correction), so
// too few elements give inf or NaN, as in PyTorch.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/reduce_util.h"

namespace edgefleet {
namespace portable {
namespace {

// Writes the variance into `var` and, if non-null, the mean into `mean`.
void VarKernel(KernelArgs& args, const Tensor& in, bool has_dims, Span<const int64_t> dims,
               double correction, bool keepdim, Tensor& var, Tensor* mean) {
  if (!IsFloatingType(in.dtype()) || !IsFloatingType(var.dtype()) ||
      (mean != nullptr && !IsFloatingType(mean->dtype()))) {
    args.Fail(Error::kInvalidArgument, "needs floating input and outputs, got %s -> %s",
              ScalarTypeName(in.dtype()), ScalarTypeName(var.dtype()));
    return;
  }
  const bool all = !has_dims || dims.empty();
  ReducePlan plan;
  if (!PlanReduction(args, in, dims, all, keepdim, var, &plan)) return;
  ReducePlan mean_plan;
  if (mean != nullptr && !PlanReduction(args, in, dims, all, keepdim, *mean, &mean_plan)) {
    return;
  }
  const double n = static_cast<double>(plan.count);
  const double divisor = n - correction > 0 ? n - correction : 0.0;
  const char* x = in.data_as<const char>();
  const int64_t in_elem = static_cast<int64_t>(ElementSize(in.dtype()));
  const LoadFn<double> load = GetLoader<double>(in.dtype());
  const StoreFn<double> store_var = GetStorer<double>(var.dtype());
  const StoreFn<double> store_mean = mean != nullptr ? GetStorer<double>(mean->dtype()) : nullptr;
  const int64_t var_elem = static_cast<int64_t>(ElementSize(var.dtype()));
  const int64_t mean_elem = mean != nullptr ? static_cast<int64_t>(ElementSize(mean->dtype())) : 0;
  // Both plans walk the same kept dims (PlanReduction does not coalesce
  // them): one loop over input, var and mean offsets.
  StridedLoop<3> kept;
  kept.dim = plan.kept.dim;
  for (int d = 0; d < kept.dim; ++d) {
    kept.sizes[d] = plan.kept.sizes[d];
    kept.strides[0][d] = plan.kept.strides[0][d];
    kept.strides[1][d] = plan.kept.strides[1][d];
    kept.strides[2][d] = mean != nullptr ? mean_plan.kept.strides[1][d] : 0;
  }
  ForEachOffset(kept, [&](const int64_t* o) {
    double sum = 0;
    ForEachOffset(plan.reduced,
                  [&](const int64_t* r) { sum += load(x + (o[0] + r[0]) * in_elem); });
    const double mu = sum / n;
    double sq = 0;
    ForEachOffset(plan.reduced, [&](const int64_t* r) {
      const double d = load(x + (o[0] + r[0]) * in_elem) - mu;
      sq += d * d;
    });
    store_var(sq / divisor, var.data_as<char>() + o[1] * var_elem);
    if (mean != nullptr) {
      store_mean(mu, mean->data_as<char>() + o[2] * mean_elem);
    }
  });
}

}  // namespace

void VarOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::var.out", raw, 6);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims;
  const bool has_dims = args.GetOptionalIntList(1, &dims);
  const bool unbiased = args.GetBool(2);
  const bool keepdim = args.GetBool(3);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  VarKernel(args, *in, has_dims, dims, unbiased ? 1.0 : 0.0, keepdim, *out, nullptr);
}

void VarCorrectionOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::var.correction_out", raw, 6);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims;
  const bool has_dims = args.GetOptionalIntList(1, &dims);
  Scalar correction{Scalar::Kind::kInt, 1, 1.0};
  args.GetOptionalScalar(2, &correction);
  const bool keepdim = args.GetBool(3);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  VarKernel(args, *in, has_dims, dims, ScalarTo<double>(correction), keepdim, *out, nullptr);
}

void VarMeanCorrectionOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::var_mean.correction_out", raw, 7);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims;
  const bool has_dims = args.GetOptionalIntList(1, &dims);
  Scalar correction{Scalar::Kind::kInt, 1, 1.0};
  args.GetOptionalScalar(2, &correction);
  const bool keepdim = args.GetBool(3);
  Tensor* var = args.GetTensor(4);
  Tensor* mean = args.GetTensor(5);
  if (!args.ok()) return;
  VarKernel(args, *in, has_dims, dims, ScalarTo<double>(correction), keepdim, *var, mean);
}

}  // namespace portable
}  // namespace edgefleet
