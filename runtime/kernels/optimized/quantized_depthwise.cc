#include "runtime/kernels/optimized/quantized_depthwise.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/avx512_intrinsics.h"
#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/int8_gemm.h"
#include "runtime/kernels/optimized/quantized_depthwise_variants.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace internal {
namespace {

// ---- Depthwise: exact float arithmetic on (x - zx) and integer weights. ----

// dst[i] = float(src[i]) - zx for i < n rounded up to 16; returns that.
#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bw"))) int64_t ConvertRowAvx512(const int8_t* src, float* dst,
                                                                     int64_t n, float zx) {
  const __m512 z = _mm512_set1_ps(zx);
  int64_t c = 0;
  for (; c < n; c += 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + c));
    _mm512_storeu_ps(dst + c, _mm512_sub_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b)), z));
  }
  return c;
}
__attribute__((target("avx2,fma"))) int64_t ConvertRowAvx2(const int8_t* src, float* dst, int64_t n,
                                                           float zx) {
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
    case Isa::kAvx512:
      return ConvertRowAvx512(src, dst, n, zx);
    case Isa::kAvx2:
      return ConvertRowAvx2(src, dst, n, zx);
    default:
      break;
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
    int64_t offsets[kMaxDepthwiseTaps];
    V weights[kMaxDepthwiseTaps];
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
                                                 const DepthwisePlane& p, const int64_t* offsets,
                                                 const Vf<W>* weights, int64_t taps = kTaps) {
    using V = Vf<W>;
    const QuantizedConvSpec& s = *g.s;
    const V scale = Splat<W>(p.scale), bias = Splat<W>(p.bias), inv = Splat<W>(g.inv),
            lo = Splat<W>(g.lo), hi = Splat<W>(g.hi), zp = Splat<W>(g.zp),
            magic = Splat<W>(12582912.0f);
    const int64_t n_taps = kTaps != 0 ? kTaps : taps;
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      const float* base = p.plane + oh * s.stride_h * g.row_width;
      int8_t* out_row = p.y + oh * g.ow;
      // Whole vectors straight into the output when they stay inside the
      // plane (the excess lands on rows written later), else via `dense`.
      const int64_t limit = s.stride_w == 1 ? g.ow : g.dense_width;
      const bool direct = s.stride_w == 1 && oh * g.ow + (g.ow + W - 1) / W * W <= g.oh * g.ow;
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
      const __m512i even =
          _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
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
  int64_t offsets[kMaxDepthwiseTaps];
  __m512 weights[kMaxDepthwiseTaps];
  for (int64_t t = 0; t < taps; ++t) {
    const int64_t kh = t / s.kernel_w, kw = t % s.kernel_w;
    const int64_t col = kw * s.dilation_w;
    offsets[t] = (col % sw) * phase_stride + kh * s.dilation_h * prw + col / sw;
    weights[t] = _mm512_set1_ps(p.w[t]);
  }
  const __m512 scale = _mm512_set1_ps(p.scale), bias = _mm512_set1_ps(p.bias),
               inv = _mm512_set1_ps(g.inv), lo = _mm512_set1_ps(g.lo), hi = _mm512_set1_ps(g.hi);
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
      const __mmask16 mask =
          n == 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
      _mm_mask_storeu_epi8(out_row + c, mask, _mm512_cvtepi32_epi8(q));
    }
  }
}
#endif

}  // namespace

bool RunDepthwise(KernelContext& ctx, const Packed& pk, const int8_t* x, int8_t* y, int64_t batch,
                  int64_t h, int64_t w, int64_t oh, int64_t ow) {
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
  g.rows = std::max<int64_t>(
      (oh - 1) * s.stride_h + static_cast<int64_t>(s.kernel_h - 1) * s.dilation_h + 1, 0);
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
  const bool vnni = g.isa == Isa::kAvx512 && HostInt8Dot() == Int8Dot::kAvx512Vnni && HostVbmi() &&
                    VnniDepthwiseApplies(s);
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

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet
