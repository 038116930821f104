// Cache-blocked 2-D transpose for element types of 1, 2, 4 and 8 bytes, with
// 8 x 8 (AVX2, AVX-512) or 4 x 4 vector transposes for 4-byte elements. Used by permute_copy and by
// kernels that change layout around a computation. No allocation;
// Transpose2dParallel runs on the kernels' thread pool (thread_pool.h).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_TRANSPOSE_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_TRANSPOSE_H_

#include <algorithm>
#include <cstdint>

#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {

// An 8 x 8 block: out + j * ostride gets element j of the eight rows at
// in, in + istride, ... (eight loads, 24 shuffles, eight stores).
[[gnu::always_inline]] inline void Transpose8x8(const float* in, int64_t istride, float* out,
                                                int64_t ostride) {
  using V = Vf<8>;
  V r[8], t[8], u[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) r[i] = Load<8>(in + i * istride);
#pragma GCC unroll 4
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
#pragma GCC unroll 2
  for (int i = 0; i < 8; i += 4) {
    u[i] = __builtin_shufflevector(t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    u[i + 1] = __builtin_shufflevector(t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    u[i + 2] = __builtin_shufflevector(t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
    u[i + 3] = __builtin_shufflevector(t[i + 1], t[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    Store<8>(out + j * ostride, __builtin_shufflevector(u[j], u[j + 4], 0, 1, 2, 3, 8, 9, 10, 11));
    Store<8>(out + (j + 4) * ostride,
             __builtin_shufflevector(u[j], u[j + 4], 4, 5, 6, 7, 12, 13, 14, 15));
  }
}

// Transpose2d's tiles for 4-byte elements (as floats: a copy, so any 4-byte
// type): 8 x 8 blocks when the instruction set has 8-float vectors, else
// 4 x 4, then single elements at the tile edges.
template <int W>
struct TransposeTiles {
  static constexpr int64_t kTile = 16;
  static constexpr int64_t kB = W >= 8 ? 8 : 4;

  [[gnu::always_inline]] static inline void Run(const float* src, int64_t src_b, float* dst,
                                                int64_t dst_a, int64_t rows, int64_t cols) {
    for (int64_t b0 = 0; b0 < cols; b0 += kTile) {
      const int64_t b1 = std::min(cols, b0 + kTile);
      for (int64_t a0 = 0; a0 < rows; a0 += kTile) {
        const int64_t a1 = std::min(rows, a0 + kTile);
        int64_t a = a0;
        for (; a + kB <= a1; a += kB) {
          int64_t b = b0;
          for (; b + kB <= b1; b += kB) {
            const float* s = src + a + b * src_b;
            if constexpr (kB == 8) {
              Transpose8x8(s, src_b, dst + a * dst_a + b, dst_a);
            } else {
              Transpose4x4(s, s + src_b, s + 2 * src_b, s + 3 * src_b, dst + a * dst_a + b, dst_a);
            }
          }
          for (; b < b1; ++b) {
            for (int64_t u = a; u < a + kB; ++u) dst[u * dst_a + b] = src[u + b * src_b];
          }
        }
        for (; a < a1; ++a) {
          for (int64_t b = b0; b < b1; ++b) dst[a * dst_a + b] = src[a + b * src_b];
        }
      }
    }
  }
};

// dst[a * dst_a + b] = src[a + b * src_b] for a < rows, b < cols: `src` is
// contiguous along a, `dst` along b.
// Walks kTile source rows (b) at a time along their full length (a): the
// reads stream, and each destination row gets one 64-byte piece per block
// (measured 2-3x faster than square tiles over a 4 MB matrix).
// Not inlined nor specialized (noipa): with constant sizes (a caller's fixed
// tile) GCC's loop analysis of the tile edges trips
// -Waggressive-loop-optimizations.
template <typename T>
[[gnu::noipa]] void Transpose2d(const T* src, int64_t src_b, T* dst, int64_t dst_a, int64_t rows,
                                int64_t cols) {
  if constexpr (sizeof(T) == 4) {
    // Three planes into rows of three (an RGB image to channels-last): four
    // rows at a time through vector registers.
    if (cols == 3 && dst_a == 3) {
      const float* s = reinterpret_cast<const float*>(src);
      float* d = reinterpret_cast<float*>(dst);
      int64_t a = 0;
      for (; a + 4 <= rows; a += 4) {
        Interleave3x4(s + a, s + src_b + a, s + 2 * src_b + a, d + 3 * a);
      }
      for (; a < rows; ++a) {
        for (int64_t b = 0; b < 3; ++b) dst[a * 3 + b] = src[a + b * src_b];
      }
      return;
    }
  }
  if constexpr (sizeof(T) == 4) {
    RunVectorized<TransposeTiles>(reinterpret_cast<const float*>(src), src_b,
                                  reinterpret_cast<float*>(dst), dst_a, rows, cols);
    return;
  }
  constexpr int64_t kTile = 16;
  for (int64_t b0 = 0; b0 < cols; b0 += kTile) {
    const int64_t b1 = std::min(cols, b0 + kTile);
    for (int64_t a0 = 0; a0 < rows; a0 += kTile) {
      const int64_t a1 = std::min(rows, a0 + kTile);
      for (int64_t a = a0; a < a1; ++a) {
        for (int64_t b = b0; b < b1; ++b) dst[a * dst_a + b] = src[a + b * src_b];
      }
    }
  }
}

// Transpose2d split over up to max_threads threads along the longer side
// in whole 16-element tiles, at least kMinRangeElements elements per range:
// the same bits at any thread count.

template <typename T>
void Transpose2dParallel(const T* src, int64_t src_b, T* dst, int64_t dst_a, int64_t rows,
                         int64_t cols, int max_threads) {
  constexpr int64_t kBlock = 16;
  const bool split_rows = rows >= cols;
  const int64_t blocks = ((split_rows ? rows : cols) + kBlock - 1) / kBlock;
  const int64_t other = split_rows ? cols : rows;
  const int64_t grain =
      std::max<int64_t>(1, kMinRangeElements / (kBlock * std::max<int64_t>(other, 1)));
  ParallelForRanges(blocks, grain, max_threads, [&](int64_t b0, int64_t b1) {
    const int64_t lo = b0 * kBlock;
    const int64_t hi = std::min(split_rows ? rows : cols, b1 * kBlock);
    if (split_rows) {
      Transpose2d<T>(src + lo, src_b, dst + lo * dst_a, dst_a, hi - lo, cols);
    } else {
      Transpose2d<T>(src + lo * src_b, src_b, dst + lo, dst_a, rows, hi - lo);
    }
  });
}

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_TRANSPOSE_H_
