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
// Large planes on AVX-512 VNNI + VBMI: one VPDPBUSD per kernel row and 16
// outputs. The plane is copied as uint8 (x + 128, padding zx + 128); for
// each output vector VPERMB gathers, per lane, the kernel row's (up to 4)
// input bytes, multiplied with the row's 4 weights; the sum then holds
// sum (x - zx) * w + (zx + 128) * sum w, corrected per channel.

bool HostVbmi() {
  static const bool has = __builtin_cpu_supports("avx512vbmi");
  return has;
}

bool VnniDepthwiseApplies(const QuantizedConvSpec& s) {
  return s.kernel_w <= 4 && s.kernel_h <= kMaxDepthwiseTaps / 4 &&
         15 * static_cast<int64_t>(s.stride_w) +
                 (s.kernel_w - 1) * static_cast<int64_t>(s.dilation_w) <
             64;
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
      const __mmask64 m =
          n == 64 ? ~static_cast<__mmask64>(0) : (static_cast<__mmask64>(1) << n) - 1;
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
  __m512i weights[kMaxDepthwiseTaps / 4];
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

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet
