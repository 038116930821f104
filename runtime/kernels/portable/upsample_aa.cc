// aten::_upsample_bilinear2d_aa.out: antialiased bilinear resampling of an
// N x C x H x W tensor (any dim order, floating dtypes), as ATen's CPU
// kernel (UpSampleKernel.cpp, _compute_weights_aa): along each axis whose
// size changes, output i takes the input samples within `support` of
// center = scale * (i + 0.5), weighted by the triangle filter
// 1 - |(j - center + 0.5) / max(scale, 1)| and normalized to sum 1, where
// support = max(scale, 1) and scale is ATen's area_pixel_compute_scale.
// Downscaling thus averages every input pixel under the output pixel
// instead of sampling two. Width is resampled first, then height, in the
// element type; an axis whose size does not change is copied.

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

// The taps of output index i along one axis: input indices
// [first, first + count) with weight(j) for j in [0, count).
template <typename T>
class AaTaps {
 public:
  AaTaps(int64_t i, int64_t in_size, int64_t out_size, bool align_corners,
         double scale_factor)
      : identity_(in_size == out_size) {
    if (identity_) {
      first_ = i;
      count_ = 1;
      return;
    }
    const T scale = SourceScale<T>(in_size, out_size, align_corners,
                                   scale_factor);
    const T support = scale >= T(1) ? scale : T(1);
    center_ = scale * (static_cast<T>(i) + T(0.5));
    invscale_ = scale >= T(1) ? T(1) / scale : T(1);
    first_ = std::max<int64_t>(static_cast<int64_t>(center_ - support + T(0.5)),
                               0);
    const int64_t max_taps =
        static_cast<int64_t>(std::ceil(static_cast<double>(support))) * 2 + 1;
    count_ = std::min<int64_t>(
        static_cast<int64_t>(center_ + support + T(0.5)), in_size) - first_;
    count_ = std::clamp<int64_t>(count_, 0, max_taps);
    for (int64_t j = 0; j < count_; ++j) total_ += Raw(j);
  }

  int64_t first() const { return first_; }
  int64_t count() const { return count_; }
  T weight(int64_t j) const {
    if (identity_) return T(1);
    return total_ != T(0) ? Raw(j) / total_ : Raw(j);
  }

 private:
  T Raw(int64_t j) const {
    const T x = std::fabs((static_cast<T>(j + first_) - center_ + T(0.5)) *
                          invscale_);
    return x < T(1) ? T(1) - x : T(0);
  }

  bool identity_;
  int64_t first_ = 0, count_ = 0;
  T center_ = 0, invscale_ = 1, total_ = 0;
};

template <typename T>
void ResampleAa(const Tensor& in, Tensor& out, bool align_corners,
                double scale_h, double scale_w) {
  const Planes p = PlanesOf(in), q = PlanesOf(out);
  const T* x = in.data_as<const T>();
  T* y = out.data_as<T>();
  for (int64_t oh = 0; oh < q.h; ++oh) {
    const AaTaps<T> th(oh, p.h, q.h, align_corners, scale_h);
    for (int64_t ow = 0; ow < q.w; ++ow) {
      const AaTaps<T> tw(ow, p.w, q.w, align_corners, scale_w);
      for (int64_t n = 0; n < q.n; ++n) {
        for (int64_t c = 0; c < q.c; ++c) {
          const T* plane = x + n * p.sn + c * p.sc;
          T acc = T(0);
          for (int64_t a = 0; a < th.count(); ++a) {
            const T* row = plane + (th.first() + a) * p.sh;
            T rsum = T(0);  // the width pass's value at this input row
            for (int64_t b = 0; b < tw.count(); ++b) {
              const T v = row[(tw.first() + b) * p.sw] * tw.weight(b);
              rsum = b == 0 ? v : rsum + v;
            }
            const T v = rsum * th.weight(a);
            acc = a == 0 ? v : acc + v;
          }
          y[n * q.sn + c * q.sc + oh * q.sh + ow * q.sw] = acc;
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
  if (in->dim() != 4 || size.size() != 2 || in->dtype() != out->dtype() ||
      !IsBasicFloating(in->dtype())) {
    args.Fail(Error::kInvalidArgument,
              "needs a 4-D floating input, 2 output sizes and out of the "
              "input's dtype");
    return;
  }
  if (size[0] <= 0 || size[1] <= 0 || size[0] > INT32_MAX ||
      size[1] > INT32_MAX || in->size(2) <= 0 || in->size(3) <= 0) {
    args.Fail(Error::kInvalidArgument, "invalid sizes: input %dx%d, output "
              "%lldx%lld", in->size(2), in->size(3),
              static_cast<long long>(size[0]), static_cast<long long>(size[1]));
    return;
  }
  const int32_t sizes[4] = {in->size(0), in->size(1),
                            static_cast<int32_t>(size[0]),
                            static_cast<int32_t>(size[1])};
  if (in == out) {
    args.Fail(Error::kInvalidArgument, "out must not be the input");
    return;
  }
  if (!args.ResizeOut(*out, sizes, "out") || out->numel() == 0) return;
  SwitchFloating(in->dtype(), [&](auto tag) {
    ResampleAa<decltype(tag)>(*in, *out, align_corners,
                              has_h ? sh.AsDouble() : 0.0,
                              has_w ? sw.AsDouble() : 0.0);
  });
}

}  // namespace portable
}  // namespace edgefleet
