// aten::_upsample_bilinear2d_aa.out: antialiased bilinear resampling of an
// N x C x H x W tensor (any dim order; float32, float64 and uint8, the
// dtypes ATen's CPU kernel takes), as ATen's separable kernel
// (UpSampleKernel.cpp, _compute_indices_min_size_weights_aa): along each
// axis whose size changes, output i takes the input samples within
// `support` of center = scale * (i + 0.5), weighted by the triangle filter
// 1 - |(j - center + 0.5) / max(scale, 1)| and normalized to sum 1, where
// support = max(scale, 1) and scale is ATen's area_pixel_compute_scale.
// Downscaling thus averages every input pixel under the output pixel
// instead of sampling two. Width is resampled first, then height; an axis
// whose size does not change is copied. Floating types compute in the
// element type with ATen's mixed float/double expressions; uint8 uses
// ATen's int16 fixed-point weights (the precision chosen per axis from the
// largest weight) with rounding, and the width pass is rounded to uint8
// before the height pass, as ATen's two passes are.

#include <algorithm>
#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/upsample_util.h"

namespace edgefleet {
namespace portable {
namespace {

// One axis's filter in ATen's weight type S (the element type for floating
// tensors, double for uint8).
template <typename S>
class AaAxis {
 public:
  AaAxis(int64_t in_size, int64_t out_size, bool align_corners, double scale_factor)
      : in_size_(in_size),
        identity_(in_size == out_size),
        scale_(SourceScale<S>(in_size, out_size, align_corners, scale_factor)),
        support_(scale_ >= 1.0 ? static_cast<S>(1.0 * scale_) : S(1)),
        max_taps_(static_cast<int64_t>(std::ceil(support_)) * 2 + 1) {}

  bool identity() const { return identity_; }

  // The taps of output index i: input indices [first, first + count) with
  // normalized weights weight(j), j in [0, count).
  class Taps {
   public:
    Taps(const AaAxis& axis, int64_t i) {
      const S scale = axis.scale_;
      center_ = static_cast<S>(scale * (i + 0.5));
      invscale_ = scale >= 1.0 ? static_cast<S>(1.0 / scale) : S(1);
      first_ = std::max<int64_t>(static_cast<int64_t>((center_ - axis.support_) + 0.5), 0);
      count_ =
          std::min<int64_t>(static_cast<int64_t>((center_ + axis.support_) + 0.5), axis.in_size_) -
          first_;
      count_ = std::clamp<int64_t>(count_, 0, axis.max_taps_);
      for (int64_t j = 0; j < count_; ++j) total_ += Raw(j);
    }
    int64_t first() const { return first_; }
    int64_t count() const { return count_; }
    S weight(int64_t j) const { return total_ != S(0) ? Raw(j) / total_ : Raw(j); }
    // The largest normalized weight (0 when the weights sum to 0).
    S max_weight() const {
      S m = 0;
      if (total_ == S(0)) return m;
      for (int64_t j = 0; j < count_; ++j) m = std::max(m, weight(j));
      return m;
    }

   private:
    // The triangle filter at tap j, in ATen's operand types.
    S Raw(int64_t j) const {
      S x = static_cast<S>(((j + first_) - center_ + 0.5) * invscale_);
      x = std::abs(x);
      return x < 1.0 ? static_cast<S>(1.0 - x) : S(0);
    }

    S center_, invscale_, total_ = 0;
    int64_t first_ = 0, count_ = 0;
  };

  Taps At(int64_t i) const { return Taps(*this, i); }

 private:
  int64_t in_size_;
  bool identity_;
  S scale_, support_;
  int64_t max_taps_;
};

template <typename T>
void ResampleFloating(const Tensor& in, Tensor& out, bool align_corners, double scale_h,
                      double scale_w) {
  const Planes p = PlanesOf(in), q = PlanesOf(out);
  const AaAxis<T> axis_h(p.h, q.h, align_corners, scale_h);
  const AaAxis<T> axis_w(p.w, q.w, align_corners, scale_w);
  const T* x = in.data_as<const T>();
  T* y = out.data_as<T>();
  // The width pass's value at input row `row`, output column ow.
  auto width_pass = [&](const T* row, int64_t ow, const typename AaAxis<T>::Taps& tw) {
    if (axis_w.identity()) return row[ow * p.sw];
    T v = row[tw.first() * p.sw] * tw.weight(0);
    for (int64_t b = 1; b < tw.count(); ++b) {
      v += row[(tw.first() + b) * p.sw] * tw.weight(b);
    }
    return v;
  };
  for (int64_t oh = 0; oh < q.h; ++oh) {
    const auto th = axis_h.At(oh);
    for (int64_t ow = 0; ow < q.w; ++ow) {
      const auto tw = axis_w.At(ow);
      for (int64_t n = 0; n < q.n; ++n) {
        for (int64_t c = 0; c < q.c; ++c) {
          const T* plane = x + n * p.sn + c * p.sc;
          T acc;
          if (axis_h.identity()) {
            acc = width_pass(plane + oh * p.sh, ow, tw);
          } else {
            acc = width_pass(plane + th.first() * p.sh, ow, tw) * th.weight(0);
            for (int64_t a = 1; a < th.count(); ++a) {
              acc += width_pass(plane + (th.first() + a) * p.sh, ow, tw) * th.weight(a);
            }
          }
          y[n * q.sn + c * q.sc + oh * q.sh + ow * q.sw] = acc;
        }
      }
    }
  }
}

// ATen's int16 weights for uint8 along one axis: weights scaled by
// 2^precision, the largest precision (< 22) at which twice the largest
// weight stays below 2^15.
class FixedPointAxis {
 public:
  FixedPointAxis(int64_t in_size, int64_t out_size, bool align_corners, double scale_factor)
      : axis_(in_size, out_size, align_corners, scale_factor) {
    if (axis_.identity()) return;
    double wt_max = 0;
    for (int64_t i = 0; i < out_size; ++i) {
      wt_max = std::max(wt_max, axis_.At(i).max_weight());
    }
    for (precision_ = 0; precision_ < 22; ++precision_) {
      const int next = static_cast<int>(0.5 + wt_max * (1 << (precision_ + 1)));
      if (next >= (1 << 15)) break;
    }
  }

  bool identity() const { return axis_.identity(); }
  AaAxis<double>::Taps At(int64_t i) const { return axis_.At(i); }
  int16_t Weight(const AaAxis<double>::Taps& taps, int64_t j) const {
    const double v = taps.weight(j) * (1 << precision_);
    return static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
  }
  // sum(value(k) * w_k) over the taps' input indices k, rounded, shifted
  // back and clamped to uint8 (ATen's basic_loop_aa_*<uint8_t>).
  template <typename Value>
  uint8_t Sum(const AaAxis<double>::Taps& taps, Value value) const {
    int acc = precision_ > 0 ? 1 << (precision_ - 1) : 0;
    for (int64_t j = 0; j < taps.count(); ++j) {
      acc += value(taps.first() + j) * Weight(taps, j);
    }
    return static_cast<uint8_t>(std::clamp(acc >> precision_, 0, 255));
  }

 private:
  AaAxis<double> axis_;
  int precision_ = 0;
};

void ResampleUint8(const Tensor& in, Tensor& out, bool align_corners, double scale_h,
                   double scale_w) {
  const Planes p = PlanesOf(in), q = PlanesOf(out);
  const FixedPointAxis axis_h(p.h, q.h, align_corners, scale_h);
  const FixedPointAxis axis_w(p.w, q.w, align_corners, scale_w);
  const uint8_t* x = in.data_as<const uint8_t>();
  uint8_t* y = out.data_as<uint8_t>();
  for (int64_t oh = 0; oh < q.h; ++oh) {
    const auto th = axis_h.At(oh);
    for (int64_t ow = 0; ow < q.w; ++ow) {
      const auto tw = axis_w.At(ow);
      // The width pass's value at input row `row`, output column ow.
      auto width_pass = [&](const uint8_t* row) {
        return axis_w.identity() ? row[ow * p.sw]
                                 : axis_w.Sum(tw, [&](int64_t k) { return row[k * p.sw]; });
      };
      for (int64_t n = 0; n < q.n; ++n) {
        for (int64_t c = 0; c < q.c; ++c) {
          const uint8_t* plane = x + n * p.sn + c * p.sc;
          const uint8_t v =
              axis_h.identity()
                  ? width_pass(plane + oh * p.sh)
                  : axis_h.Sum(th, [&](int64_t r) { return width_pass(plane + r * p.sh); });
          y[n * q.sn + c * q.sc + oh * q.sh + ow * q.sw] = v;
        }
      }
    }
  }
}

}  // namespace

void UpsampleBilinear2dAaOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_upsample_bilinear2d_aa.out", raw, 7);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> size = args.GetIntList(1);
  const bool align_corners = args.GetBool(2);
  Scalar sh{}, sw{};
  const bool has_h = args.GetOptionalScalar(3, &sh);
  const bool has_w = args.GetOptionalScalar(4, &sw);
  Tensor* out = args.GetTensor(5);
  if (!args.ok()) return;
  const ScalarType dtype = in->dtype();
  if (in->dim() != 4 || size.size() != 2 || dtype != out->dtype() ||
      !(IsBasicFloating(dtype) || dtype == ScalarType::kByte)) {
    args.Fail(Error::kInvalidArgument,
              "needs a 4-D float32, float64 or uint8 input, 2 output sizes "
              "and out of the input's dtype");
    return;
  }
  if (size[0] <= 0 || size[1] <= 0 || size[0] > INT32_MAX || size[1] > INT32_MAX ||
      in->size(2) <= 0 || in->size(3) <= 0) {
    args.Fail(Error::kInvalidArgument,
              "invalid sizes: input %dx%d, output "
              "%lldx%lld",
              in->size(2), in->size(3), static_cast<long long>(size[0]),
              static_cast<long long>(size[1]));
    return;
  }
  if (in == out) {
    args.Fail(Error::kInvalidArgument, "out must not be the input");
    return;
  }
  const int32_t sizes[4] = {in->size(0), in->size(1), static_cast<int32_t>(size[0]),
                            static_cast<int32_t>(size[1])};
  if (!args.ResizeOut(*out, sizes, "out") || out->numel() == 0) return;
  const double scale_h = has_h ? sh.AsDouble() : 0.0;
  const double scale_w = has_w ? sw.AsDouble() : 0.0;
  if (dtype == ScalarType::kByte) {
    ResampleUint8(*in, *out, align_corners, scale_h, scale_w);
    return;
  }
  SwitchFloating(dtype, [&](auto tag) {
    ResampleFloating<decltype(tag)>(*in, *out, align_corners, scale_h, scale_w);
  });
}

}  // namespace portable
}  // namespace edgefleet
