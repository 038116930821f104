#include "runtime/kernels/optimized/gemm_microkernel.h"

#include <algorithm>

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

// How a micro-kernel reads A(i, p): a packed panel (kStride values per p,
// of which it reads kMr) or kMr rows in place.
template <int kMr, int kStride = kMr>
struct PackedA {
  const float* a;
  explicit PackedA(AOperand op) : a(op.a) {}
  int64_t Begin(int64_t left) { return left; }
  float at(int i) const { return a[i]; }
  void next() { a += kStride; }
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
  int64_t Begin(int64_t left) { return left; }
  float at(int i) const { return base[i / 4][(i % 4) * lda]; }
  void next() {
#pragma GCC unroll 4
    for (int q = 0; q < (kMr + 3) / 4; ++q) ++base[q];
  }
};

template <int kMr>
struct IndirectA {
  const float* const* runs;  // the next run's row pointers
  int64_t stride, run;
  const float* row[kMr] = {};
  int64_t p = 0;
  explicit IndirectA(AOperand op) : runs(op.rows), stride(op.lda), run(op.run) {}
  // Starts the next run (its row pointers) and returns its length, at
  // most `left`.
  int64_t Begin(int64_t left) {
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) row[i] = runs[i];
    runs += stride;
    p = 0;
    return std::min(left, run);
  }
  float at(int i) const { return row[i][p]; }
  void next() { ++p; }
};

// Walks a run of full row tiles down A and C (and the row bias with them):
// the micro-kernels compute `tiles` consecutive kMr x nr tiles that share
// their B columns in one call, so a tile costs no call of its own. A packed
// A panel advances by kMr * kc floats, rows in place by kMr rows.
template <int kMr>
struct TileWalk {
  AOperand a;
  float* c;
  TileEpilogue ep;
  bool has_ep;
  int64_t a_step, c_step;
  TileWalk(int64_t kc, AOperand a_op, float* c0, int64_t ldc, const TileEpilogue* e)
      : a(a_op),
        c(c0),
        ep(e != nullptr ? *e : TileEpilogue{}),
        has_ep(e != nullptr),
        a_step(a_op.rows != nullptr ? 0
               : a_op.lda != 0      ? kMr * a_op.lda
                                    : kMr * kc),
        c_step(kMr * ldc) {}
  const TileEpilogue* epilogue() const { return has_ep ? &ep : nullptr; }
  void Next() {
    a.a += a_step;
    if (a.rows != nullptr) a.rows += kMr;
    c += c_step;
    if (ep.row_bias != nullptr) ep.row_bias += kMr;
  }
};

// Baseline: 4 x 8 with 4-float vectors (SSE2, NEON): 8 accumulators.
template <typename A, typename B>
void MicroGeneric(int64_t kc, int64_t tiles, AOperand a_op, B b, float* c0, int64_t ldc,
                  bool accumulate, const TileEpilogue* ep0) {
  constexpr int kMr = 4;
  for (TileWalk<kMr> w(kc, a_op, c0, ldc, ep0); tiles > 0; --tiles, w.Next()) {
    using V = Vf<4>;
    A a(w.a);
    float* c = w.c;
    const TileEpilogue* ep = w.epilogue();
    V acc[kMr][2] = {};
    for (int64_t p = 0; p < kc;) {
      const int64_t end = p + a.Begin(kc - p);
      for (; p < end; ++p) {
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
// The body is inlined into its entry points (below), so a tile costs one
// call; the clamp is applied in registers (max(lo, v) then min(hi, v) keep
// NaN, as the portable clamp does), and only a post-op takes a pass over
// the stored row.
template <typename A, typename B>
[[gnu::always_inline]] inline __attribute__((target("avx2,fma"))) void MicroAvx2(
    int64_t kc, int64_t tiles, AOperand a_op, B b, float* c0, int64_t ldc, bool accumulate,
    const TileEpilogue* ep0) {
  constexpr int kMr = 6;
  for (TileWalk<kMr> w(kc, a_op, c0, ldc, ep0); tiles > 0; --tiles, w.Next()) {
    A a(w.a);
    float* c = w.c;
    const TileEpilogue* ep = w.epilogue();
    __m256 acc[kMr][2];
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      acc[i][0] = _mm256_setzero_ps();
      acc[i][1] = _mm256_setzero_ps();
    }
    for (int64_t p = 0; p < kc;) {
      const int64_t end = p + a.Begin(kc - p);
      for (; p < end; ++p) {
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
    }
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      float* row = c + i * ldc;
      if (accumulate) {
        acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_loadu_ps(row));
        acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_loadu_ps(row + 8));
      }
      if (ep != nullptr) {
        const __m256 lo = _mm256_set1_ps(ep->lo), hi = _mm256_set1_ps(ep->hi);
        for (int h = 0; h < 2; ++h) {
          __m256 v = acc[i][h];
          if (ep->row_bias != nullptr) v = _mm256_add_ps(v, _mm256_set1_ps(ep->row_bias[i]));
          if (ep->col_bias != nullptr) v = _mm256_add_ps(v, _mm256_loadu_ps(ep->col_bias + 8 * h));
          acc[i][h] = _mm256_min_ps(hi, _mm256_max_ps(lo, v));
        }
      }
      _mm256_storeu_ps(row, acc[i][0]);
      _mm256_storeu_ps(row + 8, acc[i][1]);
      if (ep != nullptr && ep->post != PostOp::kNone) {
        EpilogueRow<8>(row, ep->lo, ep->hi, ep->post);
      }
    }
  }
}

// AVX2 edge tiles: kMr x cols, cols <= 16, as kV = 1 or 2 vectors of 8 with
// the last one masked (vmaskmovps: masked-off lanes are neither read nor
// written, so B's rows and C may end at the tile's last column).
template <int kMr, int kV, typename A, typename B>
[[gnu::always_inline]] inline __attribute__((target("avx2,fma"))) void MicroAvx2Edge(
    int64_t kc, int64_t tiles, AOperand a_op, B b, int cols, float* c0, int64_t ldc,
    bool accumulate, const TileEpilogue* ep0) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i mask[kV];
  for (int h = 0; h < kV; ++h) mask[h] = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols - 8 * h), lane);
  for (TileWalk<kMr> w(kc, a_op, c0, ldc, ep0); tiles > 0; --tiles, w.Next()) {
    A a(w.a);
    float* c = w.c;
    const TileEpilogue* ep = w.epilogue();
    __m256 acc[kMr][kV];
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      for (int h = 0; h < kV; ++h) acc[i][h] = _mm256_setzero_ps();
    }
    for (int64_t p = 0; p < kc;) {
      const int64_t end = p + a.Begin(kc - p);
      for (; p < end; ++p) {
        const float* bp = b.row(p);
        __m256 bv[kV];
        for (int h = 0; h < kV; ++h) bv[h] = _mm256_maskload_ps(bp + 8 * h, mask[h]);
#pragma GCC unroll 6
        for (int i = 0; i < kMr; ++i) {
          const __m256 ai = _mm256_set1_ps(a.at(i));
          for (int h = 0; h < kV; ++h) acc[i][h] = _mm256_fmadd_ps(ai, bv[h], acc[i][h]);
        }
        a.next();
      }
    }
