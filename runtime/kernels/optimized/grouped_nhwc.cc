#include "runtime/kernels/optimized/grouped_nhwc.h"

#include <algorithm>

#include "runtime/kernels/optimized/gemv.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr int64_t kMaxTaps = 64;

struct Operands {
  const ConvGeometry* g;
  const float* x;
  const float* w;            // output channel innermost
  int64_t w_ic, w_kh, w_kw;  // its strides
  const float* bias;         // or null
  float* y;
  float lo, hi;
  PostOp post;
};

// P output pixels `pixel_step` floats apart in x and out_c apart in y,
// with the same taps (x_off from x, w_off from the weight), Q vectors of
// output channels from `first`. The P * Q sums are independent chains, so
// together they hide the latency of the additions (each output's order is
// fixed): few pixels (a row's edge columns, whose taps differ) take more
// vectors of channels.
template <int W, int P, int Q>
[[gnu::always_inline]] inline void Block(const Operands& o, const float* x, int64_t pixel_step,
                                         const int64_t* x_off, const int64_t* w_off, int64_t taps,
                                         float* y, Vm<W> lane_base, int64_t first) {
  using V = Vf<W>;
  const ConvGeometry& g = *o.g;
  const int64_t cin = g.in_c_per_group(), cout = g.out_c_per_group();
  const float* xb[Q];
  for (int q = 0; q < Q; ++q) xb[q] = x + (first + q * W) / cout * cin;
  V acc[Q][P] = {};
  for (int64_t ic = 0; ic < cin; ++ic) {
    const Vm<W> pick = lane_base + static_cast<int32_t>(ic);
    const float* w = o.w + first + ic * o.w_ic;
    for (int64_t t = 0; t < taps; ++t) {
      for (int q = 0; q < Q; ++q) {
        const V wv = Load<W>(w + w_off[t] + q * W);
        const float* xt = xb[q] + x_off[t];
        for (int p = 0; p < P; ++p) {
          // Whole groups in a vector: their inputs are one vector, each
          // lane picking its group's channel; else every lane is one
          // group's and takes one input value.
          const V xv = cout <= W ? Permute<W>(Load<W>(xt + p * pixel_step), pick)
                                 : Splat<W>(xt[p * pixel_step + ic]);
          acc[q][p] = MulAdd<W>(wv, xv, acc[q][p]);
        }
      }
    }
  }
  for (int q = 0; q < Q; ++q) {
    const V bias = o.bias != nullptr ? Load<W>(o.bias + first + q * W) : V{};
    for (int p = 0; p < P; ++p) {
      Store<W>(y + p * g.out_c + first + q * W,
               EpilogueV<W>(acc[q][p] + bias, Splat<W>(o.lo), Splat<W>(o.hi), o.post));
    }
  }
}

// The P pixels' vectors of output channels [c_begin, c_end) (a whole
// number of vectors, or at least one, the last overlapping the one
// before): Q at a time while Q remain, then one by one.
template <int W, int P, int Q>
[[gnu::always_inline]] inline void Pixels(const Operands& o, const float* x, int64_t pixel_step,
                                          const int64_t* x_off, const int64_t* w_off, int64_t taps,
                                          float* y, Vm<W> lane_base, int64_t c_begin,
                                          int64_t c_end) {
  int64_t oc0 = c_begin;
  if constexpr (Q > 1) {
    for (; oc0 + Q * W <= c_end; oc0 += Q * W) {
      Block<W, P, Q>(o, x, pixel_step, x_off, w_off, taps, y, lane_base, oc0);
    }
  }
  for (; oc0 < c_end; oc0 += W) {
    const int64_t first = std::min(oc0, c_end - W);  // the tail overlaps
    Block<W, P, 1>(o, x, pixel_step, x_off, w_off, taps, y, lane_base, first);
  }
}

