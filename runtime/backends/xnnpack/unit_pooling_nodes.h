// XNNAvgPooling2d and XNNMaxPooling2d with a 1 x 1 window on our kernels.
// The partitioner lowers avg_pool2d / max_pool2d with kernel_size 1 (a
// strided subsampling; PyTorch allows no padding with it); the real
// runtime's XNNPACK runs them, the 2022 system XNNPACK refuses a window of
// one element. Float32 NHWC: y[n, oh, ow, c] = x[n, oh * stride_h,
// ow * stride_w, c] (the one element's average and maximum alike), clamped
// to the node's output range (NaN passes through).
//
// Stateless; buffers belong to the caller. Thread-compatible.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_UNIT_POOLING_NODES_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_UNIT_POOLING_NODES_H_

#include "runtime/backends/xnnpack/graph.h"

namespace edgefleet {
namespace xnnpack {

// Whether `node` is an average or max pooling with a 1 x 1 window, no
// padding, float32 input and output.
bool UnitPoolingSupports(const Graph& graph, const Node& node);

// y = the node's pooling of x of the current input shape `x_dims` into the
// output shape `y_dims` (4-D NHWC, validated by InferOutputDims).
// REQUIRES: UnitPoolingSupports(graph, node).
void RunUnitPooling(const Node& node, const Dims& x_dims, const Dims& y_dims, const float* x,
                    float* y);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_UNIT_POOLING_NODES_H_
