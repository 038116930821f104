// FoldInt8Clamps: a Clamp after an int8 pointwise convolution our kernels
// take becomes that convolution's output range (its output value and the
// intersection of the ranges); it stays when the convolution's output has
// another reader or the Clamp changes the quantization. (The folded
// arithmetic is checked against the real runtime by ZooInt8Test and
// MiniZooInt8Test.)

#include "runtime/backends/xnnpack/int8_dense_nodes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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
    Node conv;
    conv.type = NodeType::kConv2d;
    conv.inputs = {0, 1, 2};
    conv.outputs = {3};
    conv.window.group_input_channels = 8;
    conv.window.group_output_channels = 16;
    Node clamp;
    clamp.type = NodeType::kClamp;
    clamp.inputs = {3};
    clamp.outputs = {4};
    clamp.output_min = 0.0f;
    clamp.output_max = 6.0f;
    g.nodes = {conv, clamp};
  }
  std::vector<int8_t> weights = std::vector<int8_t>(16 * 8, 1);
  std::vector<int32_t> bias = std::vector<int32_t>(16, 0);
  Graph g;
};

TEST(FoldInt8Clamps, AClampAfterOurConvolutionBecomesItsRange) {
  if (!optimized::Int8PointwiseAvailable()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  ConvClampGraph c;
  c.g.nodes[0].output_max = 4.0f;  // the convolution's own range narrows the clamp's
  ASSERT_TRUE(Int8DenseKernelPreferred(c.g, c.g.nodes[0]));
  EXPECT_EQ(FoldInt8Clamps(c.g), 1u);
  ASSERT_EQ(c.g.nodes.size(), 1u);
  EXPECT_EQ(c.g.nodes[0].type, NodeType::kConv2d);
  EXPECT_EQ(c.g.nodes[0].outputs, std::vector<uint32_t>{4});
  EXPECT_EQ(c.g.nodes[0].output_min, 0.0f);
  EXPECT_EQ(c.g.nodes[0].output_max, 4.0f);
}

TEST(FoldInt8Clamps, AClampStaysWhenTheOutputHasAnotherReader) {
  if (!optimized::Int8PointwiseAvailable()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  ConvClampGraph c;
  Node add;
  add.type = NodeType::kAdd;
  add.inputs = {3, 3};
  add.outputs = {4};
  c.g.nodes.push_back(add);
  EXPECT_EQ(FoldInt8Clamps(c.g), 0u);
  EXPECT_EQ(c.g.nodes.size(), 3u);
}

TEST(FoldInt8Clamps, AClampStaysWhenItRequantizes) {
  if (!optimized::Int8PointwiseAvailable()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  ConvClampGraph c;
  c.g.values[4].zero_point = -1;
  EXPECT_EQ(FoldInt8Clamps(c.g), 0u);
  EXPECT_EQ(c.g.nodes.size(), 2u);
  EXPECT_EQ(c.g.nodes[0].outputs, std::vector<uint32_t>{3});
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
