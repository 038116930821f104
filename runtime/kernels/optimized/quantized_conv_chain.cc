#include "runtime/kernels/optimized/quantized_conv_chain.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>

#include "runtime/kernels/optimized/phased_plane.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace internal {
namespace {

// Output positions per convolution tile (a multiple of 2 vectors at every
// width), output channels per task, output features per linear block.
constexpr int64_t kTile = 64;
constexpr int64_t kRowBlock = 64;
constexpr int64_t kLinearBlock = 64;
// Fewest multiply-adds worth a second thread.
constexpr int64_t kMinParallelMacs = int64_t{1} << 20;

bool PowerOfTwo(float v) {
  int e = 0;
  return std::isfinite(v) && v >= FLT_MIN && std::frexp(v, &e) == 0.5f;
}

// The requantization of the chain's quantize (and fused activation).
struct Requant {
  float inv, zero_point, lo, hi;

  int8_t operator()(float y) const {
    const float q = std::nearbyint(y * inv) + zero_point;
    return static_cast<int8_t>(q >= lo ? (q <= hi ? q : hi) : lo);
  }
};

Requant RequantOf(const Packed& pk) {
  const QuantizedConvSpec& s = pk.spec;
  return {pk.inv_out_scale, static_cast<float>(s.out_zero_point), static_cast<float>(s.out_min),
          static_cast<float>(s.out_max)};
}

// rq of every lane of y, the first n lanes stored to out: the same bits as
// Requant's scalar formula (round half to even by the 1.5 * 2^23 trick,
// exact below 2^22; larger values saturate either way; NaN gives lo).
template <int W>
[[gnu::always_inline]] inline void RequantStore(Vf<W> y, const Requant& rq, int8_t* out,
                                                int64_t n) {
  const Vf<W> magic = Splat<W>(12582912.0f), lo = Splat<W>(rq.lo), hi = Splat<W>(rq.hi);
  Vf<W> q = y * Splat<W>(rq.inv);
  q = ((q + magic) - magic) + Splat<W>(rq.zero_point);
  q = Select<W>(q >= lo, Select<W>(q <= hi, q, hi), lo);
  const Vq<W, int8_t> bytes =
      __builtin_convertvector(__builtin_convertvector(q, Vm<W>), Vq<W, int8_t>);
  __builtin_memcpy(out, &bytes, static_cast<size_t>(n));
}

// What dequantize_per_tensor gives for every int8 code, indexed by the
// code's byte.
void DequantizeTable(const QuantizedConvSpec& s, float* table) {
  const float zx = static_cast<float>(s.in_zero_point);
  for (int i = 0; i < 256; ++i) {
    table[i] = (static_cast<float>(static_cast<int8_t>(i)) - zx) * s.in_scale;
  }
}

// The im2col of a 1 x 1, stride 1, unpadded convolution: col[ci][j] =
// x_f of channel ci at position p0 + j (the table's formula, (q - zx) * sx,
// rounded the same way), zero from nc up to kTile.
template <int W>
struct DirectColumns {
  [[gnu::always_inline]] static void Run(const int8_t* x, int64_t plane, int64_t cin, int64_t p0,
                                         int64_t nc, float zx, float sx, const float* table,
                                         float* col) {
    const Vf<W> zero_point = Splat<W>(zx), scale = Splat<W>(sx);
    for (int64_t ci = 0; ci < cin; ++ci) {
      const int8_t* src = x + ci * plane + p0;
      float* dst = col + ci * kTile;
      int64_t j = 0;
      for (; j + W <= nc; j += W) {
        Vq<W, int8_t> bytes;
        __builtin_memcpy(&bytes, src + j, sizeof(bytes));
        Store<W>(dst + j, (__builtin_convertvector(bytes, Vf<W>) - zero_point) * scale);
      }
      for (; j < nc; ++j) dst[j] = table[static_cast<uint8_t>(src[j])];
      for (; j < kTile; ++j) dst[j] = 0.0f;
    }
  }
};

// col[k][j] = x_f of tap k (in channel, kh, kw) at output position
// p0 + j, 0 at padding; columns from nc up to kTile are zero.
void Im2ColFloat(const QuantizedConvSpec& s, const float* table, const int8_t* x, int64_t h,
                 int64_t w, int64_t ow, int64_t p0, int64_t nc, float* col) {
  const int64_t cin = s.in_channels / s.groups;
  float* dst = col;
  for (int64_t ci = 0; ci < cin; ++ci) {
    const int8_t* plane = x + ci * h * w;
    for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < s.kernel_w; ++kw, dst += kTile) {
        int64_t r = p0 / ow, c = p0 % ow;
        for (int64_t j = 0; j < nc; ++j) {
          const int64_t ih = r * s.stride_h - s.pad_h + kh * s.dilation_h;
          const int64_t iw = c * s.stride_w - s.pad_w + kw * s.dilation_w;
          dst[j] = ih >= 0 && ih < h && iw >= 0 && iw < w
                       ? table[static_cast<uint8_t>(plane[ih * w + iw])]
                       : 0.0f;
          if (++c == ow) {
            c = 0;
            ++r;
          }
        }
        for (int64_t j = nc; j < kTile; ++j) dst[j] = 0.0f;
      }
    }
  }
}

