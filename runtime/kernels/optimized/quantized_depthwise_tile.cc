#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/avx512_intrinsics.h"
#include "runtime/kernels/optimized/quantized_depthwise.h"
#include "runtime/kernels/optimized/quantized_depthwise_variants.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace optimized {
namespace internal {

#if defined(__x86_64__)
// Small planes: 16 channels at a time, one channel per lane, so there is no
// per-plane overhead and no idle lanes on 7 x 7 images. Blocks of 16
// positions x 16 channels are transposed (bytes) into a zero-padded
// channel-minor float tile, the taps summed per output position, and the
// int8 results transposed back into NCHW rows.
size_t ChannelTileBytes(int64_t hp, int64_t wp, int64_t oh, int64_t ow) {
  return RoundUp(sizeof(float) * 16 * hp * wp) + RoundUp(16 * (oh * ow + 16));
}

namespace {

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

}  // namespace

EF_AVX512_DW void DepthwiseChannelTileAvx512(const DepthwiseGeometry& g, const Packed& pk,
                                             const int8_t* x, int8_t* y, int64_t c0, int64_t nc,
                                             const ChannelTileScratch& sc) {
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
  __m512 weights[kMaxDepthwiseTaps];
  for (int64_t t = 0; t < taps; ++t) {
    alignas(64) float wl[16] = {};
    for (int64_t c = 0; c < nc; ++c) wl[c] = pk.float_weight()[(c0 + c) * taps + t];
    weights[t] = _mm512_load_ps(wl);
  }
  int64_t offsets[kMaxDepthwiseTaps];
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

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet
