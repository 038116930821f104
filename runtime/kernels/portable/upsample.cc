// 2-D resampling of N x C x H x W tensors (any dim order):
// upsample_nearest2d.vec_out (every basic dtype) and
// upsample_bilinear2d.vec_out (floating dtypes, align_corners either way).
// The output size comes from output_size, or from floor(in * scale) when
// scale_factors is given instead (exactly one of them). Source indices and
// weights follow ATen's CPU kernels (UpSample.h) in the element type, so
// results match torch to rounding.

#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/upsample_util.h"

namespace edgefleet {
namespace portable {
namespace {

// Reads output_size / scale_factors, checks the input and resizes out.
// scales[i] is the given scale factor or 0 (none). Returns args.ok().
bool PrepareUpsample(KernelArgs& args, const Tensor& in, bool has_size, Span<const int64_t> size,
                     bool has_scales, Span<const double> scale_factors, Tensor& out,
                     double* scales) {
  if (in.dim() != 4) {
    args.Fail(Error::kInvalidArgument, "input must be 4-D, got rank %d", in.dim());
    return false;
  }
  if (in.dtype() != out.dtype()) {
    args.Fail(Error::kInvalidArgument, "input %s and out %s dtypes differ",
              ScalarTypeName(in.dtype()), ScalarTypeName(out.dtype()));
    return false;
  }
  if (has_size == has_scales) {
    args.Fail(Error::kInvalidArgument,
              "exactly one of output_size and scale_factors must be given");
    return false;
  }
  if ((has_size ? size.size() : scale_factors.size()) != 2) {
    args.Fail(Error::kInvalidArgument, "output_size / scale_factors must have 2 entries");
    return false;
  }
  int64_t out_hw[2];
  for (int i = 0; i < 2; ++i) {
    scales[i] = has_size ? 0.0 : scale_factors[i];
    // As ATen: the scaled size truncated toward zero.
    const double scaled = static_cast<double>(in.size(2 + i)) * scales[i];
    out_hw[i] = has_size                                ? size[i]
                : (scaled > 0 && scaled < 2147483648.0) ? static_cast<int64_t>(scaled)
                                                        : -1;
  }
  if (out_hw[0] <= 0 || out_hw[1] <= 0 || out_hw[0] > INT32_MAX || out_hw[1] > INT32_MAX ||
      in.size(2) <= 0 || in.size(3) <= 0) {
    args.Fail(Error::kInvalidArgument,
              "invalid sizes: input %dx%d, output "
              "%lldx%lld",
              in.size(2), in.size(3), static_cast<long long>(out_hw[0]),
              static_cast<long long>(out_hw[1]));
    return false;
  }
  const int32_t sizes[4] = {in.size(0), in.size(1), static_cast<int32_t>(out_hw[0]),
                            static_cast<int32_t>(out_hw[1])};
  return args.ResizeOut(out, sizes, "out");
}

// ATen's nearest_idx.
int64_t NearestIndex(int64_t out_index, int64_t in_size, int64_t out_size, double scale) {
  if (out_size == in_size) return out_index;
  if (out_size == 2 * in_size) return out_index >> 1;
  const float s = SourceScale<float>(in_size, out_size, false, scale);
  const int64_t i = static_cast<int64_t>(std::floor(out_index * s));
  return i < in_size - 1 ? i : in_size - 1;
}

// Linear interpolation indices and weights along one axis.
template <typename T>
struct LinearTap {
  int64_t i0, i1;
  T w0, w1;
};

template <typename T>
LinearTap<T> LinearTapAt(int64_t out_index, int64_t in_size, int64_t out_size, bool align_corners,
                         double scale) {
  if (out_size == in_size && !align_corners) {
    return {out_index, out_index, T(1), T(0)};
  }
  const T ratio = SourceScale<T>(in_size, out_size, align_corners, scale);
  T src = align_corners ? ratio * out_index : ratio * (out_index + T(0.5)) - T(0.5);
  if (!align_corners && src < 0) src = 0;
  int64_t i0 = static_cast<int64_t>(std::floor(src));
  if (i0 > in_size - 1) i0 = in_size - 1;
  T w1 = src - static_cast<T>(i0);
  w1 = w1 < 0 ? T(0) : (w1 > 1 ? T(1) : w1);
  const int64_t i1 = i0 + (i0 < in_size - 1 ? 1 : 0);
  return {i0, i1, T(1) - w1, w1};
}

}  // namespace

void UpsampleNearest2dVecOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::upsample_nearest2d.vec_out", raw, 5);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> size;
  const bool has_size = args.GetOptionalIntList(1, &size);
  Span<const double> scale_factors;
  const bool has_scales = args.GetOptionalDoubleList(2, &scale_factors);
  Tensor* out = args.GetTensor(3);
  if (!args.ok()) return;
  double scales[2];
  if (!PrepareUpsample(args, *in, has_size, size, has_scales, scale_factors, *out, scales)) {
    return;
  }
  const bool ok = SwitchElement(in->dtype(), [&](auto tag) {
    using T = decltype(tag);  // elements are only moved
    const Planes p = PlanesOf(*in);
    const Planes q = PlanesOf(*out);
    const T* x = in->data_as<const T>();
    T* y = out->data_as<T>();
    for (int64_t n = 0; n < q.n; ++n) {
      for (int64_t c = 0; c < q.c; ++c) {
        const T* xp = x + n * p.sn + c * p.sc;
        T* yp = y + n * q.sn + c * q.sc;
        for (int64_t oh = 0; oh < q.h; ++oh) {
          const int64_t ih = NearestIndex(oh, p.h, q.h, scales[0]);
          for (int64_t ow = 0; ow < q.w; ++ow) {
            const int64_t iw = NearestIndex(ow, p.w, q.w, scales[1]);
            yp[oh * q.sh + ow * q.sw] = xp[ih * p.sh + iw * p.sw];
          }
        }
      }
    }
  });
  if (!ok) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in->dtype()));
  }
}

