// FoldInt8Clamps: a static int8 Clamp right after a node that can carry an
// output range is folded into that node, as the real runtime's XNNPACK
// fuses clamps into their producers at runtime creation: the node writes
// the Clamp's output value, in the Clamp's quantization (one
// requantization, not two, when the Clamp's output quantization differs: a
// ReLU the quantizer did not fuse), with the intersection of the two output
// ranges. This XNNPACK (2022) refuses a Clamp that requantizes, and our own
// convolutions would otherwise run it as a step of its own.
//
// Stateless; thread-compatible (edits the graph it is given).

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_CLAMP_FOLDING_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_CLAMP_FOLDING_H_

#include <cstddef>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/backends/xnnpack/node_folding.h"

namespace edgefleet {
namespace xnnpack {

// Folds every Clamp from a per-tensor qint8 value to a per-tensor qint8
// value whose input is the only output of a convolution, depthwise or
// transposed convolution, fully connected, add, subtract, multiply or
// average pooling node, read by nothing else and not a delegate output,
// when `runs` accepts the folded node. Removes the folded Clamps from
// `graph`; returns how many.
size_t FoldInt8Clamps(Graph& graph, const NodeRuns& runs);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_CLAMP_FOLDING_H_