// R output channels x 2 vectors of positions: acc = 0, acc += w * x tap
// by tap, y = acc + b.
template <int W, int R>
[[gnu::always_inline]] inline void ConvBlock(const float* col, int64_t depth,
                                             const float* const* wr, const float* b, int64_t j0,
                                             int64_t nc, const Requant& rq, int8_t* const* out) {
  Vf<W> acc[R][2];
  for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = Splat<W>(0.0f);
  for (int64_t k = 0; k < depth; ++k) {
    const Vf<W> c0 = Load<W>(col + k * kTile + j0);
    const Vf<W> c1 = Load<W>(col + k * kTile + j0 + W);
    for (int i = 0; i < R; ++i) {
      const Vf<W> wv = Splat<W>(wr[i][k]);
      acc[i][0] = acc[i][0] + wv * c0;
      acc[i][1] = acc[i][1] + wv * c1;
    }
  }
  const int64_t n = std::min<int64_t>(2 * W, nc - j0);
  for (int i = 0; i < R; ++i) {
    const Vf<W> bias = Splat<W>(b[i]);
    RequantStore<W>(acc[i][0] + bias, rq, out[i] + j0, std::min<int64_t>(W, n));
    if (n > W) RequantStore<W>(acc[i][1] + bias, rq, out[i] + j0 + W, n - W);
  }
}

// Channels [r0, r1) of one group over one tile of nc positions.
template <int W>
struct ConvTile {
  [[gnu::always_inline]] static void Run(const float* col, int64_t depth, const float* weight,
                                         const float* bias, int64_t r0, int64_t r1, int64_t nc,
                                         Requant rq, int8_t* out, int64_t out_stride) {
    int64_t r = r0;
    for (; r + 4 <= r1; r += 4) {
      const float* wr[4];
      int8_t* o[4];
      for (int i = 0; i < 4; ++i) {
        wr[i] = weight + (r + i) * depth;
        o[i] = out + (r + i) * out_stride;
      }
      for (int64_t j0 = 0; j0 < nc; j0 += 2 * W)
        ConvBlock<W, 4>(col, depth, wr, bias + r, j0, nc, rq, o);
    }
    for (; r < r1; ++r) {
      const float* wr[1] = {weight + r * depth};
      int8_t* o[1] = {out + r * out_stride};
      for (int64_t j0 = 0; j0 < nc; j0 += 2 * W)
        ConvBlock<W, 1>(col, depth, wr, bias + r, j0, nc, rq, o);
    }
  }
};

// Depthwise (one input and one output channel per group), one channel:
// rows of output positions in the lanes, each tap of W neighbours one load
// from the channel's dequantized, padded plane split by column phase
// (phased_plane.h); taps[t] is tap t's offset there from the output row's
// first input row. Loads past a row's end only fill lanes that are not
// stored.
template <int W>
struct DepthwiseRows {
  [[gnu::always_inline]] static void Run(const float* phased, const int64_t* taps, int64_t depth,
                                         int64_t row_step, const float* weight, float bias,
                                         int64_t oh, int64_t ow, Requant rq, int8_t* out) {
    const Vf<W> b = Splat<W>(bias);
    for (int64_t r = 0; r < oh; ++r) {
      const float* base = phased + r * row_step;
      for (int64_t c0 = 0; c0 < ow; c0 += W) {
        Vf<W> acc = Splat<W>(0.0f);
        for (int64_t t = 0; t < depth; ++t) {
          acc = acc + Splat<W>(weight[t]) * Load<W>(base + taps[t] + c0);
        }
        RequantStore<W>(acc + b, rq, out + r * ow + c0, std::min<int64_t>(W, ow - c0));
      }
    }
  }
};

// Output features [n0, n1) of one row (n0, n1 multiples of kLinearBlock or
// n1 = n): acc = 0, acc += x * w over k, y = acc + b.
template <int W>
struct LinearRow {
  [[gnu::always_inline]] static void Run(const float* xf, int64_t k, const float* wt, int64_t n_pad,
                                         const float* bias, int64_t n0, int64_t n1, Requant rq,
                                         int8_t* out) {
    for (int64_t nb = n0; nb < n1; nb += 4 * W) {
      Vf<W> acc[4];
      for (int i = 0; i < 4; ++i) acc[i] = Splat<W>(0.0f);
      for (int64_t kk = 0; kk < k; ++kk) {
        const Vf<W> xv = Splat<W>(xf[kk]);
        const float* wk = wt + kk * n_pad + nb;
        for (int i = 0; i < 4; ++i) acc[i] = acc[i] + xv * Load<W>(wk + i * W);
      }
      float y[4 * W];
      for (int i = 0; i < 4; ++i) Store<W>(y + i * W, acc[i]);
      const int64_t cnt = std::min<int64_t>(4 * W, n1 - nb);
      for (int64_t j = 0; j < cnt; ++j) out[nb + j] = rq(y[j] + bias[nb + j]);
    }
  }
};

int64_t LinearPadded(int64_t n) { return (n + kLinearBlock - 1) / kLinearBlock * kLinearBlock; }

}  // namespace

bool IntegerArithmeticIsExact(const QuantizedConvSpec& s, const int8_t* weight,
                              const float* weight_scale, const float* bias) {
  if (!PowerOfTwo(s.in_scale)) return false;
  const int64_t depth = static_cast<int64_t>(s.in_channels / s.groups) * s.kernel_h * s.kernel_w;
  const int64_t max_x = std::max(std::abs(-128 - s.in_zero_point), std::abs(127 - s.in_zero_point));
  for (int64_t c = 0; c < s.out_channels; ++c) {
    const float unit = s.in_scale * weight_scale[c];
    if (!PowerOfTwo(weight_scale[c]) || !PowerOfTwo(unit) || unit > 0x1p100f) return false;
    const double b = bias != nullptr ? static_cast<double>(bias[c]) / unit : 0.0;
    if (!std::isfinite(b) || b != std::nearbyint(b)) return false;
    int64_t sum = 0;
    for (int64_t k = 0; k < depth; ++k)
      sum += std::abs(static_cast<int32_t>(weight[c * depth + k]));
    if (static_cast<double>(sum * max_x) + std::fabs(b) >= 0x1p24) return false;
  }
  return true;
}

size_t ChainWeightBytes(const QuantizedConvSpec& s) {
  if (s.kind == QuantizedOpKind::kLinear) {
    return static_cast<size_t>(s.in_channels) * LinearPadded(s.out_channels) * sizeof(float);
  }
  const size_t depth = static_cast<size_t>(s.in_channels / s.groups) * s.kernel_h * s.kernel_w;
  return static_cast<size_t>(s.out_channels) * depth * sizeof(float);
}

