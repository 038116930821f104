#include "runtime/kernels/optimized/depthwise.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/epilogue.h"
#include "runtime/kernels/optimized/phased_plane.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/transpose.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr int64_t kMinParallelOutputs = 16 * 1024;
// Channels-last tasks: rows per thread below which rows are split by
// channels too, in blocks of at least this many channels.
constexpr int64_t kMinRowsPerThread = 8;
constexpr int64_t kMinBlockChannels = 64;

int64_t CeilDiv(int64_t x, int64_t y) { return (x + y - 1) / y; }

// One output plane: y[oh][ow] = (sum over taps of wk[tap] * P at
// tap_offset[tap] + oh * row_step + ow) + b, summed from 0 in tap order and
// the bias last, as the portable kernel sums. Each output's sum is a chain
// of dependent adds, so the plane runs in blocks of kR rows x kV vectors
// (about 8 independent sums: the adders' latency hidden) that share each
// tap's weight and offset: 8 rows of one vector for rows of at most W
// outputs, 4 rows of 2 vectors for up to 3W, else 2 rows of 4 vectors.
template <int W>
struct PlaneBody {
  using V = Vf<W>;

  // Rows [oh, oh + kR), vectors [ow, ow + kV * W) of each. The last vector
  // of a row may run past its end (into data that exists: the plane is
  // followed by padding); `tail` is the valid lanes of the block's last
  // vector (W if full), stored exactly when `exact`, else as a whole
  // vector (its lanes past the row land in later rows of this plane, which
  // this task writes afterwards).
  template <int kR, int kV>
  [[gnu::always_inline]] static inline void Block(const ConvGeometry* g, const float* plane,
                                                  int64_t row_step, const int64_t* tap_offset,
                                                  const float* wk, V bv, float* y, int64_t oh,
                                                  int64_t ow, int tail, bool exact, V lo, V hi,
                                                  PostOp post) {
    const int64_t taps = g->taps(), ow_n = g->out_w;
    const float* base[kR];
#pragma GCC unroll 8
    for (int r = 0; r < kR; ++r) base[r] = plane + (oh + r) * row_step + ow;
    V acc[kR][kV];
#pragma GCC unroll 8
    for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v) acc[r][v] = V{};
    }
    for (int64_t t = 0; t < taps; ++t) {
      const V w = Splat<W>(wk[t]);
      const int64_t off = tap_offset[t];
#pragma GCC unroll 8
      for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
        for (int v = 0; v < kV; ++v) acc[r][v] += w * Load<W>(base[r] + off + v * W);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kR; ++r) {
      float* yr = y + (oh + r) * ow_n + ow;
#pragma GCC unroll 4
      for (int v = 0; v < kV; ++v) {
        const V out = EpilogueV<W>(acc[r][v] + bv, lo, hi, post);
        if (v < kV - 1 || tail == W || !exact) {
          Store<W>(yr + v * W, out);
          continue;
        }
        float lanes[W];
        Store<W>(lanes, out);
#pragma GCC unroll 16
        for (int l = 0; l < W; ++l) {
          if (l < tail) yr[v * W + l] = lanes[l];
        }
      }
    }
  }

  // Rows [oh, oh + kR), every column, kV vectors at a time; the last block
  // ends at the row's end, overlapping the one before it (its outputs are
  // computed again, to the same values) rather than running fewer sums.
  // REQUIRES: kV <= the vectors per row.
  template <int kR, int kV>
  [[gnu::always_inline]] static inline void Rows(const ConvGeometry* g, const float* plane,
                                                 int64_t row_step, const int64_t* tap_offset,
                                                 const float* wk, V bv, float* y, int64_t oh, V lo,
                                                 V hi, PostOp post) {
    const int64_t ow_n = g->out_w;
    const int64_t vectors = (ow_n + W - 1) / W;
    const int tail = static_cast<int>(ow_n - (vectors - 1) * W);
    // A row in one block may store whole vectors (rows are stored in
    // order, so each row's overrun is overwritten by the rows after it),
    // except past the plane's end; rows in several blocks store their tail
    // exactly.
    const bool exact = vectors > kV || (oh + kR - 1) * ow_n + vectors * W > g->out_h * ow_n;
    for (int64_t v = 0;; v += kV) {
      const int64_t first = std::min(v, vectors - kV);
      Block<kR, kV>(g, plane, row_step, tap_offset, wk, bv, y, oh, first * W,
                    first + kV == vectors ? tail : W, exact, lo, hi, post);
      if (first + kV == vectors) break;
    }
  }

  // Every row, kR at a time, the last block overlapping the one before it;
  // planes of fewer than kR rows take smaller blocks.
  template <int kR, int kV>
  [[gnu::always_inline]] static inline void Plane(const ConvGeometry* g, const float* plane,
                                                  int64_t row_step, const int64_t* tap_offset,
                                                  const float* wk, V bv, float* y, V lo, V hi,
                                                  PostOp post) {
    const int64_t oh_n = g->out_h;
    if constexpr (kR > 1) {
      if (oh_n < kR) {
        Plane<kR / 2, kV>(g, plane, row_step, tap_offset, wk, bv, y, lo, hi, post);
        return;
      }
    }
    for (int64_t oh = 0;; oh += kR) {
      const int64_t first = std::min(oh, oh_n - kR);
      Rows<kR, kV>(g, plane, row_step, tap_offset, wk, bv, y, first, lo, hi, post);
      if (first + kR == oh_n) break;
    }
  }

  [[gnu::always_inline]] static inline void Run(const ConvGeometry* g, const float* plane,
                                                int64_t row_step, const int64_t* tap_offset,
                                                const float* wk, float b, float* y, float lo_s,
                                                float hi_s, PostOp post) {
    const V lo = Splat<W>(lo_s), hi = Splat<W>(hi_s), bv = Splat<W>(b);
    const int64_t vectors = (g->out_w + W - 1) / W;
    if (vectors == 1) {
      // Planes of 5 to 7 rows (7 x 7: the last stage of 224-pixel
      // networks) in one block of all their rows: no overlap, and more
      // sums than the 4-row blocks Plane<8, 1> would fall back to.
      switch (g->out_h) {
        case 5:
          Plane<5, 1>(g, plane, row_step, tap_offset, wk, bv, y, lo, hi, post);
          return;
        case 6:
          Plane<6, 1>(g, plane, row_step, tap_offset, wk, bv, y, lo, hi, post);
          return;
        case 7:
          Plane<7, 1>(g, plane, row_step, tap_offset, wk, bv, y, lo, hi, post);
          return;
        default:
          Plane<8, 1>(g, plane, row_step, tap_offset, wk, bv, y, lo, hi, post);
          return;
      }
    } else if (vectors <= 3) {
      Plane<4, 2>(g, plane, row_step, tap_offset, wk, bv, y, lo, hi, post);
    } else {
      Plane<2, 4>(g, plane, row_step, tap_offset, wk, bv, y, lo, hi, post);
    }
  }
};

// One output row of channels-last: every pixel, channels vectorized, taps
// skipped where they fall in the padding. Pixels whose every column tap is
// inside the row run four at a time (each weight vector loaded once for
// four pixels); the order of the sums per output is the same either way.
template <int W>
struct RowBodyNhwc {
  // The bias added to each of a block's sums, then the epilogue, stored.
  template <int kPixels, int VW>
  [[gnu::always_inline]] static inline void Finish(Vf<VW>* acc, const float* bias, int64_t ow,
                                                   int64_t c, int64_t c_n, float* y, Vf<VW> lo,
                                                   Vf<VW> hi, PostOp post) {
    if (bias != nullptr) {
      const Vf<VW> bv = Load<VW>(bias + c);
#pragma GCC unroll 8
      for (int p = 0; p < kPixels; ++p) acc[p] += bv;
    }
#pragma GCC unroll 8
    for (int p = 0; p < kPixels; ++p) {
      Store<VW>(y + (ow + p) * c_n + c, EpilogueV<VW>(acc[p], lo, hi, post));
    }
  }

  // Outputs [ow, ow + kPixels) of the row, the VW channels from c.
  template <int kPixels, bool kChecked, int VW>
  [[gnu::always_inline]] static inline void Block(const ConvGeometry* g, const float* x,
                                                  const float* wt, const float* bias, int64_t ih0,
                                                  int64_t ow, int64_t c, float* y, float lo_s,
                                                  float hi_s, PostOp post) {
    using V = Vf<VW>;
    const V lo = Splat<VW>(lo_s), hi = Splat<VW>(hi_s);
    const int64_t c_n = g->in_c;
    V acc[kPixels];
#pragma GCC unroll 4
    for (int p = 0; p < kPixels; ++p) acc[p] = V{};
    for (int64_t kh = 0; kh < g->k_h; ++kh) {
      const int64_t ih = ih0 + kh * g->dilation[0];
      if (ih < 0 || ih >= g->in_h) continue;
      const float* xrow = x + ih * g->in_w * c_n + c;
      for (int64_t kw = 0; kw < g->k_w; ++kw) {
        const V wv = Load<VW>(wt + (kh * g->k_w + kw) * c_n + c);
#pragma GCC unroll 4
        for (int p = 0; p < kPixels; ++p) {
          const int64_t iw = (ow + p) * g->stride[1] - g->pad[1] + kw * g->dilation[1];
          if (kChecked && (iw < 0 || iw >= g->in_w)) continue;
          acc[p] += wv * Load<VW>(xrow + iw * c_n);
        }
      }
    }
    Finish<kPixels, VW>(acc, bias, ow, c, c_n, y, lo, hi, post);
  }

