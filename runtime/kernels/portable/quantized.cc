// The quantized_decomposed ops of PT2E-quantized programs that run outside a
// delegate: quantize_per_tensor (.out, .Tensor_out), dequantize_per_tensor
// (.out, .Tensor_out), quantize_per_channel.out, dequantize_per_channel.out,
// choose_qparams.Tensor_out and add.out (two quantized tensors dequantized,
// added in float32 with broadcasting and requantized, as the pattern the
// exporter replaces with it: dequantize, add, quantize).
//
// Arithmetic follows torch/ao/quantization/fx/_decomposed.py, which is what
// torch runs for a converted model, in the same element type:
//   quantize:   q = clamp(round_half_even(x * inv_scale) + zp, qmin, qmax)
//               with inv_scale = float(1.0 / scale) (per tensor) or
//               1 / scale[c] in the scales' type (per channel);
//   dequantize: x = (float(q) - zp) * scale.
// Quantized dtypes: uint8, int8, int16, int32. Any dim order.

#include <cmath>
#include <limits>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

bool IsQuantizedType(ScalarType t) {
  return t == ScalarType::kByte || t == ScalarType::kChar || t == ScalarType::kShort ||
         t == ScalarType::kInt;
}

// Checks the dtype argument against the quantized tensor's dtype and the
// quant range against the dtype's range.
bool CheckQuantArgs(KernelArgs& args, int64_t dtype, const Tensor& quantized, int64_t quant_min,
                    int64_t quant_max) {
  if (dtype != static_cast<int64_t>(quantized.dtype()) || !IsQuantizedType(quantized.dtype())) {
    args.Fail(Error::kInvalidArgument,
              "dtype %lld does not match the "
              "quantized tensor (%s), or is not uint8/int8/int16/int32",
              static_cast<long long>(dtype), ScalarTypeName(quantized.dtype()));
    return false;
  }
  int64_t lo = 0, hi = 0;
  SwitchReal(quantized.dtype(), [&](auto tag) {
    using Q = decltype(tag);
    lo = static_cast<int64_t>(std::numeric_limits<Q>::lowest());
    hi = static_cast<int64_t>(std::numeric_limits<Q>::max());
  });
  if (quant_min > quant_max || quant_min < lo || quant_max > hi) {
    args.Fail(Error::kInvalidArgument,
              "quant range [%lld, %lld] is invalid "
              "for %s",
              static_cast<long long>(quant_min), static_cast<long long>(quant_max),
              ScalarTypeName(quantized.dtype()));
    return false;
  }
  return true;
}

// `v` in T, saturating to +-infinity instead of the undefined behaviour of
// an out-of-range double -> float conversion.
template <typename T>
T ToFloating(double v) {
  constexpr double kMax = std::numeric_limits<T>::max();
  if (v > kMax) return std::numeric_limits<T>::infinity();
  if (v < -kMax) return -std::numeric_limits<T>::infinity();
  return static_cast<T>(v);
}

// Resizes out to in's shape; the float side must be a floating dtype.
bool PrepareOut(KernelArgs& args, const Tensor& in, const Tensor& floating, Tensor& out) {
  if (!SwitchFloating(floating.dtype(), [](auto) {})) {
    args.Fail(Error::kInvalidArgument,
              "float side must be float32 or "
              "float64, got %s",
              ScalarTypeName(floating.dtype()));
    return false;
  }
  return args.ResizeOut(out, in.sizes(), "out");
}

// Per-tensor or per-slice quantization of `in` into `out` (same shape).
template <typename T>
void Quantize(const StridedView& in, const StridedView& out, T inv_scale, T zero_point, T quant_min,
              T quant_max) {
  UnaryLoop<T>(in, out, [=](T x) {
    const T q = std::nearbyint(x * inv_scale) + zero_point;
    return q < quant_min ? quant_min : (q > quant_max ? quant_max : q);
  });
}

template <typename T>
void Dequantize(const StridedView& in, const StridedView& out, T scale, T zero_point) {
  UnaryLoop<T>(in, out, [=](T q) { return (q - zero_point) * scale; });
}

