// Reductions over a list of dims: mean.out, sum.IntList_out, amax.out,
// amin.out, argmax.out, argmin.out and the boolean any/all (.out over one
// dim, .dims_out over a list, .all_out over everything). An absent or empty
// dim list reduces every dim. Floating sums accumulate in double (float16
// and bfloat16 too, rounded once into out), integer sums in int64
// (wrapping); except that a float32 mean accumulates in float32 in index
// order and divides in float32, as the real runtime's portable kernel does,
// so that its results are bit-identical (a quantized model's pooling feeds a
// quantize, where one ulp can move a rounding tie). amax, amin, argmax and
// argmin compare float16 and bfloat16 values as float32.

#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/reduce_util.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

bool CheckBasic(KernelArgs& args, const Tensor& in, const Tensor& out) {
  if (!IsElementType(in.dtype()) || !IsElementType(out.dtype())) {
    args.Fail(Error::kNotSupported, "unsupported dtypes %s -> %s", ScalarTypeName(in.dtype()),
              ScalarTypeName(out.dtype()));
    return false;
  }
  return true;
}

// self, dim[]?, keepdim, dtype?, out, ret.
void SumKernel(KernelContext& ctx, Span<EValue*> raw, const char* name, bool mean) {
  KernelArgs args(ctx, name, raw, 6);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims;
  const bool has_dims = args.GetOptionalIntList(1, &dims);
  const bool keepdim = args.GetBool(2);
  int64_t dtype = 0;
  const bool has_dtype = args.GetOptionalInt(3, &dtype);
  Tensor* out = args.GetTensor(4);
  if (!args.ok() || !CheckBasic(args, *in, *out)) return;
  if (has_dtype && dtype != static_cast<int64_t>(out->dtype())) {
    args.Fail(Error::kInvalidArgument, "dtype %lld does not match out (%s)",
              static_cast<long long>(dtype), ScalarTypeName(out->dtype()));
    return;
  }
  if (mean && !IsFloatingType(out->dtype())) {
    args.Fail(Error::kInvalidArgument, "mean needs a floating out, got %s",
              ScalarTypeName(out->dtype()));
    return;
  }
  ReducePlan plan;
  if (!PlanReduction(args, *in, dims, !has_dims || dims.empty(), keepdim, *out, &plan)) {
    return;
  }
  const char* in_data = in->data_as<const char>();
  char* out_data = out->data_as<char>();
  const int64_t in_elem = static_cast<int64_t>(ElementSize(in->dtype()));
  const int64_t out_elem = static_cast<int64_t>(ElementSize(out->dtype()));
  const auto run = [&](auto acc_tag) {
    using Acc = decltype(acc_tag);
    const LoadFn<Acc> load = GetLoader<Acc>(in->dtype());
    const StoreFn<Acc> store = GetStorer<Acc>(out->dtype());
    ForEachOffset(plan.kept, [&](const int64_t* o) {
      Acc acc = 0;
      ForEachOffset(plan.reduced, [&](const int64_t* r) {
        acc = WrapAdd(acc, load(in_data + (o[0] + r[0]) * in_elem));
      });
      if constexpr (std::is_floating_point_v<Acc>) {
        if (mean) acc /= static_cast<Acc>(plan.count);
      }
      store(acc, out_data + o[1] * out_elem);
    });
  };
  if (mean && out->dtype() == ScalarType::kFloat) {
    run(float{});
  } else if (IsFloatingType(out->dtype())) {
    run(double{});
  } else {
    run(int64_t{});
  }
}

// self, dim[], keepdim, out, ret. NaN wins, as in torch.amax.
void MinMaxKernel(KernelContext& ctx, Span<EValue*> raw, const char* name, bool is_max) {
  KernelArgs args(ctx, name, raw, 5);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims = args.GetIntList(1);
  const bool keepdim = args.GetBool(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok() || !CheckBasic(args, *in, *out)) return;
  if (in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  ReducePlan plan;
  if (!PlanReduction(args, *in, dims, dims.empty(), keepdim, *out, &plan)) {
    return;
  }
  if (plan.count == 0 && out->numel() > 0) {
    args.Fail(Error::kInvalidArgument, "cannot reduce over a zero-size dimension (no identity)");
    return;
  }
  SwitchElement(in->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    const S* x = in->data_as<const S>();
    S* y = out->data_as<S>();
    ForEachOffset(plan.kept, [&](const int64_t* o) {
      bool first = true;
      T best{};
      ForEachOffset(plan.reduced, [&](const int64_t* r) {
        const T v = Convert<T>(x[o[0] + r[0]]);
        if (first) {
          best = v;
          first = false;
        } else if (!IsNan(best) && (IsNan(v) || (is_max ? v > best : v < best))) {
          best = v;
        }
      });
      y[o[1]] = Convert<S>(best);
    });
  });
}

// self, dim?, keepdim, out, ret. The int64 index of the first maximum
// (minimum) along dim, or in the flattened tensor when dim is None; a NaN
// counts as the extreme, as in torch.argmax.
void ArgKernel(KernelContext& ctx, Span<EValue*> raw, const char* name, bool is_max) {
  KernelArgs args(ctx, name, raw, 5);
  Tensor* in = args.GetTensor(0);
  int64_t dim = 0;
  const bool has_dim = args.GetOptionalInt(1, &dim);
  const bool keepdim = args.GetBool(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok() || !CheckBasic(args, *in, *out)) return;
  if (out->dtype() != ScalarType::kLong) {
    args.Fail(Error::kInvalidArgument, "out must be int64, got %s", ScalarTypeName(out->dtype()));
    return;
  }
  ReducePlan plan;
  if (!PlanReduction(args, *in, {&dim, has_dim ? 1u : 0u}, !has_dim, keepdim, *out, &plan)) {
    return;
  }
  if (plan.count == 0 && out->numel() > 0) {
    args.Fail(Error::kInvalidArgument, "cannot take the arg%s of an empty dimension",
              is_max ? "max" : "min");
    return;
  }
  const bool ok = SwitchRealElement(in->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    const S* x = in->data_as<const S>();
    int64_t* y = out->data_as<int64_t>();
    ForEachOffset(plan.kept, [&](const int64_t* o) {
      int64_t i = 0, best_i = 0;
      T best{};
      // The reduced loop visits in row-major order: i is the index.
      ForEachOffset(plan.reduced, [&](const int64_t* r) {
        const T v = Convert<T>(x[o[0] + r[0]]);
        if (i == 0 || (!IsNan(best) && (IsNan(v) || (is_max ? v > best : v < best)))) {
          best = v;
          best_i = i;
        }
        ++i;
      });
      y[o[1]] = best_i;
    });
  });
  if (!ok) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in->dtype()));
  }
}

// any (is_any) or all over the planned dims; out is bool or uint8 (1/0).
void AnyAllKernel(KernelArgs& args, const Tensor& in, Span<const int64_t> dims, bool all_dims,
                  bool keepdim, Tensor& out, bool is_any) {
  if (!CheckBasic(args, in, out)) return;
  if (out.dtype() != ScalarType::kBool && out.dtype() != ScalarType::kByte) {
    args.Fail(Error::kInvalidArgument, "out must be bool or uint8, got %s",
              ScalarTypeName(out.dtype()));
    return;
  }
  ReducePlan plan;
  if (!PlanReduction(args, in, dims, all_dims, keepdim, out, &plan)) return;
  const LoadRunFn<bool> load = GetRunLoader<bool>(in.dtype());
  const char* x = in.data_as<const char>();
  uint8_t* y = out.data_as<uint8_t>();  // bool is stored as one byte
  const int64_t elem = static_cast<int64_t>(ElementSize(in.dtype()));
  const StridedLoop<1>& reduced = plan.reduced;
  const int64_t stride = reduced.dim > 0 ? reduced.strides[0][reduced.dim - 1] : 0;
  bool v[kRunBlock];
  ForEachOffset(plan.kept, [&](const int64_t* o) {
    bool acc = !is_any;
    ForEachRun(reduced, kRunBlock, [&](const int64_t* r, int64_t n) {
      load(x + (o[0] + r[0]) * elem, stride, n, v);
      for (int64_t i = 0; i < n; ++i) acc = is_any ? acc || v[i] : acc && v[i];
    });
    y[o[1]] = acc ? 1 : 0;
  });
}

