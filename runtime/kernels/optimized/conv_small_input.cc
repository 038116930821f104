#include "runtime/kernels/optimized/conv_small_input.h"

#include "runtime/kernels/optimized/epilogue.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

// Output rows per parallel range: a row of a 112-pixel-wide first layer is
// about 100k multiply-adds.
constexpr int64_t kRowsGrain = 2;

struct Filter {
  const float* w;
  int64_t ic, kh, kw;  // strides; output channels are contiguous
};

template <int W>
struct RowBody {
  using V = Vf<W>;

  // acc += the (kw, ic) taps of filter row kh over input row x_row, tap by
  // tap (columns in the padding skipped when kChecked).
  template <int kPixels, int kVectors, bool kChecked>
  [[gnu::always_inline]] static inline void Taps(const ConvGeometry* g, const float* x_row,
                                                 const Filter* f, int64_t ow, int64_t oc,
                                                 int64_t kh, Vf<W> (&acc)[kPixels][kVectors]) {
    using V = Vf<W>;
    const int64_t c_n = g->in_c;
    for (int64_t kw = 0; kw < g->k_w; ++kw) {
      const float* w_tap = f->w + oc + kh * f->kh + kw * f->kw;
      for (int64_t ic = 0; ic < c_n; ++ic) {
        V wv[kVectors];
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) wv[v] = Load<W>(w_tap + ic * f->ic + v * W);
#pragma GCC unroll 12
        for (int p = 0; p < kPixels; ++p) {
          const int64_t iw = (ow + p) * g->stride[1] - g->pad[1] + kw * g->dilation[1];
          if (kChecked && (iw < 0 || iw >= g->in_w)) continue;
          const V xv = Splat<W>(x_row[iw * c_n + ic]);
#pragma GCC unroll 4
          for (int v = 0; v < kVectors; ++v) acc[p][v] += xv * wv[v];
        }
      }
    }
  }

  // acc[p] += the run of `len` (kw, ic) taps of one filter row, pixel p's
  // inputs at x_run + p * step (kStep if not 0, else `step`), the filter's
  // at w_run + j * w_ic.
  template <int kPixels, int kVectors, int kStep>
  [[gnu::always_inline]] static inline void TapRun(const float* x_run, const float* w_run,
                                                   int64_t len, int64_t w_ic, int64_t step,
                                                   Vf<W> (&acc)[kPixels][kVectors]) {
    using V = Vf<W>;
    const int64_t pixel_step = kStep != 0 ? kStep : step;
    for (int64_t j = 0; j < len; ++j) {
      V wv[kVectors];
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) wv[v] = Load<W>(w_run + j * w_ic + v * W);
#pragma GCC unroll 12
      for (int p = 0; p < kPixels; ++p) {
        const V xv = Splat<W>(x_run[p * pixel_step + j]);
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) acc[p][v] += xv * wv[v];
      }
    }
  }

  // Output pixels [ow, ow + kPixels) of the row, kVectors * W output
  // channels from oc (kVectors 0: one channel, scalar). kChecked: skip the
  // column taps that fall in the padding.
  template <int kPixels, int kVectors, bool kChecked>
  [[gnu::always_inline]] static inline void Block(const ConvGeometry* g, const float* x_img,
                                                  const Filter* f, const float* bias, int64_t ih0,
                                                  int64_t ow, int64_t oc, float* y_row, float lo_s,
                                                  float hi_s, PostOp post) {
    const int64_t c_n = g->in_c;
    if constexpr (kVectors == 0) {
      float acc[kPixels] = {};
      for (int64_t kh = 0; kh < g->k_h; ++kh) {
        const int64_t ih = ih0 + kh * g->dilation[0];
        if (ih < 0 || ih >= g->in_h) continue;
        const float* x_row = x_img + ih * g->in_w * c_n;
        for (int64_t kw = 0; kw < g->k_w; ++kw) {
          for (int64_t ic = 0; ic < c_n; ++ic) {
            const float wv = f->w[oc + ic * f->ic + kh * f->kh + kw * f->kw];
            for (int p = 0; p < kPixels; ++p) {
              const int64_t iw = (ow + p) * g->stride[1] - g->pad[1] + kw * g->dilation[1];
              if (kChecked && (iw < 0 || iw >= g->in_w)) continue;
              acc[p] += x_row[iw * c_n + ic] * wv;
            }
          }
        }
      }
      for (int p = 0; p < kPixels; ++p) {
        const float b = bias != nullptr ? acc[p] + bias[oc] : acc[p];
        y_row[(ow + p) * g->out_c + oc] = EpilogueS(b, lo_s, hi_s, post);
      }
      return;
    } else {
      V acc[kPixels][kVectors];
#pragma GCC unroll 12
      for (int p = 0; p < kPixels; ++p) {
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) acc[p][v] = V{};
      }
      // A row of taps (kw, ic) of an interior block is one run of k_w * c_n
      // input values per pixel when the columns are not dilated and the
      // filter's (kw, ic) are one run too: one loop over the run.
      const bool runs = !kChecked && g->dilation[1] == 1 && f->kw == c_n * f->ic;
      const int64_t pixel_step = g->stride[1] * c_n;
      for (int64_t kh = 0; kh < g->k_h; ++kh) {
        const int64_t ih = ih0 + kh * g->dilation[0];
        if (ih < 0 || ih >= g->in_h) continue;
        const float* x_row = x_img + ih * g->in_w * c_n;
        if (!runs) {
          Taps<kPixels, kVectors, kChecked>(g, x_row, f, ow, oc, kh, acc);
          continue;
        }
        const float* x_run = x_row + (ow * g->stride[1] - g->pad[1]) * c_n;
        const float* w_run = f->w + oc + kh * f->kh;
        // RGB at stride 2 or 1 (every stem): the pixels' offsets are
        // constants, so each multiply-add reads its input at a fixed
        // displacement instead of through one of twelve index registers.
        if (pixel_step == 6) {
          TapRun<kPixels, kVectors, 6>(x_run, w_run, g->k_w * c_n, f->ic, pixel_step, acc);
        } else if (pixel_step == 3) {
          TapRun<kPixels, kVectors, 3>(x_run, w_run, g->k_w * c_n, f->ic, pixel_step, acc);
        } else {
          TapRun<kPixels, kVectors, 0>(x_run, w_run, g->k_w * c_n, f->ic, pixel_step, acc);
        }
      }
      const V lo = Splat<W>(lo_s), hi = Splat<W>(hi_s);
#pragma GCC unroll 12
      for (int p = 0; p < kPixels; ++p) {
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) {
          V out = acc[p][v];
          if (bias != nullptr) out += Load<W>(bias + oc + v * W);
          Store<W>(y_row + (ow + p) * g->out_c + oc + v * W, EpilogueV<W>(out, lo, hi, post));
        }
      }
    }
  }

  // Register blocking: kVectors * W output channels by Pixels(kVectors)
  // output pixels, up to kAccumulators accumulators (of 32 vector registers
  // with AVX-512, 16 otherwise, leaving room for the filter's vectors and
  // the broadcast input).
  static constexpr int kMaxVectors = W == 16 ? 4 : 2;
  static constexpr int kAccumulators = W == 16 ? 24 : 12;
  static constexpr int Pixels(int vectors) {
    return vectors == 0 ? 4 : kAccumulators / vectors > 12 ? 12 : kAccumulators / vectors;
  }

  // Every output pixel of the row for kVectors * W channels from oc.
  template <int kVectors>
  [[gnu::always_inline]] static inline void Channels(const ConvGeometry* g, const float* x_img,
                                                     const Filter* f, const float* bias,
                                                     int64_t ih0, int64_t in_lo, int64_t in_hi,
                                                     int64_t oc, float* y_row, float lo, float hi,
                                                     PostOp post) {
    constexpr int kPixels = Pixels(kVectors);
    int64_t ow = 0;
    for (; ow < in_lo; ++ow)
      Block<1, kVectors, true>(g, x_img, f, bias, ih0, ow, oc, y_row, lo, hi, post);
    for (; ow + kPixels <= in_hi; ow += kPixels) {
      Block<kPixels, kVectors, false>(g, x_img, f, bias, ih0, ow, oc, y_row, lo, hi, post);
    }
    if constexpr (kPixels > 4) {
      for (; ow + 4 <= in_hi; ow += 4) {
        Block<4, kVectors, false>(g, x_img, f, bias, ih0, ow, oc, y_row, lo, hi, post);
      }
    }
    for (; ow < g->out_w; ++ow) {
      Block<1, kVectors, true>(g, x_img, f, bias, ih0, ow, oc, y_row, lo, hi, post);
    }
  }

  [[gnu::always_inline]] static inline void Run(const ConvGeometry* g, const float* x,
                                                const Filter* f, const float* bias, int64_t r0,
                                                int64_t r1, float* y, float lo, float hi,
                                                PostOp post) {
    int64_t in_lo = 0, in_hi = 0;
    InteriorColumns(*g, &in_lo, &in_hi);
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t n = r / g->out_h, oh = r % g->out_h;
      const float* x_img = x + n * g->in_h * g->in_w * g->in_c;
      float* y_row = y + r * g->out_w * g->out_c;
      const int64_t ih0 = oh * g->stride[0] - g->pad[0];
      int64_t oc = 0;
      if constexpr (kMaxVectors == 4) {
        for (; oc + 4 * W <= g->out_c; oc += 4 * W) {
          Channels<4>(g, x_img, f, bias, ih0, in_lo, in_hi, oc, y_row, lo, hi, post);
        }
      }
      for (; oc + 2 * W <= g->out_c; oc += 2 * W) {
        Channels<2>(g, x_img, f, bias, ih0, in_lo, in_hi, oc, y_row, lo, hi, post);
      }
      for (; oc + W <= g->out_c; oc += W) {
        Channels<1>(g, x_img, f, bias, ih0, in_lo, in_hi, oc, y_row, lo, hi, post);
      }
      // A channel tail: the last W channels, overlapping the vector before
      // (its outputs computed again, to the same bits). ShuffleNet's 24
      // channels took 10 times as long one tail channel at a time.
      if (oc < g->out_c && g->out_c >= W) {
        Channels<1>(g, x_img, f, bias, ih0, in_lo, in_hi, g->out_c - W, y_row, lo, hi, post);
        oc = g->out_c;
      }
      for (; oc < g->out_c; ++oc) {
        Channels<0>(g, x_img, f, bias, ih0, in_lo, in_hi, oc, y_row, lo, hi, post);
      }
    }
  }
};

}  // namespace

void ConvNhwcSmallInput(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                        int64_t w_ic, int64_t w_kh, int64_t w_kw, const float* bias, float* y,
                        float lo, float hi, PostOp post) {
  const Filter f{w, w_ic, w_kh, w_kw};
  const Filter* fp = &f;
  ParallelForRanges(g.batch * g.out_h, kRowsGrain, ctx.num_threads(), [&](int64_t r0, int64_t r1) {
    RunVectorized<RowBody>(&g, x, fp, bias, r0, r1, y, lo, hi, post);
  });
}

}  // namespace optimized
}  // namespace edgefleet
