#include "runtime/backends/xnnpack/clamp_folding.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace edgefleet {
namespace xnnpack {
namespace {

bool CarriesOutputRange(NodeType type) {
  switch (type) {
    case NodeType::kConv2d:
    case NodeType::kDepthwiseConv2d:
    case NodeType::kConvTranspose2d:
    case NodeType::kFullyConnected:
    case NodeType::kAdd:
    case NodeType::kSubtract:
    case NodeType::kMultiply:
    case NodeType::kAvgPooling2d:
      return true;
    default:
      return false;
  }
}

}  // namespace

size_t FoldInt8Clamps(Graph& g, const NodeRuns& runs) {
  const std::vector<uint32_t> readers = CountReaders(g);
  return FoldFollowers(g, [&](const Graph& graph, const Node& producer, size_t next, Node* fused) {
    if (next >= graph.nodes.size()) return size_t{0};
    const Node& n = graph.nodes[next];
    if (n.type != NodeType::kClamp || n.inputs.size() != 1 || n.outputs.size() != 1 ||
        !CarriesOutputRange(producer.type) || producer.outputs.size() != 1 ||
        producer.outputs[0] != n.inputs[0]) {
      return size_t{0};
    }
    const uint32_t mid = producer.outputs[0];
    const Value& a = graph.values[mid];
    const Value& b = graph.values[n.outputs[0]];
    *fused = producer;
    fused->outputs[0] = n.outputs[0];
    fused->output_min = std::fmax(producer.output_min, n.output_min);
    fused->output_max = std::fmin(producer.output_max, n.output_max);
    const bool ok = readers[mid] == 1 && !a.is_external() && a.is_per_tensor_qint8() &&
                    b.is_per_tensor_qint8() && fused->output_min <= fused->output_max &&
                    runs(graph, *fused);
    return size_t{ok ? 1u : 0u};
  });
}

}  // namespace xnnpack
}  // namespace edgefleet
