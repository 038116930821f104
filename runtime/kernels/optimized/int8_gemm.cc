#include "runtime/kernels/optimized/int8_gemm.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "runtime/kernels/optimized/avx512_intrinsics.h"
#include "runtime/kernels/optimized/cpu_features.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr int64_t kPanelK4Bytes = kQGemmNr * 4;  // one k4 step of a panel

#if defined(__x86_64__)
// AVX-VNNI: CPUID.(EAX=7, ECX=1):EAX bit 4 (clang 14 has no
// __builtin_cpu_supports name for it). Callers check AVX2 first, which
// covers the OS saving the YMM state.
bool HasAvxVnni() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 1, &a, &b, &c, &d) != 0 && ((a >> 4) & 1) != 0;
}
#endif

Int8Dot DetectInt8Dot() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
    return Int8Dot::kAvx512Vnni;
  }
  if (__builtin_cpu_supports("avx2") && HasAvxVnni()) {
    return Int8Dot::kAvxVnni;
  }
#endif
  return Int8Dot::kGeneric;
}

// One group of 4 depth rows x 16 columns, contiguous columns: interleaved
// so that each column's 4 bytes are adjacent, +128 as uint8.
#if defined(__x86_64__)
inline void Interleave16(const int8_t* r0, const int8_t* r1, const int8_t* r2, const int8_t* r3,
                         uint8_t* dst) {
  const __m128i flip = _mm_set1_epi8(static_cast<char>(0x80));
  const __m128i a0 = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r0)), flip);
  const __m128i a1 = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r1)), flip);
  const __m128i a2 = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r2)), flip);
  const __m128i a3 = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r3)), flip);
  const __m128i t01l = _mm_unpacklo_epi8(a0, a1), t01h = _mm_unpackhi_epi8(a0, a1);
  const __m128i t23l = _mm_unpacklo_epi8(a2, a3), t23h = _mm_unpackhi_epi8(a2, a3);
  __m128i* out = reinterpret_cast<__m128i*>(dst);
  _mm_storeu_si128(out + 0, _mm_unpacklo_epi16(t01l, t23l));
  _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(t01l, t23l));
  _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(t01h, t23h));
  _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(t01h, t23h));
}
#else
inline void Interleave16(const int8_t* r0, const int8_t* r1, const int8_t* r2, const int8_t* r3,
                         uint8_t* dst) {
  for (int j = 0; j < 16; ++j) {
    dst[4 * j + 0] = static_cast<uint8_t>(r0[j] ^ 0x80);
    dst[4 * j + 1] = static_cast<uint8_t>(r1[j] ^ 0x80);
    dst[4 * j + 2] = static_cast<uint8_t>(r2[j] ^ 0x80);
    dst[4 * j + 3] = static_cast<uint8_t>(r3[j] ^ 0x80);
  }
}
#endif

// ---- Micro-kernels: 6 rows of A x (16 * kNv) columns of one panel. ----

// Stores C[i][j0 + l] for l < valid from int32 lanes already requantized.
inline void StoreLanes(const QGemmEpilogue& e, int64_t i, int64_t j0, const int32_t* q,
                       int64_t valid) {
  int8_t* row = e.out + i * e.row_stride + j0 * e.col_stride;
  for (int64_t l = 0; l < valid; ++l) {
    row[l * e.col_stride] = static_cast<int8_t>(q[l]);
  }
}

void MicroGeneric(const int8_t* a, int64_t lda, const uint8_t* b, int64_t k4_count, int64_t rows,
                  int64_t j0, int64_t valid, int64_t row0, const QGemmEpilogue& e) {
  int32_t acc[kQGemmMr][kQGemmNr] = {};
  for (int64_t k4 = 0; k4 < k4_count; ++k4) {
    const uint8_t* bk = b + k4 * kPanelK4Bytes;
    for (int64_t i = 0; i < rows; ++i) {
      const int8_t* ai = a + i * lda + k4 * 4;
      const int32_t w0 = ai[0], w1 = ai[1], w2 = ai[2], w3 = ai[3];
      for (int64_t l = 0; l < valid; ++l) {
        const uint8_t* bl = bk + 4 * l;
        acc[i][l] += w0 * bl[0] + w1 * bl[1] + w2 * bl[2] + w3 * bl[3];
      }
    }
  }
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t r = row0 + i;
    int32_t q[kQGemmNr];
    for (int64_t l = 0; l < valid; ++l) {
      q[l] = Requantize(acc[i][l] + e.correction[r], e.scale[r], e.bias[r], e);
    }
    StoreLanes(e, r, j0, q, valid);
  }
}

