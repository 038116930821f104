// Plan pass "fuse_safe_softmax": attention's softmax as torch.export writes
// it (scaled_dot_product_attention's _safe_softmax, in every
// nn.MultiheadAttention / TransformerEncoderLayer / ViT block) becomes one
// kernel. The exported chain over the scores x:
//
//   p = _softmax(x, dim, false)
//   m = eq.Scalar(x, -inf); n = logical_not(m)
//   r = any(n, dim, keepdim=True); c = logical_not(r)   (rows all -inf)
//   z = full_like(p, 0); out = where(c, z, p)
//
// is edgefleet::safe_softmax.out(x, dim, false, out): the softmax along
// `dim`, with rows whose every element is -inf set to 0 (where the softmax
// gives NaN). The same values as the chain (the softmax is the optimized
// _softmax kernel's), without the five element-wise bool passes over the
// scores and their full-size intermediates.
//
// It matches only exactly: dim the last dimension, x and out float32 of the
// same sizes and the default dim order, every intermediate read by the
// chain alone and not method I/O, the scalar -inf and the fill 0 constant,
// and no instruction between the softmax and the where naming a tensor
// sharing out's memory.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_SAFE_SOFTMAX_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_SAFE_SOFTMAX_H_

#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

void FuseSafeSoftmax(PlanEditor& plan);

inline constexpr PlanPass kFuseSafeSoftmaxPass = {"fuse_safe_softmax", FuseSafeSoftmax};

// edgefleet::safe_softmax.out(self, dim, half_to_float, out, ret): as
// described above. out may share self's memory (self is then read from a
// copy in temp memory; kMemoryAllocationFailed if that does not fit).
// Argument errors are the softmax kernel's.
void SafeSoftmaxOut(KernelContext& ctx, Span<EValue*> args);
extern const Kernel kSafeSoftmaxKernel;

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_SAFE_SOFTMAX_H_
