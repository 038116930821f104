#include "runtime/kernels/optimized/max_pool_nhwc.h"

#include <algorithm>
#include <cmath>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

// Output pixels of a row computed (all channels) before the per-channel
// writes: 8 int64 indices are one cache line.
constexpr int64_t kBlock = 8;
constexpr int64_t kMinParallelOutputs = 16 * 1024;

struct Operands {
  const ConvGeometry* g;
  const float* x;  // [N, H, W, C]
  float* y;
  int64_t y_stride[4];  // out's strides, in elements, for (n, c, h, w)
  bool y_nhwc;          // y_stride is channels-last: store values in place
  int64_t* idx;
  int64_t idx_stride[4];
};

// One output pixel's window over taps [h0, h1) x [w0, w1) (valid ones,
// stepping by the dilation) for channels [c, c + W) of `x_n` (one image);
// positions as floats (exact: H * W <= 2^24). NaN is left out of the
// comparison (GCC splits a second comparison's select into lanes): *special
// collects v - v, NaN after a NaN or infinite input, and such rows are
// done again by WindowScalar.
// Without kIndices, no positions.
template <int W, bool kIndices>
[[gnu::always_inline]] inline void Window(const ConvGeometry& g, const float* x_n, int64_t h0,
                                          int64_t h1, int64_t w0, int64_t w1, int64_t c,
                                          float* values, float* positions, Vf<W>* special) {
  using V = Vf<W>;
  V best = Splat<W>(-__builtin_inff());
  V pos = Splat<W>(static_cast<float>(h0 * g.in_w + w0));
  V seen = *special;
  for (int64_t ih = h0; ih < h1; ih += g.dilation[0]) {
    const float* row = x_n + ih * g.in_w * g.in_c + c;
    for (int64_t iw = w0; iw < w1; iw += g.dilation[1]) {
      const V v = Load<W>(row + iw * g.in_c);
      const Vm<W> greater = v > best;
      best = Select<W>(greater, v, best);
      if constexpr (kIndices) {
        pos = Select<W>(greater, Splat<W>(static_cast<float>(ih * g.in_w + iw)), pos);
      }
      seen += v - v;
    }
  }
  *special = seen;
  Store<W>(values + c, best);
  if constexpr (kIndices) Store<W>(positions + c, pos);
}

// Window over every vector of channels of an output pixel (the tail as
// one vector overlapping the one before); returns the first channel left
// to the scalar way (c_all when none, fewer channels than a vector: 0).
template <int W, bool kIndices>
[[gnu::always_inline]] inline int64_t WindowVectors(const ConvGeometry& g, const float* x_n,
                                                    int64_t h0, int64_t h1, int64_t w0, int64_t w1,
                                                    float* values, float* positions,
                                                    Vf<W>* special) {
  const int64_t c_all = g.in_c;
  int64_t c = 0;
  for (; c + W <= c_all; c += W) {
    Window<W, kIndices>(g, x_n, h0, h1, w0, w1, c, values, positions, special);
  }
  if (c < c_all && c_all >= W) {
    Window<W, kIndices>(g, x_n, h0, h1, w0, w1, c_all - W, values, positions, special);
    c = c_all;
  }
  return c;
}

// The portable kernel's comparison for one channel.
void WindowScalar(const ConvGeometry& g, const float* x_n, int64_t h0, int64_t h1, int64_t w0,
                  int64_t w1, int64_t c, float* values, float* positions) {
  float best = -__builtin_inff();
  float pos = static_cast<float>(h0 * g.in_w + w0);
  for (int64_t ih = h0; ih < h1; ih += g.dilation[0]) {
    for (int64_t iw = w0; iw < w1; iw += g.dilation[1]) {
      const float v = x_n[(ih * g.in_w + iw) * g.in_c + c];
      if (v > best || std::isnan(v)) {
        best = v;
        pos = static_cast<float>(ih * g.in_w + iw);
      }
    }
  }
  values[c] = best;
  positions[c] = pos;
}

// The positions of 8 channels of a block's 8 pixels (pixel p's at
// positions[p * stride]) as int64 indices, each channel's 8 at
// idx[c * idx_c]: an 8 x 8 transpose in registers, then whole cache lines.
[[gnu::always_inline]] inline void TransposedIndices(const float* positions, int64_t stride,
                                                     int64_t* idx, int64_t idx_c) {
  static_assert(kBlock == 8, "the transpose is 8 x 8");
  using V = Vf<8>;
  V r[8];
  for (int p = 0; p < 8; ++p) r[p] = Load<8>(positions + p * stride);
  // Pairs of rows interleaved, then pairs of pairs, then the halves: the
  // columns (one channel's 8 pixels each).
  V t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int i = 0; i < 8; i += 4) {
    for (int j = 0; j < 2; ++j) {
      u[i + 2 * j] = __builtin_shufflevector(t[i + j], t[i + j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[i + 2 * j + 1] =
          __builtin_shufflevector(t[i + j], t[i + j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
  }
  for (int c = 0; c < 4; ++c) {
    const V lo = __builtin_shufflevector(u[c], u[c + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    const V hi = __builtin_shufflevector(u[c], u[c + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    const Vl<8> lo_index = __builtin_convertvector(__builtin_convertvector(lo, Vm<8>), Vl<8>);
    const Vl<8> hi_index = __builtin_convertvector(__builtin_convertvector(hi, Vm<8>), Vl<8>);
    __builtin_memcpy(idx + c * idx_c, &lo_index, sizeof(lo_index));
    __builtin_memcpy(idx + (c + 4) * idx_c, &hi_index, sizeof(hi_index));
  }
}

// Output rows [begin, end) (row = n * out_h + oh). `values` and `positions`
// hold kBlock x C floats each.
template <int W>
struct Rows {
  [[gnu::always_inline]] static inline void Run(const Operands* o, int64_t begin, int64_t end,
                                                float* values, float* positions) {
    for (int64_t row = begin; row < end; ++row) {
      Vf<W> special = {};
      Row(*o, row, values, positions, &special);
      bool again = false;
      for (int l = 0; l < W; ++l) again |= special[l] != special[l];
      if (again) Row(*o, row, values, positions, nullptr);
    }
  }

  // One row, vectorized (collecting `special`) or, when it is null, the
  // scalar way.
  [[gnu::always_inline]] static inline void Row(const Operands& o, int64_t row, float* values,
                                                float* positions, Vf<W>* special) {
    const ConvGeometry& g = *o.g;
    const int64_t c_all = g.in_c;
    const int64_t n = row / g.out_h, oh = row % g.out_h;
    const float* x_n = o.x + n * g.in_h * g.in_w * c_all;
    const int64_t top = oh * g.stride[0] - g.pad[0];
    const int64_t h1 = std::min(top + (g.k_h - 1) * g.dilation[0] + 1, g.in_h);
    const int64_t h0 = FirstValid(top, g.dilation[0]);
    for (int64_t ow0 = 0; ow0 < g.out_w; ow0 += kBlock) {
      const int64_t pixels = std::min(kBlock, g.out_w - ow0);
      for (int64_t p = 0; p < pixels; ++p) {
        const int64_t left = (ow0 + p) * g.stride[1] - g.pad[1];
        const int64_t w1 = std::min(left + (g.k_w - 1) * g.dilation[1] + 1, g.in_w);
        const int64_t w0 = FirstValid(left, g.dilation[1]);
        float* v = o.y_nhwc ? o.y + (row * g.out_w + ow0 + p) * c_all : values + p * c_all;
        float* pos = positions + p * c_all;
        int64_t c = 0;
        if (special != nullptr) {
          c = o.idx != nullptr ? WindowVectors<W, true>(g, x_n, h0, h1, w0, w1, v, pos, special)
                               : WindowVectors<W, false>(g, x_n, h0, h1, w0, w1, v, pos, special);
        }
        for (; c < c_all; ++c) WindowScalar(g, x_n, h0, h1, w0, w1, c, v, pos);
      }
      // Strides in locals: the int64 index stores could alias o's fields.
      const int64_t idx_c = o.idx_stride[1], idx_w = o.idx_stride[3];
      const int64_t y_c = o.y_stride[1], y_w = o.y_stride[3];
      float* y = o.y + n * o.y_stride[0] + oh * o.y_stride[2] + ow0 * y_w;
      if (o.idx != nullptr) {
        int64_t* idx = o.idx + n * o.idx_stride[0] + oh * o.idx_stride[2] + ow0 * idx_w;
        int64_t c0 = 0;
        if (pixels == kBlock && idx_w == 1) {  // a whole block, each channel's 8 contiguous
          for (; c0 + 8 <= c_all; c0 += 8) {
            TransposedIndices(positions + c0, c_all, idx + c0 * idx_c, idx_c);
          }
        }
        for (int64_t c = c0; c < c_all; ++c) {
          for (int64_t p = 0; p < pixels; ++p) {
            idx[c * idx_c + p * idx_w] = static_cast<int64_t>(positions[p * c_all + c]);
          }
        }
      }
      for (int64_t c = 0; c < c_all && !o.y_nhwc; ++c) {
        for (int64_t p = 0; p < pixels; ++p) y[c * y_c + p * y_w] = values[p * c_all + c];
      }
    }
  }
};

}  // namespace

bool MaxPoolNhwc(KernelContext& ctx, const ConvGeometry& g, const Tensor& in, Tensor& out,
                 Tensor* indices) {
  Operands o{};
  o.g = &g;
  o.x = in.data_as<const float>();
  o.y = out.data_as<float>();
  o.idx = indices != nullptr ? indices->data_as<int64_t>() : nullptr;
  for (int d = 0; d < 4; ++d) {
    o.y_stride[d] = out.stride(d);
    o.idx_stride[d] = indices != nullptr ? indices->stride(d) : 0;
  }
  o.y_nhwc = IsChannelsLast(out);
  const int64_t rows = g.batch * g.out_h;
  if (rows == 0 || g.out_w == 0 || g.in_c == 0) return true;
  const int threads = !ParallelismAvailable() || out.numel() < kMinParallelOutputs
                          ? 1
                          : static_cast<int>(std::min<int64_t>(
                                std::clamp(ctx.num_threads(), 1, ThreadPool::kMaxThreads), rows));
  const int64_t task_floats = 2 * kBlock * g.in_c;
  auto* scratch = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * task_floats * threads, 64));
  if (scratch == nullptr) return false;
  const int64_t chunk = (rows + threads - 1) / threads;
  ParallelFor((rows + chunk - 1) / chunk, threads, [&](int64_t task) {
    float* values = scratch + task * task_floats;
    RunVectorized<Rows>(static_cast<const Operands*>(&o), task * chunk,
                        std::min(rows, (task + 1) * chunk), values, values + kBlock * g.in_c);
  });
  return true;
}

}  // namespace optimized
}  // namespace edgefleet
