// Plan pass "fuse_binary_activation": a float32 add / sub / mul followed by
// a clamp-like activation, fused at Method::Load into one pass over memory.
//
//   add.out(a, b, alpha, out=t) -> relu.out(t, out=u)  (or hardtanh.out /
//   clamp.out with constant bounds; sub.out and mul.out alike)
//     becomes edgefleet::fused_add_clamp.out(a, b, alpha, min, max, out=u):
//     each a + alpha * b clamped to [min, max] before it is stored.
//
// It matches only exactly: t written only by the binary instruction, read
// only by the activation (views included) and not method I/O; u float32 of
// t's sizes and dim order, written only by the activation; bounds constant
// and finite (relu: min 0; clamp: either may be None, not both); no live
// instruction between the two names a tensor sharing u's memory; and u
// shares no memory with a or b unless it starts at the operand's data with
// the operand's sizes and dim order (elementwise in place). ResNet's and
// RegNet's residual blocks end so (add, then relu).
//
// Runs after fuse_convolution and before channels_last_regions, which
// treats the fused kernels as the binary operators they extend.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_BINARY_FUSION_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_BINARY_FUSION_H_

#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

void FuseBinaryActivation(PlanEditor& plan);

inline constexpr PlanPass kFuseBinaryActivationPass = {"fuse_binary_activation",
                                                       FuseBinaryActivation};

// edgefleet::fused_add_clamp.out(self, other, alpha, min?, max?, out, ret),
// edgefleet::fused_sub_clamp.out(self, other, alpha, min?, max?, out, ret),
// edgefleet::fused_mul_clamp.out(self, other, min?, max?, out, ret):
// the optimized add.out / sub.out / mul.out (elementwise.cc: broadcasting,
// either dim order when the operands and out share it), each result then
// clamped as clamp.out does (x < min -> min, then x > max -> max; None: no
// bound; NaN stays) before it is stored: the same bits as the two kernels
// one after the other, at any thread count. Calls the fast path does not
// take run the portable operator, then clamp.out over out in place. out
// may be an operand (same data, sizes and dim order). Thread-safe as the
// other kernels.
void FusedAddClampOut(KernelContext& ctx, Span<EValue*> args);
void FusedSubClampOut(KernelContext& ctx, Span<EValue*> args);
void FusedMulClampOut(KernelContext& ctx, Span<EValue*> args);
extern const Kernel kFusedAddClampKernel;
extern const Kernel kFusedSubClampKernel;
extern const Kernel kFusedMulClampKernel;

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_BINARY_FUSION_H_