#pragma GCC unroll 6
    for (int i = 0; i < kMr; ++i) {
      float* row = c + i * ldc;
      for (int h = 0; h < kV; ++h) {
        if (accumulate) {
          acc[i][h] = _mm256_add_ps(acc[i][h], _mm256_maskload_ps(row + 8 * h, mask[h]));
        }
        if (ep != nullptr) {
          __m256 v = acc[i][h];
          if (ep->row_bias != nullptr) v = _mm256_add_ps(v, _mm256_set1_ps(ep->row_bias[i]));
          if (ep->col_bias != nullptr) {
            v = _mm256_add_ps(v, _mm256_maskload_ps(ep->col_bias + 8 * h, mask[h]));
          }
          acc[i][h] =
              _mm256_min_ps(_mm256_set1_ps(ep->hi), _mm256_max_ps(_mm256_set1_ps(ep->lo), v));
        }
      }
      if (ep != nullptr && ep->post != PostOp::kNone) {  // through a full row in L1
        alignas(32) float t[16] = {};
        for (int h = 0; h < kV; ++h) _mm256_store_ps(t + 8 * h, acc[i][h]);
        EpilogueRow<8>(t, ep->lo, ep->hi, ep->post);
        for (int h = 0; h < kV; ++h) acc[i][h] = _mm256_load_ps(t + 8 * h);
      }
      for (int h = 0; h < kV; ++h) _mm256_maskstore_ps(row + 8 * h, mask[h], acc[i][h]);
    }
  }
}

// GCC 12 reports its own _mm512_max_ps / _mm512_min_ps (built on
// _mm512_undefined_ps) as maybe-uninitialized where they inline.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// AVX-512: kMr x 32, 2 * kMr accumulators of the 32 zmm registers.
template <int kMr, typename A, typename B>
[[gnu::always_inline]] inline __attribute__((target("avx512f,avx2,fma"))) void MicroAvx512(
    int64_t kc, int64_t tiles, AOperand a_op, B b, float* c0, int64_t ldc, bool accumulate,
    const TileEpilogue* ep0) {
  for (TileWalk<kMr> w(kc, a_op, c0, ldc, ep0); tiles > 0; --tiles, w.Next()) {
    A a(w.a);
    float* c = w.c;
    const TileEpilogue* ep = w.epilogue();
    __m512 acc[kMr][2];
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      acc[i][0] = _mm512_setzero_ps();
      acc[i][1] = _mm512_setzero_ps();
    }
    for (int64_t p = 0; p < kc;) {
      const int64_t end = p + a.Begin(kc - p);
      for (; p < end; ++p) {
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
    }
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      float* row = c + i * ldc;
      if (accumulate) {
        acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_loadu_ps(row));
        acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_loadu_ps(row + 16));
      }
      if (ep != nullptr) {
        const __m512 lo = _mm512_set1_ps(ep->lo), hi = _mm512_set1_ps(ep->hi);
        for (int h = 0; h < 2; ++h) {
          __m512 v = acc[i][h];
          if (ep->row_bias != nullptr) v = _mm512_add_ps(v, _mm512_set1_ps(ep->row_bias[i]));
          if (ep->col_bias != nullptr) v = _mm512_add_ps(v, _mm512_loadu_ps(ep->col_bias + 16 * h));
          acc[i][h] = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
        }
      }
      _mm512_storeu_ps(row, acc[i][0]);
      _mm512_storeu_ps(row + 16, acc[i][1]);
      if (ep != nullptr && ep->post != PostOp::kNone) {
        EpilogueRow<16>(row, ep->lo, ep->hi, ep->post);
      }
    }
  }
}

// AVX-512 edge tiles: kMr x cols, cols <= 32, as kV = 1 or 2 vectors of 16
// with the last one masked (masked-off lanes are neither read nor written).
template <int kMr, int kV, typename A, typename B>
[[gnu::always_inline]] inline __attribute__((target("avx512f,avx2,fma"))) void MicroAvx512Edge(
    int64_t kc, int64_t tiles, AOperand a_op, B b, int cols, float* c0, int64_t ldc,
    bool accumulate, const TileEpilogue* ep0) {
  __mmask16 mask[kV];
  for (int h = 0; h < kV; ++h) {
    const int lanes = std::min(16, cols - 16 * h);
    mask[h] = static_cast<__mmask16>((1u << lanes) - 1);
  }
  for (TileWalk<kMr> w(kc, a_op, c0, ldc, ep0); tiles > 0; --tiles, w.Next()) {
    A a(w.a);
    float* c = w.c;
    const TileEpilogue* ep = w.epilogue();
    __m512 acc[kMr][kV];
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      for (int h = 0; h < kV; ++h) acc[i][h] = _mm512_setzero_ps();
    }
    for (int64_t p = 0; p < kc;) {
      const int64_t end = p + a.Begin(kc - p);
      for (; p < end; ++p) {
        const float* bp = b.row(p);
        __m512 bv[kV];
        for (int h = 0; h < kV; ++h) bv[h] = _mm512_maskz_loadu_ps(mask[h], bp + 16 * h);
#pragma GCC unroll 16
        for (int i = 0; i < kMr; ++i) {
          const __m512 ai = _mm512_set1_ps(a.at(i));
          for (int h = 0; h < kV; ++h) acc[i][h] = _mm512_fmadd_ps(ai, bv[h], acc[i][h]);
        }
        a.next();
      }
    }
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i) {
      float* row = c + i * ldc;
      for (int h = 0; h < kV; ++h) {
        if (accumulate) {
          acc[i][h] = _mm512_add_ps(acc[i][h], _mm512_maskz_loadu_ps(mask[h], row + 16 * h));
        }
        if (ep != nullptr) {
          __m512 v = acc[i][h];
          if (ep->row_bias != nullptr) v = _mm512_add_ps(v, _mm512_set1_ps(ep->row_bias[i]));
          if (ep->col_bias != nullptr) {
            v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask[h], ep->col_bias + 16 * h));
          }
          acc[i][h] =
              _mm512_min_ps(_mm512_set1_ps(ep->hi), _mm512_max_ps(_mm512_set1_ps(ep->lo), v));
        }
      }
      if (ep != nullptr && ep->post != PostOp::kNone) {  // through a full row in L1
        alignas(64) float t[32] = {};
        for (int h = 0; h < kV; ++h) _mm512_store_ps(t + 16 * h, acc[i][h]);
        EpilogueRow<16>(t, ep->lo, ep->hi, ep->post);
        for (int h = 0; h < kV; ++h) acc[i][h] = _mm512_load_ps(t + 16 * h);
      }
      for (int h = 0; h < kV; ++h) _mm512_mask_storeu_ps(row + 16 * h, mask[h], acc[i][h]);
    }
  }
}
#endif

// The entry points of each micro-kernel: packed or in-place A, times packed
// (Fn) or in-place (RowsFn) B.
template <typename A>
void GenericFn(int64_t kc, int64_t tiles, AOperand a, const float* b, int64_t ldb, float* c,
               int64_t ldc, bool accumulate, const TileEpilogue* ep) {
  MicroGeneric<A>(kc, tiles, a, PackedB{b, ldb}, c, ldc, accumulate, ep);
}
template <typename A>
void GenericRowsFn(int64_t kc, int64_t tiles, AOperand a, const float* const* rows, int64_t col,
                   float* c, int64_t ldc, bool accumulate, const TileEpilogue* ep) {
  MicroGeneric<A>(kc, tiles, a, RowsB{rows, col}, c, ldc, accumulate, ep);
}
constexpr MicroKernel kGeneric = {
    {GenericFn<PackedA<4>>, GenericFn<RowsA<4>>, GenericFn<IndirectA<4>>},
    {GenericRowsFn<PackedA<4>>, GenericRowsFn<RowsA<4>>, GenericRowsFn<IndirectA<4>>},
    {nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr},
    nullptr,
    nullptr,
    0,
    4,
    8,
    256,
    128,
    1024};
#if defined(__x86_64__)
// The vector kernels' entry points carry the kernel's target, so the body
// inlines into them (an entry without it would cost a second call per tile).
template <typename A>
__attribute__((target("avx2,fma"))) void Avx2Fn(int64_t kc, int64_t tiles, AOperand a,
                                                const float* b, int64_t ldb, float* c, int64_t ldc,
                                                bool accumulate, const TileEpilogue* ep) {
  MicroAvx2<A>(kc, tiles, a, PackedB{b, ldb}, c, ldc, accumulate, ep);
}
template <typename A>
__attribute__((target("avx2,fma"))) void Avx2RowsFn(int64_t kc, int64_t tiles, AOperand a,
                                                    const float* const* rows, int64_t col, float* c,
                                                    int64_t ldc, bool accumulate,
                                                    const TileEpilogue* ep) {
  MicroAvx2<A>(kc, tiles, a, RowsB{rows, col}, c, ldc, accumulate, ep);
}
template <int kMr, typename A>
__attribute__((target("avx512f,avx2,fma"))) void Avx512Fn(int64_t kc, int64_t tiles, AOperand a,
                                                          const float* b, int64_t ldb, float* c,
                                                          int64_t ldc, bool accumulate,
                                                          const TileEpilogue* ep) {
  MicroAvx512<kMr, A>(kc, tiles, a, PackedB{b, ldb}, c, ldc, accumulate, ep);
}
template <int kMr, typename A>
__attribute__((target("avx512f,avx2,fma"))) void Avx512RowsFn(int64_t kc, int64_t tiles, AOperand a,
                                                              const float* const* rows, int64_t col,
                                                              float* c, int64_t ldc,
                                                              bool accumulate,
                                                              const TileEpilogue* ep) {
  MicroAvx512<kMr, A>(kc, tiles, a, RowsB{rows, col}, c, ldc, accumulate, ep);
}
template <int kMr, typename A>
__attribute__((target("avx2,fma"))) void Avx2EdgeFn(int64_t kc, int64_t tiles, AOperand a,
                                                    const float* b, int64_t ldb, int cols, float* c,
                                                    int64_t ldc, bool accumulate,
                                                    const TileEpilogue* ep) {
  if (cols > 8) {
    MicroAvx2Edge<kMr, 2, A>(kc, tiles, a, PackedB{b, ldb}, cols, c, ldc, accumulate, ep);
  } else {
    MicroAvx2Edge<kMr, 1, A>(kc, tiles, a, PackedB{b, ldb}, cols, c, ldc, accumulate, ep);
  }
}
template <int kMr, typename A>
__attribute__((target("avx2,fma"))) void Avx2EdgeRowsFn(int64_t kc, int64_t tiles, AOperand a,
                                                        const float* const* rows, int64_t col,
                                                        int cols, float* c, int64_t ldc,
                                                        bool accumulate, const TileEpilogue* ep) {
  if (cols > 8) {
    MicroAvx2Edge<kMr, 2, A>(kc, tiles, a, RowsB{rows, col}, cols, c, ldc, accumulate, ep);
  } else {
    MicroAvx2Edge<kMr, 1, A>(kc, tiles, a, RowsB{rows, col}, cols, c, ldc, accumulate, ep);
  }
}
template <int kMr, typename A>
__attribute__((target("avx512f,avx2,fma"))) void Avx512EdgeFn(int64_t kc, int64_t tiles, AOperand a,
                                                              const float* b, int64_t ldb, int cols,
                                                              float* c, int64_t ldc,
                                                              bool accumulate,
                                                              const TileEpilogue* ep) {
  if (cols > 16) {
    MicroAvx512Edge<kMr, 2, A>(kc, tiles, a, PackedB{b, ldb}, cols, c, ldc, accumulate, ep);
  } else {
    MicroAvx512Edge<kMr, 1, A>(kc, tiles, a, PackedB{b, ldb}, cols, c, ldc, accumulate, ep);
  }
}
template <int kMr, typename A>
__attribute__((target("avx512f,avx2,fma"))) void Avx512EdgeRowsFn(
    int64_t kc, int64_t tiles, AOperand a, const float* const* rows, int64_t col, int cols,
    float* c, int64_t ldc, bool accumulate, const TileEpilogue* ep) {
  if (cols > 16) {
    MicroAvx512Edge<kMr, 2, A>(kc, tiles, a, RowsB{rows, col}, cols, c, ldc, accumulate, ep);
  } else {
    MicroAvx512Edge<kMr, 1, A>(kc, tiles, a, RowsB{rows, col}, cols, c, ldc, accumulate, ep);
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
// Short tiles: 3 of the AVX2 kernel's 6 rows, 4 of the AVX-512 kernel's 12.
constexpr MicroKernel kAvx2 = {
    {Avx2Fn<PackedA<6>>, Avx2Fn<RowsA<6>>, Avx2Fn<IndirectA<6>>},
    {Avx2RowsFn<PackedA<6>>, Avx2RowsFn<RowsA<6>>, Avx2RowsFn<IndirectA<6>>},
    {Avx2EdgeFn<6, PackedA<6>>, Avx2EdgeFn<6, RowsA<6>>, Avx2EdgeFn<6, IndirectA<6>>},
    {Avx2EdgeRowsFn<6, PackedA<6>>, Avx2EdgeRowsFn<6, RowsA<6>>, Avx2EdgeRowsFn<6, IndirectA<6>>},
    Avx2EdgeFn<3, PackedA<3, 6>>,
    Avx2EdgeRowsFn<3, PackedA<3, 6>>,
    3,
    6,
    16,
    256,
    144,
    1024};
constexpr MicroKernel kAvx512 = {
    {Avx512Fn<12, PackedA<12>>, Avx512Fn<12, RowsA<12>>, Avx512Fn<12, IndirectA<12>>},
    {Avx512RowsFn<12, PackedA<12>>, Avx512RowsFn<12, RowsA<12>>, Avx512RowsFn<12, IndirectA<12>>},
    {Avx512EdgeFn<12, PackedA<12>>, Avx512EdgeFn<12, RowsA<12>>, Avx512EdgeFn<12, IndirectA<12>>},
    {Avx512EdgeRowsFn<12, PackedA<12>>, Avx512EdgeRowsFn<12, RowsA<12>>,
     Avx512EdgeRowsFn<12, IndirectA<12>>},
    Avx512EdgeFn<4, PackedA<4, 12>>,
    Avx512EdgeRowsFn<4, PackedA<4, 12>>,
    4,
    12,
    32,
    256,
    192,
    1024};
// 7 x 32: for A whose rows come in sevens (the 7 x 7 images of every
// ImageNet network's last stage), which 12-row tiles cover with a 1-row
// short tile, and for A through row pointers.
constexpr MicroKernel kAvx512Rows7 = {
    {Avx512Fn<7, PackedA<7>>, Avx512Fn<7, RowsA<7>>, Avx512Fn<7, IndirectA<7>>},
    {Avx512RowsFn<7, PackedA<7>>, Avx512RowsFn<7, RowsA<7>>, Avx512RowsFn<7, IndirectA<7>>},
    {Avx512EdgeFn<7, PackedA<7>>, Avx512EdgeFn<7, RowsA<7>>, Avx512EdgeFn<7, IndirectA<7>>},
    {Avx512EdgeRowsFn<7, PackedA<7>>, Avx512EdgeRowsFn<7, RowsA<7>>,
     Avx512EdgeRowsFn<7, IndirectA<7>>},
    nullptr,
    nullptr,
    0,
    7,
    32,
    256,
    196,
    1024};
#endif

}  // namespace

const MicroKernel& GetMicroKernel(Isa isa, int64_t m, bool a_indirect) {
#if defined(__x86_64__)
  // Through row pointers, twelve rows leave too few general registers for
  // them (spilled and reloaded every depth step): 7 x 32 ran ResNet-18's
  // 3 x 3 convolutions 3-5 % faster.
  if (isa == Isa::kAvx512 && (a_indirect || (m % 7 == 0 && m % 4 != 0))) return kAvx512Rows7;
#endif
  return GetMicroKernel(isa);
}

const MicroKernel& GetMicroKernel(Isa isa) {
#if defined(__x86_64__)
  if (isa == Isa::kAvx512) return kAvx512;
  if (isa == Isa::kAvx2) return kAvx2;
#endif
  return kGeneric;
}

}  // namespace optimized
}  // namespace edgefleet
