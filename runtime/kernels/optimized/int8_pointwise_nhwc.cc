#include "runtime/kernels/optimized/int8_pointwise_nhwc.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/avx512_intrinsics.h"
#include "runtime/kernels/optimized/int8_gemm.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr int64_t kMr = 6;  // rows (pixels) per tile
constexpr int64_t kPanelK4Bytes = kInt8PointwiseNr * 4;

#if defined(__x86_64__)
#define EF_POINTWISE_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

// The bytes of row `r` from k to its end (fewer than 4: the last group of a
// row whose depth is not a multiple of 4 must not read past it), zeros
// after them, +128, in every 32-bit lane.
EF_POINTWISE_VNNI inline __m512i Broadcast4(const int8_t* r, int64_t k, int64_t depth) {
  const __mmask16 mask = static_cast<__mmask16>((1u << (depth - k)) - 1);
  const __m128i v = _mm_maskz_loadu_epi8(mask, r + k);
  return _mm512_xor_si512(_mm512_broadcastd_epi32(v), _mm512_set1_epi8(static_cast<char>(0x80)));
}

// Copies n bytes without reading or writing past them.
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline void CopyBytes(int8_t* dst,
                                                                           const int8_t* src,
                                                                           int64_t n) {
  for (; n >= 64; n -= 64, src += 64, dst += 64) {
    _mm512_storeu_si512(dst, _mm512_loadu_si512(src));
  }
  if (n > 0) {
    const __mmask64 mask = (__mmask64{1} << n) - 1;
    _mm512_mask_storeu_epi8(dst, mask, _mm512_maskz_loadu_epi8(mask, src));
  }
}

// kMr rows x (16 * kNv) channels of panel `panel`; rows [0, rows) stored.
template <int kNv>
EF_POINTWISE_VNNI void Tile(const int8_t* const* row, int64_t depth, const int8_t* panel,
                            int64_t c0, int64_t units, const Int8PointwiseParams& q,
                            int8_t* const* out, int64_t rows) {
  __m512i acc[kMr][kNv];
#pragma GCC unroll 4
  for (int v = 0; v < kNv; ++v) {
    const __m512i corr = _mm512_loadu_si512(q.correction + c0 + 16 * v);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) acc[i][v] = corr;
  }
  const int64_t full = depth / 4;
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  for (int64_t k4 = 0; k4 < full; ++k4) {
    const int8_t* wk = panel + k4 * kPanelK4Bytes;
    __m512i w[kNv];
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) w[v] = _mm512_loadu_si512(wk + 64 * v);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      int32_t xv;
      std::memcpy(&xv, row[i] + 4 * k4, 4);
      const __m512i xb = _mm512_xor_si512(_mm512_set1_epi32(xv), flip);
#pragma GCC unroll 4
      for (int v = 0; v < kNv; ++v) acc[i][v] = _mm512_dpbusd_epi32(acc[i][v], xb, w[v]);
    }
  }
  if (full * 4 < depth) {
    const int8_t* wk = panel + full * kPanelK4Bytes;
    __m512i w[kNv];
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) w[v] = _mm512_loadu_si512(wk + 64 * v);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      const __m512i xb = Broadcast4(row[i], full * 4, depth);
#pragma GCC unroll 4
      for (int v = 0; v < kNv; ++v) acc[i][v] = _mm512_dpbusd_epi32(acc[i][v], xb, w[v]);
    }
  }
  // Requantization: the upper bound in float, then round; saturating packs
  // to int16 (+ zero point) and int8, and the lower bound on the bytes
  // (rounding and saturation are monotonic, so this is the clamp of the
  // formula in the header).
  __m512 scale[kNv];
#pragma GCC unroll 4
  for (int v = 0; v < kNv; ++v) scale[v] = _mm512_loadu_ps(q.scale + c0 + 16 * v);
  const __m512 hi = _mm512_set1_ps(static_cast<float>(q.out_max - q.out_zero_point));
  const __m512i zp = _mm512_set1_epi16(static_cast<int16_t>(q.out_zero_point));
  const __m512i lo = _mm512_set1_epi8(static_cast<char>(q.out_min));
  // After the packs, 32-bit element e holds 4 bytes of vector e % 4 from
  // 128-bit lane e / 4; element m of the output is vector m / 4, lane m % 4.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const int64_t valid = std::min<int64_t>(16 * kNv, units - c0);
  const __mmask64 mask = valid >= 64 ? ~__mmask64{0} : (__mmask64{1} << valid) - 1;
  // Every row's accumulators stay in registers: the loop runs over all kMr
  // rows (unrolled), storing only [0, rows).
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) {
    if (i >= rows) break;
    __m512i r[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                    _mm512_setzero_si512()};
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) {
      const __m512 f = _mm512_min_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc[i][v]), scale[v]), hi);
      r[v] = _mm512_cvtps_epi32(f);
    }
    const __m512i h01 = _mm512_adds_epi16(_mm512_packs_epi32(r[0], r[1]), zp);
    const __m512i h23 = _mm512_adds_epi16(_mm512_packs_epi32(r[2], r[3]), zp);
    const __m512i b =
        _mm512_max_epi8(_mm512_permutexvar_epi32(order, _mm512_packs_epi16(h01, h23)), lo);
    _mm512_mask_storeu_epi8(out[i] + c0, mask, b);
  }
}