void PackChainWeights(const QuantizedConvSpec& s, const int8_t* weight, const float* weight_scale,
                      float* dst) {
  // dequantize_per_channel with zero point 0: (float(q) - 0) * scale.
  if (s.kind == QuantizedOpKind::kLinear) {
    const int64_t n = s.out_channels, k = s.in_channels, n_pad = LinearPadded(n);
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < k; ++i) {
        dst[i * n_pad + j] = (static_cast<float>(weight[j * k + i]) - 0.0f) * weight_scale[j];
      }
    }
    return;
  }
  const int64_t depth = static_cast<int64_t>(s.in_channels / s.groups) * s.kernel_h * s.kernel_w;
  for (int64_t c = 0; c < s.out_channels; ++c) {
    for (int64_t k = 0; k < depth; ++k) {
      dst[c * depth + k] = (static_cast<float>(weight[c * depth + k]) - 0.0f) * weight_scale[c];
    }
  }
}

namespace {

// The convolution's geometry for one channel's plane (phased_plane.h).
ConvGeometry PlaneGeometry(const QuantizedConvSpec& s, int64_t h, int64_t w, int64_t oh,
                           int64_t ow) {
  ConvGeometry g{};
  g.batch = g.in_c = g.out_c = g.groups = 1;
  g.in_h = h;
  g.in_w = w;
  g.out_h = oh;
  g.out_w = ow;
  g.k_h = s.kernel_h;
  g.k_w = s.kernel_w;
  g.stride[0] = s.stride_h;
  g.stride[1] = s.stride_w;
  g.pad[0] = s.pad_h;
  g.pad[1] = s.pad_w;
  g.dilation[0] = s.dilation_h;
  g.dilation[1] = s.dilation_w;
  return g;
}

bool RunDepthwiseChain(KernelContext& ctx, const Packed& pk, const int8_t* x, int8_t* y,
                       int64_t batch, int64_t h, int64_t w, int64_t oh, int64_t ow) {
  const QuantizedConvSpec& s = pk.spec;
  const ConvGeometry g = PlaneGeometry(s, h, w, oh, ow);
  const PhasedPlane shape = PhasedPlane::For(g);
  // Per thread: the channel's plane dequantized, then its phased plane.
  const int64_t thread_floats = h * w + shape.scratch_floats();
  const int64_t units = batch * s.groups;
  const int threads =
      units * oh * ow * pk.depth >= kMinParallelMacs
          ? static_cast<int>(std::min<int64_t>(std::max(1, ctx.num_threads()), units))
          : 1;
  float* scratch = static_cast<float*>(
      ctx.AllocateTemp(static_cast<size_t>(threads * thread_floats) * sizeof(float), kAlign));
  float* table = static_cast<float*>(ctx.AllocateTemp(256 * sizeof(float), kAlign));
  int64_t* taps = static_cast<int64_t*>(
      ctx.AllocateTemp(static_cast<size_t>(pk.depth) * sizeof(int64_t), kAlign));
  if (scratch == nullptr || table == nullptr || taps == nullptr) return false;
  DequantizeTable(s, table);
  shape.TapOffsets(g, taps);
  const Requant rq = RequantOf(pk);
  ParallelFor(threads, threads, [&](int64_t t) {
    float* plane = scratch + t * thread_floats;
    PhasedPlane phased = shape;
    phased.data = plane + h * w;
    float* row = phased.InitScratch();
    for (int64_t u = t; u < units; u += threads) {
      const int64_t c = u % s.groups;
      const int8_t* xc = x + u * h * w;
      for (int64_t i = 0; i < h * w; ++i) plane[i] = table[static_cast<uint8_t>(xc[i])];
      BuildPhasedPlane(g, plane, 0.0f, phased, row);
      RunVectorized<DepthwiseRows>(static_cast<const float*>(phased.data),
                                   static_cast<const int64_t*>(taps), pk.depth,
                                   s.stride_h * phased.row_len, pk.float_weight() + c * pk.depth,
                                   pk.bias()[c], oh, ow, rq, y + u * oh * ow);
    }
  });
  return true;
}

}  // namespace

bool RunConvChain(KernelContext& ctx, const Packed& pk, const int8_t* x, int8_t* y, int64_t batch,
                  int64_t h, int64_t w, int64_t oh, int64_t ow) {
  const QuantizedConvSpec& s = pk.spec;
  const int64_t cin = s.in_channels / s.groups, cout = s.out_channels / s.groups;
  if (cin == 1 && cout == 1) return RunDepthwiseChain(ctx, pk, x, y, batch, h, w, oh, ow);
  const int64_t p = oh * ow, depth = pk.depth;
  const int64_t tiles = (p + kTile - 1) / kTile;
  // A unit is a tile of positions and a block of output channels; with
  // enough tiles for the threads, a unit takes all of its tile's channels,
  // so the tile's columns are built once.
  const int threads =
      batch * s.out_channels * p * depth >= kMinParallelMacs ? std::max(1, ctx.num_threads()) : 1;
  const int64_t tile_units = batch * s.groups * tiles;
  const int64_t row_blocks = tile_units >= threads ? 1 : (cout + kRowBlock - 1) / kRowBlock;
  const int64_t block_rows = row_blocks == 1 ? cout : kRowBlock;
  const int64_t units = tile_units * row_blocks;
  const size_t col_floats = static_cast<size_t>(depth) * kTile;
  float* cols = static_cast<float*>(
      ctx.AllocateTemp(static_cast<size_t>(threads) * col_floats * sizeof(float), kAlign));
  float* table = static_cast<float*>(ctx.AllocateTemp(256 * sizeof(float), kAlign));
  if (cols == nullptr || table == nullptr) return false;
  DequantizeTable(s, table);
  const Requant rq = RequantOf(pk);
  const bool direct = s.kernel_h == 1 && s.kernel_w == 1 && s.stride_h == 1 && s.stride_w == 1 &&
                      s.pad_h == 0 && s.pad_w == 0;
  const float zx = static_cast<float>(s.in_zero_point);
  ParallelFor(threads, threads, [&](int64_t t) {
    float* col = cols + t * col_floats;
    for (int64_t u = t; u < units; u += threads) {
      const int64_t rb = u % row_blocks, tile = u / row_blocks % tiles;
      const int64_t g = u / (row_blocks * tiles) % s.groups,
                    n = u / (row_blocks * tiles * s.groups);
      const int64_t p0 = tile * kTile, nc = std::min(kTile, p - p0);
      const int8_t* xg = x + (n * s.in_channels + g * cin) * h * w;
      if (direct) {
        RunVectorized<DirectColumns>(xg, h * w, cin, p0, nc, zx, s.in_scale,
                                     static_cast<const float*>(table), col);
      } else {
        Im2ColFloat(s, table, xg, h, w, ow, p0, nc, col);
      }
      const int64_t r0 = rb * block_rows, r1 = std::min(cout, r0 + block_rows);
      RunVectorized<ConvTile>(static_cast<const float*>(col), depth,
                              pk.float_weight() + g * cout * depth, pk.bias() + g * cout, r0, r1,
                              nc, rq, y + (n * s.out_channels + g * cout) * p + p0, p);
    }
  });
  return true;
}

bool RunLinearChain(KernelContext& ctx, const Packed& pk, const int8_t* x, int8_t* y, int64_t m) {
  const QuantizedConvSpec& s = pk.spec;
  const int64_t k = s.in_channels, n = s.out_channels, n_pad = LinearPadded(n);
  float* xf = static_cast<float*>(ctx.AllocateTemp(static_cast<size_t>(k) * sizeof(float), kAlign));
  float* table = static_cast<float*>(ctx.AllocateTemp(256 * sizeof(float), kAlign));
  if (xf == nullptr || table == nullptr) return false;
  DequantizeTable(s, table);
  const Requant rq = RequantOf(pk);
  const int threads = k * n >= kMinParallelMacs ? std::max(1, ctx.num_threads()) : 1;
  const int64_t blocks = n_pad / kLinearBlock;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t kk = 0; kk < k; ++kk) xf[kk] = table[static_cast<uint8_t>(x[i * k + kk])];
    ParallelForRanges(blocks, 1, threads, [&](int64_t b0, int64_t b1) {
      RunVectorized<LinearRow>(static_cast<const float*>(xf), k, pk.float_weight(), n_pad,
                               pk.bias(), b0 * kLinearBlock, std::min(n, b1 * kLinearBlock), rq,
                               y + i * n);
    });
  }
  return true;
}

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet
