#include "runtime/kernels/optimized/gemm_microkernel.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

// How a micro-kernel finds row p of its B tile.
struct PackedB {
  const float* b;
  int64_t ldb;
  const float* row(int64_t p) const { return b + p * ldb; }
};
struct RowsB {
  const float* const* rows;
  int64_t col;
  const float* row(int64_t p) const { return rows[p] + col; }
};

// How a micro-kernel reads A(i, p): a packed panel (kMr values per p) or
// kMr rows in place.
template <int kMr>
struct PackedA {
  const float* a;
  explicit PackedA(AOperand op) : a(op.a) {}
  float at(int i) const { return a[i]; }
  void next() { a += kMr; }
};
template <int kMr>
struct RowsA {
  // Row i at a + i * lda: rows 0..3 off a, 4..7 off a + 4 * lda, 8..11 off
  // a + 8 * lda, each as base + {0, 1, 2, 3} * lda (one add per step for
  // all rows, instead of one per row).
  const float* base[(kMr + 3) / 4];
  int64_t lda;
  explicit RowsA(AOperand op) : lda(op.lda) {
    for (int q = 0; q < (kMr + 3) / 4; ++q) base[q] = op.a + 4 * q * op.lda;
  }
  float at(int i) const { return base[i / 4][(i % 4) * lda]; }
  void next() {
#pragma GCC unroll 4
    for (int q = 0; q < (kMr + 3) / 4; ++q) ++base[q];
  }
};

// Baseline: 4 x 8 with 4-float vectors (SSE2, NEON): 8 accumulators.
template <typename A, typename B>
void MicroGeneric(int64_t kc, AOperand a_op, B b, float* c, int64_t ldc,
                  bool accumulate, const TileEpilogue* ep) {
  constexpr int kMr = 4;
  using V = Vf<4>;
  A a(a_op);
  V acc[kMr][2] = {};
  for (int64_t p = 0; p < kc; ++p) {
    const float* bp = b.row(p);
    const V b0 = Load<4>(bp), b1 = Load<4>(bp + 4);
#pragma GCC unroll 4
    for (int i = 0; i < kMr; ++i) {
      const V ai = Splat<4>(a.at(i));
      acc[i][0] += ai * b0;
      acc[i][1] += ai * b1;
    }
    a.next();
  }
#pragma GCC unroll 4
  for (int i = 0; i < kMr; ++i) {
    float* row = c + i * ldc;
    if (accumulate) {
      acc[i][0] += Load<4>(row);
      acc[i][1] += Load<4>(row + 4);
    }
    if (ep != nullptr) {
      for (int h = 0; h < 2; ++h) {
        V v = acc[i][h];
        if (ep->row_bias != nullptr) v += Splat<4>(ep->row_bias[i]);
        if (ep->col_bias != nullptr) v += Load<4>(ep->col_bias + 4 * h);
        acc[i][h] = EpilogueV<4>(v, Splat<4>(ep->lo), Splat<4>(ep->hi), ep->post);
      }
    }
    Store<4>(row, acc[i][0]);
    Store<4>(row + 4, acc[i][1]);
  }
}

// Clamp and post-op (EpilogueV) on 2W floats of a stored C row, still in
// L1. The micro-kernels call it after their stores: a helper without their
// target attribute may take pointers but not __m256/__m512 values (clang
// rejects the ABI change).
template <int W>
[[gnu::always_inline]] inline void EpilogueRow(float* row, float lo, float hi, PostOp post) {
  const Vf<W> vlo = Splat<W>(lo), vhi = Splat<W>(hi);
  for (int h = 0; h < 2; ++h) {
    Store<W>(row + W * h, EpilogueV<W>(Load<W>(row + W * h), vlo, vhi, post));
  }
}

#if defined(__x86_64__)
// AVX2 + FMA: 6 x 16, 12 accumulators of the 16 ymm registers.
template <typename A, typename B>
__attribute__((target("avx2,fma"))) void MicroAvx2(int64_t kc, AOperand a_op,
                                                   B b, float* c, int64_t ldc,
                                                   bool accumulate,
                                                   const TileEpilogue* ep) {
  constexpr int kMr = 6;
  A a(a_op);
  __m256 acc[kMr][2];
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) {
    acc[i][0] = _mm256_setzero_ps();
    acc[i][1] = _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    const float* bp = b.row(p);
    const __m256 b0 = _mm256_loadu_ps(bp), b1 = _mm256_loadu_ps(bp + 8);
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      const __m256 ai = _mm256_set1_ps(a.at(i));
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
    a.next();
  }
#pragma GCC unroll 6
  for (int i = 0; i < kMr; ++i) {
    float* row = c + i * ldc;
    if (accumulate) {
      acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_loadu_ps(row));
      acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_loadu_ps(row + 8));
    }
    if (ep != nullptr) {
      for (int h = 0; h < 2; ++h) {
        __m256 v = acc[i][h];
        if (ep->row_bias != nullptr) v = _mm256_add_ps(v, _mm256_set1_ps(ep->row_bias[i]));
        if (ep->col_bias != nullptr) v = _mm256_add_ps(v, _mm256_loadu_ps(ep->col_bias + 8 * h));
        acc[i][h] = v;
      }
    }
    _mm256_storeu_ps(row, acc[i][0]);
    _mm256_storeu_ps(row + 8, acc[i][1]);
    if (ep != nullptr) EpilogueRow<8>(row, ep->lo, ep->hi, ep->post);
  }
}

// AVX-512: kMr x 32, 2 * kMr accumulators of the 32 zmm registers.
template <int kMr, typename A, typename B>
__attribute__((target("avx512f,avx2,fma"))) void MicroAvx512(
    int64_t kc, AOperand a_op, B b, float* c, int64_t ldc, bool accumulate,
    const TileEpilogue* ep) {
  A a(a_op);
  __m512 acc[kMr][2];
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kc; ++p) {
    const float* bp = b.row(p);
    const __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16);
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      const __m512 ai = _mm512_set1_ps(a.at(i));
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    a.next();
  }
#pragma GCC unroll 16
  for (int i = 0; i < kMr; ++i) {
    float* row = c + i * ldc;
    if (accumulate) {
      acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_loadu_ps(row));
      acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_loadu_ps(row + 16));
    }
    if (ep != nullptr) {
      for (int h = 0; h < 2; ++h) {
        __m512 v = acc[i][h];
        if (ep->row_bias != nullptr) v = _mm512_add_ps(v, _mm512_set1_ps(ep->row_bias[i]));
        if (ep->col_bias != nullptr) v = _mm512_add_ps(v, _mm512_loadu_ps(ep->col_bias + 16 * h));
        acc[i][h] = v;
      }
    }
    _mm512_storeu_ps(row, acc[i][0]);
    _mm512_storeu_ps(row + 16, acc[i][1]);
    if (ep != nullptr) EpilogueRow<16>(row, ep->lo, ep->hi, ep->post);
  }
}
#endif

// The entry points of a micro-kernel template: packed or in-place A, times
// packed or in-place B.
template <template <typename, typename> class Kernel>
struct Entry {
  template <typename A>
  static void Fn(int64_t kc, AOperand a, const float* b, int64_t ldb,
                 float* c, int64_t ldc, bool accumulate,
                 const TileEpilogue* ep) {
    Kernel<A, PackedB>::Run(kc, a, PackedB{b, ldb}, c, ldc, accumulate, ep);
  }
  template <typename A>
  static void RowsFn(int64_t kc, AOperand a, const float* const* rows,
                     int64_t col, float* c, int64_t ldc, bool accumulate,
                     const TileEpilogue* ep) {
    Kernel<A, RowsB>::Run(kc, a, RowsB{rows, col}, c, ldc, accumulate, ep);
  }
};

template <typename A, typename B>
struct Generic {
  static void Run(int64_t kc, AOperand a, B b, float* c, int64_t ldc,
                  bool accumulate, const TileEpilogue* ep) {
    MicroGeneric<A, B>(kc, a, b, c, ldc, accumulate, ep);
  }
};
using GenericEntry = Entry<Generic>;
constexpr MicroKernel kGeneric = {
    {GenericEntry::Fn<PackedA<4>>, GenericEntry::Fn<RowsA<4>>},
    {GenericEntry::RowsFn<PackedA<4>>, GenericEntry::RowsFn<RowsA<4>>},
    4, 8, 256, 128, 1024};
#if defined(__x86_64__)
template <typename A, typename B>
struct Avx2 {
  static void Run(int64_t kc, AOperand a, B b, float* c, int64_t ldc,
                  bool accumulate, const TileEpilogue* ep) {
    MicroAvx2<A, B>(kc, a, b, c, ldc, accumulate, ep);
  }
};
template <typename A, typename B>
struct Avx512 {
  static void Run(int64_t kc, AOperand a, B b, float* c, int64_t ldc,
                  bool accumulate, const TileEpilogue* ep) {
    MicroAvx512<12, A, B>(kc, a, b, c, ldc, accumulate, ep);
  }
};
using Avx2Entry = Entry<Avx2>;
using Avx512Entry = Entry<Avx512>;
constexpr MicroKernel kAvx2 = {
    {Avx2Entry::Fn<PackedA<6>>, Avx2Entry::Fn<RowsA<6>>},
    {Avx2Entry::RowsFn<PackedA<6>>, Avx2Entry::RowsFn<RowsA<6>>},
    6, 16, 256, 144, 1024};
constexpr MicroKernel kAvx512 = {
    {Avx512Entry::Fn<PackedA<12>>, Avx512Entry::Fn<RowsA<12>>},
    {Avx512Entry::RowsFn<PackedA<12>>, Avx512Entry::RowsFn<RowsA<12>>},
    12, 32, 256, 192, 1024};
#endif

}  // namespace

const MicroKernel& GetMicroKernel(Isa isa) {
#if defined(__x86_64__)
  if (isa == Isa::kAvx512) return kAvx512;
  if (isa == Isa::kAvx2) return kAvx2;
#endif
  return kGeneric;
}

}  // namespace optimized
}  // namespace edgefleet
