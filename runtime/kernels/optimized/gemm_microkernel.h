// The register-blocked inner kernels of the packed GEMM (gemm.h) and the
// cache block sizes that go with each. Internal to the GEMM driver.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMM_MICROKERNEL_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMM_MICROKERNEL_H_

#include <cstdint>

#include "runtime/kernels/optimized/cpu_features.h"

namespace edgefleet {
namespace optimized {

// c[i * ldc + j] (+)= sum over p < kc of a[p * mr + i] * B(p, j) for a full
// mr x nr tile, where `a` is a packed panel and B(p, j) is
//   b[p * ldb + j]          (MicroKernelFn: a packed panel, ldb = nr), or
//   b_rows[p][b_col + j]    (MicroKernelRowsFn: rows of B read in place).
using MicroKernelFn = void (*)(int64_t kc, const float* a, const float* b,
                               int64_t ldb, float* c, int64_t ldc,
                               bool accumulate);
using MicroKernelRowsFn = void (*)(int64_t kc, const float* a,
                                   const float* const* b_rows, int64_t b_col,
                                   float* c, int64_t ldc, bool accumulate);

struct MicroKernel {
  MicroKernelFn fn;
  MicroKernelRowsFn rows_fn;
  int mr, nr;      // tile
  int kc, mc, nc;  // cache blocks: depth, rows of A (multiple of mr),
                   // columns of B (multiple of nr)
};

// The micro-kernel for `isa`.
const MicroKernel& GetMicroKernel(Isa isa);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMM_MICROKERNEL_H_
