// A convolution whose input and output tensors are in different layouts
// (one NCHW, the other channels-last), as the plan pass
// channels_last_regions (channels_last_regions.h) leaves them at the edges
// of the regions it runs channels-last: the NCHW side goes through a
// channels-last copy in temp memory (a transpose per image), and the
// convolution itself runs channels-last.
//
// Also the transposes themselves, for other kernels bridging layouts (the
// max pool's channels-last output, pooling.cc).
//
// Stateless; thread-compatible (ctx's threads for the transposes).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_LAYOUT_BRIDGE_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_LAYOUT_BRIDGE_H_

#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/kernel_registry.h"

namespace edgefleet {
namespace optimized {

// If `args` (a convolution kernel's: input first, out and return slot
// last) hold a float32 4-D input and out, one in the default dim order and
// the other channels-last, calls `conv` with the NCHW one replaced by a
// channels-last copy (the input transposed before, or the output
// transposed after the call) and returns true, failures reported through
// ctx (kMemoryAllocationFailed when the copy does not fit in temp memory).
// A grouped convolution the direct NCHW kernel takes (GroupedDirectApplies,
// grouped_conv.h) but the channels-last one does not (GroupedNhwcApplies,
// grouped_nhwc.h) instead runs on an NCHW copy of each channels-last side
// (RegNet-Y-400MF's grouped layers: 0.4 ms there against 2.0 through the
// channels-last GEMM group by group). And for a channels-last input and output over the same memory
// (the memory planner's reuse of a dead input), with out no larger than the input, runs `conv` into
// a temp out and copies it over (the kernel would otherwise copy the input first). Otherwise
// returns false having done nothing. `conv` must not call back with the same arguments' layouts.
// A bounded-dynamic out (holding its previous execution's sizes) takes the sizes `conv` gives
// its copy.
bool ConvAcrossLayouts(KernelContext& ctx, Span<EValue*> args, OpFunction conv);

// The float32 elements of a 4-D tensor of `t`'s sizes from NCHW order at
// `src` to channels-last order at `dst`, and back, image by image.
// REQUIRES: the buffers do not overlap.
void ToChannelsLast(const Tensor& t, const float* src, float* dst, int threads);
void ToNchw(const Tensor& t, const float* src, float* dst, int threads);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CONV_LAYOUT_BRIDGE_H_
