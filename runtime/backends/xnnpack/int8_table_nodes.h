// Static int8 Clamp nodes whose input and output quantizations differ (a
// ReLU or ReLU6 the quantizer did not fuse with the operator before it),
// which this XNNPACK (2022) refuses and FoldInt8Clamps (clamp_folding.h)
// did not fold into one of our convolutions: a table of the 256 results,
//   table[q] = min(max(round_half_even(clamp((q - zx) * sx, lo, hi) / sy) + zy, -128), 127)
// with [lo, hi] the node's output range, applied element by element. (The
// real runtime's XNNPACK fuses such a Clamp into the operator before it,
// requantizing once; after an operator our kernels do not fold into, the
// two roundings here can differ from its one by a quantization step.)
//
// Stateless functions; buffers belong to the caller. Thread-compatible.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_TABLE_NODES_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_TABLE_NODES_H_

#include <vector>

#include "runtime/backends/xnnpack/graph.h"

namespace edgefleet {
namespace xnnpack {

// True for a Clamp from a per-tensor qint8 value to a per-tensor qint8
// value with finite positive scales.
bool Int8TableSupports(const Graph& graph, const Node& node);

// Runs `node` (REQUIRES: Int8TableSupports) on the current shapes `dims`:
// `in` / `out` are the buffers of its input and output.
void RunInt8TableNode(const Graph& graph, const Node& node, const std::vector<Dims>& dims,
                      const void* in, void* out);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_TABLE_NODES_H_