  // Block for a K x K window at column stride S and no dilation: each input
  // column of a window row is loaded once for all kPixels outputs that read
  // it ((kPixels - 1) * S + K loads a row, not K * kPixels), and the taps
  // unroll. kChecked: columns outside the row are neither loaded nor
  // summed. Each output's sum has Block's order.
  template <int kPixels, bool kChecked, int K, int S, int VW>
  [[gnu::always_inline]] static inline void FixedBlock(const ConvGeometry* g, const float* x,
                                                       const float* wt, const float* bias,
                                                       int64_t ih0, int64_t ow, int64_t c, float* y,
                                                       float lo_s, float hi_s, PostOp post) {
    using V = Vf<VW>;
    constexpr int kCols = (kPixels - 1) * S + K;
    const V lo = Splat<VW>(lo_s), hi = Splat<VW>(hi_s);
    const int64_t c_n = g->in_c;
    const int64_t iw0 = ow * S - g->pad[1];
    const float* xcol = x + iw0 * c_n + c;
    bool inside[kCols];
#pragma GCC unroll 16
    for (int j = 0; j < kCols; ++j) inside[j] = !kChecked || (iw0 + j >= 0 && iw0 + j < g->in_w);
    V acc[kPixels];
#pragma GCC unroll 8
    for (int p = 0; p < kPixels; ++p) acc[p] = V{};
#pragma GCC unroll 5
    for (int kh = 0; kh < K; ++kh) {
      const int64_t ih = ih0 + kh;
      if (ih < 0 || ih >= g->in_h) continue;
      const float* xrow = xcol + ih * g->in_w * c_n;
      V col[kCols];
#pragma GCC unroll 16
      for (int j = 0; j < kCols; ++j) col[j] = inside[j] ? Load<VW>(xrow + j * c_n) : V{};
#pragma GCC unroll 5
      for (int kw = 0; kw < K; ++kw) {
        const V wv = Load<VW>(wt + (kh * K + kw) * c_n + c);
#pragma GCC unroll 8
        for (int p = 0; p < kPixels; ++p) {
          if (inside[p * S + kw]) acc[p] += wv * col[p * S + kw];
        }
      }
    }
    Finish<kPixels, VW>(acc, bias, ow, c, c_n, y, lo, hi, post);
  }

  // Block, or FixedBlock when the window is a fixed K x K (K > 0) and the
  // vectors are whole.
  template <int kPixels, bool kChecked, int K, int S, int VW>
  [[gnu::always_inline]] static inline void AnyBlock(const ConvGeometry* g, const float* x,
                                                     const float* wt, const float* bias,
                                                     int64_t ih0, int64_t ow, int64_t c, float* y,
                                                     float lo, float hi, PostOp post) {
    // Channel tails (VW < W) take Block: fewer instantiations to compile.
    if constexpr (K > 0 && VW == W) {
      FixedBlock<kPixels, kChecked, K, S, VW>(g, x, wt, bias, ih0, ow, c, y, lo, hi, post);
    } else {
      Block<kPixels, kChecked, VW>(g, x, wt, bias, ih0, ow, c, y, lo, hi, post);
    }
  }

  // Channels [c0, c_n) of outputs [ow, ow + kPixels): W at a time, then a
  // channel tail in half and quarter vectors (72 = 4 x 16 + 8 channels),
  // then one at a time. Each output's sum has the same order at every
  // width, so the bits do not depend on where a channel falls.
  template <int kPixels, bool kChecked, int K, int S>
  [[gnu::always_inline]] static inline void Pixels(const ConvGeometry* g, const float* x,
                                                   const float* wt, const float* bias, int64_t ih0,
                                                   int64_t ow, int64_t c0, int64_t c_n, float* y,
                                                   float lo, float hi, PostOp post) {
    int64_t c = c0;
    for (; c + W <= c_n; c += W) {
      AnyBlock<kPixels, kChecked, K, S, W>(g, x, wt, bias, ih0, ow, c, y, lo, hi, post);
    }
    if constexpr (W >= 16) {
      if (c + 8 <= c_n) {
        AnyBlock<kPixels, kChecked, K, S, 8>(g, x, wt, bias, ih0, ow, c, y, lo, hi, post);
        c += 8;
      }
    }
    if constexpr (W >= 8) {
      if (c + 4 <= c_n) {
        AnyBlock<kPixels, kChecked, K, S, 4>(g, x, wt, bias, ih0, ow, c, y, lo, hi, post);
        c += 4;
      }
    }
    for (int p = 0; p < kPixels && c < c_n; ++p) {
      ScalarTail(g, x, wt, bias, ih0, ow + p, c, c_n, y, lo, hi, post);
    }
  }

  // Channels [c0, c1) of output pixel ow, one at a time.
  [[gnu::always_inline]] static inline void ScalarTail(const ConvGeometry* g, const float* x,
                                                       const float* wt, const float* bias,
                                                       int64_t ih0, int64_t ow, int64_t c0,
                                                       int64_t c1, float* y, float lo_s, float hi_s,
                                                       PostOp post) {
    const int64_t c_n = g->in_c;
    const int64_t iw0 = ow * g->stride[1] - g->pad[1];
    for (int64_t c = c0; c < c1; ++c) {
      float acc = 0.0f;
      for (int64_t kh = 0; kh < g->k_h; ++kh) {
        const int64_t ih = ih0 + kh * g->dilation[0];
        if (ih < 0 || ih >= g->in_h) continue;
        for (int64_t kw = 0; kw < g->k_w; ++kw) {
          const int64_t iw = iw0 + kw * g->dilation[1];
          if (iw < 0 || iw >= g->in_w) continue;
          acc += wt[(kh * g->k_w + kw) * c_n + c] * x[(ih * g->in_w + iw) * c_n + c];
        }
      }
      if (bias != nullptr) acc += bias[c];
      y[ow * c_n + c] = EpilogueS(acc, lo_s, hi_s, post);
    }
  }

  // Channels [c0, c1) of output row oh, with a fixed K x K window at column
  // stride S when K > 0: then every column runs in blocks of four (rows of
  // at least four; the last block overlaps the one before it and writes the
  // same values again), the edge blocks checked.
  template <int K, int S>
  [[gnu::always_inline]] static inline void Row(const ConvGeometry* g, const float* x,
                                                const float* wt, const float* bias, int64_t oh,
                                                int64_t c0, int64_t c1, float* y, float lo,
                                                float hi, PostOp post) {
    const int64_t ih0 = oh * g->stride[0] - g->pad[0];
    int64_t in_lo = 0, in_hi = 0;
    InteriorColumns(*g, &in_lo, &in_hi);
    int64_t ow = 0;
    if (K > 0 && g->out_w >= 4) {
      for (; ow < g->out_w; ow += 4) {
        const int64_t o = std::min(ow, g->out_w - 4);
        if (o >= in_lo && o + 4 <= in_hi) {
          Pixels<4, false, K, S>(g, x, wt, bias, ih0, o, c0, c1, y, lo, hi, post);
        } else {
          Pixels<4, true, K, S>(g, x, wt, bias, ih0, o, c0, c1, y, lo, hi, post);
        }
      }
      return;
    }
    for (; ow < in_lo; ++ow) {
      Pixels<1, true, K, S>(g, x, wt, bias, ih0, ow, c0, c1, y, lo, hi, post);
    }
    for (; ow + 4 <= in_hi; ow += 4) {
      Pixels<4, false, K, S>(g, x, wt, bias, ih0, ow, c0, c1, y, lo, hi, post);
    }
    for (; ow < g->out_w; ++ow) {
      Pixels<1, true, K, S>(g, x, wt, bias, ih0, ow, c0, c1, y, lo, hi, post);
    }
  }
};

// RowBodyNhwc's Row for one window (K x K at column stride S; K = 0: any)
// as a body of its own, so that each is compiled as a function of its own
// (one function holding them all took minutes to compile under the
// sanitizers).
template <int K, int S>
struct WindowRows {
  template <int W>
  struct Body {
    [[gnu::always_inline]] static inline void Run(const ConvGeometry* g, const float* x,
                                                  const float* wt, const float* bias, int64_t oh,
                                                  int64_t c0, int64_t c1, float* y, float lo,
                                                  float hi, PostOp post) {
      RowBodyNhwc<W>::template Row<K, S>(g, x, wt, bias, oh, c0, c1, y, lo, hi, post);
    }
  };
};

using RowFn = void (*)(const ConvGeometry* g, const float* x, const float* wt, const float* bias,
                       int64_t oh, int64_t c0, int64_t c1, float* y, float lo, float hi,
                       PostOp post);

template <int K, int S>
void RunRow(const ConvGeometry* g, const float* x, const float* wt, const float* bias, int64_t oh,
            int64_t c0, int64_t c1, float* y, float lo, float hi, PostOp post) {
  RunVectorized<WindowRows<K, S>::template Body>(g, x, wt, bias, oh, c0, c1, y, lo, hi, post);
}

// The row kernel for g's window: a fixed 3 x 3 or 5 x 5 one at column
// stride 1 or 2 without dilation, else any.
RowFn RowFor(const ConvGeometry& g) {
  if (g.k_h == g.k_w && g.dilation[0] == 1 && g.dilation[1] == 1) {
    if (g.k_w == 3 && g.stride[1] == 1) return RunRow<3, 1>;
    if (g.k_w == 3 && g.stride[1] == 2) return RunRow<3, 2>;
    if (g.k_w == 5 && g.stride[1] == 1) return RunRow<5, 1>;
    if (g.k_w == 5 && g.stride[1] == 2) return RunRow<5, 2>;
  }
  return RunRow<0, 0>;
}

int Threads(KernelContext& ctx, int64_t outputs) {
  if (!ParallelismAvailable() || outputs < kMinParallelOutputs) return 1;
  return std::clamp(ctx.num_threads(), 1, ThreadPool::kMaxThreads);
}

}  // namespace

// Which of the two NCHW strategies runs: per-plane rows (each plane copied
// padded and split by column phase first) or channels-last on a transposed
// copy. Measured per layer on AVX-512 (docs/performance-nchw.md): the rows
// lose where the phase split or the per-plane copy costs more than the two
// transposes — strided windows (the split copies the plane for outputs a
// quarter its size: EfficientNet-B0's 240 x 28 x 28, 3 x 3 / 2 took 146 us
// in the model against 85) and rows of at most one vector (480 x 14 x 14,
// 3 x 3: 145 against 99; 1152 x 7 x 7: 162 against 80) — and win on wider
// stride-1 planes. Above about 1 MiB per image the transposes cost more
// than the split (96 x 112 x 112, 3 x 3 / 2: 524 against 948 us).
bool PreferChannelsLast(const ConvGeometry& g) {
  constexpr int64_t kMaxImageFloats = 256 * 1024;
  if (g.out_c != g.in_c || g.in_c * g.in_h * g.in_w > kMaxImageFloats) return false;
  const int64_t lanes = IsaLanes(HostIsa());
  return g.stride[0] > 1 || g.stride[1] > 1 || g.out_w <= lanes;
}

// NCHW through channels-last: transpose each image to H x W x C, run the
// channels-last kernel, transpose back. Same arithmetic order, so results
// are the same bits.
bool DepthwiseNchwAsNhwc(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                         const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                         PostOp post) {
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_pixels();
  auto* xt =
      static_cast<float*>(ctx.AllocateTemp(sizeof(float) * g.in_c * (in_plane + out_plane), 64));
  if (xt == nullptr) return false;
  float* yt = xt + g.in_c * in_plane;
  ConvGeometry one = g;
  one.batch = 1;
  for (int64_t n = 0; n < g.batch; ++n) {
    Transpose2dParallel<float>(x + n * g.in_c * in_plane, in_plane, xt, g.in_c, in_plane, g.in_c,
                               ctx.num_threads());
    if (!DepthwiseNhwc(ctx, one, xt, w, w_strides, bias, yt, lo, hi, post)) {
      return false;
    }
    Transpose2dParallel<float>(yt, g.in_c, y + n * g.out_c * out_plane, out_plane, g.in_c,
                               out_plane, ctx.num_threads());
  }
  return true;
}

