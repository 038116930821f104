// 2-D average pooling: avg_pool2d (ceil_mode, count_include_pad,
// divisor_override) and _adaptive_avg_pool2d, over (N, C, H, W) or
// (C, H, W) floating inputs in any dim order. Sums accumulate in double
// (float16 and bfloat16 results are rounded once).

#include <algorithm>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Averages over the window [h0, h1) x [w0, w1) of every plane; `window`
// gives the bounds and divisor for output position (oh, ow).
template <typename S, typename Window>
void AveragePool(const Tensor& in, const Tensor& out, Window window) {
  const Planes pi = PlanesOf(in), po = PlanesOf(out);
  const S* x = in.data_as<const S>();
  S* y = out.data_as<S>();
  for (int64_t n = 0; n < pi.n; ++n) {
    for (int64_t c = 0; c < pi.c; ++c) {
      const S* plane = x + n * pi.sn + c * pi.sc;
      for (int64_t oh = 0; oh < po.h; ++oh) {
        for (int64_t ow = 0; ow < po.w; ++ow) {
          int64_t h0, h1, w0, w1, divisor;
          window(oh, ow, &h0, &h1, &w0, &w1, &divisor);
          double sum = 0;
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) {
              sum += Convert<double>(plane[ih * pi.sh + iw * pi.sw]);
            }
          }
          y[n * po.sn + c * po.sc + oh * po.sh + ow * po.sw] =
              Convert<S>(h0 < h1 && w0 < w1 ? sum / static_cast<double>(divisor) : 0.0);
        }
      }
    }
  }
}

}  // namespace

void AvgPool2dOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::avg_pool2d.out", raw, 9);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> kernel_list = args.GetIntList(1);
  Span<const int64_t> stride_list = args.GetIntList(2);
  Span<const int64_t> pad_list = args.GetIntList(3);
  const bool ceil_mode = args.GetBool(4);
  const bool count_include_pad = args.GetBool(5);
  int64_t divisor_override = 0;
  const bool has_divisor = args.GetOptionalInt(6, &divisor_override);
  Tensor* out = args.GetTensor(7);
  if (!args.ok()) return;
  int64_t k[2], s[2], pad[2];
  const int64_t d[2] = {1, 1};
  if (!AvgPoolWindow(args, kernel_list, stride_list, pad_list, k, s, pad, 2) ||
      !CheckFloatingPool(args, *in, *out) ||
      !CheckDivisorOverride(args, has_divisor, divisor_override)) {
    return;
  }
  Tensor* const outs[1] = {out};
  if (!PreparePoolOutputs(args, *in, k, s, pad, d, ceil_mode, outs, 1)) return;
  const Planes p = PlanesOf(*in);
  const auto window = [&](int64_t oh, int64_t ow, int64_t* h0, int64_t* h1, int64_t* w0,
                          int64_t* w1, int64_t* divisor) {
    *h0 = oh * s[0] - pad[0];
    *w0 = ow * s[1] - pad[1];
    *h1 = std::min(*h0 + k[0], p.h + pad[0]);
    *w1 = std::min(*w0 + k[1], p.w + pad[1]);
    const int64_t padded_area = (*h1 - *h0) * (*w1 - *w0);
    *h0 = std::max<int64_t>(*h0, 0);
    *w0 = std::max<int64_t>(*w0, 0);
    *h1 = std::min(*h1, p.h);
    *w1 = std::min(*w1, p.w);
    if (has_divisor) {
      *divisor = divisor_override;
    } else if (count_include_pad) {
      *divisor = padded_area;
    } else {
      *divisor = (*h1 - *h0) * (*w1 - *w0);
    }
  };
  SwitchFloatingElement(in->dtype(),
                        [&](auto tag) { AveragePool<decltype(tag)>(*in, *out, window); });
}

void AdaptiveAvgPool2dOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::_adaptive_avg_pool2d.out", raw, 4);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> size_list = args.GetIntList(1);
  Tensor* out = args.GetTensor(2);
  if (!args.ok()) return;
  int64_t size[2];
  if (!Pair(args, size_list, nullptr, "output_size", size) || !CheckFloatingPool(args, *in, *out)) {
    return;
  }
  if (in->dim() != 3 && in->dim() != 4) {
    args.Fail(Error::kInvalidArgument, "input must have rank 3 or 4, got %d", in->dim());
    return;
  }
  const Planes p = PlanesOf(*in);
  if (size[0] < 0 || size[1] < 0 || size[0] > INT32_MAX || size[1] > INT32_MAX ||
      ((p.h == 0 || p.w == 0) && p.n * p.c > 0)) {
    args.Fail(Error::kInvalidArgument, "invalid output_size or empty plane");
    return;
  }
  int32_t sizes[4] = {in->size(0), in->size(1), 0, 0};
  sizes[in->dim() - 2] = static_cast<int32_t>(size[0]);
  sizes[in->dim() - 1] = static_cast<int32_t>(size[1]);
  if (!args.ResizeOut(*out, {sizes, static_cast<size_t>(in->dim())}, "out")) {
    return;
  }
  // Window [floor(o * in / out), ceil((o + 1) * in / out)).
  const auto window = [&](int64_t oh, int64_t ow, int64_t* h0, int64_t* h1, int64_t* w0,
                          int64_t* w1, int64_t* divisor) {
    *h0 = oh * p.h / size[0];
    *h1 = ((oh + 1) * p.h + size[0] - 1) / size[0];
    *w0 = ow * p.w / size[1];
    *w1 = ((ow + 1) * p.w + size[1] - 1) / size[1];
    *divisor = (*h1 - *h0) * (*w1 - *w0);
  };
  SwitchFloatingElement(in->dtype(),
                        [&](auto tag) { AveragePool<decltype(tag)>(*in, *out, window); });
}

}  // namespace portable
}  // namespace edgefleet