// self, dim, keepdim, out, ret.
void AnyAllDim(KernelContext& ctx, Span<EValue*> raw, const char* name, bool is_any) {
  KernelArgs args(ctx, name, raw, 5);
  Tensor* in = args.GetTensor(0);
  const int64_t dim = args.GetInt(1);
  const bool keepdim = args.GetBool(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  AnyAllKernel(args, *in, {&dim, 1}, false, keepdim, *out, is_any);
}

// self, dim[]?, keepdim, out, ret.
void AnyAllDims(KernelContext& ctx, Span<EValue*> raw, const char* name, bool is_any) {
  KernelArgs args(ctx, name, raw, 5);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims;
  const bool has_dims = args.GetOptionalIntList(1, &dims);
  const bool keepdim = args.GetBool(2);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  AnyAllKernel(args, *in, dims, !has_dims || dims.empty(), keepdim, *out, is_any);
}

// self, out, ret.
void AnyAllAll(KernelContext& ctx, Span<EValue*> raw, const char* name, bool is_any) {
  KernelArgs args(ctx, name, raw, 3);
  Tensor* in = args.GetTensor(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  AnyAllKernel(args, *in, {}, true, false, *out, is_any);
}

}  // namespace

void MeanOut(KernelContext& ctx, Span<EValue*> args) {
  SumKernel(ctx, args, "aten::mean.out", /*mean=*/true);
}
void SumIntListOut(KernelContext& ctx, Span<EValue*> args) {
  SumKernel(ctx, args, "aten::sum.IntList_out", /*mean=*/false);
}
void AmaxOut(KernelContext& ctx, Span<EValue*> args) {
  MinMaxKernel(ctx, args, "aten::amax.out", /*is_max=*/true);
}
void AminOut(KernelContext& ctx, Span<EValue*> args) {
  MinMaxKernel(ctx, args, "aten::amin.out", /*is_max=*/false);
}
void ArgmaxOut(KernelContext& ctx, Span<EValue*> args) {
  ArgKernel(ctx, args, "aten::argmax.out", /*is_max=*/true);
}
void ArgminOut(KernelContext& ctx, Span<EValue*> args) {
  ArgKernel(ctx, args, "aten::argmin.out", /*is_max=*/false);
}
void AnyOut(KernelContext& ctx, Span<EValue*> args) {
  AnyAllDim(ctx, args, "aten::any.out", /*is_any=*/true);
}
void AnyDimsOut(KernelContext& ctx, Span<EValue*> args) {
  AnyAllDims(ctx, args, "aten::any.dims_out", /*is_any=*/true);
}
void AnyAllOut(KernelContext& ctx, Span<EValue*> args) {
  AnyAllAll(ctx, args, "aten::any.all_out", /*is_any=*/true);
}
void AllOut(KernelContext& ctx, Span<EValue*> args) {
  AnyAllDim(ctx, args, "aten::all.out", /*is_any=*/false);
}
void AllDimsOut(KernelContext& ctx, Span<EValue*> args) {
  AnyAllDims(ctx, args, "aten::all.dims_out", /*is_any=*/false);
}
void AllAllOut(KernelContext& ctx, Span<EValue*> args) {
  AnyAllAll(ctx, args, "aten::all.all_out", /*is_any=*/false);
}

}  // namespace portable
}  // namespace edgefleet
