#include "runtime/kernels/optimized/quantized_conv.h"

#include <algorithm>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// GCC 12 reports the intentionally undefined registers of
// _mm512_undefined_*() inside the intrinsics headers as maybe-uninitialized.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/int8_gemm.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr uint32_t kMagic = 0x31564351;  // "QCV1"
constexpr size_t kAlign = 64;
constexpr int64_t kMaxTaps = 64;  // depthwise kernel_h * kernel_w
constexpr int32_t kMaxSize = 1 << 20;

size_t RoundUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

struct Packed {
  uint32_t magic;
  QuantizedConvSpec spec;
  float inv_out_scale;
  int32_t depthwise;     // 1: direct depthwise path (float weights)
  int64_t depth;         // per group: in_channels / groups * kh * kw
  int64_t depth_padded;  // multiple of 4
  int64_t rows_padded;   // per group: multiple of kQGemmMr
  uint64_t correction_offset, scale_offset, bias_offset, weight_offset;
  uint64_t panel_offset;  // linear: weights as kQGemmNr-column panels (GEMV)
  uint64_t total_bytes;

  const int32_t* correction() const {
    return reinterpret_cast<const int32_t*>(Bytes() + correction_offset);
  }
  const float* scale() const {
    return reinterpret_cast<const float*>(Bytes() + scale_offset);
  }
  const float* bias() const {
    return reinterpret_cast<const float*>(Bytes() + bias_offset);
  }
  const int8_t* weight() const {
    return reinterpret_cast<const int8_t*>(Bytes() + weight_offset);
  }
  const float* float_weight() const {
    return reinterpret_cast<const float*>(Bytes() + weight_offset);
  }
  const uint8_t* Bytes() const { return reinterpret_cast<const uint8_t*>(this); }
};

bool SpecOk(const QuantizedConvSpec& s) {
  const bool sizes_ok = s.out_channels > 0 && s.in_channels > 0 &&
                        s.out_channels <= kMaxSize && s.in_channels <= kMaxSize &&
                        s.kernel_h > 0 && s.kernel_w > 0 && s.kernel_h <= 64 &&
                        s.kernel_w <= 64 && s.groups > 0 &&
                        s.in_channels % s.groups == 0 &&
                        s.out_channels % s.groups == 0;
  const bool conv_ok = s.stride_h > 0 && s.stride_w > 0 && s.pad_h >= 0 &&
                       s.pad_w >= 0 && s.pad_h <= 4096 && s.pad_w <= 4096 &&
                       s.stride_h <= 4096 && s.stride_w <= 4096 &&
                       s.dilation_h > 0 && s.dilation_w > 0 &&
                       s.dilation_h <= 4096 && s.dilation_w <= 4096;
  const bool linear_ok = s.kernel_h == 1 && s.kernel_w == 1 && s.groups == 1;
  const bool kind_ok = s.kind == QuantizedOpKind::kConv2d
                           ? conv_ok
                           : (s.kind == QuantizedOpKind::kLinear && linear_ok);
  const bool quant_ok =
      s.in_zero_point >= -128 && s.in_zero_point <= 127 && s.out_min >= -128 &&
      s.out_min <= s.out_max && s.out_max <= 127 && s.out_zero_point >= -128 &&
      s.out_zero_point <= 127 && s.out_scale > 0 &&
      s.out_scale < std::numeric_limits<double>::infinity() && s.in_scale > 0 &&
      s.in_scale < std::numeric_limits<float>::infinity();
  return sizes_ok && kind_ok && quant_ok;
}

bool IsDepthwise(const QuantizedConvSpec& s) {
  return s.kind == QuantizedOpKind::kConv2d && s.groups > 1 &&
         s.groups == s.in_channels && s.groups == s.out_channels &&
         static_cast<int64_t>(s.kernel_h) * s.kernel_w <= kMaxTaps;
}

// Fills the layout fields of `p` from `spec`; returns the blob size.
size_t Layout(const QuantizedConvSpec& spec, Packed* p) {
  p->spec = spec;
  p->depthwise = IsDepthwise(spec) ? 1 : 0;
  p->depth = static_cast<int64_t>(spec.in_channels / spec.groups) * spec.kernel_h *
             spec.kernel_w;
  p->depth_padded = QGemmDepthPadded(p->depth);
  p->rows_padded = QGemmRowsPadded(spec.out_channels / spec.groups);
  const size_t channels = static_cast<size_t>(spec.out_channels);
  size_t offset = RoundUp(sizeof(Packed));
  p->correction_offset = offset;
  offset += RoundUp(channels * sizeof(int32_t));
  p->scale_offset = offset;
  offset += RoundUp(channels * sizeof(float));
  p->bias_offset = offset;
  offset += RoundUp(channels * sizeof(float));
  p->weight_offset = offset;
  if (p->depthwise) {
    offset += RoundUp(channels * spec.kernel_h * spec.kernel_w * sizeof(float));
  } else {
    offset += RoundUp(static_cast<size_t>(spec.groups) * p->rows_padded *
                      p->depth_padded);
  }
  p->panel_offset = 0;
  if (spec.kind == QuantizedOpKind::kLinear) {
    p->panel_offset = offset;
    offset += RoundUp(QGemmPackedBBytes(p->depth, spec.out_channels));
  }
  p->total_bytes = offset;
  return offset;
}

const char* const kName = "edgefleet::quantized_convolution";

void FailInvalid(KernelContext& ctx, const char* what) {
  SetErrorDetail("%s: %s", kName, what);
  ctx.Fail(Error::kInvalidArgument);
}

// ---- Depthwise: exact float arithmetic on (x - zx) and integer weights. ----

struct DepthwisePlane {
  const int8_t* x;  // one input plane, H x W
  int8_t* y;        // one output plane, OH x OW
  const float* w;   // kh * kw taps
  float scale, bias;
  float* plane;     // scratch: padded (x - zx), rows x row_width
  int8_t* dense;    // scratch: one dense output row (strided convolutions)
};

struct DepthwiseGeometry {
  int64_t h, w, oh, ow;
  int64_t row_width, rows, dense_width;
  const QuantizedConvSpec* s;
  float inv, lo, hi, zp;
  Isa isa;
};

// dst[i] = float(src[i]) - zx for i < n rounded up to 16; returns that.
#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bw"))) int64_t ConvertRowAvx512(const int8_t* src,
                                                                       float* dst, int64_t n,
                                                                       float zx) {
  const __m512 z = _mm512_set1_ps(zx);
  int64_t c = 0;
  for (; c < n; c += 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + c));
    _mm512_storeu_ps(dst + c, _mm512_sub_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b)), z));
  }
  return c;
}
__attribute__((target("avx2,fma"))) int64_t ConvertRowAvx2(const int8_t* src, float* dst,
                                                           int64_t n, float zx) {
  const __m256 z = _mm256_set1_ps(zx);
  int64_t c = 0;
  for (; c < n; c += 8) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + c));
    _mm256_storeu_ps(dst + c, _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b)), z));
  }
  return c;
}
#endif

// n: a multiple of 16 the source may be read up to.
inline int64_t ConvertRow(Isa isa, const int8_t* src, float* dst, int64_t n, float zx) {
#if defined(__x86_64__)
  switch (isa) {
    case Isa::kAvx512: return ConvertRowAvx512(src, dst, n, zx);
    case Isa::kAvx2: return ConvertRowAvx2(src, dst, n, zx);
    default: break;
  }
#endif
  (void)isa;
  (void)src;
  (void)dst;
  (void)n;
  (void)zx;
  return 0;
}

template <int W>
struct DepthwiseBody {
  [[gnu::always_inline]] static inline void Run(const DepthwiseGeometry* gp,
                                                const DepthwisePlane* pp) {
    using V = Vf<W>;
    const DepthwiseGeometry& g = *gp;
    const DepthwisePlane& p = *pp;
    const QuantizedConvSpec& s = *g.s;
    const float zx = static_cast<float>(s.in_zero_point);
    // Padded plane of x - zx (zeros around and to the right).
    for (int64_t r = 0; r < g.rows; ++r) {
      float* row = p.plane + r * g.row_width;
      const int64_t ih = r - s.pad_h;
      if (ih < 0 || ih >= g.h) {
        std::memset(row, 0, sizeof(float) * g.row_width);
        continue;
      }
      std::memset(row, 0, sizeof(float) * s.pad_w);
      float* dst = row + s.pad_w;
      const int8_t* src = p.x + ih * g.w;
      // Whole vectors, reading past the row end into the rows below while
      // inside the plane (the excess is overwritten by padding below).
      const int64_t in_plane = (g.h - ih) * g.w;
      int64_t c = ConvertRow(g.isa, src, dst, std::min<int64_t>(g.w, in_plane / 16 * 16), zx);
      for (; c < g.w; ++c) dst[c] = static_cast<float>(src[c]) - zx;
      std::memset(dst + g.w, 0, sizeof(float) * (g.row_width - s.pad_w - g.w));
    }
    const int64_t taps = static_cast<int64_t>(s.kernel_h) * s.kernel_w;
    int64_t offsets[kMaxTaps];
    V weights[kMaxTaps];
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t kh = t / s.kernel_w, kw = t % s.kernel_w;
      offsets[t] = kh * s.dilation_h * g.row_width + kw * s.dilation_w;
      weights[t] = Splat<W>(p.w[t]);
    }
    if (taps == 9) {
      Rows<9>(g, p, offsets, weights);
    } else {
      Rows<0>(g, p, offsets, weights, taps);
    }
  }

  // Output rows: the sum over taps (kTaps if non-zero, else `taps`) of
  // weight * plane, in exact float arithmetic, then requantized.
  template <int kTaps>
  [[gnu::always_inline]] static inline void Rows(const DepthwiseGeometry& g,
                                                 const DepthwisePlane& p,
                                                 const int64_t* offsets,
                                                 const Vf<W>* weights,
                                                 int64_t taps = kTaps) {
    using V = Vf<W>;
    const QuantizedConvSpec& s = *g.s;
    const V scale = Splat<W>(p.scale), bias = Splat<W>(p.bias),
            inv = Splat<W>(g.inv), lo = Splat<W>(g.lo), hi = Splat<W>(g.hi),
            zp = Splat<W>(g.zp), magic = Splat<W>(12582912.0f);
    const int64_t n_taps = kTaps != 0 ? kTaps : taps;
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      const float* base = p.plane + oh * s.stride_h * g.row_width;
      int8_t* out_row = p.y + oh * g.ow;
      // Whole vectors straight into the output when they stay inside the
      // plane (the excess lands on rows written later), else via `dense`.
      const int64_t limit = s.stride_w == 1 ? g.ow : g.dense_width;
      const bool direct =
          s.stride_w == 1 && oh * g.ow + (g.ow + W - 1) / W * W <= g.oh * g.ow;
      int8_t* dst = direct ? out_row : p.dense;
      for (int64_t c = 0; c < limit; c += W) {
        // Three partial sums shorten the dependency chain; every partial
        // sum is an exact integer, so the order does not change the result.
        V acc0 = Splat<W>(0.0f), acc1 = acc0, acc2 = acc0;
        int64_t t = 0;
#pragma GCC unroll 3
        for (; t + 3 <= n_taps; t += 3) {
          acc0 = acc0 + Load<W>(base + offsets[t] + c) * weights[t];
          acc1 = acc1 + Load<W>(base + offsets[t + 1] + c) * weights[t + 1];
          acc2 = acc2 + Load<W>(base + offsets[t + 2] + c) * weights[t + 2];
        }
        for (; t < n_taps; ++t) acc0 = acc0 + Load<W>(base + offsets[t] + c) * weights[t];
        const V acc = (acc0 + acc1) + acc2;
        V f = acc * scale;
        f = f + bias;
        f = f * inv;
        f = Select<W>(f < lo, lo, f);
        f = Select<W>(f > hi, hi, f);
        f = Select<W>(f == f, f, lo);
        f = (f + magic) - magic;
        f = f + zp;
        const Vq<W, int8_t> q =
            __builtin_convertvector(__builtin_convertvector(f, Vm<W>), Vq<W, int8_t>);
        __builtin_memcpy(dst + c, &q, sizeof(q));
      }
      if (s.stride_w != 1) {
        for (int64_t ow = 0; ow < g.ow; ++ow) out_row[ow] = p.dense[ow * s.stride_w];
      } else if (!direct) {
        std::memcpy(out_row, p.dense, g.ow);
      }
    }
  }
};

#if defined(__x86_64__)
#define EF_AVX512_DW __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma")))

// AVX-512 depthwise for stride_w 1 or 2 (s = stride_w phases: phase q holds
// padded columns q, q + s, ...; stride 2 then reads contiguous columns).
// Taps accumulate with FMA, exact since every value is an integer below
// 2^24; the requantization is the reference's mul, add, mul, clamp, round.
struct PhasedLayout {
  int64_t phase_width;  // floats per phase row
  int64_t temp_width;   // floats of the padded row before the split
};