// The single value of a one-element tensor, as double.
bool ReadOneElement(KernelArgs& args, const Tensor& t, const char* name, double* value) {
  const LoadFn<double> load = GetLoader<double>(t.dtype());
  if (t.numel() != 1 || load == nullptr) {
    args.Fail(Error::kInvalidArgument,
              "%s must be one number, got %lld "
              "elements of %s",
              name, static_cast<long long>(t.numel()), ScalarTypeName(t.dtype()));
    return false;
  }
  *value = load(t.data());
  return true;
}

void QuantizePerTensorKernel(KernelArgs& args, const Tensor& in, double scale, int64_t zero_point,
                             int64_t quant_min, int64_t quant_max, int64_t dtype, Tensor& out) {
  if (!CheckQuantArgs(args, dtype, out, quant_min, quant_max) || !PrepareOut(args, in, in, out)) {
    return;
  }
  SwitchFloating(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Quantize<T>(StridedView::Of(in), StridedView::Of(out), ToFloating<T>(1.0 / scale),
                static_cast<T>(zero_point), static_cast<T>(quant_min), static_cast<T>(quant_max));
  });
}

void DequantizePerTensorKernel(KernelArgs& args, const Tensor& in, double scale, int64_t zero_point,
                               int64_t quant_min, int64_t quant_max, int64_t dtype,
                               bool has_out_dtype, int64_t out_dtype, Tensor& out) {
  if (!CheckQuantArgs(args, dtype, in, quant_min, quant_max)) return;
  if (has_out_dtype && out_dtype != static_cast<int64_t>(out.dtype())) {
    args.Fail(Error::kInvalidArgument,
              "out_dtype %lld does not match out "
              "(%s)",
              static_cast<long long>(out_dtype), ScalarTypeName(out.dtype()));
    return;
  }
  if (!PrepareOut(args, in, out, out)) return;
  SwitchFloating(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    Dequantize<T>(StridedView::Of(in), StridedView::Of(out), ToFloating<T>(scale),
                  static_cast<T>(zero_point));
  });
}

// Checks per-channel parameter tensors: 1-D with in.size(axis) elements.
bool CheckChannelParams(KernelArgs& args, const Tensor& in, int64_t axis, const Tensor& scales,
                        const Tensor* zero_points, int* d) {
  if (in.dim() == 0 || !NormalizeDim(axis, in.dim(), d)) {
    args.Fail(Error::kInvalidArgument, "axis %lld out of range for rank %d",
              static_cast<long long>(axis), in.dim());
    return false;
  }
  const int64_t channels = in.size(*d);
  if (scales.dim() != 1 || scales.size(0) != channels || !IsFloatingType(scales.dtype()) ||
      !IsBasicType(scales.dtype())) {
    args.Fail(Error::kInvalidArgument,
              "scales must be 1-D floating with "
              "%lld entries",
              static_cast<long long>(channels));
    return false;
  }
  if (zero_points != nullptr && (zero_points->dim() != 1 || zero_points->size(0) != channels ||
                                 !IsBasicType(zero_points->dtype()))) {
    args.Fail(Error::kInvalidArgument,
              "zero_points must be 1-D with %lld "
              "entries",
              static_cast<long long>(channels));
    return false;
  }
  return true;
}

// Calls f(c, scale_c, zero_point_c, in_slice, out_slice) for each channel.
template <typename F>
void ForEachChannel(const Tensor& in, const Tensor& out, int d, const Tensor& scales,
                    const Tensor* zero_points, F f) {
  const LoadFn<double> load_scale = GetLoader<double>(scales.dtype());
  const LoadFn<double> load_zp = zero_points ? GetLoader<double>(zero_points->dtype()) : nullptr;
  const size_t scale_size = ElementSize(scales.dtype());
  const size_t zp_size = zero_points ? ElementSize(zero_points->dtype()) : 0;
  for (int64_t c = 0; c < in.size(d); ++c) {
    const double s = load_scale(scales.data_as<const char>() + c * scales.stride(0) * scale_size);
    const double zp =
        zero_points == nullptr
            ? 0.0
            : load_zp(zero_points->data_as<const char>() + c * zero_points->stride(0) * zp_size);
    StridedView src = StridedView::Of(in);
    StridedView dst = StridedView::Of(out);
    src.Select(d, c);
    dst.Select(d, c);
    f(s, zp, src, dst);
  }
}

}  // namespace

void QuantizePerTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::quantize_per_tensor.out", raw, 8);
  Tensor* in = args.GetTensor(0);
  const double scale = args.GetDouble(1);
  const int64_t zero_point = args.GetInt(2);
  const int64_t quant_min = args.GetInt(3);
  const int64_t quant_max = args.GetInt(4);
  const int64_t dtype = args.GetInt(5);
  Tensor* out = args.GetTensor(6);
  if (!args.ok()) return;
  QuantizePerTensorKernel(args, *in, scale, zero_point, quant_min, quant_max, dtype, *out);
}

void QuantizePerTensorTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::quantize_per_tensor.Tensor_out", raw, 8);
  Tensor* in = args.GetTensor(0);
  Tensor* scale = args.GetTensor(1);
  Tensor* zero_point = args.GetTensor(2);
  const int64_t quant_min = args.GetInt(3);
  const int64_t quant_max = args.GetInt(4);
  const int64_t dtype = args.GetInt(5);
  Tensor* out = args.GetTensor(6);
  if (!args.ok()) return;
  double s = 0, zp = 0;
  if (!ReadOneElement(args, *scale, "scale", &s) ||
      !ReadOneElement(args, *zero_point, "zero_point", &zp)) {
    return;
  }
  QuantizePerTensorKernel(args, *in, s, Convert<int64_t>(zp), quant_min, quant_max, dtype, *out);
}

void DequantizePerTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::dequantize_per_tensor.out", raw, 9);
  Tensor* in = args.GetTensor(0);
  const double scale = args.GetDouble(1);
  const int64_t zero_point = args.GetInt(2);
  const int64_t quant_min = args.GetInt(3);
  const int64_t quant_max = args.GetInt(4);
  const int64_t dtype = args.GetInt(5);
  int64_t out_dtype = 0;
  const bool has_out_dtype = args.GetOptionalInt(6, &out_dtype);
  Tensor* out = args.GetTensor(7);
  if (!args.ok()) return;
  DequantizePerTensorKernel(args, *in, scale, zero_point, quant_min, quant_max, dtype,
                            has_out_dtype, out_dtype, *out);
}

void DequantizePerTensorTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::dequantize_per_tensor.Tensor_out", raw, 9);
  Tensor* in = args.GetTensor(0);
  Tensor* scale = args.GetTensor(1);
  Tensor* zero_point = args.GetTensor(2);
  const int64_t quant_min = args.GetInt(3);
  const int64_t quant_max = args.GetInt(4);
  const int64_t dtype = args.GetInt(5);
  int64_t out_dtype = 0;
  const bool has_out_dtype = args.GetOptionalInt(6, &out_dtype);
  Tensor* out = args.GetTensor(7);
  if (!args.ok()) return;
  double s = 0, zp = 0;
  if (!ReadOneElement(args, *scale, "scale", &s) ||
      !ReadOneElement(args, *zero_point, "zero_point", &zp)) {
    return;
  }
  DequantizePerTensorKernel(args, *in, s, Convert<int64_t>(zp), quant_min, quant_max, dtype,
                            has_out_dtype, out_dtype, *out);
}

void QuantizePerChannelOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::quantize_per_channel.out", raw, 9);
  Tensor* in = args.GetTensor(0);
  Tensor* scales = args.GetTensor(1);
  Tensor* zero_points = args.GetTensor(2);
  const int64_t axis = args.GetInt(3);
  const int64_t quant_min = args.GetInt(4);
  const int64_t quant_max = args.GetInt(5);
  const int64_t dtype = args.GetInt(6);
  Tensor* out = args.GetTensor(7);
  if (!args.ok()) return;
  int d = 0;
  if (!CheckQuantArgs(args, dtype, *out, quant_min, quant_max) ||
      !CheckChannelParams(args, *in, axis, *scales, zero_points, &d) ||
      !PrepareOut(args, *in, *in, *out)) {
    return;
  }
  SwitchFloating(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const bool float_scales = scales->dtype() == ScalarType::kFloat;
    ForEachChannel(*in, *out, d, *scales, zero_points,
                   [&](double s, double zp, const StridedView& src, const StridedView& dst) {
                     // torch: input * (1.0 / scales), the reciprocal in the scales' dtype.
                     const T inv = float_scales ? static_cast<T>(1.0f / static_cast<float>(s))
                                                : ToFloating<T>(1.0 / s);
                     Quantize<T>(src, dst, inv, ToFloating<T>(zp), static_cast<T>(quant_min),
                                 static_cast<T>(quant_max));
                   });
  });
}

void DequantizePerChannelOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::dequantize_per_channel.out", raw, 10);
  Tensor* in = args.GetTensor(0);
  Tensor* scales = args.GetTensor(1);
  Tensor* zero_points = args.GetOptionalTensor(2);
  const int64_t axis = args.GetInt(3);
  const int64_t quant_min = args.GetInt(4);
  const int64_t quant_max = args.GetInt(5);
  const int64_t dtype = args.GetInt(6);
  int64_t out_dtype = 0;
  const bool has_out_dtype = args.GetOptionalInt(7, &out_dtype);
  Tensor* out = args.GetTensor(8);
  if (!args.ok()) return;
  int d = 0;
  if (!CheckQuantArgs(args, dtype, *in, quant_min, quant_max) ||
      !CheckChannelParams(args, *in, axis, *scales, zero_points, &d)) {
    return;
  }
  if (has_out_dtype && out_dtype != static_cast<int64_t>(out->dtype())) {
    args.Fail(Error::kInvalidArgument,
              "out_dtype %lld does not match out "
              "(%s)",
              static_cast<long long>(out_dtype), ScalarTypeName(out->dtype()));
    return;
  }
  if (!PrepareOut(args, *in, *out, *out)) return;
  // torch: (input - zero_points) * scales in the scales' dtype, then cast.
  SwitchFloating(scales->dtype(), [&](auto tag) {
    using T = decltype(tag);
    ForEachChannel(*in, *out, d, *scales, zero_points,
                   [&](double s, double zp, const StridedView& src, const StridedView& dst) {
                     Dequantize<T>(src, dst, ToFloating<T>(s), ToFloating<T>(zp));
                   });
  });
}

void ChooseQparamsTensorOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::choose_qparams.Tensor_out", raw, 8);
  Tensor* in = args.GetTensor(0);
  const int64_t quant_min = args.GetInt(1);
  const int64_t quant_max = args.GetInt(2);
  const double eps = args.GetDouble(3);
  const int64_t dtype = args.GetInt(4);
  Tensor* scale_out = args.GetTensor(5);
  Tensor* zero_point_out = args.GetTensor(6);
  if (!args.ok()) return;
  if (in->dtype() != ScalarType::kFloat || in->numel() == 0) {
    args.Fail(Error::kInvalidArgument, "input must be non-empty float32");
    return;
  }
  if (dtype < 0 || dtype > 127 || !IsValidScalarType(static_cast<int>(dtype)) ||
      !IsQuantizedType(static_cast<ScalarType>(dtype)) || quant_min >= quant_max) {
    args.Fail(Error::kInvalidArgument, "invalid dtype %lld or quant range",
              static_cast<long long>(dtype));
    return;
  }
  if (!SwitchFloating(scale_out->dtype(), [](auto) {}) ||
      zero_point_out->dtype() != ScalarType::kLong) {
    args.Fail(Error::kInvalidArgument, "scale_out must be floating and zero_point_out int64");
    return;
  }
  const int32_t one[1] = {1};
  if (!args.ResizeOut(*scale_out, one, "scale_out") ||
      !args.ResizeOut(*zero_point_out, one, "zero_point_out")) {
    return;
  }
  // torch.aminmax (NaN propagates), then determine_qparams (affine) in
  // float32.
  const StridedView v = StridedView::Of(*in);
  const StridedView* const views[1] = {&v};
  const float* x = in->data_as<const float>();
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  ForEachOffset(BroadcastLoop<1>(v.dim, v.sizes, views), [&](const int64_t* o) {
    const float e = x[o[0]];
    if (IsNan(e) || IsNan(lo)) {
      lo = hi = e + lo;  // NaN
    } else {
      lo = e < lo ? e : lo;
      hi = e > hi ? e : hi;
    }
  });
  const float min_neg = lo < 0 ? lo : 0.0f;
  const float max_pos = hi > 0 ? hi : 0.0f;
  float scale = (max_pos - min_neg) / static_cast<float>(quant_max - quant_min);
  const float feps = ToFloating<float>(eps);
  if (!IsNan(scale) && scale < feps) scale = feps;
  int64_t zp = quant_min - Convert<int32_t>(std::nearbyint(min_neg / scale));
  zp = zp < quant_min ? quant_min : (zp > quant_max ? quant_max : zp);
  GetStorer<double>(scale_out->dtype())(scale, scale_out->mutable_data());
  *zero_point_out->data_as<int64_t>() = zp;
}

void QuantizedAddOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::add.out", raw, 16);
  Tensor* a = args.GetTensor(0);
  const double a_scale = args.GetDouble(1);
  const int64_t a_zp = args.GetInt(2);
  const int64_t a_min = args.GetInt(3);
  const int64_t a_max = args.GetInt(4);
  Tensor* b = args.GetTensor(5);
  const double b_scale = args.GetDouble(6);
  const int64_t b_zp = args.GetInt(7);
  const int64_t b_min = args.GetInt(8);
  const int64_t b_max = args.GetInt(9);
  const double out_scale = args.GetDouble(10);
  const int64_t out_zp = args.GetInt(11);
  const int64_t out_min = args.GetInt(12);
  const int64_t out_max = args.GetInt(13);
  Tensor* out = args.GetTensor(14);
  if (!args.ok()) return;
  const auto own = [](const Tensor* t) { return static_cast<int64_t>(t->dtype()); };
  if (!CheckQuantArgs(args, own(a), *a, a_min, a_max) ||
      !CheckQuantArgs(args, own(b), *b, b_min, b_max) ||
      !CheckQuantArgs(args, own(out), *out, out_min, out_max)) {
    return;
  }
  const StridedView av = StridedView::Of(*a), bv = StridedView::Of(*b);
  int dim = 0;
  int64_t shape[kMaxTensorRank];
  int32_t sizes[kMaxTensorRank];
  if (!BroadcastShapes(av, bv, &dim, shape) || !ToTensorSizes(dim, shape, sizes)) {
    args.Fail(Error::kInvalidArgument, "shapes %s and %s do not broadcast", FormatSizes(av).text,
              FormatSizes(bv).text);
    return;
  }
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(dim)}, "out")) return;
  const float sa = ToFloating<float>(a_scale), sb = ToFloating<float>(b_scale);
  const float za = static_cast<float>(a_zp), zb = static_cast<float>(b_zp);
  const float inv = ToFloating<float>(1.0 / out_scale);
  const float zo = static_cast<float>(out_zp);
  const float lo = static_cast<float>(out_min);
  const float hi = static_cast<float>(out_max);
  BinaryLoop<float>(av, bv, StridedView::Of(*out), [=](float x, float y) {
    const float sum = (x - za) * sa + (y - zb) * sb;
    const float q = std::nearbyint(sum * inv) + zo;
    return q < lo ? lo : (q > hi ? hi : q);
  });
}

}  // namespace portable
}  // namespace edgefleet