void UpsampleBilinear2dVecOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::upsample_bilinear2d.vec_out", raw, 6);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> size;
  const bool has_size = args.GetOptionalIntList(1, &size);
  const bool align_corners = args.GetBool(2);
  Span<const double> scale_factors;
  const bool has_scales = args.GetOptionalDoubleList(3, &scale_factors);
  Tensor* out = args.GetTensor(4);
  if (!args.ok()) return;
  double scales[2];
  if (!PrepareUpsample(args, *in, has_size, size, has_scales, scale_factors, *out, scales)) {
    return;
  }
  const bool ok = SwitchFloatingElement(in->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;  // float16 and bfloat16 interpolate in float32
    const Planes p = PlanesOf(*in);
    const Planes q = PlanesOf(*out);
    const S* x = in->data_as<const S>();
    S* y = out->data_as<S>();
    for (int64_t n = 0; n < q.n; ++n) {
      for (int64_t c = 0; c < q.c; ++c) {
        const S* xp = x + n * p.sn + c * p.sc;
        S* yp = y + n * q.sn + c * q.sc;
        for (int64_t oh = 0; oh < q.h; ++oh) {
          const LinearTap<T> th = LinearTapAt<T>(oh, p.h, q.h, align_corners, scales[0]);
          const S* r0 = xp + th.i0 * p.sh;
          const S* r1 = xp + th.i1 * p.sh;
          for (int64_t ow = 0; ow < q.w; ++ow) {
            const LinearTap<T> tw = LinearTapAt<T>(ow, p.w, q.w, align_corners, scales[1]);
            const int64_t a = tw.i0 * p.sw;
            const int64_t b = tw.i1 * p.sw;
            const auto at = [](const S* r, int64_t i) { return Convert<T>(r[i]); };
            // As ATen: rows first, then the height weights.
            yp[oh * q.sh + ow * q.sw] = Convert<S>(th.w0 * (tw.w0 * at(r0, a) + tw.w1 * at(r0, b)) +
                                                   th.w1 * (tw.w0 * at(r1, a) + tw.w1 * at(r1, b)));
          }
        }
      }
    }
  });
  if (!ok) {
    args.Fail(Error::kNotSupported,
              "dtype %s is not supported (floating "
              "only)",
              ScalarTypeName(in->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet
