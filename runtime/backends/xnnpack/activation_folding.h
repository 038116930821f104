// FoldFloatActivations: an activation right after a float32 node our dense
// kernels run is folded into that node, which then computes it in its
// epilogue while its output is still in cache (optimized/epilogue.h):
// the SiLU the exporter writes as Sigmoid then Multiply (nn.SiLU,
// EfficientNet's activation: y = x * sigmoid(x)), Hardswish (MobileNetV3's)
// and a lone Sigmoid (a squeeze-and-excitation gate). Unfolded, each runs as an XNNPACK step of its
// own, a pass over the tensor (EfficientNet-B0: 49 SiLUs; MobileNetV3-small: 10 Hardswishes after
// our convolutions).
//
// Stateless; thread-compatible (edits the graph it is given).

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_ACTIVATION_FOLDING_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_ACTIVATION_FOLDING_H_

#include <cstddef>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/backends/xnnpack/node_folding.h"

namespace edgefleet {
namespace xnnpack {

// Folds, after every float32 convolution, depthwise convolution or fully
// connected node P without a fused activation whose only output v is read
// by nothing but the activation's nodes and is not a delegate input or
// output:
//  - Sigmoid(v) then Multiply(v, s) (either operand order), s = sigmoid(v)
//    read only by the Multiply: P gets kSilu and the Multiply's output;
//  - Hardswish(v) or Sigmoid(v) (a squeeze-and-excitation gate), v read
//    by nothing else: P gets kHardswish or kSigmoid and its output;
// when the activation's nodes have no output range (XNNPACK's default,
// -inf to inf) and `runs` accepts the folded P. Removes the activation's
// nodes; returns how many activations were folded.
size_t FoldFloatActivations(Graph& graph, const NodeRuns& runs);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_ACTIVATION_FOLDING_H_