PhasedLayout PhasedDepthwiseLayout(const QuantizedConvSpec& s, int64_t w, int64_t ow) {
  const int64_t sw = s.stride_w;
  const int64_t max_col = static_cast<int64_t>(s.kernel_w - 1) * s.dilation_w / sw;
  int64_t pw = (ow + 15) / 16 * 16 + max_col + 1;
  pw = std::max<int64_t>(pw, (s.pad_w + (w + 15) / 16 * 16 + sw - 1) / sw);
  pw = (pw + 15) / 16 * 16;
  return {pw, sw == 1 ? pw : 2 * pw};
}

template <int kTaps>
EF_AVX512_DW void DepthwisePlaneAvx512(const DepthwiseGeometry& g, const DepthwisePlane& p,
                                       float* temp, int64_t taps_runtime) {
  const QuantizedConvSpec& s = *g.s;
  const int64_t sw = s.stride_w;
  const PhasedLayout layout = PhasedDepthwiseLayout(s, g.w, g.ow);
  const int64_t prw = layout.phase_width;
  const int64_t phase_stride = g.rows * prw;
  const float zx = static_cast<float>(s.in_zero_point);
  // Phase planes of x - zx, zero padded.
  for (int64_t r = 0; r < g.rows; ++r) {
    const int64_t ih = r - s.pad_h;
    float* row0 = p.plane + r * prw;
    if (ih < 0 || ih >= g.h) {
      for (int64_t q = 0; q < sw; ++q) std::memset(row0 + q * phase_stride, 0, sizeof(float) * prw);
      continue;
    }
    float* padded = sw == 1 ? row0 : temp;
    const int64_t width = sw == 1 ? prw : layout.temp_width;
    std::memset(padded, 0, sizeof(float) * s.pad_w);
    const int8_t* src = p.x + ih * g.w;
    float* dst = padded + s.pad_w;
    const int64_t in_plane = (g.h - ih) * g.w;
    int64_t c = ConvertRowAvx512(src, dst, std::min<int64_t>(g.w, in_plane / 16 * 16), zx);
    for (; c < g.w; ++c) dst[c] = static_cast<float>(src[c]) - zx;
    std::memset(dst + g.w, 0, sizeof(float) * (width - s.pad_w - g.w));
    if (sw == 2) {
      const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4,
                                            2, 0);
      const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
      float* ph1 = row0 + phase_stride;
      for (int64_t col = 0; col < prw; col += 16) {
        const __m512 a = _mm512_loadu_ps(temp + 2 * col);
        const __m512 b = _mm512_loadu_ps(temp + 2 * col + 16);
        _mm512_storeu_ps(row0 + col, _mm512_permutex2var_ps(a, even, b));
        _mm512_storeu_ps(ph1 + col, _mm512_permutex2var_ps(a, odd, b));
      }
    }
  }
  const int64_t taps = kTaps != 0 ? kTaps : taps_runtime;
  int64_t offsets[kMaxTaps];
  __m512 weights[kMaxTaps];
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t kh = t / s.kernel_w, kw = t % s.kernel_w;
    const int64_t col = kw * s.dilation_w;
    offsets[t] = (col % sw) * phase_stride + kh * s.dilation_h * prw + col / sw;
    weights[t] = _mm512_set1_ps(p.w[t]);
  }
  const __m512 scale = _mm512_set1_ps(p.scale), bias = _mm512_set1_ps(p.bias),
               inv = _mm512_set1_ps(g.inv), lo = _mm512_set1_ps(g.lo),
               hi = _mm512_set1_ps(g.hi);
  const __m512i zp = _mm512_set1_epi32(static_cast<int32_t>(g.zp));
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    const float* base = p.plane + oh * s.stride_h * prw;
    int8_t* out_row = p.y + oh * g.ow;
    for (int64_t c = 0; c < g.ow; c += 16) {
      __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0, acc2 = acc0;
      int64_t t = 0;
#pragma GCC unroll 3
      for (; t + 3 <= taps; t += 3) {
        acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(base + offsets[t] + c), weights[t], acc0);
        acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(base + offsets[t + 1] + c), weights[t + 1], acc1);
        acc2 = _mm512_fmadd_ps(_mm512_loadu_ps(base + offsets[t + 2] + c), weights[t + 2], acc2);
      }
      for (; t < taps; ++t) {
        acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(base + offsets[t] + c), weights[t], acc0);
      }
      __m512 f = _mm512_add_ps(_mm512_add_ps(acc0, acc1), acc2);
      f = _mm512_mul_ps(f, scale);
      f = _mm512_add_ps(f, bias);
      f = _mm512_mul_ps(f, inv);
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
      const int64_t n = std::min<int64_t>(16, g.ow - c);
      const __mmask16 mask = n == 16 ? static_cast<__mmask16>(0xFFFF)
                                     : static_cast<__mmask16>((1u << n) - 1);
      _mm_mask_storeu_epi8(out_row + c, mask, _mm512_cvtepi32_epi8(q));
    }
  }
}
#endif

#if defined(__x86_64__)
// Small planes: 16 channels at a time, one channel per lane, so there is no
// per-plane overhead and no idle lanes on 7 x 7 images. Blocks of 16
// positions x 16 channels are transposed (bytes) into a zero-padded
// channel-minor float tile, the taps summed per output position, and the
// int8 results transposed back into NCHW rows.
constexpr int64_t kTileMaxPixels = 1024;

struct ChannelTileScratch {
  float* tile;   // [hp * wp][16]
  int8_t* out;   // [oh * ow + 16][16]
};

size_t ChannelTileBytes(int64_t hp, int64_t wp, int64_t oh, int64_t ow) {
  return RoundUp(sizeof(float) * 16 * hp * wp) + RoundUp(16 * (oh * ow + 16));
}

