// aten::native_layer_norm.out: normalizes over the trailing
// `normalized_shape` dims, with optional elementwise weight and bias. Also
// writes the per-row mean and reciprocal standard deviation, shaped
// input.shape[:axis] + [1] * len(normalized_shape). Statistics in double;
// float16 and bfloat16 results are rounded once.

#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

template <typename S>
void LayerNorm(const Tensor& in, int axis, const Tensor* weight, const Tensor* bias, double eps,
               const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  StridedLoop<4> rows;  // in, out, mean, rstd over dims [0, axis)
  StridedLoop<4> cols;  // in, out, weight, bias over dims [axis, rank)
  rows.dim = axis;
  for (int d = 0; d < axis; ++d) {
    rows.sizes[d] = in.size(d);
    rows.strides[0][d] = in.stride(d);
    rows.strides[1][d] = out.stride(d);
    rows.strides[2][d] = mean.stride(d);
    rows.strides[3][d] = rstd.stride(d);
  }
  cols.dim = in.dim() - axis;
  int64_t n = 1;
  for (int d = axis; d < in.dim(); ++d) {
    const int i = d - axis;
    cols.sizes[i] = in.size(d);
    cols.strides[0][i] = in.stride(d);
    cols.strides[1][i] = out.stride(d);
    cols.strides[2][i] = weight != nullptr ? weight->stride(i) : 0;
    cols.strides[3][i] = bias != nullptr ? bias->stride(i) : 0;
    n *= in.size(d);
  }
  cols.Coalesce();
  const S* x = in.data_as<const S>();
  S* y = out.data_as<S>();
  const S* w = weight != nullptr ? weight->data_as<const S>() : nullptr;
  const S* b = bias != nullptr ? bias->data_as<const S>() : nullptr;
  const auto at = [](const S* p, int64_t i) { return Convert<double>(p[i]); };
  ForEachOffset(rows, [&](const int64_t* r) {
    double sum = 0;
    ForEachOffset(cols, [&](const int64_t* c) { sum += at(x, r[0] + c[0]); });
    const double mu = sum / static_cast<double>(n);
    double sq = 0;
    ForEachOffset(cols, [&](const int64_t* c) {
      const double dx = at(x, r[0] + c[0]) - mu;
      sq += dx * dx;
    });
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(n) + eps);
    ForEachOffset(cols, [&](const int64_t* c) {
      double v = (at(x, r[0] + c[0]) - mu) * inv;
      if (w != nullptr) v *= at(w, c[2]);
      if (b != nullptr) v += at(b, c[3]);
      y[r[1] + c[1]] = Convert<S>(v);
    });
    mean.data_as<S>()[r[2]] = Convert<S>(mu);
    rstd.data_as<S>()[r[3]] = Convert<S>(inv);
  });
}

}  // namespace

void NativeLayerNormOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::native_layer_norm.out", raw, 9);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> shape = args.GetIntList(1);
  Tensor* weight = args.GetOptionalTensor(2);
  Tensor* bias = args.GetOptionalTensor(3);
  const double eps = args.GetDouble(4);
  Tensor* out = args.GetTensor(5);
  Tensor* mean = args.GetTensor(6);
  Tensor* rstd = args.GetTensor(7);
  if (!args.ok()) return;
  const int m = static_cast<int>(shape.size());
  bool valid = m >= 1 && m <= in->dim();
  const int axis = in->dim() - m;
  for (int i = 0; valid && i < m; ++i) valid = shape[i] == in->size(axis + i);
  const Tensor* const params[2] = {weight, bias};
  for (const Tensor* t : params) {
    if (t == nullptr || !valid) continue;
    valid = t->dim() == m;
    for (int i = 0; valid && i < m; ++i) valid = t->size(i) == shape[i];
  }
  if (!valid) {
    args.Fail(Error::kInvalidArgument,
              "normalized_shape (%zu dims) does not "
              "match input %s or weight/bias",
              shape.size(), FormatSizes(StridedView::Of(*in)).text);
    return;
  }
  const Tensor* const others[5] = {weight, bias, out, mean, rstd};
  for (const Tensor* t : others) {
    if (t != nullptr && t->dtype() != in->dtype()) {
      args.Fail(Error::kInvalidArgument, "dtype %s does not match input (%s)",
                ScalarTypeName(t->dtype()), ScalarTypeName(in->dtype()));
      return;
    }
  }
  int32_t stat_sizes[kMaxTensorRank];
  for (int d = 0; d < in->dim(); ++d) {
    stat_sizes[d] = d < axis ? in->size(d) : 1;
  }
  const Span<const int32_t> stats(stat_sizes, static_cast<size_t>(in->dim()));
  if (!args.ResizeOut(*out, in->sizes(), "out") || !args.ResizeOut(*mean, stats, "mean") ||
      !args.ResizeOut(*rstd, stats, "rstd")) {
    return;
  }
  if (!SwitchFloatingElement(in->dtype(), [&](auto tag) {
        LayerNorm<decltype(tag)>(*in, axis, weight, bias, eps, *out, *mean, *rstd);
      })) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet
