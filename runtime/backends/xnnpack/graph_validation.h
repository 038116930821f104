// Semantic validation of a decoded Graph, before any byte reaches XNNPACK or
// a node kernel: every node's operands exist and have the rank and shape its
// operation implies (the output shape is inferred from the inputs and the
// node's parameters and must equal the declared one; one exception: an
// internal value the exporter declares with its dims permuted (channels-last
// data declared with NCHW dims) takes the inferred shape, as the real
// runtime's XNNPACK infers it), values are written at
// most once and only read after they are written, constants and external
// inputs are never written, and the graph's inputs and outputs are recorded.
// Pure functions; thread-compatible.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_VALIDATION_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_VALIDATION_H_

#include <cstddef>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/core/error.h"

namespace edgefleet {
namespace xnnpack {

// The shapes of `node`'s outputs given its inputs' shapes `dims` (indexed by
// value id). Errors: kInvalidProgram naming the node and the mismatch.
Error InferOutputDims(const Graph& graph, const Node& node, const std::vector<Dims>& dims,
                      Dims out[2]);

// Validates the whole graph and fills graph.input_values/output_values.
Error ValidateGraph(Graph& graph);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_GRAPH_VALIDATION_H_