// r[i][j] -> r[j][i] for a 16 x 16 block of bytes (SSE2 unpack butterflies).
EF_AVX512_DW inline void Transpose16x16(__m128i r[16]) {
  static constexpr int kBitReversed[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
  __m128i a[16], b[16];
  for (int k = 0; k < 16; ++k) a[k] = r[kBitReversed[k]];
  for (int i = 0; i < 8; ++i) {
    b[i] = _mm_unpacklo_epi8(a[i], a[i + 8]);
    b[i + 8] = _mm_unpackhi_epi8(a[i], a[i + 8]);
  }
  for (int blk = 0; blk < 16; blk += 8) {
    for (int i = 0; i < 4; ++i) {
      a[blk + i] = _mm_unpacklo_epi16(b[blk + i], b[blk + i + 4]);
      a[blk + i + 4] = _mm_unpackhi_epi16(b[blk + i], b[blk + i + 4]);
    }
  }
  for (int blk = 0; blk < 16; blk += 4) {
    for (int i = 0; i < 2; ++i) {
      b[blk + i] = _mm_unpacklo_epi32(a[blk + i], a[blk + i + 2]);
      b[blk + i + 2] = _mm_unpackhi_epi32(a[blk + i], a[blk + i + 2]);
    }
  }
  for (int blk = 0; blk < 16; blk += 2) {
    r[blk] = _mm_unpacklo_epi64(b[blk], b[blk + 1]);
    r[blk + 1] = _mm_unpackhi_epi64(b[blk], b[blk + 1]);
  }
}

EF_AVX512_DW void DepthwiseChannelTileAvx512(const DepthwiseGeometry& g, const Packed& pk,
                                             const int8_t* x, int8_t* y, int64_t c0,
                                             int64_t nc, const ChannelTileScratch& sc) {
  const QuantizedConvSpec& s = *g.s;
  const int64_t hw = g.h * g.w, hp = g.h + 2 * s.pad_h, wp = g.w + 2 * s.pad_w;
  const int64_t ohw = g.oh * g.ow;
  const int64_t taps = static_cast<int64_t>(s.kernel_h) * s.kernel_w;
  const __m512 zx = _mm512_set1_ps(static_cast<float>(s.in_zero_point));
  const __mmask16 lanes = static_cast<__mmask16>(nc == 16 ? 0xFFFF : (1u << nc) - 1);
  // 1. Channel-minor padded tile of x - zx.
  std::memset(sc.tile, 0, sizeof(float) * 16 * hp * wp);
  int64_t ih = 0, iw = 0;
  for (int64_t i0 = 0; i0 < hw; i0 += 16) {
    const int64_t n = std::min<int64_t>(16, hw - i0);
    const __mmask16 m = static_cast<__mmask16>(n == 16 ? 0xFFFF : (1u << n) - 1);
    __m128i r[16];
    for (int64_t c = 0; c < 16; ++c) {
      r[c] = c < nc ? _mm_maskz_loadu_epi8(m, x + (c0 + c) * hw + i0) : _mm_setzero_si128();
    }
    Transpose16x16(r);
    for (int64_t p = 0; p < n; ++p) {
      float* dst = sc.tile + ((ih + s.pad_h) * wp + iw + s.pad_w) * 16;
      _mm512_storeu_ps(dst, _mm512_sub_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(r[p])), zx));
      if (++iw == g.w) {
        iw = 0;
        ++ih;
      }
    }
  }
  // 2. Per-lane weights, scale, bias; the taps.
  __m512 weights[kMaxTaps];
  for (int64_t t = 0; t < taps; ++t) {
    alignas(64) float wl[16] = {};
    for (int64_t c = 0; c < nc; ++c) wl[c] = pk.float_weight()[(c0 + c) * taps + t];
    weights[t] = _mm512_load_ps(wl);
  }
  int64_t offsets[kMaxTaps];
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t kh = t / s.kernel_w, kw = t % s.kernel_w;
    offsets[t] = (kh * s.dilation_h * wp + kw * s.dilation_w) * 16;
  }
  const __m512 scale = _mm512_maskz_loadu_ps(lanes, pk.scale() + c0);
  const __m512 bias = _mm512_maskz_loadu_ps(lanes, pk.bias() + c0);
  const __m512 inv = _mm512_set1_ps(g.inv), lo = _mm512_set1_ps(g.lo), hi = _mm512_set1_ps(g.hi);
  const __m512i zp = _mm512_set1_epi32(static_cast<int32_t>(g.zp));
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const float* base = sc.tile + (oh * s.stride_h * wp + ow * s.stride_w) * 16;
      __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0, acc2 = acc0;
      int64_t t = 0;
      for (; t + 3 <= taps; t += 3) {
        acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(base + offsets[t]), weights[t], acc0);
        acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(base + offsets[t + 1]), weights[t + 1], acc1);
        acc2 = _mm512_fmadd_ps(_mm512_loadu_ps(base + offsets[t + 2]), weights[t + 2], acc2);
      }
      for (; t < taps; ++t) {
        acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(base + offsets[t]), weights[t], acc0);
      }
      __m512 f = _mm512_add_ps(_mm512_add_ps(acc0, acc1), acc2);
      f = _mm512_mul_ps(f, scale);
      f = _mm512_add_ps(f, bias);
      f = _mm512_mul_ps(f, inv);
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(sc.out + (oh * g.ow + ow) * 16),
                       _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(f), zp)));
    }
  }
  // 3. Back to NCHW rows.
  for (int64_t i0 = 0; i0 < ohw; i0 += 16) {
    const int64_t n = std::min<int64_t>(16, ohw - i0);
    const __mmask16 m = static_cast<__mmask16>(n == 16 ? 0xFFFF : (1u << n) - 1);
    __m128i r[16];
    for (int64_t p = 0; p < 16; ++p) {
      r[p] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sc.out + (i0 + p) * 16));
    }
    Transpose16x16(r);
    for (int64_t c = 0; c < nc; ++c) _mm_mask_storeu_epi8(y + (c0 + c) * ohw + i0, m, r[c]);
  }
}
#endif

#if defined(__x86_64__)
// Large planes on AVX-512 VNNI + VBMI: one VPDPBUSD per kernel row and 16
// outputs. The plane is copied as uint8 (x + 128, padding zx + 128); for
// each output vector VPERMB gathers, per lane, the kernel row's (up to 4)
// input bytes, multiplied with the row's 4 weights; the sum then holds
// sum (x - zx) * w + (zx + 128) * sum w, corrected per channel.
#define EF_VBMI_DW __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi,avx2,fma")))

bool HostVbmi() {
  static const bool has = __builtin_cpu_supports("avx512vbmi");
  return has;
}

bool VnniDepthwiseApplies(const QuantizedConvSpec& s) {
  return s.kernel_w <= 4 && s.kernel_h <= kMaxTaps / 4 &&
         15 * static_cast<int64_t>(s.stride_w) + (s.kernel_w - 1) * static_cast<int64_t>(s.dilation_w) < 64;
}

int64_t VnniDepthwiseRowBytes(const QuantizedConvSpec& s, int64_t w, int64_t ow) {
  const int64_t last = ((ow + 15) / 16 * 16 - 16) * s.stride_w + 64;
  return (std::max<int64_t>(last, s.pad_w + w) + 63) / 64 * 64;
}

EF_VBMI_DW void DepthwisePlaneVnni(const DepthwiseGeometry& g, const DepthwisePlane& p,
                                   uint8_t* plane) {
  const QuantizedConvSpec& s = *g.s;
  const int64_t prw = VnniDepthwiseRowBytes(s, g.w, g.ow);
  const uint8_t pad = static_cast<uint8_t>(s.in_zero_point ^ 0x80);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  for (int64_t r = 0; r < g.rows; ++r) {
    uint8_t* row = plane + r * prw;
    const int64_t ih = r - s.pad_h;
    std::memset(row, pad, prw);
    if (ih < 0 || ih >= g.h) continue;
    const int8_t* src = p.x + ih * g.w;
    for (int64_t c = 0; c < g.w; c += 64) {
      const int64_t n = std::min<int64_t>(64, g.w - c);
      const __mmask64 m = n == 64 ? ~static_cast<__mmask64>(0) : (static_cast<__mmask64>(1) << n) - 1;
      _mm512_mask_storeu_epi8(row + s.pad_w + c, m,
                              _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src + c), flip));
    }
  }
  // Per kernel row: the byte gather and the 4 weights.
  alignas(64) uint8_t idx_bytes[64];
  for (int l = 0; l < 16; ++l) {
    for (int b = 0; b < 4; ++b) {
      const int64_t kw = b < s.kernel_w ? b : 0;
      idx_bytes[4 * l + b] = static_cast<uint8_t>(l * s.stride_w + kw * s.dilation_w);
    }
  }
  const __m512i idx = _mm512_load_si512(idx_bytes);
  __m512i weights[kMaxTaps / 4];
  int32_t weight_sum = 0;
  for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
    int8_t w4[4] = {0, 0, 0, 0};
    for (int64_t kw = 0; kw < s.kernel_w; ++kw) {
      w4[kw] = static_cast<int8_t>(p.w[kh * s.kernel_w + kw]);
      weight_sum += w4[kw];
    }
    int32_t packed;
    std::memcpy(&packed, w4, 4);
    weights[kh] = _mm512_set1_epi32(packed);
  }
  const __m512i corr = _mm512_set1_epi32(-(s.in_zero_point + 128) * weight_sum);
  const __m512 scale = _mm512_set1_ps(p.scale), bias = _mm512_set1_ps(p.bias),
               inv = _mm512_set1_ps(g.inv), lo = _mm512_set1_ps(g.lo), hi = _mm512_set1_ps(g.hi);
  const __m512i zp = _mm512_set1_epi32(static_cast<int32_t>(g.zp));
  const int64_t row_step = static_cast<int64_t>(s.dilation_h) * prw;
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    const uint8_t* base = plane + oh * s.stride_h * prw;
    int8_t* out_row = p.y + oh * g.ow;
    for (int64_t c = 0; c < g.ow; c += 16) {
      const uint8_t* src = base + c * s.stride_w;
      __m512i acc = corr;
      for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
        const __m512i v = _mm512_permutexvar_epi8(idx, _mm512_loadu_si512(src + kh * row_step));
        acc = _mm512_dpbusd_epi32(acc, v, weights[kh]);
      }
      __m512 f = _mm512_cvtepi32_ps(acc);
      f = _mm512_mul_ps(f, scale);
      f = _mm512_add_ps(f, bias);
      f = _mm512_mul_ps(f, inv);
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
      const int64_t n = std::min<int64_t>(16, g.ow - c);
      const __mmask16 m = static_cast<__mmask16>(n == 16 ? 0xFFFF : (1u << n) - 1);
      _mm_mask_storeu_epi8(out_row + c, m, _mm512_cvtepi32_epi8(q));
    }
  }
}
#endif

