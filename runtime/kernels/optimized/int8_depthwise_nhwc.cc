#include "runtime/kernels/optimized/int8_depthwise_nhwc.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/avx512_intrinsics.h"

namespace edgefleet {
namespace optimized {
namespace {

// Per block: correction and scale (64 each, in lane order), then per group
// of 4 taps 4 vectors of 64 bytes.
constexpr int64_t kGroupBytes = 4 * 64;

int64_t Groups(int64_t taps) { return (taps + 3) / 4; }

int64_t BlockBytes(int64_t taps) {
  return kInt8DepthwiseBlock * (sizeof(int32_t) + sizeof(float)) + Groups(taps) * kGroupBytes;
}

// Channel (within a block) of element e of vector j in lane order: 128-bit
// lane L = e / 4 holds channels 16 L + 4 j + (e % 4).
int64_t LaneChannel(int64_t j, int64_t e) { return 16 * (e / 4) + 4 * j + e % 4; }

}  // namespace

size_t Int8DepthwisePackedBytes(int64_t channels, int64_t taps) {
  const int64_t blocks = (channels + kInt8DepthwiseBlock - 1) / kInt8DepthwiseBlock;
  return static_cast<size_t>(blocks * BlockBytes(taps));
}

void PackInt8Depthwise(const int8_t* w, const int32_t* correction, const float* scale,
                       int64_t channels, int64_t taps, uint8_t* packed) {
  const int64_t blocks = (channels + kInt8DepthwiseBlock - 1) / kInt8DepthwiseBlock;
  std::memset(packed, 0, Int8DepthwisePackedBytes(channels, taps));
  for (int64_t b = 0; b < blocks; ++b) {
    uint8_t* block = packed + b * BlockBytes(taps);
    auto* corr = reinterpret_cast<int32_t*>(block);
    auto* sc = reinterpret_cast<float*>(block + kInt8DepthwiseBlock * sizeof(int32_t));
    auto* wq = reinterpret_cast<int8_t*>(block + kInt8DepthwiseBlock * 8);
    for (int64_t j = 0; j < 4; ++j) {
      for (int64_t e = 0; e < 16; ++e) {
        const int64_t c = b * kInt8DepthwiseBlock + LaneChannel(j, e);
        if (c >= channels) continue;
        corr[16 * j + e] = correction[c];
        sc[16 * j + e] = scale[c];
        for (int64_t t = 0; t < taps; ++t) {
          // Group t / 4, vector j, element e, byte t % 4.
          wq[(t / 4) * kGroupBytes + 64 * j + 4 * e + t % 4] = w[t * channels + c];
        }
      }
    }
  }
}

#if defined(__x86_64__)
#define EF_DW_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

// round_half_even(min(float(acc) * scale, hi)), as int8_pointwise_nhwc.cc.
EF_DW_VNNI inline __m512i Requantize(__m512i acc, const float* scale, __m512 hi) {
  const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_load_ps(scale));
  return _mm512_cvtps_epi32(_mm512_min_ps(f, hi));
}

EF_DW_VNNI void Int8DepthwiseRowsVnni(const ConvGeometry& g, const int8_t* x, const int8_t* pad_row,
                                      const uint8_t* packed, int32_t out_zero_point,
                                      int32_t out_min, int32_t out_max, int8_t* y, int64_t p0,
                                      int64_t p1) {
  const int64_t channels = g.in_c;
  const int64_t taps = g.taps();
  const int64_t groups = Groups(taps);
  const int64_t blocks = (channels + kInt8DepthwiseBlock - 1) / kInt8DepthwiseBlock;
  const int64_t block_bytes = BlockBytes(taps);
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(out_max - out_zero_point));
  const __m512i zp = _mm512_set1_epi16(static_cast<int16_t>(out_zero_point));
  const __m512i lo = _mm512_set1_epi8(static_cast<char>(out_min));
  const int8_t* tap[4 * ((kInt8DepthwiseMaxTaps + 3) / 4)];
  int64_t offset[kInt8DepthwiseMaxTaps];  // of each tap from the window's corner, inside
  for (int64_t kh = 0, t = 0; kh < g.k_h; ++kh) {
    for (int64_t kw = 0; kw < g.k_w; ++kw, ++t) {
      offset[t] = (kh * g.dilation[0] * g.in_w + kw * g.dilation[1]) * channels;
    }
  }
  for (int64_t t = taps; t < 4 * groups; ++t) tap[t] = pad_row;  // zero weights
  const int64_t plane = g.out_pixels();
  int64_t image = p0 / plane, oh = p0 % plane / g.out_w, ow = p0 % g.out_w;
  for (int64_t p = p0; p < p1; ++p) {
    const int8_t* src_image = x + image * g.in_h * g.in_w * channels;
    const int64_t ih0 = oh * g.stride[0] - g.pad[0], iw0 = ow * g.stride[1] - g.pad[1];
    if (ih0 >= 0 && ih0 + (g.k_h - 1) * g.dilation[0] < g.in_h && iw0 >= 0 &&
        iw0 + (g.k_w - 1) * g.dilation[1] < g.in_w) {
      const int8_t* corner = src_image + (ih0 * g.in_w + iw0) * channels;
      for (int64_t t = 0; t < taps; ++t) tap[t] = corner + offset[t];
    } else {
      for (int64_t kh = 0, t = 0; kh < g.k_h; ++kh) {
        const int64_t ih = ih0 + kh * g.dilation[0];
        for (int64_t kw = 0; kw < g.k_w; ++kw, ++t) {
          const int64_t iw = iw0 + kw * g.dilation[1];
          const bool inside = ih >= 0 && ih < g.in_h && iw >= 0 && iw < g.in_w;
          tap[t] = inside ? src_image + (ih * g.in_w + iw) * channels : pad_row;
        }
      }
    }
    if (++ow == g.out_w) {
      ow = 0;
      if (++oh == g.out_h) {
        oh = 0;
        ++image;
      }
    }
    int8_t* out = y + p * channels;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t c0 = b * kInt8DepthwiseBlock;
      const int64_t valid = std::min<int64_t>(kInt8DepthwiseBlock, channels - c0);
      const __mmask64 mask = valid >= 64 ? ~__mmask64{0} : (__mmask64{1} << valid) - 1;
      const uint8_t* block = packed + b * block_bytes;
      const auto* corr = reinterpret_cast<const int32_t*>(block);
      const auto* sc = reinterpret_cast<const float*>(block + kInt8DepthwiseBlock * 4);
      const uint8_t* wq = block + kInt8DepthwiseBlock * 8;
      __m512i acc0 = _mm512_load_si512(corr), acc1 = _mm512_load_si512(corr + 16);
      __m512i acc2 = _mm512_load_si512(corr + 32), acc3 = _mm512_load_si512(corr + 48);
      for (int64_t gi = 0; gi < groups; ++gi) {
        const int8_t* const* t4 = tap + 4 * gi;
        const __m512i a = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, t4[0] + c0), flip);
        const __m512i bb = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, t4[1] + c0), flip);
        const __m512i c = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, t4[2] + c0), flip);
        const __m512i d = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, t4[3] + c0), flip);
        const __m512i ab_lo = _mm512_unpacklo_epi8(a, bb), ab_hi = _mm512_unpackhi_epi8(a, bb);
        const __m512i cd_lo = _mm512_unpacklo_epi8(c, d), cd_hi = _mm512_unpackhi_epi8(c, d);
        const uint8_t* wg = wq + gi * kGroupBytes;
        acc0 =
            _mm512_dpbusd_epi32(acc0, _mm512_unpacklo_epi16(ab_lo, cd_lo), _mm512_load_si512(wg));
        acc1 = _mm512_dpbusd_epi32(acc1, _mm512_unpackhi_epi16(ab_lo, cd_lo),
                                   _mm512_load_si512(wg + 64));
        acc2 = _mm512_dpbusd_epi32(acc2, _mm512_unpacklo_epi16(ab_hi, cd_hi),
                                   _mm512_load_si512(wg + 128));
        acc3 = _mm512_dpbusd_epi32(acc3, _mm512_unpackhi_epi16(ab_hi, cd_hi),
                                   _mm512_load_si512(wg + 192));
      }
      // The packs put the lane-ordered channels back in order.
      const __m512i h01 = _mm512_adds_epi16(
          _mm512_packs_epi32(Requantize(acc0, sc, hi), Requantize(acc1, sc + 16, hi)), zp);
      const __m512i h23 = _mm512_adds_epi16(
          _mm512_packs_epi32(Requantize(acc2, sc + 32, hi), Requantize(acc3, sc + 48, hi)), zp);
      _mm512_mask_storeu_epi8(out + c0, mask, _mm512_max_epi8(_mm512_packs_epi16(h01, h23), lo));
    }
  }
}
#endif

void Int8DepthwiseRows(const ConvGeometry& g, const int8_t* x, const int8_t* pad_row,
                       const uint8_t* packed, int32_t out_zero_point, int32_t out_min,
                       int32_t out_max, int8_t* y, int64_t p0, int64_t p1) {
#if defined(__x86_64__)
  Int8DepthwiseRowsVnni(g, x, pad_row, packed, out_zero_point, out_min, out_max, y, p0, p1);
#else
  (void)g, (void)x, (void)pad_row, (void)packed, (void)out_zero_point, (void)out_min;
  (void)out_max, (void)y, (void)p0, (void)p1;
#endif
}

}  // namespace optimized
}  // namespace edgefleet
