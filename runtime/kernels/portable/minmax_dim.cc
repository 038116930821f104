// aten::max.dim_max / min.dim_min (values and int64 indices along one dim)
// and aten::max.unary_out / min.unary_out (the extreme of every element).
// NaN counts as the extreme and the first extreme's index is reported, as
// in PyTorch on CPU. Every element dtype (float16 and bfloat16 compare as
// float32); reducing an empty dim fails.

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/reduce_util.h"

namespace edgefleet {
namespace portable {
namespace {

template <typename T>
bool Better(T v, T best, bool is_max) {
  if (IsNan(best)) return false;
  if (IsNan(v)) return true;
  return is_max ? v > best : v < best;
}

// self, dim, keepdim, values, indices, ret.
void MinMaxDim(KernelContext& ctx, Span<EValue*> raw, const char* name, bool is_max) {
  KernelArgs args(ctx, name, raw, 6);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  const bool keepdim = args.GetBool(2);
  Tensor* values = args.GetTensor(3);
  Tensor* indices = args.GetTensor(4);
  if (!args.ok()) return;
  if (!IsElementType(in->dtype()) || values->dtype() != in->dtype() ||
      indices->dtype() != ScalarType::kLong) {
    args.Fail(Error::kInvalidArgument,
              "values must have the input dtype (%s) and indices int64, got "
              "%s and %s",
              ScalarTypeName(in->dtype()), ScalarTypeName(values->dtype()),
              ScalarTypeName(indices->dtype()));
    return;
  }
  ReducePlan plan;
  ReducePlan index_plan;
  if (!PlanReduction(args, *in, {&dim, 1}, false, keepdim, *values, &plan) ||
      !PlanReduction(args, *in, {&dim, 1}, false, keepdim, *indices, &index_plan)) {
    return;
  }
  if (plan.count == 0 && values->numel() > 0) {
    args.Fail(Error::kInvalidArgument, "cannot take the %s of an empty dimension",
              is_max ? "max" : "min");
    return;
  }
  StridedLoop<3> kept;  // input, values, indices
  kept.dim = plan.kept.dim;
  for (int d = 0; d < kept.dim; ++d) {
    kept.sizes[d] = plan.kept.sizes[d];
    kept.strides[0][d] = plan.kept.strides[0][d];
    kept.strides[1][d] = plan.kept.strides[1][d];
    kept.strides[2][d] = index_plan.kept.strides[1][d];
  }
  SwitchElement(in->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    const char* x = in->data_as<const char>();
    char* y = values->data_as<char>();
    int64_t* idx = indices->data_as<int64_t>();
    ForEachOffset(kept, [&](const int64_t* o) {
      int64_t i = 0, best_i = 0;
      T best = LoadAs<T, S>(x + o[0] * sizeof(S));
      ForEachOffset(plan.reduced, [&](const int64_t* r) {
        const T v = LoadAs<T, S>(x + (o[0] + r[0]) * sizeof(S));
        if (Better(v, best, is_max)) {
          best = v;
          best_i = i;
        }
        ++i;
      });
      StoreAs<T, S>(best, y + o[1] * sizeof(S));
      idx[o[2]] = best_i;
    });
  });
}

// self, out, ret.
void MinMaxAll(KernelContext& ctx, Span<EValue*> raw, const char* name, bool is_max) {
  KernelArgs args(ctx, name, raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  if (!IsElementType(in->dtype()) || !IsElementType(out->dtype()) ||
      !CanCast(in->dtype(), out->dtype())) {
    args.Fail(Error::kInvalidArgument, "can't write a %s result to %s", ScalarTypeName(in->dtype()),
              ScalarTypeName(out->dtype()));
    return;
  }
  if (in->numel() == 0) {
    args.Fail(Error::kInvalidArgument, "%s of an empty tensor is not defined (no identity)",
              is_max ? "max" : "min");
    return;
  }
  ReducePlan plan;
  if (!PlanReduction(args, *in, {}, true, false, *out, &plan)) return;
  SwitchElement(in->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    const char* x = in->data_as<const char>();
    T best = LoadAs<T, S>(x);
    ForEachOffset(plan.reduced, [&](const int64_t* r) {
      const T v = LoadAs<T, S>(x + r[0] * sizeof(S));
      if (Better(v, best, is_max)) best = v;
    });
    GetStorer<T>(out->dtype())(best, out->data_as<char>());
  });
}

}  // namespace

void MaxDimMax(KernelContext& ctx, Span<EValue*> args) {
  MinMaxDim(ctx, args, "aten::max.dim_max", true);
}
void MinDimMin(KernelContext& ctx, Span<EValue*> args) {
  MinMaxDim(ctx, args, "aten::min.dim_min", false);
}
void MaxUnaryOut(KernelContext& ctx, Span<EValue*> args) {
  MinMaxAll(ctx, args, "aten::max.unary_out", true);
}
void MinUnaryOut(KernelContext& ctx, Span<EValue*> args) {
  MinMaxAll(ctx, args, "aten::min.unary_out", false);
}

}  // namespace portable
}  // namespace edgefleet
