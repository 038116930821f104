// Plan pass "channels_last_regions": NCHW convolution chains run
// channels-last, as the XNNPACK delegate runs them (the same NHWC kernels:
// DepthwiseNhwc, the GEMM over packed filter panels), without a delegate.
//
// A region is a set of float32 4-D intermediate tensors (planes of more
// than one pixel, default dim order) that the pass relabels channels-last
// (dim order 0, 2, 3, 1; strides recomputed): same sizes, same bytes, same
// planned memory, only the order of the elements in it changes. A tensor
// is relabeled only when every instruction naming it runs it correctly in
// either layout:
//   - written by a convolution (aten::convolution.out or a fused one,
//     conv_fusion.h; not transposed), an elementwise activation (relu,
//     hardtanh, clamp, hardswish, hardsigmoid, sigmoid, tanh), a binary
//     add / sub / mul / div (tensor or Scalar operand),
//     aten::max_pool2d_with_indices.out (out; its int64 indices stay in
//     their order) or aten::cat.out;
//   - read only as such a convolution's or max pool's input, such an
//     activation's or binary op's operand, one of aten::cat.out's inputs,
//     or aten::mean.out's input;
//   - not a method input or output, not a constant, one writer, no view
//     sharing its memory.
// Activations and binary ops need their operands and out in one layout
// (same-size tensor operands; broadcast operands of 1 x 1 planes or one
// element read alike in both layouts, other broadcasts keep the op NCHW),
// so those tensors form one group, relabeled together or not at all; so do
// a concatenation's inputs and out (the kernel concatenates in memory order,
// optimized_kernels.h: an inception block's branches run channels-last). A
// convolution or max pool may see its input and output in different
// layouts: the kernels bridge them (conv_layout_bridge.h, pooling.cc), so a
// region's edges cost one transpose each. aten::mean.out reads a
// channels-last input and writes its (never relabeled) default-order out.
//
// Of the groups the rules allow, the pass relabels those that at least as
// many convolutions and max pools read or write with both sides
// channels-last as with a bridge (repeated until stable): a group mostly
// bridged would pay a transpose per convolution and gain little.
//
// Convolutions reading or writing a relabeled tensor get their filter in a
// channels-last form at load, as the XNNPACK delegate's layers do: one
// group, packed as the channels-last GEMM's B (PackPanels, gemm.h, over
// [out_c x (kh, kw, in_c)]) and passed as the argument before out (the
// small-plane pass's slot, small_plane_panels.h, which leaves
// channels-last convolutions alone); at most kSmallInputMaxChannels input
// channels (RGB stems), a copy with the output channels innermost for the
// direct small-input kernel; depthwise and narrow groups (grouped_nhwc.h),
// a copy with the output channels innermost ([ic / groups][kh][kw][oc])
// their kernels read in place. Other grouped convolutions run on NCHW
// copies (conv_layout_bridge.h) and count as bridges. The copies count
// against the method's constant budget; without room a convolution packs
// its filter per call. Runs after fuse_convolution and before
// pack_small_plane_panels.
//
// Stateless; thread-compatible.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CHANNELS_LAST_REGIONS_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CHANNELS_LAST_REGIONS_H_

#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

void RunChannelsLastRegions(PlanEditor& plan);

// The pass with `only_worthwhile` = true. With false, every group the
// rules above allow is relabeled, also those whose every convolution is
// bridged (for tests of the rules).
void RelabelChannelsLastRegions(PlanEditor& plan, bool only_worthwhile);

inline constexpr PlanPass kChannelsLastRegionsPass = {"channels_last_regions",
                                                      RunChannelsLastRegions};

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CHANNELS_LAST_REGIONS_H_
