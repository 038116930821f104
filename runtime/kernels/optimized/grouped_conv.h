// Grouped convolution with few output channels per group (RegNet's group
// width 8, ResNeXt-style blocks) computed directly in NCHW, without the
// GEMM: with 8 output channels per group every 12-row GEMM tile would be an
// edge tile (a third of its arithmetic wasted, computed into scratch,
// copied, then a separate epilogue pass) and each group a GEMM call of its
// own. Here, per image and group, the group's input planes are padded and
// split by column phase (phased_plane.h); each output row is computed for
// up to 8 output channels at once, every input vector loaded once for all
// of them.
//
// Each output is w * x summed from 0 over (input channel, kh, kw) in that
// order, one multiply and one add each, then the bias (or 0) added, as the
// portable kernel sums:
// bit-identical to it (up to the sign of a zero, and NaN where a non-finite
// weight meets padding, which the portable kernel skips and this kernel
// reads as zeros), then clamped to [lo, hi] and `post` applied
// (epilogue.h). Pure functions; uses ctx's scratch and thread pool.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GROUPED_CONV_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GROUPED_CONV_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/epilogue.h"

namespace edgefleet {
namespace optimized {

// Whether GroupedNchw takes `g`: more than one group, not depthwise, at most
// 16 output and 64 input channels per group, at most 64 taps.
bool GroupedDirectApplies(const ConvGeometry& g);

// NCHW, contiguous x and y (not overlapping); `w_strides` are the weight's
// [oc, ic / groups, kh, kw] strides; bias may be null. Returns false
// (nothing written) if the scratch memory is not available.
bool GroupedNchw(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                 const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                 PostOp post);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GROUPED_CONV_H_
