// DecodeGraph on malformed quantization parameters and on tensor shapes that
// do not fit their node: each malformation of the test graph
// (decoder_test_graph.h) must be a clean error naming the problem; every
// family of cases has the unmutated graph as its positive control.

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "runtime/backends/xnnpack/decoder_test_graph.h"
#include "runtime/backends/xnnpack/graph_decoder.h"
#include "runtime/backends/xnnpack/graph_test_util.h"
#include "xnnpack_graph_generated.h"

namespace edgefleet {
namespace xnnpack {
namespace {

namespace fb = edgefleet_xnn;
using testing::Expect;
using testing::ExpectRejected;
using testing::PerChannel;
using testing::PerTensor;
using testing::RunCases;
using testing::TestGraph;

TEST(GraphDecoder, RejectsBadQuantization) {
  auto qc8 = fb::XNNDatatype::xnn_datatype_qcint8;
  auto q8 = fb::XNNDatatype::xnn_datatype_qint8;
  // Controls: per-channel filter along dim 0 (3 output channels), per-tensor input.
  {
    TestGraph t;
    t.Quantize(1, qc8, PerChannel({0.5f, 0.25f, 0.125f}, 0));
    t.Quantize(0, q8, PerTensor(0.1f, -3));
    const std::vector<uint8_t> bytes = t.Bytes();
    Result<std::unique_ptr<Graph>> g = DecodeGraph(bytes.data(), bytes.size(), nullptr);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(g.get()->values[1].quant, QuantKind::kPerChannel);
    EXPECT_EQ(g.get()->values[1].channel_scales, (std::vector<float>{0.5f, 0.25f, 0.125f}));
    EXPECT_EQ(g.get()->values[0].zero_point, -3);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct QCase {
    const char* what;
    size_t value;
    fb::XNNDatatype type;
    fb::XNNQuantParamsUnion params;
    Expect want;
  };
  std::vector<QCase> cases;
  cases.push_back({"2 scales for 3 channels",
                   1,
                   qc8,
                   PerChannel({0.5f, 0.5f}, 0),
                   {Error::kInvalidProgram, "2 scales for 3 channels"}});
  cases.push_back({"4 scales for 3 channels",
                   1,
                   qc8,
                   PerChannel({1, 1, 1, 1}, 0),
                   {Error::kInvalidProgram, "4 scales for 3 channels"}});
  cases.push_back({"no scales",
                   1,
                   qc8,
                   PerChannel({}, 0),
                   {Error::kInvalidProgram, "0 scales for 3 channels"}});
  cases.push_back({"channel dim = rank",
                   1,
                   qc8,
                   PerChannel({1, 1, 1}, 4),
                   {Error::kInvalidProgram, "channel dim 4 (rank 4)"}});
  cases.push_back({"negative channel dim",
                   1,
                   qc8,
                   PerChannel({1, 1, 1}, -1),
                   {Error::kInvalidProgram, "channel dim -1"}});
  cases.push_back({"channel dim whose extent differs",
                   1,
                   qc8,
                   PerChannel({1, 1, 1}, 3),
                   {Error::kInvalidProgram, "3 scales for 2 channels"}});
  cases.push_back({"zero channel scale",
                   1,
                   qc8,
                   PerChannel({0.5f, 0.0f, 0.5f}, 0),
                   {Error::kInvalidProgram, "scale of 0"}});
  cases.push_back({"NaN channel scale",
                   1,
                   qc8,
                   PerChannel({0.5f, nan, 0.5f}, 0),
                   {Error::kInvalidProgram, "scale of nan"}});
  cases.push_back({"negative channel scale",
                   1,
                   qc8,
                   PerChannel({0.5f, -1.0f, 0.5f}, 0),
                   {Error::kInvalidProgram, "scale of -1"}});
  cases.push_back({"per-channel on fp32",
                   1,
                   fb::XNNDatatype::xnn_datatype_fp32,
                   PerChannel({1, 1, 1}, 0),
                   {Error::kInvalidProgram, "per-channel quantization on a"}});
  cases.push_back(
      {"zero tensor scale", 0, q8, PerTensor(0.0f, 0), {Error::kInvalidProgram, "scale 0"}});
  cases.push_back(
      {"NaN tensor scale", 0, q8, PerTensor(nan, 0), {Error::kInvalidProgram, "scale nan"}});
  cases.push_back(
      {"infinite tensor scale", 0, q8, PerTensor(inf, 0), {Error::kInvalidProgram, "scale inf"}});
  cases.push_back({"int8 zero point out of range",
                   0,
                   q8,
                   PerTensor(0.1f, 128),
                   {Error::kInvalidProgram, "zero point 128"}});
  cases.push_back({"uint8 zero point negative",
                   0,
                   fb::XNNDatatype::xnn_datatype_quint8,
                   PerTensor(0.1f, -1),
                   {Error::kInvalidProgram, "zero point -1"}});
  cases.push_back({"per-tensor on fp32",
                   0,
                   fb::XNNDatatype::xnn_datatype_fp32,
                   PerTensor(0.1f, 0),
                   {Error::kInvalidProgram, "per-tensor quantization on a"}});
  cases.push_back({"no params",
                   0,
                   q8,
                   fb::XNNQuantParamsUnion(),
                   {Error::kInvalidProgram, "no quantization params"}});
  for (QCase& c : cases) {
    TestGraph t;
    t.Quantize(c.value, c.type, std::move(c.params));
    ExpectRejected(t.Bytes(), nullptr, c.want, c.what);
  }
}

TEST(GraphDecoder, RejectsShapesThatDoNotMatchTheNode) {
  RunCases({
      {"conv filter kernel differs from kernel_height",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).kernel_height = 2; },
       {Error::kInvalidProgram, "filter shape does not match"}},
      {"conv input channels differ from groups x group_input_channels",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).group_input_channels = 3; },
       {Error::kInvalidProgram, "input has 2 channels, expects 1 x 3"}},
      {"conv zero groups",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).groups = 0; },
       {Error::kInvalidProgram, "0 groups"}},
      {"conv zero stride",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).subsampling_height = 0; },
       {Error::kInvalidProgram, "window does not fit"}},
      {"conv kernel larger than the padded input",
       [](TestGraph& t) {
         auto& c = t.Node<fb::_XNNNodeConvT>(0);
         c.padding_top = c.padding_bottom = 0;
         c.dilation_height = 4;
       },
       {Error::kInvalidProgram, "window does not fit"}},
      {"conv bias of the wrong length",
       [](TestGraph& t) { t.Tensor(2).dims = {2}; },
       {Error::kInvalidProgram, "bias has 2 elements for 3 channels"}},
      {"conv output shape differs from the inferred one",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).padding_top = 0; },
       {Error::kInvalidProgram, "output 3 has the wrong shape"}},
      {"fully connected depth differs from the input",
       [](TestGraph& t) {
         t.Tensor(8).dims = {5, 3};
         t.g.constant_data[3]->size = 60;
       },
       {Error::kInvalidProgram, "input depth 2, filter 3"}},
      {"fully connected 3-D filter",
       [](TestGraph& t) {
         t.Tensor(8).dims = {5, 2, 1};
         t.Tensor(8).num_dims = 3;
       },
       {Error::kInvalidProgram, "needs a 2-D filter"}},
      {"fully connected transposed flag flips the filter",
       [](TestGraph& t) { t.Node<fb::XNNFullyConnectedT>(4).flags = 1; },
       {Error::kInvalidProgram, "input depth 2, filter 5"}},
      {"concatenation axis = rank",
       [](TestGraph& t) { t.Node<fb::_XNNCatT>(1).axis = 4; },
       {Error::kInvalidProgram, "axis 4 of rank 4"}},
      {"concatenation axis 1 gives another shape",
       [](TestGraph& t) { t.Node<fb::_XNNCatT>(1).axis = 1; },
       {Error::kInvalidProgram, "output 5 has the wrong shape"}},
      {"concatenation operands differ off the axis",
       [](TestGraph& t) { t.Node<fb::_XNNCatT>(1).input2_id = 1; },
       {Error::kInvalidProgram, "differ off the axis"}},
      {"transpose perm repeats an axis",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticTransposeT>(2).perm = {0, 3, 3, 2};
       },
       {Error::kInvalidProgram, "not a permutation"}},
      {"transpose perm names axis 4 of 4",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticTransposeT>(2).perm = {0, 3, 1, 4};
       },
       {Error::kInvalidProgram, "not a permutation"}},
      {"transpose perm shorter than the rank",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticTransposeT>(2).perm = {0, 2, 1};
         t.Node<fb::XNNStaticTransposeT>(2).num_dims = 3;
       },
       {Error::kInvalidProgram, "transpose of rank 4, perm of 3"}},
      {"transpose num_dims disagrees with perm",
       [](TestGraph& t) { t.Node<fb::XNNStaticTransposeT>(2).num_dims = 3; },
       {Error::kInvalidProgram, "transpose num_dims 3, perm of 4"}},
      {"transpose perm longer than 6",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticTransposeT>(2).perm = {0, 1, 2, 3, 4, 5, 6};
         t.Node<fb::XNNStaticTransposeT>(2).num_dims = 7;
       },
       {Error::kInvalidProgram, "longer than 6"}},
      {"slice offset past the dim",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticSliceT>(3).offsets = {0, 0, 0, 5};
       },
       {Error::kInvalidProgram, "slice [5, +2) outside dim 3 of 4"}},
      {"slice size past the dim",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticSliceT>(3).sizes = {1, 6, 4, 4};
       },
       {Error::kInvalidProgram, "slice [1, +4) outside dim 3 of 4"}},
      {"slice offset huge (wraps)",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticSliceT>(3).offsets = {0, 0, 0, 0xFFFFFFFFu};
       },
       {Error::kInvalidProgram, "outside dim 3"}},
      {"slice without sizes",
       [](TestGraph& t) { t.Node<fb::XNNStaticSliceT>(3).sizes.clear(); },
       {Error::kInvalidProgram, "node list missing"}},
      {"node of unknown type",
       [](TestGraph& t) { t.g.xnodes[1]->xnode_union.Reset(); },
       {Error::kNotSupported, "node type 0"}},
      {"output range with a NaN bound",
       [](TestGraph& t) {
         t.g.xnodes[0]->output_min_max = std::make_unique<fb::OutputMinMaxT>();
         t.g.xnodes[0]->output_min_max->output_min = 1;
         t.g.xnodes[0]->output_min_max->output_max = std::numeric_limits<float>::quiet_NaN();
       },
       {Error::kInvalidProgram, "output range"}},
  });
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet
