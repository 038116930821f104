#include "runtime/backends/xnnpack/silu_folding.h"

#include <utility>
#include <vector>

namespace edgefleet {
namespace xnnpack {
namespace {

bool IsFloatDense(const Graph& g, const Node& n) {
  if (n.type != NodeType::kConv2d && n.type != NodeType::kDepthwiseConv2d &&
      n.type != NodeType::kFullyConnected) {
    return false;
  }
  return n.activation == FusedActivation::kNone && n.outputs.size() == 1 &&
         g.values[n.outputs[0]].type == DataType::kFp32;
}

bool Unbounded(const Node& n) {
  return n.output_min == -__builtin_inff() && n.output_max == __builtin_inff();
}

}  // namespace

size_t FoldFloatSilus(Graph& g, const NodeRuns& runs) {
  const std::vector<uint32_t> readers = CountReaders(g);
  size_t folded = 0;
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& p = g.nodes[i];
    if (i + 2 < g.nodes.size() && IsFloatDense(g, p)) {
      const Node& sig = g.nodes[i + 1];
      const Node& mul = g.nodes[i + 2];
      const uint32_t v = p.outputs[0];
      const bool shape = sig.type == NodeType::kSigmoid && sig.inputs.size() == 1 &&
                         sig.outputs.size() == 1 && sig.inputs[0] == v &&
                         mul.type == NodeType::kMultiply && mul.inputs.size() == 2 &&
                         mul.outputs.size() == 1 && Unbounded(sig) && Unbounded(mul);
      if (shape) {
        const uint32_t s = sig.outputs[0];
        const bool operands = (mul.inputs[0] == v && mul.inputs[1] == s) ||
                              (mul.inputs[0] == s && mul.inputs[1] == v);
        Node fused = p;
        fused.outputs[0] = mul.outputs[0];
        fused.activation = FusedActivation::kSilu;
        if (operands && readers[v] == 2 && readers[s] == 1 && !g.values[v].is_external() &&
            !g.values[s].is_external() && g.values[s].type == DataType::kFp32 &&
            g.values[mul.outputs[0]].type == DataType::kFp32 && runs(g, fused)) {
          kept.push_back(std::move(fused));
          ++folded;
          i += 2;
          continue;
        }
      }
    }
    kept.push_back(std::move(p));
  }
  g.nodes = std::move(kept);
  return folded;
}

}  // namespace xnnpack
}  // namespace edgefleet
