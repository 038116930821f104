// Our kernels for the delegate's data-movement nodes: static transposes,
// slices and reshapes and concatenations of 2 to 5 inputs, of any one
// element type (quantized values of one scale and zero point; not qdint8).
// Bytes are copied, never converted: the results are the inputs' bits.
// Transposes and concatenations split over up to `num_threads` threads of
// the kernels' pool or the runner installed on the calling thread (the
// method's pthreadpool inside the delegate). Stateless; thread-compatible.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DATA_MOVEMENT_NODES_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DATA_MOVEMENT_NODES_H_

#include <cstddef>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/core/error.h"

namespace edgefleet {
namespace xnnpack {

// True for the node types above.
bool IsDataMovement(NodeType type);

// True when `node` is one of the above and its operands' types allow it.
bool DataMovementSupports(const Graph& graph, const Node& node);

// Runs `node` on values of the current shapes `dims` (indexed by value id);
// `in[i]` / `out[0]` are the buffers of node.inputs[i] / node.outputs[0].
// REQUIRES: DataMovementSupports(graph, node) and shapes validated by
// InferOutputDims.
Error RunDataMovementNode(const Graph& graph, const Node& node,
                          const std::vector<std::vector<size_t>>& dims, const void* const* in,
                          void* const* out, int num_threads);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DATA_MOVEMENT_NODES_H_
