// aten::upsample_bilinear2d.vec_out for float32 NCHW tensors in the default
// dim order, separably: each input row a plane needs is interpolated along
// W once (into scratch), then every output row is the vectorized blend of
// two of those rows. Source indices and weights are computed as the
// portable kernel computes them (ATen's UpSample.h, in float), and the
// blend th.w0 * (row a) + th.w1 * (row b) is the portable expression with
// its horizontal sums precomputed, so results are bit-identical.

#include <algorithm>
#include <cmath>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr int64_t kMinParallelOutputs = 64 * 1024;

struct Tap {
  int64_t i0, i1;
  float w0, w1;
};

// As the portable kernel (ATen's area_pixel_compute_scale).
float SourceScale(int64_t in_size, int64_t out_size, bool align_corners, double scale) {
  if (align_corners) {
    return out_size > 1 ? static_cast<float>(in_size - 1) / (out_size - 1) : 0.0f;
  }
  return scale > 0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in_size) / out_size;
}

// As the portable kernel's LinearTapAt.
Tap TapAt(int64_t out_index, int64_t in_size, int64_t out_size, bool align_corners, double scale) {
  if (out_size == in_size && !align_corners) {
    return {out_index, out_index, 1.0f, 0.0f};
  }
  const float ratio = SourceScale(in_size, out_size, align_corners, scale);
  float src = align_corners ? ratio * out_index : ratio * (out_index + 0.5f) - 0.5f;
  if (!align_corners && src < 0) src = 0;
  int64_t i0 = static_cast<int64_t>(std::floor(src));
  if (i0 > in_size - 1) i0 = in_size - 1;
  float w1 = src - static_cast<float>(i0);
  w1 = w1 < 0 ? 0.0f : (w1 > 1 ? 1.0f : w1);
  const int64_t i1 = i0 + (i0 < in_size - 1 ? 1 : 0);
  return {i0, i1, 1.0f - w1, w1};
}

// y[j] = w0 * a[j] + w1 * b[j] for j < n.
template <int W>
struct Blend {
  [[gnu::always_inline]] static inline void Run(const float* a, const float* b, float w0, float w1,
                                                float* y, int64_t n) {
    using V = Vf<W>;
    const V v0 = Splat<W>(w0), v1 = Splat<W>(w1);
    int64_t j = 0;
    for (; j + W <= n; j += W) {
      Store<W>(y + j, v0 * Load<W>(a + j) + v1 * Load<W>(b + j));
    }
    for (; j < n; ++j) y[j] = w0 * a[j] + w1 * b[j];
  }
};

bool TryUpsample(KernelContext& ctx, Span<EValue*> args) {
  if (!UpsampleBilinear2dSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  Tensor& out = *PeekTensor(args, 4);
  Span<const int64_t> size;
  Span<const double> scale_factors;
  bool align_corners = false;
  const bool has_size = PeekIntList(args, 1, &size);
  const bool has_scales = args[3]->tag() == Tag::kListDouble;
  if (has_scales) scale_factors = args[3]->to_double_list();
  if (!PeekBool(args, 2, &align_corners) || has_size == has_scales ||
      (!has_size && !PeekNone(args, 1)) || (!has_scales && !PeekNone(args, 3)) ||
      (has_size ? size.size() : scale_factors.size()) != 2 || in.size(2) <= 0 || in.size(3) <= 0) {
    return false;
  }
  int64_t out_hw[2];
  double scales[2];
  for (int i = 0; i < 2; ++i) {
    scales[i] = has_size ? 0.0 : scale_factors[i];
    const double scaled = static_cast<double>(in.size(2 + i)) * scales[i];
    out_hw[i] = has_size                                ? size[i]
                : (scaled > 0 && scaled < 2147483648.0) ? static_cast<int64_t>(scaled)
                                                        : -1;
    if (out_hw[i] <= 0 || out_hw[i] > INT32_MAX) return false;
  }
  const int32_t sizes[4] = {in.size(0), in.size(1), static_cast<int32_t>(out_hw[0]),
                            static_cast<int32_t>(out_hw[1])};
  const Tensor* inputs[1] = {&in};
  if (Overlaps(in, out) || !FitOut(out, sizes, inputs)) return false;
  if (out.numel() == 0) return true;
  const int64_t in_h = in.size(2), in_w = in.size(3);
  const int64_t out_h = out_hw[0], out_w = out_hw[1];
  const int64_t planes = static_cast<int64_t>(in.size(0)) * in.size(1);
  const int threads = planes * out_h * out_w < kMinParallelOutputs || planes < 2
                          ? 1
                          : static_cast<int>(std::min<int64_t>(
                                std::clamp(ctx.num_threads(), 1, ThreadPool::kMaxThreads), planes));
  // Taps per output row and column; per thread, the W-interpolated rows.
  auto* row_taps = static_cast<Tap*>(ctx.AllocateTemp(sizeof(Tap) * (out_h + out_w), 16));
  auto* rows = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * threads * in_h * out_w, 64));
  if (row_taps == nullptr || rows == nullptr) return false;
  Tap* col_taps = row_taps + out_h;
  for (int64_t oh = 0; oh < out_h; ++oh) {
    row_taps[oh] = TapAt(oh, in_h, out_h, align_corners, scales[0]);
  }
  for (int64_t ow = 0; ow < out_w; ++ow) {
    col_taps[ow] = TapAt(ow, in_w, out_w, align_corners, scales[1]);
  }
  const float* x = in.data_as<const float>();
  float* y = out.data_as<float>();
  const int64_t chunk = (planes + threads - 1) / threads;
  ParallelFor((planes + chunk - 1) / chunk, threads, [&](int64_t task) {
    float* wide = rows + task * in_h * out_w;
    const int64_t end = std::min(planes, (task + 1) * chunk);
    for (int64_t p = task * chunk; p < end; ++p) {
      const float* xp = x + p * in_h * in_w;
      for (int64_t ih = 0; ih < in_h; ++ih) {
        const float* r = xp + ih * in_w;
        float* d = wide + ih * out_w;
        for (int64_t ow = 0; ow < out_w; ++ow) {
          const Tap& t = col_taps[ow];
          d[ow] = t.w0 * r[t.i0] + t.w1 * r[t.i1];
        }
      }
      float* yp = y + p * out_h * out_w;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        const Tap& t = row_taps[oh];
        RunVectorized<Blend>(static_cast<const float*>(wide + t.i0 * out_w),
                             static_cast<const float*>(wide + t.i1 * out_w), t.w0, t.w1,
                             yp + oh * out_w, out_w);
      }
    }
  });
  return true;
}

}  // namespace

bool UpsampleBilinear2dSupports(Span<EValue* const> args) {
  if (args.size() != 6) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, 4);
  return in != nullptr && out != nullptr && in->dim() == 4 && out->dim() == 4 &&
         in->IsDefaultDimOrder() && out->IsDefaultDimOrder();
}

void UpsampleBilinear2dVecOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryUpsample(ctx, args)) portable::UpsampleBilinear2dVecOut(ctx, args);
}

}  // namespace optimized
}  // namespace edgefleet
