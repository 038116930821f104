// The register-blocked inner kernels of the packed GEMM (gemm.h) and the
// cache block sizes that go with each. Internal to the GEMM driver.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMM_MICROKERNEL_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMM_MICROKERNEL_H_

#include <cstdint>

#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/epilogue.h"

namespace edgefleet {
namespace optimized {

// How a micro-kernel reads A(i, p), i < mr: from a packed panel,
// a[p * mr + i] (lda = 0), from rows of A in place, a[i * lda + p], or
// through row pointers (the indirect kernels): the depth in runs of `run`,
// run r's row pointers at rows[r * lda + i] (tile t's at rows[r * lda +
// t * mr + i]), A(i, r * run + q) = rows[r * lda + i][q]. A channels-last
// convolution's runs are its filter taps: the tile's sums stay in
// registers across taps.
struct AOperand {
  const float* a;
  int64_t lda;
  const float* const* rows = nullptr;
  int64_t run = 0;
};

// The ways a micro-kernel reads A: indices of MicroKernel's entry points.
enum AMode { kAPacked = 0, kAStrided = 1, kAIndirect = 2, kAModes = 3 };

// What a micro-kernel does to its tile's sums before storing them (the last
// depth block of a GEMM with an epilogue, gemm.h): v += row_bias[i] (if
// set), v += col_bias[j] (if set), then v < lo -> lo, v > hi -> hi, then
// `post` (epilogue.h). Pointers are at the tile's first row / column.
struct TileEpilogue {
  const float* row_bias;
  const float* col_bias;
  float lo, hi;
  PostOp post;
};

// c[i * ldc + j] (+)= sum over p < kc of A(i, p) * B(p, j) for `tiles`
// full mr x nr tiles stacked down A and C (tile t: rows t * mr .. of C, of
// A in place, of the row bias, or the t-th packed A panel), then the
// epilogue `ep` if not null, where B(p, j) is
//   b[p * ldb + j]          (MicroKernelFn: a packed panel, ldb = nr), or
//   b_rows[p][b_col + j]    (MicroKernelRowsFn: rows of B read in place).
// Each comes in a version per AMode (packed A, rows in place, row
// pointers).
using MicroKernelFn = void (*)(int64_t kc, int64_t tiles, AOperand a, const float* b, int64_t ldb,
                               float* c, int64_t ldc, bool accumulate, const TileEpilogue* ep);
using MicroKernelRowsFn = void (*)(int64_t kc, int64_t tiles, AOperand a,
                                   const float* const* b_rows, int64_t b_col, float* c, int64_t ldc,
                                   bool accumulate, const TileEpilogue* ep);

// The same for tiles of mr x `cols` (0 < cols < nr): the right edge of C,
// where it is narrower than a tile. Only the first `cols` columns of B, C
// and the column bias are read or written (masked vector loads and stores),
// so a B read in place needs no packed copy of its ragged columns and the
// epilogue runs in registers. Each output's sum has the full tile's order
// (from zero, p ascending, one multiply-add per p, then C, then the
// epilogue), so the results are the same bits as a full tile's.
using MicroKernelEdgeFn = void (*)(int64_t kc, int64_t tiles, AOperand a, const float* b,
                                   int64_t ldb, int cols, float* c, int64_t ldc, bool accumulate,
                                   const TileEpilogue* ep);
using MicroKernelEdgeRowsFn = void (*)(int64_t kc, int64_t tiles, AOperand a,
                                       const float* const* b_rows, int64_t b_col, int cols,
                                       float* c, int64_t ldc, bool accumulate,
                                       const TileEpilogue* ep);

struct MicroKernel {
  MicroKernelFn fn[kAModes];
  MicroKernelRowsFn rows_fn[kAModes];
  // Null where the instruction set has no masked loads and stores (the
  // baseline): its edge tiles are computed in a scratch tile.
  MicroKernelEdgeFn edge_fn[kAModes];
  MicroKernelEdgeRowsFn edge_rows_fn[kAModes];
  // Tiles of short_mr rows (tiles = 1) of a packed A panel, with any
  // 0 < cols <= nr: rows q .. q + short_mr - 1 of the mr-wide panel
  // (A(i, p) = a[p * mr + q + i], lda = 0). The bottom edge of C, where
  // fewer than mr rows remain, runs on them instead of a whole tile. Null
  // (short_mr = 0) on the baseline.
  MicroKernelEdgeFn short_fn;
  MicroKernelEdgeRowsFn short_rows_fn;
  int short_mr;
  int mr, nr;      // tile
  int kc, mc, nc;  // cache blocks: depth, rows of A (multiple of mr),
                   // columns of B (multiple of nr)
};

// The micro-kernel for `isa`.
const MicroKernel& GetMicroKernel(Isa isa);

// The micro-kernel for `isa` and an A of `m` rows, read through row
// pointers if `a_indirect`.
const MicroKernel& GetMicroKernel(Isa isa, int64_t m, bool a_indirect);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMM_MICROKERNEL_H_
