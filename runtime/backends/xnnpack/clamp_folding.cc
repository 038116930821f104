#include "runtime/backends/xnnpack/clamp_folding.h"

#include <cmath>
#include <cstdint>
#include <utility>
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
  size_t folded = 0;
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (Node& n : g.nodes) {
    if (n.type == NodeType::kClamp && !kept.empty() && n.inputs.size() == 1 &&
        n.outputs.size() == 1 && CarriesOutputRange(kept.back().type) &&
        kept.back().outputs.size() == 1 && kept.back().outputs[0] == n.inputs[0]) {
      const Node& producer = kept.back();
      const uint32_t mid = producer.outputs[0];
      const Value& a = g.values[mid];
      const Value& b = g.values[n.outputs[0]];
      Node fused = producer;
      fused.outputs[0] = n.outputs[0];
      fused.output_min = std::fmax(producer.output_min, n.output_min);
      fused.output_max = std::fmin(producer.output_max, n.output_max);
      if (readers[mid] == 1 && !a.is_external() && a.is_per_tensor_qint8() &&
          b.is_per_tensor_qint8() && fused.output_min <= fused.output_max && runs(g, fused)) {
        kept.back() = std::move(fused);
        ++folded;
        continue;
      }
    }
    kept.push_back(std::move(n));
  }
  g.nodes = std::move(kept);
  return folded;
}

}  // namespace xnnpack
}  // namespace edgefleet