using TileFn = void (*)(const int8_t* const*, int64_t, const int8_t*, int64_t, int64_t,
                        const Int8PointwiseParams&, int8_t* const*, int64_t);

#else
inline void CopyBytes(int8_t* dst, const int8_t* src, int64_t n) {
  std::memcpy(dst, src, static_cast<size_t>(n));
}
#endif

}  // namespace

bool Int8PointwiseAvailable() { return HostInt8Dot() == Int8Dot::kAvx512Vnni; }

void PackInt8Pointwise(const int8_t* w, int64_t units, int64_t depth, int8_t* packed) {
  const int64_t dp = (depth + 3) / 4 * 4;
  const int64_t panels = Int8PointwiseUnitsPadded(units) / kInt8PointwiseNr;
  std::memset(packed, 0, Int8PointwisePackedBytes(units, depth));
  for (int64_t p = 0; p < panels; ++p) {
    int8_t* panel = packed + p * kInt8PointwiseNr * dp;
    const int64_t c0 = p * kInt8PointwiseNr;
    const int64_t channels = std::min<int64_t>(kInt8PointwiseNr, units - c0);
    for (int64_t k = 0; k < depth; k += 4) {  // written in order, 4 bytes per channel
      const size_t n = static_cast<size_t>(std::min<int64_t>(4, depth - k));
      int8_t* dst = panel + (k / 4) * kPanelK4Bytes;
      for (int64_t j = 0; j < channels; ++j) std::memcpy(dst + 4 * j, w + (c0 + j) * depth + k, n);
    }
  }
}

void Int8PointwiseRows(const int8_t* x, int64_t depth, const int8_t* packed, int64_t units,
                       const Int8PointwiseParams& params, int8_t* y, int64_t p0, int64_t p1) {
#if defined(__x86_64__)
  const int64_t dp = (depth + 3) / 4 * 4;
  const int64_t panels = Int8PointwiseUnitsPadded(units) / kInt8PointwiseNr;
  for (int64_t r0 = p0; r0 < p1; r0 += kMr) {
    const int64_t rows = std::min<int64_t>(kMr, p1 - r0);
    const int8_t* row[kMr];
    int8_t* out[kMr];
    for (int64_t i = 0; i < kMr; ++i) {
      const int64_t r = r0 + std::min(i, rows - 1);  // missing rows repeat the last
      row[i] = x + r * depth;
      out[i] = y + r * units;
    }
    for (int64_t p = 0; p < panels; ++p) {
      const int64_t c0 = p * kInt8PointwiseNr;
      const int64_t vectors = std::min<int64_t>(4, (units - c0 + 15) / 16);
      static constexpr TileFn kTiles[4] = {Tile<1>, Tile<2>, Tile<3>, Tile<4>};
      kTiles[vectors - 1](row, depth, packed + p * kInt8PointwiseNr * dp, c0, units, params, out,
                          rows);
    }
  }
#else
  (void)x, (void)depth, (void)packed, (void)units, (void)params, (void)y, (void)p0, (void)p1;
#endif
}

void GatherInt8Patches(const ConvGeometry& g, int8_t pad_value, const int8_t* x, int64_t p0,
                       int64_t p1, int64_t row_bytes, int8_t* dst) {
  const int64_t c = g.in_c;
  const int64_t span = g.k_w * c;  // one window row, contiguous in x when dilation is 1
  const int64_t depth = g.k_h * span;
  const int64_t plane = g.out_pixels();
  int64_t image = p0 / plane, oh = p0 % plane / g.out_w, ow = p0 % g.out_w;
  for (int64_t p = p0; p < p1; ++p, dst += row_bytes) {
    const int8_t* src_image = x + image * g.in_h * g.in_w * c;
    const int64_t iw0 = ow * g.stride[1] - g.pad[1];
    const bool cols_inside = g.dilation[1] == 1 && iw0 >= 0 && iw0 + g.k_w <= g.in_w;
    int8_t* out = dst;
    for (int64_t kh = 0; kh < g.k_h; ++kh, out += span) {
      const int64_t ih = oh * g.stride[0] - g.pad[0] + kh * g.dilation[0];
      if (ih < 0 || ih >= g.in_h) {
        std::memset(out, pad_value, static_cast<size_t>(span));
        continue;
      }
      const int8_t* src_row = src_image + ih * g.in_w * c;
      if (cols_inside) {
        CopyBytes(out, src_row + iw0 * c, span);
        continue;
      }
      for (int64_t kw = 0; kw < g.k_w; ++kw) {
        const int64_t iw = iw0 + kw * g.dilation[1];
        if (iw >= 0 && iw < g.in_w) {
          CopyBytes(out + kw * c, src_row + iw * c, c);
        } else {
          std::memset(out + kw * c, pad_value, static_cast<size_t>(c));
        }
      }
    }
    if (row_bytes > depth) std::memset(dst + depth, 0, static_cast<size_t>(row_bytes - depth));
    if (++ow == g.out_w) {
      ow = 0;
      if (++oh == g.out_h) {
        oh = 0;
        ++image;
      }
    }
  }
}

}  // namespace optimized
}  // namespace edgefleet
