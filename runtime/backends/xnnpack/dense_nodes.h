// The delegate's float32 convolutions and fully connected layers on our own
// optimized kernels (runtime/kernels/optimized: the packed GEMM, the direct
// depthwise and narrow-group kernels), in the delegate's NHWC layout,
// reading the filters where the payload put them or a transposed copy made
// at load.
//
// Why: the system XNNPACK (Debian's 2022 build) runs these nodes slower
// than our kernels on x86 (its AVX2 GEMM micro-kernel spills an accumulator
// to the stack); the rule that picks the engine per node, and the
// measurements behind it, are in docs/xnnpack-delegate.md ("Engine per
// node").
//
// Stateless functions; buffers belong to the caller. Thread-compatible:
// work is split over ctx.num_threads() threads of the kernels' pool.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DENSE_NODES_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DENSE_NODES_H_

#include <memory>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/core/error.h"
#include "runtime/kernels/kernel_context.h"
#include "runtime/kernels/optimized/conv_operands.h"

namespace edgefleet {
namespace xnnpack {

// A Conv2d with a 1x1 window, stride 1, no padding and one group.
bool IsPointwiseConv(const Node& node);

// The geometry of a (depthwise) convolution node on the current NHWC shapes
// `dims` (validated by InferOutputDims); padding is its top and left.
optimized::ConvGeometry ConvGeometryOf(const Node& node, const std::vector<Dims>& dims);

// True when `node` is a float32 Conv2d, DepthwiseConv2d or FullyConnected
// our kernels compute (symmetric padding; no TensorFlow SAME padding).
bool DenseKernelSupports(const Graph& graph, const Node& node);

// The rule: true for the nodes our kernels run faster than the system
// XNNPACK — fully connected layers, pointwise convolutions (1x1, stride 1,
// no padding, one group), one-group convolutions with a larger window
// over at least 16 or at most 4 input channels (a first layer over an
// image) and, on AVX-512 hosts, depthwise convolutions without a depth
// multiplier and grouped ones with narrow groups (as many input as output
// channels per group, a power of two up to 16, at least 16 channels:
// optimized/grouped_nhwc.h), all float32 with a constant filter. Other
// convolutions (other groups, depthwise elsewhere, one group over 5 to 15
// channels) stay with XNNPACK.
bool DenseKernelPreferred(const Graph& graph, const Node& node);

// Floats of the packed copy PackDenseFilter makes of `node`'s filter: its
// element count, rounded up to whole panels where PackDenseFilter writes
// panels, for a node DenseKernelPreferred takes, 0 for other nodes
// and for a filter already in the order the GEMM reads.
size_t PackedFilterFloats(const Graph& graph, const Node& node);

// Writes `node`'s constant filter, in the layout its kernel reads in place,
// to `dst` (PackedFilterFloats(graph, node) floats): for a one-group
// convolution on the GEMM, the [out_c x (kh, kw, in_c)] matrix in the
// GEMM's column panels (optimized::PackPanels: one contiguous stream per
// panel, the prefetchers' best case for a weight that comes from DRAM);
// otherwise transposed to [depth][units] (a fully connected layer's
// filter; a small-input convolution's OHWI filter to
// [kh][kw][in_c][out_c]).
void PackDenseFilter(const Graph& graph, const Node& node, float* dst);

// Runs `node` (REQUIRES: DenseKernelSupports, shapes validated by
// InferOutputDims) on the current shapes `dims`, its fused activation (a
// folded SiLU) included; in[i] / out[0] are the
// buffers of node.inputs[i] / node.outputs[0] (in[2] null without bias);
// `packed_filter` is what PackDenseFilter wrote (or null: in[1] is read).
// Errors: kMemoryAllocationFailed when ctx's scratch memory does not fit.
Error RunDenseNode(KernelContext& ctx, const Graph& graph, const Node& node,
                   const std::vector<Dims>& dims, const void* const* in, void* const* out,
                   const float* packed_filter);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DENSE_NODES_H_
