// aten::native_group_norm.out: input [N, C, *] is split into `group`
// groups of C / group channels; each (sample, group) is normalized with its
// mean and biased variance, then scaled by weight[c] and shifted by bias[c]
// (both optional, [C]). Also writes mean and rstd, shaped [N, group].
// Statistics in double (float16 and bfloat16 results rounded once); any
// dim order.

#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Element c of an optional [C] parameter as double, or `fallback`.
double ParamAt(const Tensor* t, int64_t c, double fallback) {
  if (t == nullptr) return fallback;
  return GetLoader<double>(t->dtype())(
      t->data_as<const char>() + c * t->stride(0) * static_cast<int64_t>(ElementSize(t->dtype())));
}

template <typename S>
void GroupNorm(const Tensor& in, const Tensor* weight, const Tensor* bias, int64_t n, int64_t c,
               int64_t group, double eps, const Tensor& out, const Tensor& mean,
               const Tensor& rstd) {
  const int64_t per_group = c / group;
  // The spatial dims (2..rank) of one channel, for input and output.
  StridedLoop<2> spatial;
  int64_t hw = 1;
  for (int d = 2; d < in.dim(); ++d) {
    spatial.sizes[spatial.dim] = in.size(d);
    spatial.strides[0][spatial.dim] = in.stride(d);
    spatial.strides[1][spatial.dim] = out.stride(d);
    hw *= in.size(d);
    ++spatial.dim;
  }
  spatial.Coalesce();
  const double count = static_cast<double>(per_group * hw);
  const S* x = in.data_as<const S>();
  S* y = out.data_as<S>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t g = 0; g < group; ++g) {
      const auto channel_in = [&](int64_t ch) { return x + i * in.stride(0) + ch * in.stride(1); };
      double sum = 0;
      for (int64_t ch = g * per_group; ch < (g + 1) * per_group; ++ch) {
        const S* xc = channel_in(ch);
        ForEachOffset(spatial, [&](const int64_t* o) { sum += Convert<double>(xc[o[0]]); });
      }
      const double mu = count > 0 ? sum / count : 0.0;
      double sq = 0;
      for (int64_t ch = g * per_group; ch < (g + 1) * per_group; ++ch) {
        const S* xc = channel_in(ch);
        ForEachOffset(spatial, [&](const int64_t* o) {
          const double dx = Convert<double>(xc[o[0]]) - mu;
          sq += dx * dx;
        });
      }
      const double inv = 1.0 / std::sqrt((count > 0 ? sq / count : 0.0) + eps);
      for (int64_t ch = g * per_group; ch < (g + 1) * per_group; ++ch) {
        const double scale = ParamAt(weight, ch, 1.0) * inv;
        const double shift = ParamAt(bias, ch, 0.0) - mu * scale;
        const S* xc = channel_in(ch);
        S* yc = y + i * out.stride(0) + ch * out.stride(1);
        ForEachOffset(spatial, [&](const int64_t* o) {
          yc[o[1]] = Convert<S>(Convert<double>(xc[o[0]]) * scale + shift);
        });
      }
      mean.data_as<S>()[i * mean.stride(0) + g * mean.stride(1)] = Convert<S>(mu);
      rstd.data_as<S>()[i * rstd.stride(0) + g * rstd.stride(1)] = Convert<S>(inv);
    }
  }
}

}  // namespace

void NativeGroupNormOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::native_group_norm.out", raw, 12);
  Tensor* in = args.GetTensor(0);
  Tensor* weight = args.GetOptionalTensor(1);
  Tensor* bias = args.GetOptionalTensor(2);
  const int64_t n = args.GetInt(3);
  const int64_t c = args.GetInt(4);
  const int64_t hw = args.GetInt(5);
  const int64_t group = args.GetInt(6);
  const double eps = args.GetDouble(7);
  Tensor* out = args.GetTensor(8);
  Tensor* mean = args.GetTensor(9);
  Tensor* rstd = args.GetTensor(10);
  if (!args.ok()) return;
  if (in->dim() < 2 || in->size(0) != n || in->size(1) != c || in->numel() != n * c * hw) {
    args.Fail(Error::kInvalidArgument, "input %s does not match N=%lld, C=%lld, HxW=%lld",
              FormatSizes(StridedView::Of(*in)).text, static_cast<long long>(n),
              static_cast<long long>(c), static_cast<long long>(hw));
    return;
  }
  if (group <= 0 || c % group != 0) {
    args.Fail(Error::kInvalidArgument,
              "expected the number of channels (%lld) to be divisible by the "
              "number of groups (%lld)",
              static_cast<long long>(c), static_cast<long long>(group));
    return;
  }
  const Tensor* const params[2] = {weight, bias};
  for (const Tensor* t : params) {
    if (t != nullptr && (t->dim() != 1 || t->size(0) != c || !IsFloatingType(t->dtype()))) {
      args.Fail(Error::kInvalidArgument, "weight and bias must be floating [%lld], got %s %s",
                static_cast<long long>(c), ScalarTypeName(t->dtype()),
                FormatSizes(StridedView::Of(*t)).text);
      return;
    }
  }
  const Tensor* const outs[3] = {out, mean, rstd};
  for (const Tensor* t : outs) {
    if (t->dtype() != in->dtype()) {
      args.Fail(Error::kInvalidArgument, "dtype %s does not match input (%s)",
                ScalarTypeName(t->dtype()), ScalarTypeName(in->dtype()));
      return;
    }
  }
  const int32_t stat_sizes[2] = {static_cast<int32_t>(n), static_cast<int32_t>(group)};
  if (!args.ResizeOut(*out, in->sizes(), "out") || !args.ResizeOut(*mean, stat_sizes, "mean") ||
      !args.ResizeOut(*rstd, stat_sizes, "rstd")) {
    return;
  }
  if (!SwitchFloatingElement(in->dtype(), [&](auto tag) {
        GroupNorm<decltype(tag)>(*in, weight, bias, n, c, group, eps, *out, *mean, *rstd);
      })) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet
