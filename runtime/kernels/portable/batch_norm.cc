// Inference batch norm: aten::_native_batch_norm_legit_no_training.out.
// out = (x - running_mean) / sqrt(running_var + eps) * weight + bias per
// channel (dim 1). The save_mean / save_invstd outputs are empty ([0]) in
// inference, as exported programs declare them.

#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Element c of a per-channel parameter as double, or `fallback` if absent.
double Param(const Tensor* t, int64_t c, double fallback) {
  if (t == nullptr) return fallback;
  const LoadFn<double> load = GetLoader<double>(t->dtype());
  const int64_t stride = t->dim() == 0 ? 0 : t->stride(0);
  return load(t->data_as<const char>() +
              c * stride * static_cast<int64_t>(ElementSize(t->dtype())));
}

// Fails unless `t` (if present) is a floating vector of `channels`.
bool CheckParam(KernelArgs& args, const Tensor* t, int32_t channels,
                const char* name) {
  if (t == nullptr) return true;
  if (t->dim() != 1 || t->size(0) != channels) {
    args.Fail(Error::kInvalidArgument, "%s must have shape [%d], got %s",
              name, channels, FormatSizes(StridedView::Of(*t)).text);
    return false;
  }
  if (t->dtype() != ScalarType::kFloat && t->dtype() != ScalarType::kDouble) {
    args.Fail(Error::kNotSupported, "%s dtype %s is not supported", name,
              ScalarTypeName(t->dtype()));
    return false;
  }
  return true;
}

// The save_mean / save_invstd outputs: sized [0] in inference.
bool PrepareEmptyOut(KernelArgs& args, Tensor& t, const char* name) {
  if (t.numel() == 0 && t.dim() != 1) return true;
  if (t.dim() != 1) {
    args.Fail(Error::kInvalidArgument, "%s must be an empty tensor, got %s",
              name, FormatSizes(StridedView::Of(t)).text);
    return false;
  }
  const int32_t empty[1] = {0};
  return args.ResizeOut(t, empty, name);
}

}  // namespace

void NativeBatchNormNoTrainingOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_native_batch_norm_legit_no_training.out", raw,
                  11);
  Tensor* in = args.GetTensor(0);
  Tensor* weight = args.GetOptionalTensor(1);
  Tensor* bias = args.GetOptionalTensor(2);
  Tensor* mean = args.GetTensor(3);
  Tensor* var = args.GetTensor(4);
  args.GetDouble(5);  // momentum: unused in inference
  const double eps = args.GetDouble(6);
  Tensor* out = args.GetTensor(7);
  Tensor* save_mean = args.GetTensor(8);
  Tensor* save_invstd = args.GetTensor(9);
  if (!args.ok()) return;
  if (in->dim() < 2) {
    args.Fail(Error::kInvalidArgument, "input must have rank >= 2, got %d",
              in->dim());
    return;
  }
  if (in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  const int32_t channels = in->size(1);
  if (!CheckParam(args, weight, channels, "weight") ||
      !CheckParam(args, bias, channels, "bias") ||
      !CheckParam(args, mean, channels, "running_mean") ||
      !CheckParam(args, var, channels, "running_var") ||
      !args.ResizeOut(*out, in->sizes(), "out") ||
      !PrepareEmptyOut(args, *save_mean, "save_mean") ||
      !PrepareEmptyOut(args, *save_invstd, "save_invstd")) {
    return;
  }
  if (out->numel() == 0) return;
  // Every dimension but the channel one.
  StridedLoop<2> loop;
  for (int d = 0; d < in->dim(); ++d) {
    if (d == 1) continue;
    loop.sizes[loop.dim] = in->size(d);
    loop.strides[0][loop.dim] = in->stride(d);
    loop.strides[1][loop.dim] = out->stride(d);
    ++loop.dim;
  }
  loop.Coalesce();
  const bool ok = SwitchFloating(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    for (int64_t c = 0; c < channels; ++c) {
      const double invstd = 1.0 / std::sqrt(Param(var, c, 1.0) + eps);
      const double scale_d = Param(weight, c, 1.0) * invstd;
      const T scale = static_cast<T>(scale_d);
      const T shift =
          static_cast<T>(Param(bias, c, 0.0) - Param(mean, c, 0.0) * scale_d);
      const T* x = in->data_as<const T>() + c * in->stride(1);
      T* y = out->data_as<T>() + c * out->stride(1);
      ForEachOffset(loop, [&](const int64_t* o) {
        y[o[1]] = x[o[0]] * scale + shift;
      });
    }
  });
  if (!ok) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported",
              ScalarTypeName(in->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet
