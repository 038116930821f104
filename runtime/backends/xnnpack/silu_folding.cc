#include "runtime/backends/xnnpack/silu_folding.h"

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
  return FoldFollowers(g, [&](const Graph& graph, const Node& p, size_t next, Node* fused) {
    if (next + 1 >= graph.nodes.size() || !IsFloatDense(graph, p)) return size_t{0};
    const Node& sig = graph.nodes[next];
    const Node& mul = graph.nodes[next + 1];
    const uint32_t v = p.outputs[0];
    if (sig.type != NodeType::kSigmoid || sig.inputs.size() != 1 || sig.outputs.size() != 1 ||
        sig.inputs[0] != v || mul.type != NodeType::kMultiply || mul.inputs.size() != 2 ||
        mul.outputs.size() != 1 || !Unbounded(sig) || !Unbounded(mul)) {
      return size_t{0};
    }
    const uint32_t s = sig.outputs[0];
    const bool operands =
        (mul.inputs[0] == v && mul.inputs[1] == s) || (mul.inputs[0] == s && mul.inputs[1] == v);
    *fused = p;
    fused->outputs[0] = mul.outputs[0];
    fused->activation = FusedActivation::kSilu;
    const bool ok = operands && readers[v] == 2 && readers[s] == 1 &&
                    !graph.values[v].is_external() && !graph.values[s].is_external() &&
                    graph.values[s].type == DataType::kFp32 &&
                    graph.values[mul.outputs[0]].type == DataType::kFp32 && runs(graph, *fused);
    return size_t{ok ? 2u : 0u};
  });
}

}  // namespace xnnpack
}  // namespace edgefleet