// Output channels [c_begin, c_end) of rows [begin, end) (row = n * out_h +
// oh): the interior columns (every kernel column inside the row) up to six
// pixels at a time, the others one by one (four vectors of channels at a
// time).
template <int W>
struct Rows {
  [[gnu::always_inline]] static inline void Run(const Operands* o, int64_t begin, int64_t end,
                                                int64_t c_begin, int64_t c_end) {
    const ConvGeometry& g = *o->g;
    // With whole groups in a vector: each lane's first input channel
    // relative to the vector's first group's.
    const int64_t cout = g.out_c_per_group(), cin = g.in_c_per_group();
    Vm<W> lane_base;
    for (int l = 0; l < W; ++l) lane_base[l] = static_cast<int32_t>(l / cout * cin);
    int64_t lo, hi;
    InteriorColumns(g, &lo, &hi);
    const int64_t pixel_step = g.stride[1] * g.in_c;
    int64_t x_off[kMaxTaps], w_off[kMaxTaps];
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / g.out_h, oh = row % g.out_h;
      const float* x_n = o->x + n * g.in_h * g.in_w * g.in_c;
      float* y_row = o->y + row * g.out_w * g.out_c;
      for (int64_t ow = 0; ow < g.out_w;) {
        const int64_t left = ow * g.stride[1] - g.pad[1];
        int64_t taps = 0;
        for (int64_t kh = 0; kh < g.k_h; ++kh) {
          const int64_t ih = oh * g.stride[0] - g.pad[0] + kh * g.dilation[0];
          if (ih < 0 || ih >= g.in_h) continue;
          for (int64_t kw = 0; kw < g.k_w; ++kw) {
            const int64_t iw = left + kw * g.dilation[1];
            if (iw < 0 || iw >= g.in_w) continue;
            x_off[taps] = (ih * g.in_w + iw) * g.in_c;
            w_off[taps++] = kh * o->w_kh + kw * o->w_kw;
          }
        }
        float* y = y_row + ow * g.out_c;
        const int64_t run = ow >= lo ? hi - ow : 0;  // interior pixels from ow
        // Six pixels' chains, or as many as the interior has left (three
        // or fewer with two vectors of channels each), or one pixel's
        // four vectors. (Calls, not a generic lambda: a lambda would not
        // take this function's instruction set.)
        const int64_t p = std::min<int64_t>(std::max<int64_t>(run, 1), 6);
        if (p == 6) {
          Pixels<W, 6, 1>(*o, x_n, pixel_step, x_off, w_off, taps, y, lane_base, c_begin, c_end);
        } else if (p == 5) {
          Pixels<W, 5, 1>(*o, x_n, pixel_step, x_off, w_off, taps, y, lane_base, c_begin, c_end);
        } else if (p == 4) {
          Pixels<W, 4, 1>(*o, x_n, pixel_step, x_off, w_off, taps, y, lane_base, c_begin, c_end);
        } else if (p == 3) {
          Pixels<W, 3, 2>(*o, x_n, pixel_step, x_off, w_off, taps, y, lane_base, c_begin, c_end);
        } else if (p == 2) {
          Pixels<W, 2, 2>(*o, x_n, pixel_step, x_off, w_off, taps, y, lane_base, c_begin, c_end);
        } else {
          Pixels<W, 1, 4>(*o, x_n, pixel_step, x_off, w_off, taps, y, lane_base, c_begin, c_end);
        }
        ow += p;
      }
    }
  }
};

}  // namespace

bool NarrowGroupsApply(int64_t out_c, int64_t group_in_c, int64_t groups, int64_t taps) {
  if (groups <= 1 || out_c < 16 || out_c % groups != 0) return false;
  const int64_t cout = out_c / groups;
  return group_in_c == cout && cout > 1 && cout <= 16 && (cout & (cout - 1)) == 0 &&
         taps <= kMaxTaps;
}

bool GroupedNhwcApplies(const ConvGeometry& g) {
  return g.groups > 0 && g.in_c == g.out_c && g.in_c % g.groups == 0 &&
         NarrowGroupsApply(g.out_c, g.in_c / g.groups, g.groups, g.taps());
}

bool GroupedNhwc(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                 const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                 PostOp post) {
  if (!GroupedNhwcApplies(g)) return false;
  const int64_t cin = g.in_c_per_group(), taps = g.taps();
  Operands o{&g, x, w, w_strides[1], w_strides[2], w_strides[3], bias, y, lo, hi, post};
  if (w_strides[0] != 1) {  // output channel innermost: [ic][kh][kw][oc]
    auto* packed = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * g.out_c * cin * taps, 64));
    if (packed == nullptr) return false;
    for (int64_t oc = 0; oc < g.out_c; ++oc) {
      for (int64_t ic = 0; ic < cin; ++ic) {
        for (int64_t t = 0; t < taps; ++t) {
          packed[(ic * taps + t) * g.out_c + oc] =
              w[oc * w_strides[0] + ic * w_strides[1] + t / g.k_w * w_strides[2] +
                t % g.k_w * w_strides[3]];
        }
      }
    }
    o.w = packed;
    o.w_ic = taps * g.out_c;
    o.w_kh = g.k_w * g.out_c;
    o.w_kw = g.out_c;
  }
  const int64_t rows = g.batch * g.out_h;
  const int64_t macs = rows * g.out_w * g.out_c * cin * taps;
  const int threads = !ParallelismAvailable() || macs < kMinParallelMacs
                          ? 1
                          : std::clamp(ctx.num_threads(), 1, ThreadPool::kMaxThreads);
  // Tasks: rows, each split in `parts` ranges of channels when there are
  // too few rows to share out evenly (7 x 7 planes over 2 threads: 4 and 3
  // rows). Ranges are whole 16-channel vectors (whole groups), the last
  // the widest, so no two tasks write one channel.
  const int64_t parts =
      threads == 1 ? 1 : std::clamp<int64_t>((4 * threads + rows - 1) / rows, 1, g.out_c / 16);
  const int64_t part_c = g.out_c / parts / 16 * 16;
  ParallelFor(rows * parts, threads, [&](int64_t task) {
    const int64_t row = task / parts, part = task % parts;
    RunVectorized<Rows>(static_cast<const Operands*>(&o), row, row + 1, part * part_c,
                        part + 1 == parts ? g.out_c : (part + 1) * part_c);
  });
  return true;
}

}  // namespace optimized
}  // namespace edgefleet
