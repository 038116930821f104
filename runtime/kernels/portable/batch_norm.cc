// Batch norm over the channel dim (dim 1).
// Inference: aten::_native_batch_norm_legit_no_training.out (and
// _native_batch_norm_legit.out with training=False).
// out = (x - running_mean) / sqrt(running_var + eps) * weight + bias per
// channel. The save_mean / save_invstd outputs are empty ([0]) in
// inference, as exported programs declare them.
// Training: aten::_native_batch_norm_legit.out (training=True) and
// .no_stats_out normalize with the batch statistics (biased variance),
// write them to save_mean / save_invstd ([C]) and, when given, update the
// running statistics in place: r = (1 - momentum) * r + momentum * stat,
// with the unbiased variance for running_var. float16 and bfloat16 inputs
// are normalized in float32 and rounded once (statistics in double).

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
bool CheckParam(KernelArgs& args, const Tensor* t, int32_t channels, const char* name) {
  if (t == nullptr) return true;
  if (t->dim() != 1 || t->size(0) != channels) {
    args.Fail(Error::kInvalidArgument, "%s must have shape [%d], got %s", name, channels,
              FormatSizes(StridedView::Of(*t)).text);
    return false;
  }
  if (!IsFloatingType(t->dtype())) {
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
    args.Fail(Error::kInvalidArgument, "%s must be an empty tensor, got %s", name,
              FormatSizes(StridedView::Of(t)).text);
    return false;
  }
  const int32_t empty[1] = {0};
  return args.ResizeOut(t, empty, name);
}

// Inference batch norm with the running statistics.
void BatchNormInference(KernelArgs& args, Tensor* in, Tensor* weight, Tensor* bias, Tensor* mean,
                        Tensor* var, double eps, Tensor* out, Tensor* save_mean,
                        Tensor* save_invstd) {
  if (in->dim() < 2) {
    args.Fail(Error::kInvalidArgument, "input must have rank >= 2, got %d", in->dim());
    return;
  }
  if (in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(out->dtype()));
    return;
  }
  const int32_t channels = in->size(1);
  if (!CheckParam(args, weight, channels, "weight") || !CheckParam(args, bias, channels, "bias") ||
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
  const bool ok = SwitchFloatingElement(in->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    for (int64_t c = 0; c < channels; ++c) {
      const double invstd = 1.0 / std::sqrt(Param(var, c, 1.0) + eps);
      const double scale_d = Param(weight, c, 1.0) * invstd;
      const T scale = static_cast<T>(scale_d);
      const T shift = static_cast<T>(Param(bias, c, 0.0) - Param(mean, c, 0.0) * scale_d);
      const S* x = in->data_as<const S>() + c * in->stride(1);
      S* y = out->data_as<S>() + c * out->stride(1);
      ForEachOffset(loop, [&](const int64_t* o) {
        y[o[1]] = Convert<S>(Convert<T>(x[o[0]]) * scale + shift);
      });
    }
  });
  if (!ok) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in->dtype()));
  }
}

// Resizes a per-channel statistic output to [channels].
bool PrepareStatOut(KernelArgs& args, Tensor& t, int32_t channels, const char* name) {
  if (!IsFloatingType(t.dtype())) {
    args.Fail(Error::kInvalidArgument, "%s must be floating, got %s", name,
              ScalarTypeName(t.dtype()));
    return false;
  }
  const int32_t sizes[1] = {channels};
  return args.ResizeOut(t, sizes, name);
}

// Writes `value` as element c of the per-channel tensor t.
void SetParam(Tensor& t, int64_t c, double value) {
  const int64_t stride = t.dim() == 0 ? 0 : t.stride(0);
  GetStorer<double>(t.dtype())(
      value, t.data_as<char>() + c * stride * static_cast<int64_t>(ElementSize(t.dtype())));
}

