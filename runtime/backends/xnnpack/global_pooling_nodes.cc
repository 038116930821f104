#include "runtime/backends/xnnpack/global_pooling_nodes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "runtime/backends/xnnpack/int8_saturate.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace xnnpack {
namespace {

// Fewest channels a range takes (more on small planes: ItemGrain).
constexpr int64_t kChannelGrain = 64;

bool IsStaticInt8(const Value& v) {
  return v.type == DataType::kQint8 && v.quant == QuantKind::kPerTensor;
}

// sums[c] = x[c] + x[stride + c] + ... over `pixels` rows, for c < n, each
// in float from 0 in row order; up to 8 vectors of channels at a time, their
// sums in registers over all the rows.
template <int W>
struct SumRows {
  template <int kU>
  [[gnu::always_inline]] static inline void Columns(const float* x, int64_t pixels, int64_t stride,
                                                    int64_t c, float* sums) {
    using V = optimized::Vf<W>;
    V acc[kU] = {};
    for (int64_t p = 0; p < pixels; ++p) {
      const float* row = x + p * stride + c;
#pragma GCC unroll 8
      for (int u = 0; u < kU; ++u) acc[u] += optimized::Load<W>(row + u * W);
    }
#pragma GCC unroll 8
    for (int u = 0; u < kU; ++u) optimized::Store<W>(sums + c + u * W, acc[u]);
  }

  [[gnu::always_inline]] static inline void Run(const float* x, int64_t pixels, int64_t stride,
                                                int64_t n, float* sums) {
    int64_t c = 0;
    for (; c + 8 * W <= n; c += 8 * W) Columns<8>(x, pixels, stride, c, sums);
    for (; c + W <= n; c += W) Columns<1>(x, pixels, stride, c, sums);
    for (; c < n; ++c) {
      float acc = 0.0f;
      for (int64_t p = 0; p < pixels; ++p) acc += x[p * stride + c];
      sums[c] = acc;
    }
  }
};

void FloatGlobalAveragePooling(KernelContext& ctx, const Node& n, const std::vector<size_t>& d,
                               const float* x, float* y) {
  const int64_t batch = static_cast<int64_t>(d[0]), pixels = static_cast<int64_t>(d[1] * d[2]),
                channels = static_cast<int64_t>(d[3]);
  const float count = static_cast<float>(pixels);
  const int threads = pixels * channels < optimized::kMinParallelElements ? 1 : ctx.num_threads();
  for (int64_t b = 0; b < batch; ++b) {
    const float* xb = x + b * pixels * channels;
    float* yb = y + b * channels;
    optimized::ParallelForRanges(channels, optimized::ItemGrain(kChannelGrain, pixels), threads,
                                 [&](int64_t c0, int64_t c1) {
                                   optimized::RunVectorized<SumRows>(xb + c0, pixels, channels,
                                                                     c1 - c0, yb + c0);
                                   for (int64_t c = c0; c < c1; ++c) {
                                     float v = yb[c] / count;
                                     v = v < n.output_min ? n.output_min : v;
                                     yb[c] = v > n.output_max ? n.output_max : v;
                                   }
                                 });
  }
}

void QuantizedGlobalAveragePooling(const Graph& g, const Node& n, const std::vector<size_t>& d,
                                   const int8_t* x, int8_t* y) {
  const Value& in = g.values[n.inputs[0]];
  const Value& out = g.values[n.outputs[0]];
  const size_t pixels = d[1] * d[2], channels = d[3];
  const float scale = in.scale / (out.scale * static_cast<float>(pixels));
  const float lo = std::max(-128.0f, std::nearbyint(n.output_min / out.scale) + out.zero_point);
  const float hi = std::min(127.0f, std::nearbyint(n.output_max / out.scale) + out.zero_point);
  const int64_t zero_sum = int64_t{in.zero_point} * static_cast<int64_t>(pixels);
  for (size_t b = 0; b < d[0]; ++b) {
    const int8_t* xb = x + b * pixels * channels;
    for (size_t c = 0; c < channels; ++c) {
      int64_t acc = 0;  // 64 bits: h * w is bounded only by the value size limit
      for (size_t p = 0; p < pixels; ++p) acc += xb[p * channels + c];
      const float v =
          static_cast<float>(acc - zero_sum) * scale + static_cast<float>(out.zero_point);
      y[b * channels + c] = SaturateInt8(std::nearbyint(v), lo, hi);
    }
  }
}

}  // namespace

bool GlobalAveragePoolingSupports(const Graph& g, const Node& n) {
  const Value& in = g.values[n.inputs[0]];
  const Value& out = g.values[n.outputs[0]];
  return (in.type == DataType::kFp32 && out.type == DataType::kFp32) ||
         (IsStaticInt8(in) && IsStaticInt8(out));
}

void RunGlobalAveragePooling(KernelContext& ctx, const Graph& g, const Node& n,
                             const std::vector<std::vector<size_t>>& dims, const void* x, void* y) {
  const std::vector<size_t>& d = dims[n.inputs[0]];
  if (g.values[n.outputs[0]].type == DataType::kFp32) {
    FloatGlobalAveragePooling(ctx, n, d, static_cast<const float*>(x), static_cast<float*>(y));
    return;
  }
  QuantizedGlobalAveragePooling(g, n, d, static_cast<const int8_t*>(x), static_cast<int8_t*>(y));
}

}  // namespace xnnpack
}  // namespace edgefleet
