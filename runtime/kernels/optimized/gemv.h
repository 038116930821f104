// The packed GEMM's matrix-vector paths (gemm.h): a GEMM with fewer than
// four rows of A, or one column of B, run as matrix-vector products that
// read the big operand in place (packing it would cost more than the
// arithmetic), a B in column panels panel by panel. Internal to the GEMM
// driver.
//
// Stateless; scratch from the caller's KernelContext. Thread-compatible:
// work is split over ctx.num_threads() threads of the kernels' pool.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMV_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMV_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/gemm.h"

namespace edgefleet {
namespace optimized {

// Below this many multiply-adds a GEMM runs on one thread: waking workers
// costs more than it saves.
constexpr int64_t kMinParallelMacs = int64_t{1} << 17;

// C = (accumulate ? C : 0) + A * B as Gemm (gemm.h) without the epilogue,
// when m is small (and B is in column panels, or a strided matrix with a
// unit stride) or n is 1 (and A is): returns true when it ran. False, with
// C untouched, when neither applies or the scratch does not fit.
bool SmallGemm(KernelContext& ctx, int64_t m, int64_t n, int64_t k, const GemmOperand& a,
               const GemmOperand& b, float* c, int64_t ldc, bool accumulate);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GEMV_H_
