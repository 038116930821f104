// FoldFloatSilus: the SiLU the exporter writes as Sigmoid then Multiply
// (nn.SiLU, EfficientNet's activation: y = x * sigmoid(x)) right after a
// float32 node our dense kernels run is folded into that node, which then
// computes x * sigmoid(x) in its epilogue while its output is still in
// cache (optimized/epilogue.h). Unfolded, the two nodes run as XNNPACK steps
// of their own, each a pass over the tensor (EfficientNet-B0: 49 of them).
//
// Stateless; thread-compatible (edits the graph it is given).

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_SILU_FOLDING_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_SILU_FOLDING_H_

#include <cstddef>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/backends/xnnpack/node_folding.h"

namespace edgefleet {
namespace xnnpack {

// Folds every run of three nodes P, Sigmoid(v), Multiply(v, s) (either
// operand order) where P is a float32 convolution, depthwise convolution or
// fully connected node without a fused activation whose only output v is
// read by exactly those two nodes, s = sigmoid(v) is read only by the
// Multiply, neither is a delegate input or output, the Sigmoid and the
// Multiply have no output range (XNNPACK's default, -inf to inf), and
// `runs` accepts P with the Multiply's output and activation kSilu.
// Removes the Sigmoid and Multiply nodes; returns how many SiLUs were
// folded.
size_t FoldFloatSilus(Graph& graph, const NodeRuns& runs);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_SILU_FOLDING_H_
