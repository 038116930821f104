// Plan pass "pack_matmul_panels": matrix products with a constant weight
// and few rows (the classifier: a 1280 x 1000 aten::addmm.out of one image)
// read the weight from column panels packed at load, as the XNNPACK
// delegate's fully connected layers do.
//
// With fewer than four rows the GEMM runs as matrix-vector products that
// read B in place (gemv.h): a [K, N] weight is streamed row by row, the
// whole 5 MB of it from memory on every call. From panels (PackPanels,
// gemm.h: each panel one contiguous stream of K rows of PanelWidth()
// floats) the same products keep a panel's sums in registers over the
// whole depth: EfficientNet-B0's classifier took 312 us against the
// delegate's 112 on the same weight. Each output's sum keeps its order
// (from zero, k ascending), so the bits are the same.
//
// The pass rewrites each aten::addmm.out (bias, mat1, mat2, beta, alpha,
// out) and aten::mm.out (mat1, mat2, out) whose mat2 is a float32 2-D
// constant (a folded permute_copy of a linear layer's weight counts) and
// whose mat1 has at most kMaxPanelRows rows into
// edgefleet::addmm_panels.out (bias or None, mat1, mat2, beta, alpha,
// panels, out, out): the panels as a [floats / width, width] tensor in
// method memory, width = PanelWidth() at load. mat2 stays for the other
// paths (a panel width that no longer matches, the portable kernel). The
// panels count against the method's constant budget; without room the
// instruction is left as it was.
//
// Stateless; thread-compatible (uses the kernels' thread pool through ctx).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_MATMUL_PANELS_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_MATMUL_PANELS_H_

#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

// Rows of mat1 up to which the pass packs: the matrix-vector paths (below
// four rows) and small batches of them; with more rows the GEMM packs B
// per call at a cost the rows amortize.
inline constexpr int64_t kMaxPanelRows = 16;

// The rewritten instruction's kernel (matmul.cc): alpha * (mat1 @ mat2) +
// beta * bias (mm without a bias), B read from the panels when they match
// this host's panel width, else as aten::addmm.out / aten::mm.out.
extern const Kernel kAddmmPanelsKernel;

void PackMatmulPanels(PlanEditor& plan);

inline constexpr PlanPass kPackMatmulPanelsPass = {"pack_matmul_panels", PackMatmulPanels};

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_MATMUL_PANELS_H_