bool RunDepthwise(KernelContext& ctx, const Packed& pk, const int8_t* x,
                  int8_t* y, int64_t batch, int64_t h, int64_t w, int64_t oh,
                  int64_t ow) {
  const QuantizedConvSpec& s = pk.spec;
  DepthwiseGeometry g;
  g.s = &s;
  g.h = h;
  g.w = w;
  g.oh = oh;
  g.ow = ow;
  // Dense columns computed per output row: ow' = ow * stride_w.
  const int64_t dense = (ow - 1) * s.stride_w + 1;
  g.dense_width = (dense + 15) / 16 * 16;
  g.row_width = g.dense_width + static_cast<int64_t>(s.kernel_w - 1) * s.dilation_w;
  g.row_width = std::max<int64_t>(g.row_width, (w + 15) / 16 * 16 + s.pad_w);
  g.rows = std::max<int64_t>((oh - 1) * s.stride_h +
                                 static_cast<int64_t>(s.kernel_h - 1) * s.dilation_h + 1,
                             0);
  g.inv = pk.inv_out_scale;
  g.lo = static_cast<float>(s.out_min - s.out_zero_point);
  g.hi = static_cast<float>(s.out_max - s.out_zero_point);
  g.zp = static_cast<float>(s.out_zero_point);
  g.isa = HostIsa();
#if defined(__x86_64__)
  if (g.isa == Isa::kAvx512 && h * w <= kTileMaxPixels) {
    const int64_t hp = h + 2 * s.pad_h, wp = w + 2 * s.pad_w;
    const int64_t groups_per_image = (s.out_channels + 15) / 16;
    const int64_t tasks = batch * groups_per_image;
    int tile_threads = static_cast<int>(std::min<int64_t>(ctx.num_threads(), tasks));
    if (batch * s.out_channels * oh * ow < 16384) tile_threads = 1;
    const size_t bytes = ChannelTileBytes(hp, wp, oh, ow);
    uint8_t* tile_scratch = nullptr;
    for (; tile_threads >= 1; --tile_threads) {
      tile_scratch = static_cast<uint8_t*>(ctx.AllocateTemp(bytes * tile_threads, kAlign));
      if (tile_scratch != nullptr) break;
    }
    if (tile_scratch != nullptr) {
      const int64_t chunk = (tasks + tile_threads - 1) / tile_threads;
      ParallelFor(tile_threads, tile_threads, [&](int64_t t) {
        uint8_t* base = tile_scratch + t * bytes;
        ChannelTileScratch sc;
        sc.tile = reinterpret_cast<float*>(base);
        sc.out = reinterpret_cast<int8_t*>(base + RoundUp(sizeof(float) * 16 * hp * wp));
        for (int64_t task = t * chunk; task < std::min(tasks, (t + 1) * chunk); ++task) {
          const int64_t n = task / groups_per_image, c0 = task % groups_per_image * 16;
          DepthwiseChannelTileAvx512(g, pk, x + n * s.in_channels * h * w,
                                     y + n * s.out_channels * oh * ow, c0,
                                     std::min<int64_t>(16, s.out_channels - c0), sc);
        }
      });
      return true;
    }
  }
#endif
  const int64_t planes = batch * s.out_channels;
  int threads = static_cast<int>(std::min<int64_t>(ctx.num_threads(), planes));
  if (planes * oh * ow < 16384) threads = 1;
  size_t plane_bytes = sizeof(float) * g.rows * g.row_width;
  size_t dense_bytes = RoundUp(g.dense_width + 64);
#if defined(__x86_64__)
  const bool phased = g.isa == Isa::kAvx512 && s.stride_w <= 2;
  const bool vnni = g.isa == Isa::kAvx512 && HostInt8Dot() == Int8Dot::kAvx512Vnni &&
                    HostVbmi() && VnniDepthwiseApplies(s);
  if (vnni) {
    // Rows of uint8, plus one vector of slack read past the last row.
    plane_bytes = static_cast<size_t>(g.rows * VnniDepthwiseRowBytes(s, w, ow) + 64);
  } else if (phased) {
    const PhasedLayout layout = PhasedDepthwiseLayout(s, w, ow);
    plane_bytes = sizeof(float) * s.stride_w * g.rows * layout.phase_width;
    dense_bytes = RoundUp(sizeof(float) * (layout.temp_width + 32));
  }
#endif
  const size_t per_thread = RoundUp(plane_bytes) + dense_bytes;
  uint8_t* scratch = nullptr;
  for (; threads >= 1; --threads) {
    scratch = static_cast<uint8_t*>(ctx.AllocateTemp(per_thread * threads, kAlign));
    if (scratch != nullptr) break;
  }
  if (scratch == nullptr) return false;
  const int64_t chunk = (planes + threads - 1) / threads;
  ParallelFor(threads, threads, [&](int64_t t) {
    DepthwisePlane p;
    p.plane = reinterpret_cast<float*>(scratch + t * per_thread);
    p.dense = reinterpret_cast<int8_t*>(scratch + t * per_thread + RoundUp(plane_bytes));
    const int64_t taps = static_cast<int64_t>(s.kernel_h) * s.kernel_w;
    for (int64_t i = t * chunk; i < std::min(planes, (t + 1) * chunk); ++i) {
      const int64_t c = i % s.out_channels;
      p.x = x + i * h * w;
      p.y = y + i * oh * ow;
      p.w = pk.float_weight() + c * taps;
      p.scale = pk.scale()[c];
      p.bias = pk.bias()[c];
#if defined(__x86_64__)
      if (vnni) {
        DepthwisePlaneVnni(g, p, reinterpret_cast<uint8_t*>(p.plane));
        continue;
      }
      if (phased) {
        float* temp = reinterpret_cast<float*>(p.dense);
        if (taps == 9) {
          DepthwisePlaneAvx512<9>(g, p, temp, taps);
        } else {
          DepthwisePlaneAvx512<0>(g, p, temp, taps);
        }
        continue;
      }
#endif
      RunVectorized<DepthwiseBody>(&g, &p);
    }
  });
  return true;
}

// ---- GEMM paths. ----

// col[k][p] for group g's depth rows (im2col), padding read as zx.
void Im2Col(const QuantizedConvSpec& s, const int8_t* x, int64_t h, int64_t w,
            int64_t oh, int64_t ow, int8_t* col) {
  const int64_t cin = s.in_channels / s.groups;
  const int8_t pad = static_cast<int8_t>(s.in_zero_point);
  const int64_t p = oh * ow;
  int64_t k = 0;
  for (int64_t ci = 0; ci < cin; ++ci) {
    const int8_t* plane = x + ci * h * w;
    for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < s.kernel_w; ++kw, ++k) {
        int8_t* dst_k = col + k * p;
        for (int64_t r = 0; r < oh; ++r) {
          int8_t* dst = dst_k + r * ow;
          const int64_t ih = r * s.stride_h - s.pad_h + kh * s.dilation_h;
          if (ih < 0 || ih >= h) {
            std::memset(dst, pad, ow);
            continue;
          }
          const int8_t* src = plane + ih * w;
          const int64_t off = kw * s.dilation_w - s.pad_w;
          // Columns reading inside the row: [c_lo, c_hi).
          const int64_t sw = s.stride_w;
          const int64_t c_lo = std::min<int64_t>(off >= 0 ? 0 : (-off + sw - 1) / sw, ow);
          const int64_t c_hi = std::max<int64_t>(
              std::min<int64_t>(off > w - 1 ? 0 : (w - 1 - off) / sw + 1, ow), c_lo);
          std::memset(dst, pad, c_lo);
          if (sw == 1) {
            std::memcpy(dst + c_lo, src + c_lo + off, c_hi - c_lo);
          } else {
            const int8_t* in = src + off;
            for (int64_t c = c_lo; c < c_hi; ++c) dst[c] = in[c * sw];
          }
          std::memset(dst + c_hi, pad, ow - c_hi);
        }
      }
    }
  }
}

// C (rows x n) for one group: pack the panels of B and multiply, panel by
// panel over the threads. False if scratch is missing.
bool GemmGroup(KernelContext& ctx, const Packed& pk, int64_t group,
               const int8_t* b, int64_t k_stride, int64_t j_stride, int64_t n,
               int8_t* out, int64_t row_stride, int64_t col_stride) {
  const QuantizedConvSpec& s = pk.spec;
  const int64_t rows = s.out_channels / s.groups;
  uint8_t* packed = static_cast<uint8_t*>(
      ctx.AllocateTemp(QGemmPackedBBytes(pk.depth, n), kAlign));
  if (packed == nullptr) return false;
  QGemmEpilogue e;
  e.correction = pk.correction() + group * rows;
  e.scale = pk.scale() + group * rows;
  e.bias = pk.bias() + group * rows;
  e.inv_out_scale = pk.inv_out_scale;
  e.out_zero_point = s.out_zero_point;
  e.out_min = s.out_min;
  e.out_max = s.out_max;
  e.out = out;
  e.row_stride = row_stride;
  e.col_stride = col_stride;
  const int8_t* a = pk.weight() + group * pk.rows_padded * pk.depth_padded;
  const int64_t panels = (n + kQGemmNr - 1) / kQGemmNr;
  const int threads = rows * n * pk.depth >= (1 << 20) ? ctx.num_threads() : 1;
  ParallelFor(panels, threads, [&](int64_t p) {
    QGemmPackB(b, pk.depth, n, k_stride, j_stride, packed, p, p + 1);
    QGemm(a, rows, pk.depth_padded, packed, n, p, p + 1, e);
  });
  return true;
}

bool RunConvGemm(KernelContext& ctx, const Packed& pk, const int8_t* x,
                 int8_t* y, int64_t batch, int64_t h, int64_t w, int64_t oh,
                 int64_t ow) {
  const QuantizedConvSpec& s = pk.spec;
  const int64_t cin = s.in_channels / s.groups, cout = s.out_channels / s.groups;
  const int64_t p = oh * ow;
  const bool direct = s.kernel_h == 1 && s.kernel_w == 1 && s.stride_h == 1 &&
                      s.stride_w == 1 && s.pad_h == 0 && s.pad_w == 0;
  int8_t* col = nullptr;
  if (!direct) {
    col = static_cast<int8_t*>(ctx.AllocateTemp(static_cast<size_t>(pk.depth * p), kAlign));
    if (col == nullptr) return false;
  }
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const int8_t* xg = x + (n * s.in_channels + g * cin) * h * w;
      int8_t* yg = y + (n * s.out_channels + g * cout) * p;
      const int8_t* b = xg;
      if (!direct) {
        Im2Col(s, xg, h, w, oh, ow, col);
        b = col;
      }
      if (!GemmGroup(ctx, pk, g, b, direct ? h * w : p, 1, p, yg, p, 1)) return false;
    }
  }
  return true;
}

const Packed* PeekPacked(const EValue* v) {
  if (v == nullptr || !v->is_tensor()) return nullptr;
  const Tensor& t = v->to_tensor();
  if (t.dtype() != ScalarType::kByte || t.dim() != 1 ||
      t.nbytes() < sizeof(Packed) ||
      reinterpret_cast<uintptr_t>(t.data()) % kAlign != 0) {
    return nullptr;
  }
  const Packed* p = t.data_as<const Packed>();
  if (p->magic != kMagic || p->total_bytes > t.nbytes() || !SpecOk(p->spec)) {
    return nullptr;
  }
  Packed check;
  if (Layout(p->spec, &check) != p->total_bytes || check.weight_offset != p->weight_offset ||
      check.panel_offset != p->panel_offset) {
    return nullptr;
  }
  return p;
}

#if defined(__x86_64__)
// One row of a linear layer, lanes over output features: x (+128, 4 bytes
// broadcast) times the weight panels. `row`: depth_padded bytes scratch.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma"))) void LinearRowVnni512(
    const Packed& pk, const int8_t* x, uint8_t* row, int8_t* out) {
  const QuantizedConvSpec& s = pk.spec;
  const int64_t k = s.in_channels, dp = pk.depth_padded, n = s.out_channels;
  for (int64_t i = 0; i < dp; ++i) row[i] = i < k ? static_cast<uint8_t>(x[i] ^ 0x80) : 0;
  const int8_t* panels = reinterpret_cast<const int8_t*>(pk.Bytes() + pk.panel_offset);
  const __m512 inv = _mm512_set1_ps(pk.inv_out_scale);
  const __m512 lo = _mm512_set1_ps(static_cast<float>(s.out_min - s.out_zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(s.out_max - s.out_zero_point));
  const __m512i zp = _mm512_set1_epi32(s.out_zero_point);
  for (int64_t n0 = 0; n0 < n; n0 += kQGemmNr) {
    const int8_t* panel = panels + n0 * dp;
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k4 = 0; k4 < dp / 4; ++k4) {
      int32_t xv;
      std::memcpy(&xv, row + 4 * k4, 4);
      const __m512i b = _mm512_set1_epi32(xv);
      const int8_t* wk = panel + k4 * kQGemmNr * 4;
      a0 = _mm512_dpbusd_epi32(a0, b, _mm512_loadu_si512(wk));
      a1 = _mm512_dpbusd_epi32(a1, b, _mm512_loadu_si512(wk + 64));
      a2 = _mm512_dpbusd_epi32(a2, b, _mm512_loadu_si512(wk + 128));
      a3 = _mm512_dpbusd_epi32(a3, b, _mm512_loadu_si512(wk + 192));
    }
    const __m512i acc[4] = {a0, a1, a2, a3};
    for (int v = 0; v < 4; ++v) {
      const int64_t j = n0 + 16 * v;
      if (j >= n) break;
      const int64_t cnt = std::min<int64_t>(16, n - j);
      const __mmask16 m = static_cast<__mmask16>(cnt == 16 ? 0xFFFF : (1u << cnt) - 1);
      __m512 f = _mm512_cvtepi32_ps(
          _mm512_add_epi32(acc[v], _mm512_maskz_loadu_epi32(m, pk.correction() + j)));
      f = _mm512_mul_ps(f, _mm512_maskz_loadu_ps(m, pk.scale() + j));
      f = _mm512_add_ps(f, _mm512_maskz_loadu_ps(m, pk.bias() + j));
      f = _mm512_mul_ps(f, inv);
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
      _mm_mask_storeu_epi8(out + j, m, _mm512_cvtepi32_epi8(q));
    }
  }
}
#endif

// The input's data, or a scratch copy of it when out shares its memory (the
// memory planner may give the output the bytes of an input whose last
// reader was the dequantize this kernel absorbed). Null: no scratch.
const int8_t* InputData(KernelContext& ctx, const Tensor& x, const Tensor& out) {
  if (!Overlaps(x, out)) return x.data_as<const int8_t>();
  void* copy = ctx.AllocateTemp(x.nbytes(), kAlign);
  if (copy != nullptr) std::memcpy(copy, x.data(), x.nbytes());
  return static_cast<const int8_t*>(copy);
}

}  // namespace

size_t QuantizedConvPackedBytes(const QuantizedConvSpec& spec) {
  if (!SpecOk(spec)) return 0;
  Packed p;
  return Layout(spec, &p);
}

bool PackQuantizedConv(const QuantizedConvSpec& spec, const int8_t* weight,
                       const float* weight_scale, const float* bias,
                       void* blob) {
  if (!SpecOk(spec) || reinterpret_cast<uintptr_t>(blob) % kAlign != 0) return false;
  Packed header{};
  const size_t total = Layout(spec, &header);
  header.magic = kMagic;
  header.inv_out_scale = static_cast<float>(1.0 / spec.out_scale);
  uint8_t* bytes = static_cast<uint8_t*>(blob);
  std::memset(bytes, 0, total);
  std::memcpy(bytes, &header, sizeof(header));
  int32_t* correction = reinterpret_cast<int32_t*>(bytes + header.correction_offset);
  float* scale = reinterpret_cast<float*>(bytes + header.scale_offset);
  float* b = reinterpret_cast<float*>(bytes + header.bias_offset);
  const int64_t depth = header.depth;
  const int64_t rows = spec.out_channels / spec.groups;
  for (int64_t c = 0; c < spec.out_channels; ++c) {
    scale[c] = spec.in_scale * weight_scale[c];
    b[c] = bias != nullptr ? bias[c] : 0.0f;
    const int8_t* wc = weight + c * depth;
    if (header.depthwise) {
      float* fw = reinterpret_cast<float*>(bytes + header.weight_offset) + c * depth;
      for (int64_t k = 0; k < depth; ++k) fw[k] = static_cast<float>(wc[k]);
      correction[c] = 0;
    } else {
      const int64_t g = c / rows, r = c % rows;
      int8_t* dst = reinterpret_cast<int8_t*>(bytes + header.weight_offset) +
                    (g * header.rows_padded + r) * header.depth_padded;
      int64_t sum = 0;
      for (int64_t k = 0; k < depth; ++k) {
        dst[k] = wc[k];
        sum += wc[k];
      }
      correction[c] = static_cast<int32_t>(-(128 + spec.in_zero_point) * sum);
      if (header.panel_offset != 0) {
        // panel[n / Nr][k / 4][n % Nr][k % 4] = W[n][k].
        int8_t* panels = reinterpret_cast<int8_t*>(bytes + header.panel_offset);
        int8_t* panel = panels + (c / kQGemmNr) * kQGemmNr * header.depth_padded;
        for (int64_t k = 0; k < depth; ++k) {
          panel[(k / 4) * kQGemmNr * 4 + (c % kQGemmNr) * 4 + k % 4] = wc[k];
        }
      }
    }
  }
  return true;
}

void QuantizedConvolutionOut(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4) return FailInvalid(ctx, "expected (input, packed, out, out)");
  const Packed* pk = PeekPacked(args[1]);
  if (pk == nullptr) return FailInvalid(ctx, "packed weights are missing or corrupt");
  Tensor* x = PeekTensor(args, 0);
  Tensor* out = PeekTensor(args, 2);
  if (x == nullptr || out == nullptr || x->dtype() != ScalarType::kChar ||
      out->dtype() != ScalarType::kChar || !x->IsDefaultDimOrder() ||
      !out->IsDefaultDimOrder()) {
    return FailInvalid(ctx, "input and out must be int8 tensors in the default dim order");
  }
  const QuantizedConvSpec& s = pk->spec;
  const Tensor* inputs[1] = {x};
  if (s.kind == QuantizedOpKind::kLinear) {
    if (x->dim() != 2 || x->size(1) != s.in_channels) {
      return FailInvalid(ctx, "linear input must be [M, in_features]");
    }
    const int32_t sizes[2] = {x->size(0), s.out_channels};
    if (!FitOut(*out, sizes, inputs)) return FailInvalid(ctx, "out has the wrong shape");
    const int64_t m = x->size(0);
    if (m == 0) return;
    const int8_t* xd = InputData(ctx, *x, *out);
#if defined(__x86_64__)
    if (xd != nullptr && HostInt8Dot() == Int8Dot::kAvx512Vnni) {
      uint8_t* row = static_cast<uint8_t*>(ctx.AllocateTemp(pk->depth_padded, kAlign));
      if (row != nullptr) {
        for (int64_t i = 0; i < m; ++i) {
          LinearRowVnni512(*pk, xd + i * s.in_channels, row,
                           out->data_as<int8_t>() + i * s.out_channels);
        }
        return;
      }
    }
#endif
    if (xd == nullptr || !GemmGroup(ctx, *pk, 0, xd, 1, s.in_channels, m,
                   out->data_as<int8_t>(), 1, s.out_channels)) {
      SetErrorDetail("%s: out of scratch memory", kName);
      ctx.Fail(Error::kMemoryAllocationFailed);
    }
    return;
  }
  if (x->dim() != 4 || x->size(1) != s.in_channels) {
    return FailInvalid(ctx, "input must be [N, in_channels, H, W]");
  }
  const int64_t h = x->size(2), w = x->size(3);
  const int64_t eff_h = static_cast<int64_t>(s.dilation_h) * (s.kernel_h - 1) + 1;
  const int64_t eff_w = static_cast<int64_t>(s.dilation_w) * (s.kernel_w - 1) + 1;
  const int64_t oh = (h + 2 * s.pad_h - eff_h) / s.stride_h + 1;
  const int64_t ow = (w + 2 * s.pad_w - eff_w) / s.stride_w + 1;
  if (h + 2 * s.pad_h < eff_h || w + 2 * s.pad_w < eff_w || oh > kMaxSize ||
      ow > kMaxSize) {
    return FailInvalid(ctx, "input is smaller than the kernel");
  }
  const int32_t sizes[4] = {x->size(0), s.out_channels, static_cast<int32_t>(oh),
                            static_cast<int32_t>(ow)};
  if (!FitOut(*out, sizes, inputs)) return FailInvalid(ctx, "out has the wrong shape");
  const int64_t batch = x->size(0);
  if (out->numel() == 0) return;
  const int8_t* xd = InputData(ctx, *x, *out);
  const bool ok = xd != nullptr &&
                  (pk->depthwise ? RunDepthwise(ctx, *pk, xd, out->data_as<int8_t>(), batch,
                                                h, w, oh, ow)
                                 : RunConvGemm(ctx, *pk, xd, out->data_as<int8_t>(), batch, h,
                                               w, oh, ow));
  if (!ok) {
    SetErrorDetail("%s: out of scratch memory", kName);
    ctx.Fail(Error::kMemoryAllocationFailed);
  }
}

const Kernel kQuantizedConvolutionKernel = {kName, QuantizedConvolutionOut, nullptr,
                                            KernelVariant::kOptimized};

}  // namespace optimized
}  // namespace edgefleet