bool DepthwiseNchw(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                   const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                   bool in_place, PostOp post) {
  const int64_t taps = g.taps();
  if (taps > kMaxDepthwiseTaps) return false;
  if (PreferChannelsLast(g) &&
      DepthwiseNchwAsNhwc(ctx, g, x, w, w_strides, bias, y, lo, hi, post)) {
    return true;
  }
  const int64_t mult = g.out_c / g.in_c;
  const PhasedPlane shape = PhasedPlane::For(g);
  const int64_t task_floats = shape.scratch_floats();
  int64_t tap_offset[kMaxDepthwiseTaps];
  shape.TapOffsets(g, tap_offset);
  // Each tap's weight offset within a channel's filter (no divisions per
  // channel: on 7 x 7 planes they cost as much as the arithmetic).
  int64_t w_offset[kMaxDepthwiseTaps];
  for (int64_t t = 0; t < taps; ++t) {
    w_offset[t] = t / g.k_w * w_strides[2] + t % g.k_w * w_strides[3];
  }
  const int64_t planes = g.batch * g.in_c;
  // In place, tasks over shrinking planes would write over planes another
  // task has not read yet: one task, planes in order.
  const bool ordered = in_place && g.out_pixels() != g.in_h * g.in_w;
  const int threads = ordered ? 1
                              : static_cast<int>(std::min<int64_t>(
                                    Threads(ctx, planes * mult * g.out_pixels()), planes));
  auto* scratch = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * task_floats * threads, 64));
  if (scratch == nullptr) return false;
  const int64_t chunk = CeilDiv(planes, threads);
  const int64_t in_plane = g.in_h * g.in_w, out_plane = g.out_pixels();
  ParallelFor(CeilDiv(planes, chunk), threads, [&](int64_t task) {
    PhasedPlane p = shape;
    p.data = scratch + task * task_floats;
    float* row = p.InitScratch();
    const int64_t end = std::min(planes, (task + 1) * chunk);
    for (int64_t i = task * chunk; i < end; ++i) {
      const int64_t n = i / g.in_c, c = i % g.in_c;
      BuildPhasedPlane(g, x + i * in_plane, 0.0f, p, row);
      for (int64_t q = 0; q < mult; ++q) {
        const int64_t oc = c * mult + q;
        float wk[kMaxDepthwiseTaps];
        for (int64_t t = 0; t < taps; ++t) wk[t] = w[oc * w_strides[0] + w_offset[t]];
        RunVectorized<PlaneBody>(&g, p.data, g.stride[0] * p.row_len,
                                 static_cast<const int64_t*>(tap_offset),
                                 static_cast<const float*>(wk), bias != nullptr ? bias[oc] : 0.0f,
                                 y + (n * g.out_c + oc) * out_plane, lo, hi, post);
      }
    }
  });
  return true;
}

bool DepthwiseNhwc(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                   const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                   PostOp post) {
  const int64_t taps = g.taps(), c_n = g.in_c;
  // The kernel reads the filter tap-major, [kh][kw][c]: the delegate's
  // layout, read in place; any other is copied so first.
  const float* weights = w;
  if (w_strides[0] != 1 || w_strides[3] != c_n || w_strides[2] != g.k_w * c_n) {
    auto* wt = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * taps * c_n, 64));
    if (wt == nullptr) return false;
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t c = 0; c < c_n; ++c) {
        wt[t * c_n + c] = w[c * w_strides[0] + t / g.k_w * w_strides[2] + t % g.k_w * w_strides[3]];
      }
    }
    weights = wt;
  }
  const int64_t rows = g.batch * g.out_h;
  const int threads = Threads(ctx, rows * g.out_w * c_n);
  // A task is a row, or on few rows (the 7 x 7 and 14 x 14 layers: 7 rows
  // split 4 : 3 between two threads) part of a row's channels, in blocks of
  // whole vectors.
  int64_t blocks = 1;
  if (threads > 1 && rows < kMinRowsPerThread * threads) {
    blocks = std::min(CeilDiv(kMinRowsPerThread * threads, rows), CeilDiv(c_n, kMinBlockChannels));
  }
  const int64_t block = (CeilDiv(c_n, blocks) + 15) / 16 * 16;
  blocks = CeilDiv(c_n, block);
  const RowFn row = RowFor(g);
  ParallelFor(rows * blocks, threads, [&](int64_t task) {
    const int64_t r = task / blocks, c0 = task % blocks * block;
    const int64_t n = r / g.out_h, oh = r % g.out_h;
    row(&g, x + n * g.in_h * g.in_w * c_n, weights, bias, oh, c0, std::min(c_n, c0 + block),
        y + r * g.out_w * c_n, lo, hi, post);
  });
  return true;
}

}  // namespace optimized
}  // namespace edgefleet
