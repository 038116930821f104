// FoldInt8Clamps: a Clamp after an int8 pointwise convolution our kernels
// take becomes that convolution's output (the Clamp's value and
// quantization, the intersection of the ranges), also when the Clamp
// requantizes; it stays when the convolution's output has another reader.
// (The folded arithmetic is checked against the real runtime by
// ZooInt8Test and MiniZooInt8Test.)

#include "runtime/backends/xnnpack/clamp_folding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/backends/xnnpack/folding_test_graph.h"
#include "runtime/backends/xnnpack/int8_dense_nodes.h"
#include "runtime/kernels/optimized/int8_pointwise_nhwc.h"

namespace edgefleet {
namespace xnnpack {
namespace {

// x [1, 4, 4, 8] -> conv 1x1 -> mid [1, 4, 4, 16] -> clamp [0, 6] -> y.
struct ConvClampGraph {
  ConvClampGraph() {
    g.values.resize(5);
    auto int8 = [&](uint32_t id, Dims dims, float scale, int32_t zero) {
      Value& v = g.values[id];
      v.id = id;
      v.type = DataType::kQint8;
      v.dims = std::move(dims);
      v.quant = QuantKind::kPerTensor;
      v.scale = scale;
      v.zero_point = zero;
    };
    int8(0, {1, 4, 4, 8}, 0.1f, 3);
    g.values[0].external_id = 0;
    g.values[0].flags = kFlagExternalInput;
    Value& w = g.values[1];
    w.id = 1;
    w.type = DataType::kQcint8;
    w.dims = {16, 1, 1, 8};
    w.quant = QuantKind::kPerChannel;
    w.channel_scales.assign(16, 0.02f);
    w.data = weights.data();
    Value& b = g.values[2];
    b.id = 2;
    b.type = DataType::kQcint32;
    b.dims = {16};
    b.data = bias.data();
    int8(3, {1, 4, 4, 16}, 0.05f, -2);
    int8(4, {1, 4, 4, 16}, 0.05f, -2);
    g.values[4].external_id = 1;
    g.values[4].flags = kFlagExternalOutput;
    const Node conv = testing::Conv1x1(0, 1, 2, 3);
    Node clamp = testing::MakeNode(NodeType::kClamp, {3}, 4);
    clamp.output_min = 0.0f;
    clamp.output_max = 6.0f;
    g.nodes = {conv, clamp};
  }
  std::vector<int8_t> weights = std::vector<int8_t>(16 * 8, 1);
  std::vector<int32_t> bias = std::vector<int32_t>(16, 0);
  Graph g;
};

bool OurKernels(const Graph& g, const Node& n) { return Int8DenseKernelPreferred(g, n); }

TEST(FoldInt8Clamps, AClampAfterOurConvolutionBecomesItsRange) {
  if (!optimized::Int8PointwiseAvailable()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  ConvClampGraph c;
  c.g.nodes[0].output_max = 4.0f;  // the convolution's own range narrows the clamp's
  ASSERT_TRUE(Int8DenseKernelPreferred(c.g, c.g.nodes[0]));
  EXPECT_EQ(FoldInt8Clamps(c.g, OurKernels), 1u);
  ASSERT_EQ(c.g.nodes.size(), 1u);
  EXPECT_EQ(c.g.nodes[0].type, NodeType::kConv2d);
  EXPECT_EQ(c.g.nodes[0].outputs, std::vector<uint32_t>{4});
  EXPECT_EQ(c.g.nodes[0].output_min, 0.0f);
  EXPECT_EQ(c.g.nodes[0].output_max, 4.0f);
}

TEST(FoldInt8Clamps, AClampStaysWhenTheOutputHasAnotherReader) {
  if (!optimized::Int8PointwiseAvailable()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  ConvClampGraph c;
  const Node add = testing::MakeNode(NodeType::kAdd, {3, 3}, 4);
  c.g.nodes.push_back(add);
  EXPECT_EQ(FoldInt8Clamps(c.g, OurKernels), 0u);
  EXPECT_EQ(c.g.nodes.size(), 3u);
}

TEST(FoldInt8Clamps, ARequantizingClampIsFoldedToo) {
  if (!optimized::Int8PointwiseAvailable()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  ConvClampGraph c;
  c.g.values[4].scale = 0.03f;  // the convolution now requantizes to the clamp's output
  c.g.values[4].zero_point = -128;
  EXPECT_EQ(FoldInt8Clamps(c.g, OurKernels), 1u);
  ASSERT_EQ(c.g.nodes.size(), 1u);
  EXPECT_EQ(c.g.nodes[0].outputs, std::vector<uint32_t>{4});
  EXPECT_TRUE(Int8DenseKernelPreferred(c.g, c.g.nodes[0]));
}

TEST(FoldInt8Clamps, NotWhereTheFoldedNodeWouldNotRun) {
  ConvClampGraph c;
  EXPECT_EQ(FoldInt8Clamps(c.g, [](const Graph&, const Node&) { return false; }), 0u);
  EXPECT_EQ(c.g.nodes.size(), 2u);
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
