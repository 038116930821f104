#include "runtime/backends/xnnpack/int8_dot.h"

#include "runtime/kernels/optimized/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace edgefleet {
namespace xnnpack {
namespace {

int64_t ScalarDot(const int8_t* x, const int8_t* w, size_t k, int32_t x_zero, int32_t w_zero) {
  int64_t acc = 0;
  for (size_t c = 0; c < k; ++c) acc += int64_t{x[c] - x_zero} * (w[c] - w_zero);
  return acc;
}

#if defined(__x86_64__)
// Each step adds at most 2 * 255 * 255 to a 32-bit lane: flushing every
// 4096 steps keeps the lanes below 2^31.
constexpr size_t kFlushSteps = 4096;

__attribute__((target("avx2"))) int64_t Avx2Dot(const int8_t* x, const int8_t* w, size_t k,
                                                int32_t x_zero, int32_t w_zero) {
  const __m256i xz = _mm256_set1_epi16(static_cast<int16_t>(x_zero));
  const __m256i wz = _mm256_set1_epi16(static_cast<int16_t>(w_zero));
  int64_t total = 0;
  size_t c = 0;
  while (c + 16 <= k) {
    __m256i lanes = _mm256_setzero_si256();
    for (size_t step = 0; step < kFlushSteps && c + 16 <= k; ++step, c += 16) {
      const __m256i xv = _mm256_sub_epi16(
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + c))), xz);
      const __m256i wv = _mm256_sub_epi16(
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + c))), wz);
      lanes = _mm256_add_epi32(lanes, _mm256_madd_epi16(xv, wv));
    }
    alignas(32) int32_t part[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(part), lanes);
    for (int32_t v : part) total += v;
  }
  return total + ScalarDot(x + c, w + c, k - c, x_zero, w_zero);
}
#endif

}  // namespace

int64_t Int8Dot(const int8_t* x, const int8_t* w, size_t k, int32_t x_zero, int32_t w_zero) {
#if defined(__x86_64__)
  if (optimized::HostIsa() != optimized::Isa::kGeneric) return Avx2Dot(x, w, k, x_zero, w_zero);
#endif
  return ScalarDot(x, w, k, x_zero, w_zero);
}

}  // namespace xnnpack
}  // namespace edgefleet
