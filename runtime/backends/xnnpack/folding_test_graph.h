// Nodes the folding passes' tests build their graphs from
// (clamp_folding_test.cc, activation_folding_test.cc): a node of a type
// with its input and output value ids, and the 8 -> 16 channel 1 x 1
// convolution both tests fold into. Test-only; stateless.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_FOLDING_TEST_GRAPH_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_FOLDING_TEST_GRAPH_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"

namespace edgefleet {
namespace xnnpack {
namespace testing {

inline Node MakeNode(NodeType type, std::vector<uint32_t> inputs, uint32_t output) {
  Node n;
  n.type = type;
  n.inputs = std::move(inputs);
  n.outputs = {output};
  return n;
}

// y = conv(x, w) + b, 1 x 1, 8 input and 16 output channels, one group.
inline Node Conv1x1(uint32_t x, uint32_t w, uint32_t b, uint32_t y) {
  Node conv = MakeNode(NodeType::kConv2d, {x, w, b}, y);
  conv.window.group_input_channels = 8;
  conv.window.group_output_channels = 16;
  return conv;
}

}  // namespace testing
}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_FOLDING_TEST_GRAPH_H_