#if defined(__x86_64__)
#define EF_VNNI512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma")))
#define EF_AVXVNNI __attribute__((target("avx2,fma,avxvnni")))

// The inner loop with named accumulators (GCC keeps arrays of vectors in
// memory across the loop); kNv vectors of 16 columns.
template <int kNv>
EF_VNNI512 void DotVnni512(const int8_t* a, int64_t lda, const uint8_t* b, int64_t k4_count,
                           __m512i acc[kQGemmMr][4]) {
  const __m512i z = _mm512_setzero_si512();
  __m512i c00 = z, c01 = z, c02 = z, c03 = z, c10 = z, c11 = z, c12 = z, c13 = z;
  __m512i c20 = z, c21 = z, c22 = z, c23 = z, c30 = z, c31 = z, c32 = z, c33 = z;
  __m512i c40 = z, c41 = z, c42 = z, c43 = z, c50 = z, c51 = z, c52 = z, c53 = z;
  const int8_t* a0 = a;
  const int8_t* a1 = a + lda;
  const int8_t* a2 = a + 2 * lda;
  const int8_t* a3 = a + 3 * lda;
  const int8_t* a4 = a + 4 * lda;
  const int8_t* a5 = a + 5 * lda;
  for (int64_t k4 = 0; k4 < k4_count; ++k4) {
    const uint8_t* bk = b + k4 * kPanelK4Bytes;
    const __m512i b0 = _mm512_loadu_si512(bk);
    const __m512i b1 = kNv > 1 ? _mm512_loadu_si512(bk + 64) : z;
    const __m512i b2 = kNv > 2 ? _mm512_loadu_si512(bk + 128) : z;
    const __m512i b3 = kNv > 3 ? _mm512_loadu_si512(bk + 192) : z;
#define EF_ROW(i)                                                \
  {                                                              \
    int32_t w;                                                   \
    std::memcpy(&w, a##i + 4 * k4, 4);                           \
    const __m512i wv = _mm512_set1_epi32(w);                     \
    c##i##0 = _mm512_dpbusd_epi32(c##i##0, b0, wv);              \
    if (kNv > 1) c##i##1 = _mm512_dpbusd_epi32(c##i##1, b1, wv); \
    if (kNv > 2) c##i##2 = _mm512_dpbusd_epi32(c##i##2, b2, wv); \
    if (kNv > 3) c##i##3 = _mm512_dpbusd_epi32(c##i##3, b3, wv); \
  }
    EF_ROW(0) EF_ROW(1) EF_ROW(2) EF_ROW(3) EF_ROW(4) EF_ROW(5)
#undef EF_ROW
  }
  acc[0][0] = c00;
  acc[0][1] = c01;
  acc[0][2] = c02;
  acc[0][3] = c03;
  acc[1][0] = c10;
  acc[1][1] = c11;
  acc[1][2] = c12;
  acc[1][3] = c13;
  acc[2][0] = c20;
  acc[2][1] = c21;
  acc[2][2] = c22;
  acc[2][3] = c23;
  acc[3][0] = c30;
  acc[3][1] = c31;
  acc[3][2] = c32;
  acc[3][3] = c33;
  acc[4][0] = c40;
  acc[4][1] = c41;
  acc[4][2] = c42;
  acc[4][3] = c43;
  acc[5][0] = c50;
  acc[5][1] = c51;
  acc[5][2] = c52;
  acc[5][3] = c53;
}

template <int kNv>
EF_VNNI512 void MicroVnni512(const int8_t* a, int64_t lda, const uint8_t* b, int64_t k4_count,
                             int64_t rows, int64_t j0, int64_t valid, int64_t row0,
                             const QGemmEpilogue& e) {
  __m512i acc[kQGemmMr][4];
  DotVnni512<kNv>(a, lda, b, k4_count, acc);
  const __m512 inv = _mm512_set1_ps(e.inv_out_scale);
  const __m512 lo = _mm512_set1_ps(static_cast<float>(e.out_min - e.out_zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(e.out_max - e.out_zero_point));
  const __m512i zp = _mm512_set1_epi32(e.out_zero_point);
  for (int i = 0; i < rows; ++i) {
    const int64_t r = row0 + i;
    const __m512i corr = _mm512_set1_epi32(e.correction[r]);
    const __m512 scale = _mm512_set1_ps(e.scale[r]);
    const __m512 bias = _mm512_set1_ps(e.bias[r]);
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) {
      __m512 f = _mm512_cvtepi32_ps(_mm512_add_epi32(acc[i][v], corr));
      f = _mm512_mul_ps(f, scale);
      f = _mm512_add_ps(f, bias);
      f = _mm512_mul_ps(f, inv);
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
      const int64_t j = j0 + 16 * v;
      const int64_t n_here = std::min<int64_t>(16, valid - 16 * v);
      if (n_here <= 0) break;
      if (e.col_stride == 1) {
        const __mmask16 mask = n_here == 16 ? static_cast<__mmask16>(0xFFFF)
                                            : static_cast<__mmask16>((1u << n_here) - 1);
        _mm_mask_storeu_epi8(e.out + r * e.row_stride + j, mask, _mm512_cvtepi32_epi8(q));
      } else {
        alignas(64) int32_t lanes[16];
        _mm512_store_si512(lanes, q);
        StoreLanes(e, r, j, lanes, n_here);
      }
    }
  }
}

// 3 rows x 32 columns (half a panel) with 12 ymm accumulators.
template <int kNv>
EF_AVXVNNI void MicroAvxVnniHalf(const int8_t* a, int64_t lda, const uint8_t* b, int64_t k4_count,
                                 int64_t rows, int64_t j0, int64_t valid, int64_t row0,
                                 const QGemmEpilogue& e) {
  constexpr int kMr = 3;
  __m256i acc[kMr][kNv];
  for (int i = 0; i < kMr; ++i) {
    for (int v = 0; v < kNv; ++v) acc[i][v] = _mm256_setzero_si256();
  }
  for (int64_t k4 = 0; k4 < k4_count; ++k4) {
    const uint8_t* bk = b + k4 * kPanelK4Bytes;
    __m256i bv[kNv];
#pragma GCC unroll 4
    for (int v = 0; v < kNv; ++v) {
      bv[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bk + 32 * v));
    }
#pragma GCC unroll 3
    for (int i = 0; i < kMr; ++i) {
      int32_t w;
      std::memcpy(&w, a + i * lda + 4 * k4, 4);
      const __m256i wv = _mm256_set1_epi32(w);
#pragma GCC unroll 4
      for (int v = 0; v < kNv; ++v) acc[i][v] = _mm256_dpbusd_avx_epi32(acc[i][v], bv[v], wv);
    }
  }
  const __m256 inv = _mm256_set1_ps(e.inv_out_scale);
  const __m256 lo = _mm256_set1_ps(static_cast<float>(e.out_min - e.out_zero_point));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(e.out_max - e.out_zero_point));
  const __m256i zp = _mm256_set1_epi32(e.out_zero_point);
  for (int i = 0; i < rows; ++i) {
    const int64_t r = row0 + i;
    const __m256i corr = _mm256_set1_epi32(e.correction[r]);
    const __m256 scale = _mm256_set1_ps(e.scale[r]);
    const __m256 bias = _mm256_set1_ps(e.bias[r]);
    for (int v = 0; v < kNv; ++v) {
      const int64_t n_here = std::min<int64_t>(8, valid - 8 * v);
      if (n_here <= 0) break;
      __m256 f = _mm256_cvtepi32_ps(_mm256_add_epi32(acc[i][v], corr));
      f = _mm256_mul_ps(f, scale);
      f = _mm256_add_ps(f, bias);
      f = _mm256_mul_ps(f, inv);
      f = _mm256_min_ps(_mm256_max_ps(f, lo), hi);
      alignas(32) int32_t lanes[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(lanes),
                         _mm256_add_epi32(_mm256_cvtps_epi32(f), zp));
      StoreLanes(e, r, j0 + 8 * v, lanes, n_here);
    }
  }
}
#endif  // __x86_64__

}  // namespace

Int8Dot HostInt8Dot() {
  static const Int8Dot detected = DetectInt8Dot();
  Int8Dot cap = Int8Dot::kAvx512Vnni;
  switch (HostIsa()) {
    case Isa::kGeneric:
      cap = Int8Dot::kGeneric;
      break;
    case Isa::kAvx2:
      cap = Int8Dot::kAvxVnni;
      break;
    case Isa::kAvx512:
      break;
  }
  Int8Dot level = static_cast<int>(detected) < static_cast<int>(cap) ? detected : cap;
  // An AVX-512 VNNI host capped at AVX2 uses AVX-VNNI only if it has it.
  if (level == Int8Dot::kAvxVnni && detected == Int8Dot::kAvx512Vnni) {
#if defined(__x86_64__)
    if (!HasAvxVnni()) level = Int8Dot::kGeneric;
#endif
  }
  return level;
}

const char* Int8DotName(Int8Dot level) {
  switch (level) {
    case Int8Dot::kAvxVnni:
      return "avx-vnni";
    case Int8Dot::kAvx512Vnni:
      return "avx512-vnni";
    default:
      return "generic";
  }
}

void QGemmPackB(const int8_t* b, int64_t depth, int64_t n, int64_t k_stride, int64_t j_stride,
                uint8_t* packed, int64_t p0, int64_t p1) {
  const int64_t dp = QGemmDepthPadded(depth);
  for (int64_t p = p0; p < p1; ++p) {
    uint8_t* panel = packed + p * kQGemmNr * dp;
    const int64_t j0 = p * kQGemmNr;
    const int64_t cols = std::min<int64_t>(kQGemmNr, n - j0);
    for (int64_t k4 = 0; k4 < dp / 4; ++k4) {
      uint8_t* dst = panel + k4 * kPanelK4Bytes;
      const int64_t k = 4 * k4;
      int64_t j = 0;
      if (j_stride == 1 && k + 4 <= depth) {
        const int8_t* r0 = b + k * k_stride + j0;
        for (; j + 16 <= cols; j += 16) {
          Interleave16(r0 + j, r0 + k_stride + j, r0 + 2 * k_stride + j, r0 + 3 * k_stride + j,
                       dst + 4 * j);
        }
      } else if (k_stride == 1 && k + 4 <= depth) {
        // Channels last: the 4 depth bytes of a column are contiguous.
        const int8_t* r0 = b + k + j0 * j_stride;
        for (; j < cols; ++j) {
          uint32_t v;
          std::memcpy(&v, r0 + j * j_stride, 4);
          v ^= 0x80808080u;
          std::memcpy(dst + 4 * j, &v, 4);
        }
      }
      for (; j < cols; ++j) {
        for (int64_t kk = 0; kk < 4; ++kk) {
          dst[4 * j + kk] =
              k + kk < depth
                  ? static_cast<uint8_t>(b[(k + kk) * k_stride + (j0 + j) * j_stride] ^ 0x80)
                  : 0;
        }
      }
      if (cols < kQGemmNr) std::memset(dst + 4 * cols, 0, 4 * (kQGemmNr - cols));
    }
  }
}

void QGemm(const int8_t* a, int64_t m, int64_t depth_padded, const uint8_t* packed_b, int64_t n,
           int64_t p0, int64_t p1, const QGemmEpilogue& e) {
  const Int8Dot level = HostInt8Dot();
  const int64_t k4_count = depth_padded / 4;
  for (int64_t p = p0; p < p1; ++p) {
    const uint8_t* panel = packed_b + p * kQGemmNr * depth_padded;
    const int64_t j0 = p * kQGemmNr;
    const int64_t valid = std::min<int64_t>(kQGemmNr, n - j0);
    for (int64_t i0 = 0; i0 < m; i0 += kQGemmMr) {
      const int8_t* ai = a + i0 * depth_padded;
      const int64_t rows = std::min<int64_t>(kQGemmMr, m - i0);
      switch (level) {
#if defined(__x86_64__)
        case Int8Dot::kAvx512Vnni:
          switch ((valid + 15) / 16) {
            case 1:
              MicroVnni512<1>(ai, depth_padded, panel, k4_count, rows, j0, valid, i0, e);
              break;
            case 2:
              MicroVnni512<2>(ai, depth_padded, panel, k4_count, rows, j0, valid, i0, e);
              break;
            case 3:
              MicroVnni512<3>(ai, depth_padded, panel, k4_count, rows, j0, valid, i0, e);
              break;
            default:
              MicroVnni512<4>(ai, depth_padded, panel, k4_count, rows, j0, valid, i0, e);
              break;
          }
          break;
        case Int8Dot::kAvxVnni:
          for (int64_t half = 0; half < 2; ++half) {
            const int64_t hv = std::min<int64_t>(32, valid - 32 * half);
            if (hv <= 0) break;
            for (int64_t i1 = 0; i1 < rows; i1 += 3) {
              const int64_t r3 = std::min<int64_t>(3, rows - i1);
              const int8_t* a3 = ai + i1 * depth_padded;
              const uint8_t* b3 = panel + 128 * half;
              const int64_t jh = j0 + 32 * half;
              if (hv > 16) {
                MicroAvxVnniHalf<4>(a3, depth_padded, b3, k4_count, r3, jh, hv, i0 + i1, e);
              } else {
                MicroAvxVnniHalf<2>(a3, depth_padded, b3, k4_count, r3, jh, hv, i0 + i1, e);
              }
            }
          }
          break;
#endif
        default:
          MicroGeneric(ai, depth_padded, panel, k4_count, rows, j0, valid, i0, e);
          break;
      }
    }
  }
}

}  // namespace optimized
}  // namespace edgefleet
