// Float32 binary nodes on our kernels.
//
// XNNMultiply where one operand scales the other's channels: the other operand has the output's
// shape and this one is 1 in every dim but the last (channels) and, optionally, the first (batch) —
// a squeeze-and-excitation gate times its feature map (EfficientNet-B0: 16 of them, the largest 112
// x 112 x 32). y = x * s per element (one rounding, as XNNPACK multiplies), then the node's output
// range; vectorized over channels, ranges of pixels split over threads.
// Where the current shapes are not that pattern any more (a dynamic shape
// changed them), the product runs element by element with general
// broadcasting.
//
// XNNAdd of two operands of the output's shape (residual connections): the
// system XNNPACK (2022) runs such an add as one item, on one thread, however
// many the method has; here ranges of elements split over threads. y = a + b
// per element (one rounding, as XNNPACK adds), then the output range; other
// shapes at run time add element by element with general broadcasting.
//
// Stateless; buffers belong to the caller. Thread-compatible: work splits
// over ctx's threads (the kernels' pool or the runner installed on the
// calling thread).

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_FLOAT_BINARY_NODES_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_FLOAT_BINARY_NODES_H_

#include <cstddef>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace xnnpack {

// Whether `node` is a float32 Multiply whose operands, at their serialized
// shapes, are a tensor of the output's shape and a per-channel scale of it.
bool IsChannelScale(const Graph& graph, const Node& node);

// y = a * b (broadcast) clamped to the node's output range, on the current
// shapes `dims`. REQUIRES: a float32 Multiply whose shapes InferOutputDims
// validated.
void RunMultiply(KernelContext& ctx, const Node& node, const std::vector<Dims>& dims,
                 const float* a, const float* b, float* y);

// Whether `node` is a float32 Add whose operands, at their serialized
// shapes, both have the output's shape.
bool IsSameShapeAdd(const Graph& graph, const Node& node);

// y = a + b (broadcast) clamped to the node's output range, on the current
// shapes `dims`. REQUIRES: a float32 Add whose shapes InferOutputDims
// validated.
void RunAdd(KernelContext& ctx, const Node& node, const std::vector<Dims>& dims, const float* a,
            const float* b, float* y);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_FLOAT_BINARY_NODES_H_
