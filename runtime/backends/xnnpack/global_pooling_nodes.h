// XNNGlobalAvgPooling2d on our kernels: the mean of every channel over the
// pixels of NHWC [n, h, w, c], written to [n, 1, 1, c].
//  - float32: each channel summed in float from 0 in pixel order, divided
//    by h * w in float (the order of the portable mean.out), then clamped
//    to the node's output range; vectorized over channels, their sums in
//    registers, ranges of channels split over threads. Faster than the
//    2022 system XNNPACK's (EfficientNet-B0's 17: 142-190 -> 115-121 us at
//    one thread on a loaded host; the real runtime's: 101), and one XNNPACK
//    step fewer between our own nodes.
//  - static int8: requantized as the real runtime's XNNPACK does: the
//    integer sum (less the input zero point) times input scale / (output
//    scale * h * w), plus the output zero point, then rounded half to even
//    and clamped to the output range. The 2022 system XNNPACK rounds before
//    adding the output zero point; the two differ on every tie, and
//    power-of-two scales make ties common.
//
// Stateless; buffers belong to the caller. Thread-compatible: float work
// splits over ctx's threads (the kernels' pool or the runner installed on
// the calling thread).

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GLOBAL_POOLING_NODES_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GLOBAL_POOLING_NODES_H_

#include <cstddef>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace xnnpack {

// Whether `node` (a GlobalAvgPooling2d) has float32 input and output, or
// per-tensor static int8 input and output.
bool GlobalAveragePoolingSupports(const Graph& graph, const Node& node);

// y = the node's pooling of x on the current input shape dims[input] (4-D
// NHWC). REQUIRES: GlobalAveragePoolingSupports(graph, node).
void RunGlobalAveragePooling(KernelContext& ctx, const Graph& graph, const Node& node,
                             const std::vector<std::vector<size_t>>& dims, const void* x, void* y);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GLOBAL_POOLING_NODES_H_
