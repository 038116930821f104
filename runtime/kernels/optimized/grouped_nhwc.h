// Grouped convolution with narrow groups (RegNet's group width 8,
// ResNeXt's 4) computed directly channels-last, as the XNNPACK delegate and
// the channels-last regions run it: one vector of output channels spans
// W / cout whole groups (or part of one group), and each input channel's
// value for the lanes of every group comes from one vector load of the
// pixel's channels and one permute. The output row's pixels need no
// padding, no phase split and no transposes; a 7 x 7 plane fills whole
// vectors (the NCHW kernel vectorizes along 7-pixel rows).
//
// Each output is w * x summed from 0 over (input channel, kh, kw) in that
// order, skipping taps in the padding, one fused multiply-add each (FMA:
// the multiply and add of the portable kernel rounded once; a third
// faster than a multiply then an add on this kernel's critical path, and
// ahead of the system XNNPACK's grouped convolution on most RegNet
// layers), then the bias (or 0) added: within the dot-product bound of the
// portable kernel, and the same bits at any thread count (each output's
// order is fixed); then clamped to [lo, hi] and `post` applied
// (epilogue.h). Pure functions; uses ctx's scratch and thread pool.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GROUPED_NHWC_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GROUPED_NHWC_H_

#include <cstdint>

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/epilogue.h"

namespace edgefleet {
namespace optimized {

// Whether GroupedNhwc takes a convolution whose filter is [out_c,
// group_in_c, kh, kw] with `taps` = kh * kw: more than one group, as many
// input as output channels per group, a power of two up to 16 (not
// depthwise), at least 16 output channels in all, at most 64 taps. Any
// int64 arguments (a program's group count unchecked) are safe.
bool NarrowGroupsApply(int64_t out_c, int64_t group_in_c, int64_t groups, int64_t taps);

// The same for geometry `g` (whose input channels must equal its output
// channels).
bool GroupedNhwcApplies(const ConvGeometry& g);

// Channels-last x ([N, H, W, in_c]) and y ([N, out_h, out_w, out_c]), not
// overlapping; `w_strides` are the weight's [oc, ic / groups, kh, kw]
// strides (read in place when the output channel is innermost, stride 1,
// as channels_last_regions packs it; else copied so into scratch); bias may
// be null. Returns false (nothing written) if `g` does not apply or the
// scratch memory is not available.
bool GroupedNhwc(KernelContext& ctx, const ConvGeometry& g, const float* x, const float* w,
                 const int64_t* w_strides, const float* bias, float* y, float lo, float hi,
                 PostOp post);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_GROUPED_NHWC_H_
