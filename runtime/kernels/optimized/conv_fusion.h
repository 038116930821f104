// Plan pass "fuse_convolution": float32 convolution epilogues folded into
// the convolution at Method::Load.
//
//   convolution(x, W, b) -> _native_batch_norm_legit_no_training(y, g, B, m, v)
//     becomes convolution(x, W', b') with W' = W * s per output channel and
//     b' = b * s + (B - m * s), s = g / sqrt(v + eps) (computed in double,
//     as the batch-norm kernel does), writing the batch norm's output;
//   convolution -> relu / hardtanh / clamp
//     becomes edgefleet::fused_convolution.out, the convolution with the
//     clamp applied in its epilogue (bit-identical to the separate
//     activation), writing the activation's output;
//   convolution -> the exported hardswish / hardsigmoid chains, sigmoid, or
//     sigmoid and mul (SiLU): the fused kernel with that epilogue
//     (epilogue.h), writing the chain's last output.
//
// It matches only exactly: float32 tensors; W, b and the batch norm's
// parameters program constants (is_constant) with W's output channel
// outermost in its dim order; the convolution's output read by that one
// instruction and not method I/O; the batch norm's save_mean / save_invstd
// read by nothing; scalars constant and finite; the new output of the
// same sizes and dim order, not overlapping the convolution's input, and
// untouched by any instruction between the convolution and the one it
// absorbs. Folding reassociates (x * W) * s into x * (W * s): results move
// by rounding only.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_FUSION_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_FUSION_H_

#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

void FuseConvolution(PlanEditor& plan);

inline constexpr PlanPass kFuseConvolutionPass = {"fuse_convolution", FuseConvolution};

// edgefleet::fused_convolution.out(input, weight, bias?, stride, padding,
// dilation, transposed, output_padding, groups, min?, max?, out, ret):
// aten::convolution.out, then each output clamped to [min, max] (None: no
// bound) exactly as clamp.out does. Calls the fast paths can't take run
// the portable convolution, then the clamp.
// The plan pass pack_small_plane_panels (small_plane_panels.h) may add one
// argument before out: the weight's panels for the transposed 1x1 path.
// When out shares the input's memory the kernel computes in place where
// its fast path reads the whole input first (FusedConvolutionInPlace), and
// otherwise on a copy of the input in temp memory (failing with
// kMemoryAllocationFailed if that does not fit).
void FusedConvolutionOut(KernelContext& ctx, Span<EValue*> args);
extern const Kernel kFusedConvolutionKernel;
// The same, then hardswish (x * clamp(x + 3, 0, 6)) / 6 or hardsigmoid
// clamp(x + 3, 0, 6) / 6 of each clamped output, one float operation per
// step as the exported add / clamp / mul / div chain computes them.
void FusedConvolutionHardswishOut(KernelContext& ctx, Span<EValue*> args);
void FusedConvolutionHardsigmoidOut(KernelContext& ctx, Span<EValue*> args);
extern const Kernel kFusedConvolutionHardswishKernel;
extern const Kernel kFusedConvolutionHardsigmoidKernel;
// The same, then the sigmoid 1 / (1 + exp(-x)) or SiLU x * sigmoid(x) of
// each clamped output, computed as the optimized sigmoid.out (vec_math.h)
// [and mul.out] kernels compute them: the same bits.
void FusedConvolutionSigmoidOut(KernelContext& ctx, Span<EValue*> args);
void FusedConvolutionSiluOut(KernelContext& ctx, Span<EValue*> args);
extern const Kernel kFusedConvolutionSigmoidKernel;
extern const Kernel kFusedConvolutionSiluKernel;

// True if a convolution.out call (11 arguments) whose out starts at its
// input's data runs in place, without a copy of the input.
bool FusedConvolutionInPlace(Span<EValue* const> args);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_FUSION_H_