// Training batch norm with batch statistics; running_mean / running_var
// are both present or both absent.
void BatchNormTraining(KernelArgs& args, Tensor* in, Tensor* weight, Tensor* bias,
                       Tensor* running_mean, Tensor* running_var, double momentum, double eps,
                       Tensor* out, Tensor* save_mean, Tensor* save_invstd) {
  if (in->dim() < 2 || !IsFloatingType(in->dtype()) || in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument,
              "needs a floating input of rank >= 2 and out of its dtype, got "
              "%s rank %d -> %s",
              ScalarTypeName(in->dtype()), in->dim(), ScalarTypeName(out->dtype()));
    return;
  }
  const int32_t channels = in->size(1);
  if (!CheckParam(args, weight, channels, "weight") || !CheckParam(args, bias, channels, "bias") ||
      !CheckParam(args, running_mean, channels, "running_mean") ||
      !CheckParam(args, running_var, channels, "running_var") ||
      !args.ResizeOut(*out, in->sizes(), "out") ||
      !PrepareStatOut(args, *save_mean, channels, "save_mean") ||
      !PrepareStatOut(args, *save_invstd, channels, "save_invstd")) {
    return;
  }
  StridedLoop<2> loop;  // every dimension but the channel one
  int64_t count = 1;
  for (int d = 0; d < in->dim(); ++d) {
    if (d == 1) continue;
    loop.sizes[loop.dim] = in->size(d);
    loop.strides[0][loop.dim] = in->stride(d);
    loop.strides[1][loop.dim] = out->stride(d);
    count *= in->size(d);
    ++loop.dim;
  }
  loop.Coalesce();
  if (count == 0 && channels > 0) {
    args.Fail(Error::kInvalidArgument, "expected more than 0 values per channel");
    return;
  }
  SwitchFloatingElement(in->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;
    for (int64_t c = 0; c < channels; ++c) {
      const S* x = in->data_as<const S>() + c * in->stride(1);
      S* y = out->data_as<S>() + c * out->stride(1);
      double sum = 0;
      ForEachOffset(loop, [&](const int64_t* o) { sum += Convert<double>(x[o[0]]); });
      const double mu = sum / static_cast<double>(count);
      double sq = 0;
      ForEachOffset(loop, [&](const int64_t* o) {
        const double d = Convert<double>(x[o[0]]) - mu;
        sq += d * d;
      });
      const double var = sq / static_cast<double>(count);
      const double invstd = 1.0 / std::sqrt(var + eps);
      const double scale_d = Param(weight, c, 1.0) * invstd;
      const T scale = static_cast<T>(scale_d);
      const T shift = static_cast<T>(Param(bias, c, 0.0) - mu * scale_d);
      ForEachOffset(loop, [&](const int64_t* o) {
        y[o[1]] = Convert<S>(Convert<T>(x[o[0]]) * scale + shift);
      });
      SetParam(*save_mean, c, mu);
      SetParam(*save_invstd, c, invstd);
      if (running_mean != nullptr) {
        const double unbiased = count > 1 ? sq / static_cast<double>(count - 1) : var;
        SetParam(*running_mean, c, (1 - momentum) * Param(running_mean, c, 0.0) + momentum * mu);
        SetParam(*running_var, c,
                 (1 - momentum) * Param(running_var, c, 0.0) + momentum * unbiased);
      }
    }
  });
}

}  // namespace

void NativeBatchNormNoTrainingOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_native_batch_norm_legit_no_training.out", raw, 11);
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
  BatchNormInference(args, in, weight, bias, mean, var, eps, out, save_mean, save_invstd);
}

void NativeBatchNormLegitOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_native_batch_norm_legit.out", raw, 12);
  Tensor* in = args.GetTensor(0);
  Tensor* weight = args.GetOptionalTensor(1);
  Tensor* bias = args.GetOptionalTensor(2);
  Tensor* running_mean = args.GetTensor(3);
  Tensor* running_var = args.GetTensor(4);
  const bool training = args.GetBool(5);
  const double momentum = args.GetDouble(6);
  const double eps = args.GetDouble(7);
  Tensor* out = args.GetTensor(8);
  Tensor* save_mean = args.GetTensor(9);
  Tensor* save_invstd = args.GetTensor(10);
  if (!args.ok()) return;
  if (training) {
    BatchNormTraining(args, in, weight, bias, running_mean, running_var, momentum, eps, out,
                      save_mean, save_invstd);
  } else {
    BatchNormInference(args, in, weight, bias, running_mean, running_var, eps, out, save_mean,
                       save_invstd);
  }
}

void NativeBatchNormLegitNoStatsOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_native_batch_norm_legit.no_stats_out", raw, 10);
  Tensor* in = args.GetTensor(0);
  Tensor* weight = args.GetOptionalTensor(1);
  Tensor* bias = args.GetOptionalTensor(2);
  const bool training = args.GetBool(3);
  const double momentum = args.GetDouble(4);
  const double eps = args.GetDouble(5);
  Tensor* out = args.GetTensor(6);
  Tensor* save_mean = args.GetTensor(7);
  Tensor* save_invstd = args.GetTensor(8);
  if (!args.ok()) return;
  if (!training) {
    args.Fail(Error::kInvalidArgument,
              "running_mean and running_var must be defined in evaluation "
              "mode");
    return;
  }
  BatchNormTraining(args, in, weight, bias, nullptr, nullptr, momentum, eps, out, save_mean,
                    save_invstd);
}

}  // namespace portable
}  // namespace edgefleet
