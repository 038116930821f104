// FoldFloatActivations: Sigmoid then Multiply, or Hardswish, after a float32
// convolution our dense kernels take becomes that convolution's fused SiLU
// (either operand order) or Hardswish; every condition that keeps the
// nodes is checked on its own. (The fused arithmetic:
// DenseNodes.MatchDirectSums; the lowered EfficientNet-B0 and
// MobileNetV3 against torch: ZooTest.)

#include "runtime/backends/xnnpack/activation_folding.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "runtime/backends/xnnpack/dense_nodes.h"
#include "runtime/backends/xnnpack/folding_test_graph.h"

namespace edgefleet {
namespace xnnpack {
namespace {

// x [1, 4, 4, 8] -> conv 1x1 -> v -> sigmoid -> s; y = v * s.
struct ConvSiluGraph {
  ConvSiluGraph() {
    g.values.resize(6);
    auto fp32 = [&](uint32_t id, Dims dims) {
      Value& v = g.values[id];
      v.id = id;
      v.type = DataType::kFp32;
      v.dims = std::move(dims);
    };
    fp32(0, {1, 4, 4, 8});
    g.values[0].external_id = 0;
    g.values[0].flags = kFlagExternalInput;
    fp32(1, {16, 1, 1, 8});
    g.values[1].data = weights.data();
    fp32(2, {16});
    g.values[2].data = bias.data();
    fp32(3, {1, 4, 4, 16});  // v
    fp32(4, {1, 4, 4, 16});  // s
    fp32(5, {1, 4, 4, 16});  // y
    g.values[5].external_id = 1;
    g.values[5].flags = kFlagExternalOutput;
    g.nodes = {testing::Conv1x1(0, 1, 2, 3), testing::MakeNode(NodeType::kSigmoid, {3}, 4),
               testing::MakeNode(NodeType::kMultiply, {3, 4}, 5)};
  }
  std::vector<float> weights = std::vector<float>(16 * 8, 0.5f);
  std::vector<float> bias = std::vector<float>(16, 0.25f);
  Graph g;
};

bool Any(const Graph&, const Node&) { return true; }

// The same convolution followed by y = hardswish(v) (value 4 unused).
ConvSiluGraph WithHardswish() {
  ConvSiluGraph c;
  c.g.nodes = {c.g.nodes[0], testing::MakeNode(NodeType::kHardswish, {3}, 5)};
  return c;
}

TEST(FoldFloatActivations, SigmoidAndMultiplyAfterOurConvolutionBecomeItsSilu) {
  for (bool swapped : {false, true}) {
    ConvSiluGraph c;
    if (swapped) c.g.nodes[2].inputs = {4, 3};
    ASSERT_TRUE(DenseKernelPreferred(c.g, c.g.nodes[0]));
    EXPECT_EQ(FoldFloatActivations(c.g, DenseKernelPreferred), 1u);
    ASSERT_EQ(c.g.nodes.size(), 1u);
    EXPECT_EQ(c.g.nodes[0].type, NodeType::kConv2d);
    EXPECT_EQ(c.g.nodes[0].activation, FusedActivation::kSilu);
    EXPECT_EQ(c.g.nodes[0].outputs[0], 5u);
  }
}

TEST(FoldFloatActivations, HardswishOrSigmoidAfterOurConvolutionBecomesItsActivation) {
  for (NodeType type : {NodeType::kHardswish, NodeType::kSigmoid}) {
    ConvSiluGraph c = WithHardswish();
    c.g.nodes[1].type = type;
    EXPECT_EQ(FoldFloatActivations(c.g, DenseKernelPreferred), 1u);
    ASSERT_EQ(c.g.nodes.size(), 1u);
    EXPECT_EQ(c.g.nodes[0].activation,
              type == NodeType::kSigmoid ? FusedActivation::kSigmoid : FusedActivation::kHardswish);
    EXPECT_EQ(c.g.nodes[0].outputs[0], 5u);
  }
}

void ExpectKept(ConvSiluGraph& c, const NodeRuns& runs, const char* why) {
  const size_t nodes = c.g.nodes.size();
  EXPECT_EQ(FoldFloatActivations(c.g, runs), 0u) << why;
  EXPECT_EQ(c.g.nodes.size(), nodes) << why;
  EXPECT_EQ(c.g.nodes[0].activation, FusedActivation::kNone) << why;
}

TEST(FoldFloatActivations, KeepsTheHardswishWhenAConditionFails) {
  {
    ConvSiluGraph c = WithHardswish();
    ExpectKept(
        c, [](const Graph&, const Node&) { return false; }, "the node would not run");
  }
  {
    ConvSiluGraph c = WithHardswish();
    c.g.nodes[1].output_min = 0.0f;
    ExpectKept(c, Any, "the hardswish clamps");
  }
  {
    ConvSiluGraph c = WithHardswish();
    c.g.values[3].external_id = 2;
    c.g.values[3].flags = kFlagExternalOutput;
    ExpectKept(c, Any, "v is a delegate output");
  }
  {
    ConvSiluGraph c = WithHardswish();
    c.g.nodes.push_back(testing::MakeNode(NodeType::kClamp, {3}, 4));
    ExpectKept(c, Any, "v has a second reader");
  }
  {
    ConvSiluGraph c = WithHardswish();
    c.g.nodes[0].activation = FusedActivation::kSilu;
    const size_t nodes = c.g.nodes.size();
    EXPECT_EQ(FoldFloatActivations(c.g, Any), 0u);
    EXPECT_EQ(c.g.nodes.size(), nodes) << "the producer already has an activation";
  }
}

TEST(FoldFloatActivations, KeepsTheSiluWhenAConditionFails) {
  {
    ConvSiluGraph c;
    ExpectKept(
        c, [](const Graph&, const Node&) { return false; }, "the node would not run");
  }
  {
    // sigmoid(v)^2: the multiply does not read v, so no SiLU; the sigmoid
    // alone folds, the multiply stays.
    ConvSiluGraph c;
    c.g.nodes[2].inputs = {4, 4};
    EXPECT_EQ(FoldFloatActivations(c.g, Any), 1u);
    ASSERT_EQ(c.g.nodes.size(), 2u);
    EXPECT_EQ(c.g.nodes[0].activation, FusedActivation::kSigmoid);
    EXPECT_EQ(c.g.nodes[0].outputs[0], 4u);
    EXPECT_EQ(c.g.nodes[1].type, NodeType::kMultiply);
  }
  {
    ConvSiluGraph c;
    c.g.values[3].external_id = 2;
    c.g.values[3].flags = kFlagExternalOutput;
    ExpectKept(c, Any, "v is a delegate output");
  }
  {
    ConvSiluGraph c;
    c.g.nodes.push_back(testing::MakeNode(NodeType::kClamp, {3}, 4));
    ExpectKept(c, Any, "v has a third reader");
  }
  {
    ConvSiluGraph c;
    c.g.nodes[2].output_max = 6.0f;
    ExpectKept(c, Any, "the multiply clamps");
  }
  {
    ConvSiluGraph c;
    c.g.nodes[0].type = NodeType::kAdd;
    c.g.nodes[0].inputs = {0, 0};
    ExpectKept(c, Any, "the producer is not a dense node");
  }
  {
    ConvSiluGraph c;
    std::swap(c.g.nodes[1], c.g.nodes[2]);
    ExpectKept(c, Any, "not in producer, sigmoid, multiply order");
  }
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
