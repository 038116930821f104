#include "runtime/backends/xnnpack/activation_folding.h"

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

// A unary float32 node reading only `v`, without an output range.
bool UnaryOn(const Graph& g, const Node& n, NodeType type, uint32_t v) {
  return n.type == type && n.inputs.size() == 1 && n.outputs.size() == 1 && n.inputs[0] == v &&
         Unbounded(n) && g.values[n.outputs[0]].type == DataType::kFp32;
}

// How many nodes from `next` on compute an activation of v, writing what
// it is and its output; 0 when none does.
size_t MatchActivation(const Graph& g, size_t next, uint32_t v,
                       const std::vector<uint32_t>& readers, FusedActivation* act, uint32_t* out) {
  const Node& first = g.nodes[next];
  if (readers[v] == 1 &&
      (UnaryOn(g, first, NodeType::kHardswish, v) || UnaryOn(g, first, NodeType::kSigmoid, v))) {
    *act =
        first.type == NodeType::kSigmoid ? FusedActivation::kSigmoid : FusedActivation::kHardswish;
    *out = first.outputs[0];
    return 1;
  }
  if (next + 1 >= g.nodes.size() || !UnaryOn(g, first, NodeType::kSigmoid, v)) return 0;
  const Node& mul = g.nodes[next + 1];
  const uint32_t s = first.outputs[0];
  if (mul.type != NodeType::kMultiply || mul.inputs.size() != 2 || mul.outputs.size() != 1 ||
      !Unbounded(mul) || g.values[mul.outputs[0]].type != DataType::kFp32) {
    return 0;
  }
  const bool operands =
      (mul.inputs[0] == v && mul.inputs[1] == s) || (mul.inputs[0] == s && mul.inputs[1] == v);
  if (!operands || readers[v] != 2 || readers[s] != 1 || g.values[s].is_external()) return 0;
  *act = FusedActivation::kSilu;
  *out = mul.outputs[0];
  return 2;
}

}  // namespace

size_t FoldFloatActivations(Graph& g, const NodeRuns& runs) {
  const std::vector<uint32_t> readers = CountReaders(g);
  return FoldFollowers(g, [&](const Graph& graph, const Node& p, size_t next, Node* fused) {
    if (next >= graph.nodes.size() || !IsFloatDense(graph, p)) return size_t{0};
    const uint32_t v = p.outputs[0];
    if (graph.values[v].is_external()) return size_t{0};
    FusedActivation act = FusedActivation::kNone;
    uint32_t out = 0;
    const size_t folded = MatchActivation(graph, next, v, readers, &act, &out);
    if (folded == 0) return size_t{0};
    *fused = p;
    fused->outputs[0] = out;
    fused->activation = act;
    return runs(graph, *fused) ? folded : size_t{0};
  });
}

}  // namespace xnnpack
}  // namespace edgefleet
