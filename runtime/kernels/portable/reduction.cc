// Reductions over a list of dims: mean.out and sum.IntList_out. An absent or
// empty dim list reduces every dim. Floating results accumulate in double,
// integer results in int64 (wrapping).

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// self, dim[]?, keepdim, dtype?, out, ret.
void ReduceKernel(KernelContext& ctx, Span<EValue*> raw, const char* name,
                  bool mean) {
  KernelArgs args(ctx, name, raw, 6);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> dims;
  const bool has_dims = args.GetOptionalIntList(1, &dims);
  const bool keepdim = args.GetBool(2);
  int64_t dtype = 0;
  const bool has_dtype = args.GetOptionalInt(3, &dtype);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  if (!IsBasicType(in->dtype()) || !IsBasicType(out->dtype())) {
    args.Fail(Error::kNotSupported, "unsupported dtypes %s -> %s",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
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
  bool reduce[kMaxTensorRank] = {};
  const bool all = !has_dims || dims.empty();
  for (int64_t dim : dims) {
    int d = 0;
    if (!NormalizeDim(dim, in->dim(), &d)) {
      args.Fail(Error::kInvalidArgument, "dim %lld out of range for rank %d",
                static_cast<long long>(dim), in->dim());
      return;
    }
    if (in->dim() > 0 && reduce[d]) {
      args.Fail(Error::kInvalidArgument, "dim %d appears twice", d);
      return;
    }
    reduce[d] = true;
  }
  // Output shape, and the kept / reduced index spaces.
  int32_t sizes[kMaxTensorRank];
  int out_dim = 0;
  StridedLoop<1> reduced;
  int kept_dims[kMaxTensorRank];
  int num_kept = 0;
  for (int d = 0; d < in->dim(); ++d) {
    if (all || reduce[d]) {
      reduced.sizes[reduced.dim] = in->size(d);
      reduced.strides[0][reduced.dim++] = in->stride(d);
      if (keepdim) sizes[out_dim++] = 1;
    } else {
      kept_dims[num_kept++] = d;
      sizes[out_dim++] = in->size(d);
    }
  }
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(out_dim)}, "out")) {
    return;
  }
  StridedLoop<2> kept;
  for (int i = 0; i < num_kept; ++i) {
    const int d = kept_dims[i];
    kept.sizes[i] = in->size(d);
    kept.strides[0][i] = in->stride(d);
    kept.strides[1][i] = out->stride(keepdim ? d : i);
  }
  kept.dim = num_kept;
  reduced.Coalesce();
  int64_t count = 1;
  for (int d = 0; d < reduced.dim; ++d) count *= reduced.sizes[d];

  const char* in_data = in->data_as<const char>();
  char* out_data = out->data_as<char>();
  const int64_t in_elem = static_cast<int64_t>(ElementSize(in->dtype()));
  const int64_t out_elem = static_cast<int64_t>(ElementSize(out->dtype()));
  const auto run = [&](auto acc_tag) {
    using Acc = decltype(acc_tag);
    const LoadFn<Acc> load = GetLoader<Acc>(in->dtype());
    const StoreFn<Acc> store = GetStorer<Acc>(out->dtype());
    ForEachOffset(kept, [&](const int64_t* o) {
      Acc acc = 0;
      ForEachOffset(reduced, [&](const int64_t* r) {
        acc = WrapAdd(acc, load(in_data + (o[0] + r[0]) * in_elem));
      });
      if constexpr (std::is_floating_point_v<Acc>) {
        if (mean) acc /= static_cast<double>(count);
      }
      store(acc, out_data + o[1] * out_elem);
    });
  };
  if (IsFloatingType(out->dtype())) {
    run(double{});
  } else {
    run(int64_t{});
  }
}

}  // namespace

void MeanOut(KernelContext& ctx, Span<EValue*> args) {
  ReduceKernel(ctx, args, "aten::mean.out", /*mean=*/true);
}

void SumIntListOut(KernelContext& ctx, Span<EValue*> args) {
  ReduceKernel(ctx, args, "aten::sum.IntList_out", /*mean=*/false);
}

}  // namespace portable
}  // namespace edgefleet
