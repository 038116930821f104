// 2-D max pooling with indices (aten::max_pool2d_with_indices.out) over
// (N, C, H, W) or (C, H, W) inputs in any dim order. Indices are flat
// positions h * W + w within each input plane; NaN wins, as in PyTorch.
// float16 and bfloat16 values compare as float32 (exactly).

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

template <typename S>
void MaxPool(const Tensor& in, const int64_t* k, const int64_t* s, const int64_t* pad,
             const int64_t* d, const Tensor& out, const Tensor& indices) {
  const Planes pi = PlanesOf(in), po = PlanesOf(out), px = PlanesOf(indices);
  using T = OpMath<S>;
  const S* x = in.data_as<const S>();
  S* y = out.data_as<S>();
  int64_t* idx = indices.data_as<int64_t>();
  for (int64_t n = 0; n < pi.n; ++n) {
    for (int64_t c = 0; c < pi.c; ++c) {
      const S* plane = x + n * pi.sn + c * pi.sc;
      for (int64_t oh = 0; oh < po.h; ++oh) {
        int64_t h0 = oh * s[0] - pad[0];
        const int64_t h1 = std::min(h0 + (k[0] - 1) * d[0] + 1, pi.h);
        if (h0 < 0) h0 += (-h0 + d[0] - 1) / d[0] * d[0];
        for (int64_t ow = 0; ow < po.w; ++ow) {
          int64_t w0 = ow * s[1] - pad[1];
          const int64_t w1 = std::min(w0 + (k[1] - 1) * d[1] + 1, pi.w);
          if (w0 < 0) w0 += (-w0 + d[1] - 1) / d[1] * d[1];
          int64_t best_index = h0 * pi.w + w0;
          T best = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                        : std::numeric_limits<T>::lowest();
          for (int64_t ih = h0; ih < h1; ih += d[0]) {
            for (int64_t iw = w0; iw < w1; iw += d[1]) {
              const T v = Convert<T>(plane[ih * pi.sh + iw * pi.sw]);
              bool nan = false;
              if constexpr (std::is_floating_point_v<T>) nan = std::isnan(v);
              if (v > best || nan) {
                best = v;
                best_index = ih * pi.w + iw;
              }
            }
          }
          y[n * po.sn + c * po.sc + oh * po.sh + ow * po.sw] = Convert<S>(best);
          idx[n * px.sn + c * px.sc + oh * px.sh + ow * px.sw] = best_index;
        }
      }
    }
  }
}

}  // namespace

void MaxPool2dWithIndicesOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::max_pool2d_with_indices.out", raw, 9);
  Tensor* in = args.GetTensor(0);
  Span<const int64_t> kernel_list = args.GetIntList(1);
  Span<const int64_t> stride_list = args.GetIntList(2);
  Span<const int64_t> pad_list = args.GetIntList(3);
  Span<const int64_t> dilation_list = args.GetIntList(4);
  const bool ceil_mode = args.GetBool(5);
  Tensor* out = args.GetTensor(6);
  Tensor* indices = args.GetTensor(7);
  if (!args.ok()) return;
  int64_t k[2], s[2], pad[2], d[2];
  if (!MaxPoolWindow(args, kernel_list, stride_list, pad_list, dilation_list, k, s, pad, d)) {
    return;
  }
  if (out->dtype() != in->dtype() || indices->dtype() != ScalarType::kLong) {
    args.Fail(Error::kInvalidArgument,
              "out must match the input dtype and "
              "indices must be int64");
    return;
  }
  Tensor* const outs[2] = {out, indices};
  if (!PreparePoolOutputs(args, *in, k, s, pad, d, ceil_mode, outs, 2)) return;
  if (!SwitchRealElement(in->dtype(), [&](auto tag) {
        MaxPool<decltype(tag)>(*in, k, s, pad, d, *out, *indices);
      })) {
    args.Fail(Error::kNotSupported, "dtype %s is not supported", ScalarTypeName(in->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet
